"""The shortest violating run: a breadth-first search of the raw system (every enabled
step, no reduction, no pruning) that stops at the first state violating a predicate.

It runs on the explorer's core: successors come from
:func:`fisheye.checker.explore.expand.successors` (with no reduction: every enabled
step), states are keyed by the fingerprint of their canonical encoding (:mod:`.codec`)
in the explorer's visited set and parent log (:mod:`.store`), and the schedule is
rebuilt from the parent log as the exhaustive search rebuilds its reports' schedules.
States are checked as they are discovered, level by level, so the first violating state
found is at minimal depth: no shorter run reaches a violating state.

No reduction is applied: partial-order reduction preserves terminal states
(docs/por.md), not the shortest path to an arbitrary violating state.  The predicate
is checked on every state, so it should be prefix-closed to mean "the shortest run
violating it": a safety property of the broadcast (section 4.1: once violated on a
prefix of the delivery logs, violated on every extension), or a consistency model on
the history of the run so far when written values are distinct.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from fisheye.impl.api import Step, System
from fisheye.spec.graph import ProximityGraph, graph_of
from fisheye.spec.history import History
from fisheye.spec.models import Model

from ..judge import Judge
from ..result import Verdict
from .expand import Context, history_key, replayable, schedule_of_path, successors
from .store import NO_PARENT, FingerprintSet, MemoryLog

Predicate = Callable[[System[Any], Any], bool]
"""``predicate(system, state)``: whether ``state`` violates what is searched for."""


@dataclass(frozen=True)
class ShortestRun:
    """What :func:`shortest_violation` found: ``schedule``, a shortest run of the raw
    system ending in a violating state (None if none was found); ``states``, the
    distinct states admitted; ``complete``, whether the whole state space was searched
    (a None schedule then means that no reachable state violates)."""

    schedule: tuple[Step, ...] | None
    states: int
    complete: bool


def shortest_violation(system: System[Any], predicate: Predicate, *, max_states: int = 2_000_000
                       ) -> ShortestRun:
    """A shortest run of ``system`` to a state where ``predicate`` holds (module doc).
    ``max_states``: at most that many distinct states are admitted."""
    ctx = Context(system, reduction="none", prune_deviations=False)
    encode = ctx.codec.encode
    visited = FingerprintSet()
    key = visited.key
    log = MemoryLog()
    initial = system.initial()
    k0 = key(encode(initial))
    log.add(k0, None, NO_PARENT)
    log.end_level(0)
    visited.merge([k0])

    def found(depth: int, k: int, states: int) -> ShortestRun:
        path = log.paths([(depth, k)])[0]
        return ShortestRun(tuple(replayable(ctx, schedule_of_path(ctx, path))), states, False)

    if predicate(system, initial):
        return found(0, k0, 1)
    level: list[tuple[Any, int]] = [(initial, k0)]
    states, depth = 1, 0
    while level:
        nxt: list[tuple[Any, int]] = []
        new: set[int] = set()
        keys: dict[Any, int] = {}     # the next level's states met so far: encoded once each
        for state, pk in level:
            children = []
            for idx, (_step, child) in enumerate(successors(ctx, state)):
                k = keys.get(child)
                if k is None:
                    k = keys[child] = key(encode(child))
                children.append((k, child, idx))
            for (k, child, idx), known in zip(children, visited.known([c[0] for c in children]),
                                              strict=True):
                if known or k in new:
                    continue
                if states >= max_states:
                    return ShortestRun(None, states, False)
                new.add(k)
                log.add(k, pk, idx)
                states += 1
                if predicate(system, child):
                    log.end_level(depth + 1)
                    return found(depth + 1, k, states)
                nxt.append((child, k))
        log.end_level(depth + 1)
        visited.merge(new)
        level = nxt
        depth += 1
    return ShortestRun(None, states, True)


def violates_property(prop: str) -> Predicate:
    """A state that violates the system's property ``prop`` (a broadcast safety property
    of section 4.1 -- validity, integrity, G-delivery order, causal order -- or one of
    its own), judged by :class:`fisheye.checker.judge.Judge`."""
    judges: dict[int, tuple[Any, Judge]] = {}

    def predicate(system: Any, state: Any) -> bool:
        got = judges.get(id(system))
        if got is None or got[0] is not system:
            got = judges[id(system)] = (system, Judge.of(system, model=None).only((prop,)))
        return bool(got[1](state, False).failed)
    return predicate


def violates_model(model: str, graph: ProximityGraph | None = None, *, timeout: float | None = 30.0
                   ) -> Predicate:
    """A state whose history so far violates ``model`` (on ``graph``, default the
    system's), judged by :class:`fisheye.checker.judge.Judge` with the verdicts cached by
    history.  An ``unknown`` verdict is no violation: the search then goes on."""
    from ..engines import check

    cache: dict[tuple[Any, ...], Verdict] = {}
    judges: dict[int, tuple[Any, Judge]] = {}

    def check_model(h: History, m: str) -> Verdict:
        k = history_key(h)
        if k not in cache:
            cache[k] = check(h, m, graph or graph_of(h), timeout=timeout).verdict
        return cache[k]

    def predicate(system: Any, state: Any) -> bool:
        got = judges.get(id(system))
        if got is None or got[0] is not system:
            got = judges[id(system)] = (system, Judge.of(system, model=model).only((Model(model).value,)))
        return bool(got[1](state, False, check_model).failed)
    return predicate


__all__ = ["Predicate", "ShortestRun", "shortest_violation", "violates_model", "violates_property"]
