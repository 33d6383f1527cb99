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
  enable a receipt, which the closure forbids.  For crash-stop systems whose crashes are
  independent (:class:`fisheye.impl.api.CrashStop`, e.g. the localized causal
  broadcast with one crashable set at a time) the same sets, with ``crash``, ``lose``
  and ``op+crash``/``recv+crash`` steps, and one more reason for q to join P: q may
  still crash while the channel q -> p is or may become non-empty (its crash would
  enable the loss of a message at p).  A crash of q changes q's state, empties the
  channels into q and drops later messages to q, so it commutes with every step of
  another process.

Both preserve every reachable terminal state (complete runs and deadlocks) of a finite
acyclic state space, hence every complete history, outcome and violation judged on
terminal states (docs/por.md has the proofs).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from typing import Any, Protocol, runtime_checkable

from fisheye.impl.api import (
    CRASH_KINDS,
    CrashStop,
    HasChannels,
    MessagePassing,
    Network,
    PorModel,
    Quotient,
    Step,
)

PROCESS_KINDS = frozenset({"op", "deliver", "recv"})
CRASH_STOP_KINDS = PROCESS_KINDS | CRASH_KINDS
REDUCTIONS = ("auto", "none", "stubborn", "process")


def _message_passing(system: Any) -> MessagePassing[Any] | None:
    """The system's message-passing view, if it declares one (directly or as the raw
    system of a quotient, whose steps are the raw system's)."""
    if isinstance(system, MessagePassing):
        return system
    if isinstance(system, Quotient) and isinstance(system.raw, MessagePassing):
        return system.raw
    return None


def _crash_stop(system: Any) -> CrashStop[Any] | None:
    """The system as a crash-stop message-passing system whose crashes are independent
    (the only crash-stop systems the process-level sets apply to), if it is one."""
    if isinstance(system, CrashStop) and system.independent_crashes:
        return system
    return None


def kind_of(system: Any, reduction: str) -> str:
    """The reduction actually used for ``system``: ``auto`` picks stubborn sets when
    the system has a supported :class:`~fisheye.impl.api.PorModel`, the process-level
    sets when it declares :class:`~fisheye.impl.api.MessagePassing` (their
    assumption) or :class:`~fisheye.impl.api.CrashStop` with independent crashes, and
    no reduction otherwise."""
    if reduction == "none":
        return "none"
    has_model = isinstance(system, PorModel) and system.por_supported
    if reduction in ("auto", "stubborn") and has_model:
        return "stubborn"
    if reduction == "stubborn":
        raise ValueError("this system has no transition model for stubborn sets")
    if reduction == "auto" and _message_passing(system) is None and _crash_stop(system) is None:
        return "none"
    return "process"


def reducer(system: Any, reduction: str, *, may_send: Callable[[Any, str, str], bool] | None = None
            ) -> Callable[[Any], Sequence[Step]]:
    """A function state -> the steps to explore from it.  ``may_send(state, q, p)``:
    an over-approximation of "q may still append to channel q -> p" (default: the
    system's, when it declares :class:`~fisheye.impl.api.MessagePassing`, else always
    true)."""
    kind = kind_of(system, reduction)
    if kind == "none":
        return system.enabled
    if kind == "stubborn":
        if isinstance(system, PorSummary):
            return _memoised_stubborn(system, system.por_key)
        return lambda state: stubborn_steps(system, state)
    mp = _message_passing(system)
    cs = _crash_stop(system)
    if may_send is None and mp is not None:
        may_send = mp.may_send
    if may_send is None and cs is not None:
        may_send = cs.may_send
    may_crash = cs.may_crash if cs is not None else None
    channels = mp if mp is not None else (system if isinstance(system, HasChannels) else None)
    unordered = channels is not None and channels.network is Network.UNORDERED
    return lambda state: process_steps(system, state, may_send=may_send, unordered=unordered,
                                       may_crash=may_crash)


MEMO_LIMIT = 1 << 20


@runtime_checkable
class PorSummary(Protocol):
    """A transition model (``PorModel``) that also names, per state, a summary on which
    its relations depend entirely (``por_key(state, enabled)``): stubborn sets are then
    memoised on it (docs/por.md, section 5)."""

    def por_key(self, state: Any, enabled: dict[int, Step]) -> Hashable: ...


def _memoised_stubborn(system: Any, key_of: Callable[[Any, dict[int, Step]], Any]
                       ) -> Callable[[Any], list[Step]]:
    """Stubborn sets memoised on the system's ``por_key(state, enabled)``: a summary of
    the state on which its dependency and enabling relations depend entirely, so the
    chosen set (a function of those relations and the enabled transitions) is the same
    for every state with the same key."""
    memo: dict[Any, int] = {}

    def steps(state: Any) -> list[Step]:
        enabled: dict[int, Step] = system.por_enabled(state)
        if len(enabled) <= 1:
            return list(enabled.values())
        k = key_of(state, enabled)
        mask = memo.get(k)
        if mask is None:
            if len(memo) >= MEMO_LIMIT:
                memo.clear()
            mask = memo[k] = stubborn_mask(system, state, enabled)
        return [step for t, step in sorted(enabled.items()) if (mask >> t) & 1]

    return steps


