"""fisheye: fisheye consistency (Friedman, Raynal, Taiani), executable and checkable.

The Python API is this module's names; everything else is internal.

Histories (section 2 of the paper) and their checks::

    import fisheye

    h = fisheye.load("examples/fig4.json")            # any format fisheye check reads
    result = fisheye.check(h, "fisheye")              # a CheckResult
    if result.verdict is fisheye.Verdict.VIOLATION:
        print(fisheye.explain(h, "fisheye").text())   # what `fisheye explain` prints

Systems and their schedules (section 4)::

    report = fisheye.explore("fig6", model="fisheye")   # Algorithm 2 over Algorithm 1
    report.ok, report.violations, report.save("out/")

A protocol of your own is an :class:`Actor` run by an :class:`ActorSystem`
(docs/your-protocol.md), which may offer a compiled kernel of itself (a
:class:`RowKernel`); :mod:`fisheye.testing` turns these into pytest suites.

Importing ``fisheye`` loads none of z3, numba, pyspark or matplotlib: each name is
imported when first used.  The implementation lives in subpackages the names come from:
``fisheye.spec`` (``spec/``: the formal model), ``fisheye.impl`` (``impl/``: the
algorithms as state machines), ``fisheye.checker`` (``checker/``: engines, explorer,
command line); their other names are internal.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

_NAMES: dict[str, str] = {
    # checking histories
    "check": "fisheye._check",
    "load": "fisheye._check",
    "explain": "fisheye._explain",
    "Explanation": "fisheye._explain",
    "Verdict": "fisheye.checker.result",
    "CheckResult": "fisheye.checker.result",
    "History": "fisheye.spec.history",
    "HistoryError": "fisheye.spec.history",
    "ProximityGraph": "fisheye.spec.graph",
    "Model": "fisheye.spec.models",
    # exploring systems
    "explore": "fisheye._explore",
    "Report": "fisheye._explore",
    "Violation": "fisheye._explore",
    "register_system": "fisheye._explore",
    # building systems
    "Actor": "fisheye.impl.actors",
    "ActorSystem": "fisheye.impl.actors",
    "CrashStopSystem": "fisheye.impl.actors",
    "Sends": "fisheye.impl.actors",
    "parse_graph_option": "fisheye.spec.graph",
    "parse_program": "fisheye.impl.programs",
    "Program": "fisheye.impl.programs",
    "Write": "fisheye.impl.programs",
    "Read": "fisheye.impl.programs",
    "Await": "fisheye.impl.programs",
    "System": "fisheye.impl.api",
    "HasOutcomes": "fisheye.impl.api",
    "SystemRequest": "fisheye.impl.api",
    "Property": "fisheye.impl.properties",
    "Expectation": "fisheye.impl.properties",
    "PropertyKind": "fisheye.impl.properties",
    "Network": "fisheye.impl.api",
    "Step": "fisheye.impl.api",
    "replay": "fisheye.impl.api",
    "GlobalState": "fisheye.impl.actors",
    # a compiled kernel of a system (docs/your-protocol.md, "A compiled kernel for your system")
    "HasCompiledKernel": "fisheye.impl.kernel_api",
    "ExplorationKernel": "fisheye.impl.kernel_api",
    "KernelBatch": "fisheye.impl.kernel_api",
    "KernelStatus": "fisheye.impl.kernel_api",
    "RowKernel": "fisheye.impl.row_kernel",
    "row_width": "fisheye.impl.row_kernel",
    "row_fingerprint": "fisheye.impl.row_kernel",
    "persistent_processes": "fisheye.impl.row_kernel",
}

__all__ = ["Actor", "ActorSystem", "Await", "CheckResult", "CrashStopSystem", "Expectation", "Explanation",
           "ExplorationKernel", "GlobalState", "HasCompiledKernel", "HasOutcomes", "History", "HistoryError",
           "KernelBatch", "KernelStatus", "Model", "Network", "Program", "Property", "PropertyKind",
           "ProximityGraph", "Read", "Report", "RowKernel", "Sends", "Step", "System", "SystemRequest",
           "Verdict", "Violation", "Write", "check", "explain", "explore", "load", "parse_graph_option",
           "parse_program", "persistent_processes", "register_system", "replay", "row_fingerprint",
           "row_width"]

if TYPE_CHECKING:
    from fisheye._check import check, load
    from fisheye._explain import Explanation, explain
    from fisheye._explore import Report, Violation, explore, register_system
    from fisheye.checker.result import CheckResult, Verdict
    from fisheye.impl.actors import Actor, ActorSystem, CrashStopSystem, GlobalState, Sends
    from fisheye.impl.api import HasOutcomes, Network, Step, System, SystemRequest, replay
    from fisheye.impl.kernel_api import ExplorationKernel, HasCompiledKernel, KernelBatch, KernelStatus
    from fisheye.impl.programs import Await, Program, Read, Write, parse_program
    from fisheye.impl.properties import Expectation, Property, PropertyKind
    from fisheye.impl.row_kernel import RowKernel, persistent_processes, row_fingerprint, row_width
    from fisheye.spec.graph import ProximityGraph, parse_graph_option
    from fisheye.spec.history import History, HistoryError
    from fisheye.spec.models import Model


def __getattr__(name: str) -> Any:
    module = _NAMES.get(name)
    if module is None:
        raise AttributeError(f"module 'fisheye' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
