"""The systems fisheye ships, as the registry (:mod:`fisheye.checker.systems`) finds
them: a name and the ``package.module:factory`` of its factory, each a
:data:`fisheye.impl.api.SystemFactory` like a user's.

* ``toco``: Algorithm 2 over Algorithm 1 (section 4.2 of the paper), or over the
  broadcast specification at level ``abstract`` (:func:`fisheye.impl.system.toco_factory`);
* ``lcb``: Algorithm 2 or plain broadcasts over the localized causal broadcast
  (:func:`fisheye.impl.lcb.lcb_factory`).
"""

from __future__ import annotations

BUILTIN: dict[str, str] = {
    "toco": "fisheye.impl.system:toco_factory",
    "lcb": "fisheye.impl.lcb:lcb_factory",
}

DEFAULT = "toco"
"""The system the command line explores and simulates unless told another."""