def stubborn_steps(system: Any, state: Any) -> list[Step]:
    """The enabled members of the smallest stubborn set generated by one enabled seed."""
    enabled: dict[int, Step] = system.por_enabled(state)
    if len(enabled) <= 1:
        return list(enabled.values())
    mask = stubborn_mask(system, state, enabled)
    return [step for t, step in sorted(enabled.items()) if (mask >> t) & 1]


def stubborn_mask(system: Any, state: Any, enabled: dict[int, Step]) -> int:
    """The enabled members of the smallest stubborn set generated by one enabled seed.

    The closure of a transition t is everything reachable from t along "may be
    dependent with" edges (from enabled transitions) and "necessary enabling set" edges
    (from disabled ones).  All closures are computed at once: Tarjan's algorithm gives
    the strongly connected components in reverse topological order, and the closure of a
    component is itself plus the closures of its successors (bit masks).  Ties go to the
    smallest seed, so the choice is a deterministic function of the state."""
    dependents, enablers = system.por_dependents, system.por_enablers
    succ: dict[int, list[int]] = {}
    index: dict[int, int] = {}
    low: dict[int, int] = {}
    comp: dict[int, int] = {}
    comp_mask: list[int] = []
    stack: list[int] = []
    on_stack: set[int] = set()
    counter = 0

    def edges(t: int) -> list[int]:
        r = succ.get(t)
        if r is None:
            r = succ[t] = list(dependents(state, t) if t in enabled else enablers(state, t))
        return r

    for root in sorted(enabled):
        if root in index:
            continue
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        work: list[list[Any]] = [[root, edges(root), 0]]
        while work:
            frame = work[-1]
            v, es, k = frame
            if k < len(es):
                frame[2] = k + 1
                w = es[k]
                if w not in index:
                    index[w] = low[w] = counter
                    counter += 1
                    stack.append(w)
                    on_stack.add(w)
                    work.append([w, edges(w), 0])
                elif w in on_stack and index[w] < low[v]:
                    low[v] = index[w]
                continue
            work.pop()
            if work:
                u = work[-1][0]
                if low[v] < low[u]:
                    low[u] = low[v]
            if low[v] == index[v]:
                c = len(comp_mask)
                mask = 0
                members = []
                while True:
                    w = stack.pop()
                    on_stack.discard(w)
                    comp[w] = c
                    members.append(w)
                    if w in enabled:
                        mask |= 1 << w
                    if w == v:
                        break
                for w in members:          # successors are in earlier (finished) components
                    for x in succ[w]:
                        cx = comp[x]
                        if cx != c:
                            mask |= comp_mask[cx]
                comp_mask.append(mask)
    best_mask = 0
    best_count = len(enabled) + 1
    for t in sorted(enabled):
        m = comp_mask[comp[t]]
        cnt = m.bit_count()
        if cnt < best_count:
            best_mask, best_count = m, cnt
            if cnt == 1:
                break
    return best_mask


def process_steps(system: Any, state: Any, *, may_send: Callable[[Any, str, str], bool] | None = None,
                  unordered: bool = False, may_crash: Callable[[Any, str], bool] | None = None) -> list[Step]:
    """All enabled steps of the smallest closed set of processes (see module doc).
    ``may_crash(state, q)``: given for a crash-stop system with independent crashes
    (its crash steps are then allowed), an over-approximation of "q may still crash"."""
    steps = system.enabled(state)
    if len(steps) <= 1:
        return list(steps)
    kinds = PROCESS_KINDS if may_crash is None else CRASH_STOP_KINDS
    by_proc: dict[str, list[Step]] = {}
    nonempty: dict[str, set[str]] = {}
    for s in steps:
        if s.kind not in kinds:
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

    crash_cache: dict[str, bool] = {}

    def crashes(q: str) -> bool:
        if may_crash is None:
            return False
        r = crash_cache.get(q)
        if r is None:
            r = crash_cache[q] = bool(may_crash(state, q))
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
            into = nonempty.get(p, ())
            full = () if unordered else into
            for q in procs:
                if q == p or q in closed:
                    continue
                if (q not in full and may(q, p)) or (crashes(q) and (q in into or may(q, p))):
                    closed.add(q)
                    stack.append(q)
        if size >= limit:
            continue
        chosen = [s for s in steps if s.process in closed]
        if best is None or len(chosen) < len(best):
            best = chosen
    assert best is not None
    return best
