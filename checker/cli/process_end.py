"""How the ``fisheye`` program ends: without tearing its objects down one by one.

A check of a large history holds hundreds of thousands of Python objects (the decoded
JSON, the operations, the engine's tables).  Freeing them one at a time when the
command's functions return, then tearing the interpreter down, took about 50 ms of a
0.55 s check of 100,000 operations (measured with ``strace`` between the last write
and the process's end): memory the operating system takes back at once when the process
ends.  So, when ``fisheye`` runs as the program (never when :func:`.main.main` is called
in process):

* :func:`hold_until_exit` keeps a command's large objects referenced to the end;
* :func:`end_at_exit` registers, before anything else registers one, the exit handler
  that runs last: after every other handler (Spark's, multiprocessing's, logging's) and
  after Python has joined every non-daemon thread, it flushes standard output and error
  and ends the process with the command's exit status (``os._exit``), where the
  interpreter would otherwise free everything first.  Where ``main`` did not return
  (an uncaught exception) or a flush fails, it does nothing and the interpreter ends as
  usual.

Every file a command writes is closed by a ``with`` block before the command returns, so
nothing is left to flush but the standard streams."""

from __future__ import annotations

import atexit
import os
import sys
from typing import Any

_held: list[Any] | None = None
"""What :func:`hold_until_exit` keeps (None: the program does not end this way)."""
_status: int | None = None
"""The exit status ``main`` returned (None: it did not return)."""


def end_at_exit() -> None:
    """End this process without teardown once ``main`` returns (module docstring)."""
    global _held
    if _held is None:
        _held = []
        atexit.register(_end_now)


def hold_until_exit(*objects: Any) -> None:
    """Keep ``objects`` alive until the process ends (only when it ends without teardown:
    in process, they are freed as usual)."""
    if _held is not None:
        _held.append(objects)


def returned(status: int) -> int:
    """Record the exit status ``main`` returns, which the process ends with."""
    global _status
    _status = status
    return status


def _end_now() -> None:
    if _status is None:
        return
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except Exception:  # a closed pipe, say: the interpreter ends as usual and reports it
        return
    os._exit(_status)
