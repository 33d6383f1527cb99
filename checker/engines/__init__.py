"""The public facade over the engines (after Porcupine: a thin facade over private
engines).

``check(history, model, graph, engine="auto")`` decides ``model`` on ``history`` for
the proximity ``graph`` and returns a :class:`~fisheye.checker.result.CheckResult`.
Every *consistent* verdict is re-validated by the executable spec
(:mod:`fisheye.spec.validate`) before it is returned: an engine bug can at worst turn
into an error, never into a false "consistent".  The result's ``seconds`` is the whole
check: every engine tried and the validation of the witness.

``auto`` runs the direct engine and, when it gives up (*unknown*: a budget ran out),
the Z3 engine with what is left of ``timeout``; the answer of the last engine tried is
returned, its message naming what the first one gave up on.  A step budget given by the
caller (``max_steps``) ends the check where it runs out: no engine goes on past it.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import replace

from fisheye.spec import realtime
from fisheye.spec.graph import ProximityGraph
from fisheye.spec.history import History
from fisheye.spec.models import Model, unsupported

from ..errors import UsageError
from ..result import CheckResult, Verdict
from .gcpause import paused_gc
from .limits import Deadline, OutOfTime, out_of_memory

ENGINE_NAMES = ("auto", "z3", "direct")

AUTO_ORDER = ("direct", "z3")
"""Engines ``auto`` tries, in order, until one decides."""

Progress = Callable[[str], None]
"""Receives one line of progress (for stderr) during a long check."""


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


def _direct_sc(history: History, model: Model) -> bool:
    """sc with writes marked maybe but no cas: the direct engine of the untimed models
    decides it (independent parts, maybe writes settled first), faster at scale."""
    return model is Model.SC and not history.has_cas


def _run(name: str, history: History, model: Model, graph: ProximityGraph, timeout: float | None,
         progress: Progress | None, max_steps: int | None, minimal: bool, memory: int | None
         ) -> CheckResult:
    """One engine's answer; running out of memory is *unknown* (:func:`.limits.out_of_memory`)."""
    start = time.perf_counter()
    try:
        return _engine_answer(name, history, model, graph, timeout, progress, max_steps, minimal, memory)
    except Exception as e:  # MemoryError, or Z3's own exception: the one kind answered here
        if not out_of_memory(e):
            raise
        budget = "" if memory is None else f" (a budget of {memory / 2**20:,.0f} MiB)"
        return CheckResult(Verdict.UNKNOWN, model, graph, name, seconds=time.perf_counter() - start,
                           message=f"the {name} engine ran out of memory{budget}")


def _engine_answer(name: str, history: History, model: Model, graph: ProximityGraph, timeout: float | None,
                   progress: Progress | None, max_steps: int | None, minimal: bool, memory: int | None
                   ) -> CheckResult:
    steps: dict[str, int] = {}
    if realtime.handles(history, model) and not (name == "direct" and _direct_sc(history, model)):
        if name == "z3":
            return _realtime_engine(name)(history, model, graph, timeout=timeout, memory=memory)
        if max_steps is not None:
            steps["max_states"] = max_steps
        return _realtime_engine(name)(history, model, graph, timeout=timeout, minimal=minimal, **steps)
    if name == "direct":
        if max_steps is not None:
            steps["max_nodes"] = max_steps
        return _engine(name)(history, model, graph, timeout=timeout, progress=progress, **steps)
    return _engine(name)(history, model, graph, timeout=timeout, memory=memory)


def check(history: History, model: Model | str, graph: ProximityGraph | None = None, *,
          engine: str = "auto", timeout: float | None = None, max_steps: int | None = None,
          minimal: bool = False, memory: int | None = None, validate_witness: bool = True,
          progress: Progress | None = None) -> CheckResult:
    """Decide ``model``; ``timeout`` bounds the whole check (the engines' searches, in
    total for ``auto``, and the validation of a consistent verdict's witness);
    ``max_steps`` bounds the direct engine's search (configurations of the sequential
    search, closures of the causal one; default: the engine's own), the first
    of the two to run out ends it with *unknown*; ``memory`` (bytes) bounds Z3's memory,
    and an engine that runs out of memory (Z3's, or the process's limit) answers
    *unknown*; ``progress`` receives a line every few seconds of a long check.

    A violation's certificate is the deciding engine's own refutation (the search's
    refuted part, a cycle of forced orderings, or Z3's unsat core), produced with the
    verdict at no extra search; ``minimal`` reduces it to a minimal core first (a search
    per operation tried: what ``fisheye explain`` shows)."""
    model = Model(model)
    if max_steps is not None and max_steps < 1:
        raise UsageError(f"the step budget must be a positive number, not {max_steps}")
    why = unsupported(history, model)
    if why:
        raise UsageError(why)
    if graph is None:
        graph = ProximityGraph(history.processes, history.edges)
    names = AUTO_ORDER if engine == "auto" else (engine,)
    if history.has_maybe and not realtime.handles(history, model) and model is not Model.SC:
        # the Z3 encoding of the causal models has no optional operations
        if engine == "z3":
            raise UsageError(f"the Z3 engine does not handle operations marked \"maybe\" under "
                             f"{model} (the direct engine does)")
        names = ("direct",)
    start = time.perf_counter()
    deadline = Deadline.after(timeout)
    gave_up: list[tuple[str, str]] = []
    result: CheckResult | None = None
    for name in names:
        left = timeout
        if timeout is not None and result is not None:  # what the engines before left over
            left = timeout - (time.perf_counter() - start)
            if left <= 0.001:
                break
        if result is not None and progress is not None:
            progress(f"{model}: the {result.engine} engine gave up ({result.message}); trying the "
                     f"{name} engine" + ("" if left is None else f" for at most {left:.0f} s"))
        result = _run(name, history, model, graph, left, progress, max_steps, minimal, memory)
        if result.verdict is not Verdict.UNKNOWN:
            break
        gave_up.append((name, result.message))
        if max_steps is not None:
            break  # the caller's step budget ran out (or the time): no engine runs past it
    assert result is not None
    if result.verdict is Verdict.CONSISTENT and validate_witness:
        if result.witness is None:
            raise EngineBug(f"engine {result.engine} said consistent without a witness")
        if progress is not None and len(history.ops) > 5000:
            progress(f"{model}: validating the witness ({len(history.ops)} operations)")
        from fisheye.spec.validate import problems  # only a consistent verdict needs it (start-up)

        try:
            with paused_gc():  # as the engines (gcpause): 0.3 s of 14 at 100,000 operations
                bad = problems(history, model, graph, result.witness, deadline)
        except OutOfTime:
            return replace(result, verdict=Verdict.UNKNOWN, witness=None, seconds=time.perf_counter() - start,
                           message=f"the timeout ran out while the spec validated the {result.engine} "
                                   f"engine's witness (a consistent verdict is given only once validated)")
        if bad:
            raise EngineBug(f"engine {result.engine} gave a witness the spec rejects: {bad[0]}")
    message = result.message
    if gave_up and gave_up[-1][0] != result.engine:
        first = "; ".join(f"the {n} engine gave up first: {m}" for n, m in gave_up)
        message = f"{message} ({first})" if message else first
    elif len(gave_up) > 1:
        message = "every engine gave up: " + "; ".join(f"{n}: {m}" for n, m in gave_up)
    return replace(result, seconds=time.perf_counter() - start, message=message)
