"""pytest verification suites for protocols: assertions, Hypothesis strategies, a
state machine that drives a system step by step, and a pytest plugin.

Tests import it; product code never does (it imports ``hypothesis``, an extra of
``fisheye[test]``, when :mod:`.strategies` or :class:`SystemMachine` is used)::

    from fisheye.testing import assert_consistent, assert_explores_clean, SystemMachine

* :func:`assert_consistent` and :func:`assert_explores_clean`: a failed check raises
  :class:`VerificationFailure` (an ``AssertionError``) whose message is the explanation
  ``fisheye explain`` prints and the command that replays it;
* :func:`assert_kernel_matches`: a system's compiled kernel against its Python form,
  state by state;
* :mod:`fisheye.testing.strategies`: histories, graphs, programs, schedules;
* :class:`SystemMachine`: a Hypothesis ``RuleBasedStateMachine`` that takes one enabled
  step of a system per rule and checks its properties along the run;
* :mod:`fisheye.testing.plugin`: the pytest plugin (loaded by pytest on its own) that
  lists the counterexample files of a failed check in the test report.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from .failure import VerificationFailure

if TYPE_CHECKING:
    from .assertions import assert_consistent, assert_explores_clean
    from .kernels import assert_kernel_matches
    from .stateful import SystemMachine

__all__ = ["SystemMachine", "VerificationFailure", "assert_consistent", "assert_explores_clean",
           "assert_kernel_matches", "strategies"]

_NAMES = {"assert_consistent": "fisheye.testing.assertions",
          "assert_explores_clean": "fisheye.testing.assertions",
          "assert_kernel_matches": "fisheye.testing.kernels",
          "SystemMachine": "fisheye.testing.stateful"}


def __getattr__(name: str) -> Any:
    if name == "strategies":
        return importlib.import_module("fisheye.testing.strategies")
    if name in _NAMES:
        return getattr(importlib.import_module(_NAMES[name]), name)
    raise AttributeError(f"module 'fisheye.testing' has no attribute {name!r}")
