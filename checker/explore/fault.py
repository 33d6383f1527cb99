"""A failure of the system under test during an exploration
(:class:`fisheye.impl.api.SystemFault`: a handler raised, a state cannot be encoded,
two different messages in flight share a name), located: the shortest schedule that
reaches it, found by a breadth-first search with the explorer's own steps
(:func:`fisheye.checker.explore.expand.expand`), so that it replays step for step."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass

from fisheye.impl.api import Step, SystemFault

from .expand import Context, expand, initial_bytes, replayable

SYSTEM_ERROR = 4
"""The exit status of a command whose system failed (neither a verdict nor bad input)."""


@dataclass(frozen=True)
class LocatedFault:
    """The fault and the schedule that triggers it (the failing step last; None when
    the search for it ran out of ``max_states``)."""

    fault: SystemFault | None
    schedule: tuple[Step, ...] | None


def locate(ctx: Context, fault: SystemFault | None, *, max_states: int = 200_000) -> LocatedFault:
    """The shortest schedule from the initial state whose last step fails as ``fault``
    did (the first failure a breadth-first search meets: the explorer visits states in
    the same order, so it is the one the exploration met, or one as short).  ``fault``
    None: whether the system fails at all within ``max_states`` (a failure on Spark's
    executors reaches the driver as Spark's own error; a fault found is the fault, a
    schedule None that none was found)."""
    try:
        first = initial_bytes(ctx)
    except SystemFault as f:
        return LocatedFault(f, ())
    seen = {first}
    level: list[tuple[bytes, tuple[Step, ...]]] = [(first, ())]
    while level and len(seen) <= max_states:
        nxt: list[tuple[bytes, tuple[Step, ...]]] = []
        for data, path in level:
            try:
                e = expand(ctx, ctx.codec.decode(data))
            except SystemFault as f:
                return LocatedFault(f, _schedule(ctx, path, f.step))
            for step, child in zip(e.steps, e.children, strict=True):
                if child not in seen:
                    seen.add(child)
                    nxt.append((child, (*path, step)))
        level = nxt
    return LocatedFault(fault, None)


def fault_line(system_name: str, message: str, schedule: Sequence[Step] | None) -> str:
    """The one line a command prints for a system error: what failed, and the schedule
    (JSON steps, as in counterexample files) whose last step triggers it."""
    if schedule is None:
        where = "the schedule that reaches it was not found within the search budget"
    else:
        n = len(schedule)
        steps = json.dumps([s.to_json() for s in schedule])
        where = f"schedule that triggers it ({n} step{'' if n == 1 else 's'}): {steps}"
    return f"fisheye: system error in {system_name}: {message}; {where}"


def _schedule(ctx: Context, path: Sequence[Step], step: Step | None) -> tuple[Step, ...]:
    steps = [*path, step] if step is not None else list(path)
    try:
        return tuple(replayable(ctx, steps))
    except Exception:                  # a quotient that cannot lift the failing step: the prefix
        return tuple(replayable(ctx, path))
