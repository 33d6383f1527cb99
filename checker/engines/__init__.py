"""The public facade over the engines (after Porcupine: a thin facade over private
engines).

``check(history, model, graph, engine="auto")`` decides ``model`` on ``history`` for
the proximity ``graph`` and returns a :class:`~fisheye.checker.result.CheckResult`.
Every *consistent* verdict is re-validated by the executable spec
(:mod:`fisheye.spec.validate`) before it is returned: an engine bug can at worst turn
into an error, never into a false "consistent".
"""

from __future__ import annotations

import time
from collections.abc import Callable

from fisheye.spec import realtime, validate
from fisheye.spec.graph import ProximityGraph
from fisheye.spec.history import History
from fisheye.spec.models import Model, unsupported

from ..errors import UsageError
from ..result import CheckResult, Verdict

ENGINE_NAMES = ("auto", "z3", "direct")


class EngineBug(RuntimeError):
    """An engine returned a witness the spec rejects: a bug, reported loudly."""


def _engine(name: str) -> Callable[..., CheckResult]:
    if name == "z3":
        from .z3engine import check as z3_check

        return z3_check
    if name == "direct":
        from .direct import check as direct_check

        return direct_check
    raise ValueError(f"unknown engine {name!r} (expected one of: {', '.join(ENGINE_NAMES)})")


def _realtime_engine(name: str) -> Callable[..., CheckResult]:
    """The engines of the sequential models with real time, cas and maybe operations."""
    if name == "z3":
        from .z3_realtime import check as z3_check

        return z3_check
    if name == "direct":
        from .lin import check as lin_check

        return lin_check
    raise ValueError(f"unknown engine {name!r} (expected one of: {', '.join(ENGINE_NAMES)})")


def choose_engine(history: History, model: Model) -> str:
    """``auto``: the direct engine whenever it decides the model, else Z3."""
    if realtime.handles(history, model):
        return "direct"
    try:
        from .direct import decides
    except ImportError:
        return "z3"
    return "direct" if decides(history, model) else "z3"


def check(history: History, model: Model | str, graph: ProximityGraph | None = None, *,
          engine: str = "auto", timeout: float | None = None, validate_witness: bool = True
          ) -> CheckResult:
    model = Model(model)
    why = unsupported(history, model)
    if why:
        raise UsageError(why)
    if graph is None:
        graph = ProximityGraph(history.processes, history.edges)
    name = choose_engine(history, model) if engine == "auto" else engine
    start = time.perf_counter()
    run = _realtime_engine(name) if realtime.handles(history, model) else _engine(name)
    result = run(history, model, graph, timeout=timeout)
    if result.verdict is Verdict.CONSISTENT and validate_witness:
        if result.witness is None:
            raise EngineBug(f"engine {name} said consistent without a witness")
        bad = validate.problems(history, model, graph, result.witness)
        if bad:
            raise EngineBug(f"engine {name} gave a witness the spec rejects: {bad[0]}")
    if not result.seconds:
        object.__setattr__(result, "seconds", time.perf_counter() - start)
    return result
