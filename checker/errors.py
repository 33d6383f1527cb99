"""Errors of the user, shared by the library and the command line.

A :class:`UsageError` is a bad command line or bad input: the command line prints it as one
plain line on stderr and exits with status 2, never a traceback.  The library raises it
where the user's own words are wrong (a Spark master URL, for instance), so that it need not
import the command line.
"""

from __future__ import annotations


class UsageError(Exception):
    """A bad command line or bad input: one line on stderr, exit status 2."""
