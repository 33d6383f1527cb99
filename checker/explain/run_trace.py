"""The run of a counterexample step by step (:class:`~.run.RunTrace`), for its diagram:
a run that breaks a property of its system (a broadcast property of section 4.1,
deadlock freedom, a protocol's own property) with its breaking step found by judging
each prefix, or the run that produced a history violating a model with the steps of the
minimal core's operations marked."""

from __future__ import annotations

from typing import Any

from fisheye.checker import counterexample as cxm

from .explanation import Explanation
from .replay_script import step_text
from .run import RunTrace, trace_run


def property_run(cx: cxm.Counterexample) -> RunTrace:
    """The replayed run of a property violation or a deadlock, its breaking step the
    first whose prefix breaks the property."""
    system = cx.system()
    if cx.violates == cxm.DEADLOCK:
        def broken(state: Any) -> str | None:
            stuck = not system.enabled(state) and not system.is_final(state)
            return cxm.deadlock_details(system, state) if stuck else None
    else:
        def broken(state: Any) -> str | None:
            return cxm.property_failure(system, state, cx.violates)
    return trace_run(system, cx.schedule, violates=cx.violates, broken=broken, describe=step_text)


def model_run(cx: cxm.Counterexample, argument: Explanation) -> RunTrace | None:
    """The run that produced a history violating a model, the steps that perform the
    operations of ``argument``'s minimal core marked (None when the system cannot be
    rebuilt: the report then goes without the run)."""
    core = {(argument.history.ops[u].process, argument.history.ops[u].index): argument.names[i]
            for i, u in enumerate(argument.core.uids)}
    names = ", ".join(argument.names[:8]) + (", ..." if len(argument.names) > 8 else "")
    try:
        return trace_run(cx.system(), cx.schedule, violates=argument.model.value, core=core,
                         describe=step_text,
                         words=f"the steps that perform the operations of the minimal core ({names}): "
                               "the argument above shows why they violate it")
    except ValueError:
        return None
