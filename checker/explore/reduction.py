"""Partial-order reduction: a state-local choice of the steps to explore.

Every function here is a deterministic function of the state alone (no sleep sets, no
path information), so the reduced state graph is unique: a breadth-first search on Spark
visits exactly the distinct states the local search visits (docs/por.md).

Two reductions, chosen by what the system offers:

* ``stubborn`` -- for systems exposing a transition model (``por_enabled``,
  ``por_dependents``, ``por_enablers``; the abstraction level,
  :class:`fisheye.impl.abstract.AbstractSystem`): Valmari's stubborn sets computed by
  closure.  From an enabled seed, add every transition that may be dependent with an
  enabled member, and a necessary enabling set of every disabled member; explore the
  enabled members of the smallest such closure (over all seeds).
* ``process`` -- for message-passing systems whose steps are ``op``, ``deliver`` and
  ``recv`` (the protocol level, :class:`fisheye.impl.system.TocoSystem`): persistent sets
  made of all the enabled steps of a set P of processes closed under "p in P, the channel
  q -> p is empty (or unordered), and q may still send to p => q in P".  Steps of
  different processes commute (a step of p changes p's state, pops a channel into p,
  appends to channels out of p), and the only way a process outside P can affect P is to
  enable a receipt, which the closure forbids.

Both preserve every reachable terminal state (complete runs and deadlocks) of a finite
acyclic state space, hence every complete history, outcome and violation judged on
terminal states (docs/por.md has the proofs).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from fisheye.impl.api import Network, Step

PROCESS_KINDS = frozenset({"op", "deliver", "recv"})
REDUCTIONS = ("auto", "none", "stubborn", "process")


def kind_of(system: Any, reduction: str) -> str:
    """The reduction actually used for ``system`` (``auto`` picks the best available)."""
    if reduction == "none":
        return "none"
    has_model = all(hasattr(system, a) for a in ("por_enabled", "por_dependents", "por_enablers")) \
        and getattr(system, "por_supported", True)
    if reduction in ("auto", "stubborn") and has_model:
        return "stubborn"
    if reduction == "stubborn":
        raise ValueError("this system has no transition model for stubborn sets")
    return "process"


def reducer(system: Any, reduction: str, *, may_send: Callable[[Any, str, str], bool] | None = None
            ) -> Callable[[Any], Sequence[Step]]:
    """A function state -> the steps to explore from it.  ``may_send(state, q, p)``:
    an over-approximation of "q may still append to channel q -> p" (default: the
    system's ``may_send`` if it has one, else always true)."""
    kind = kind_of(system, reduction)
    if kind == "none":
        return system.enabled
    if kind == "stubborn":
        return lambda state: stubborn_steps(system, state)
    if may_send is None:
        may_send = getattr(system, "may_send", None)
    unordered = getattr(system, "network", Network.FIFO) == Network.UNORDERED
    return lambda state: process_steps(system, state, may_send=may_send, unordered=unordered)


def stubborn_steps(system: Any, state: Any) -> list[Step]:
    """The enabled members of the smallest stubborn set found from any enabled seed."""
    enabled: dict[int, Step] = system.por_enabled(state)
    if len(enabled) <= 1:
        return list(enabled.values())
    deps_cache: dict[int, list[int]] = {}

    def succ(t: int) -> list[int]:
        r = deps_cache.get(t)
        if r is None:
            r = list(system.por_dependents(state, t) if t in enabled else system.por_enablers(state, t))
            deps_cache[t] = r
        return r

    best: list[int] | None = None
    for seed in sorted(enabled):
        seen = {seed}
        stack = [seed]
        count = 0
        limit = len(best) if best is not None else len(enabled) + 1
        while stack and count < limit:
            t = stack.pop()
            if t in enabled:
                count += 1
            for u in succ(t):
                if u not in seen:
                    seen.add(u)
                    stack.append(u)
        if count >= limit:
            continue
        members = sorted(t for t in seen if t in enabled)
        if best is None or len(members) < len(best):
            best = members
            if len(best) == 1:
                break
    assert best is not None
    return [enabled[t] for t in best]


def process_steps(system: Any, state: Any, *, may_send: Callable[[Any, str, str], bool] | None = None,
                  unordered: bool = False) -> list[Step]:
    """All enabled steps of the smallest closed set of processes (see module doc)."""
    steps = system.enabled(state)
    if len(steps) <= 1:
        return list(steps)
    by_proc: dict[str, list[Step]] = {}
    nonempty: dict[str, set[str]] = {}
    for s in steps:
        if s.kind not in PROCESS_KINDS:
            return list(steps)            # unknown step kinds (e.g. crashes): no reduction
        by_proc.setdefault(s.process, []).append(s)
        if s.kind == "recv" and s.src is not None:
            nonempty.setdefault(s.process, set()).add(s.src)
    if len(by_proc) == 1:
        return list(steps)
    procs = system.processes
    ms_cache: dict[tuple[str, str], bool] = {}

    def may(q: str, p: str) -> bool:
        if may_send is None:
            return True
        key = (q, p)
        r = ms_cache.get(key)
        if r is None:
            r = ms_cache[key] = bool(may_send(state, q, p))
        return r

    best: list[Step] | None = None
    for start in procs:
        if start not in by_proc:
            continue
        closed = {start}
        stack = [start]
        size = 0
        limit = len(best) if best is not None else len(steps) + 1
        while stack and size < limit:
            p = stack.pop()
            size += len(by_proc.get(p, ()))
            full = () if unordered else nonempty.get(p, ())
            for q in procs:
                if q != p and q not in closed and q not in full and may(q, p):
                    closed.add(q)
                    stack.append(q)
        if size >= limit:
            continue
        chosen = [s for s in steps if s.process in closed]
        if best is None or len(chosen) < len(best):
            best = chosen
    assert best is not None
    return best
