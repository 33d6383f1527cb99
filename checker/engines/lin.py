"""The direct engine for the sequential models with real time, cas and ``maybe``
operations: ``lin``, ``fisheye-lin`` (G-fisheye (LIN,SC)) and ``sc`` on histories
with cas or ``maybe`` operations (:mod:`fisheye.spec.realtime`).

``lin`` is decided register by register: linearizability is *local* (Herlihy and
Wing, Theorem 1; P-compositionality in Horn and Kroening's terms, which Porcupine
uses): a history is linearizable iff its restriction to each register is.  Each
restriction goes to the search of :mod:`.seqsearch`; the per-register sequences are
then merged into one sequence of the whole history by a topological sort of the
registers' orders, process order and real time (acyclic by the locality theorem).
When two operations of one process share a time stamp (one completes exactly when
the next is invoked), process order is not implied by real time and the merge may
get stuck; the engine then searches the whole history at once, which is exact.

``fisheye-lin`` on the complete graph is ``lin``; otherwise, and for ``sc``, the
search runs on the whole history (these models are not local).

A violation's certificate is the search's own refutation: the part of the history (the
operations of one register, for ``lin``) of which the search explored every
configuration without finding a sequence.  With ``minimal``, it is a small core
instead: the operations of that part invoked up to the earliest time at which no
linearization exists, reduced by deletion to a set from which no operation can be
removed without the violation disappearing (a search per operation tried: on a
violation, nearly all of the time goes there).
"""

from __future__ import annotations

import heapq
import time
from collections.abc import Sequence
from dataclasses import replace
from itertools import accumulate, repeat
from typing import TYPE_CHECKING

from fisheye.spec.graph import ProximityGraph
from fisheye.spec.history import History, Op, format_value
from fisheye.spec.models import Model
from fisheye.spec.realtime import RealTimePairs, real_time_pairs
from fisheye.spec.witness import Witness

from ..result import CheckResult, Reason, Verdict
from . import compiled
from .gcpause import paused_gc
from .search_budget import Budget, BudgetExhausted
from .seqsearch import droppable_unread_maybes, search

if TYPE_CHECKING:
    from .lin_arrays import Columns

ENGINE = "direct"
DEFAULT_MAX_STATES = 400_000
"""Configurations explored before answering *unknown* (each is remembered: memory),
on histories of up to 100,000 operations; :data:`STATES_PER_OPERATION` per operation
on larger ones."""
STATES_PER_OPERATION = 4
"""Configurations per operation of the default budget of a large history (a
linearizable history is found with about one per operation)."""
MAX_CORE_SEARCH = 200
"""Operations above which a violation's core is not minimised by deletion."""


def check(history: History, model: Model | str, graph: ProximityGraph | None = None, *,
          timeout: float | None = None, max_states: int | None = None,
          minimal: bool = True) -> CheckResult:
    """Decide ``model``; ``max_states`` bounds the configurations explored (``None``:
    :func:`default_max_states`); a violation's certificate is a minimal core with
    ``minimal``, else the search's refutation (module docstring)."""
    model = Model(model)
    if graph is None:
        graph = ProximityGraph(history.processes, history.edges)
    start = time.perf_counter()
    budget = Budget(max_states=default_max_states(len(history.ops)) if max_states is None else max_states,
                    timeout=timeout)
    rt = real_time_pairs(model.value, graph)
    try:
        with paused_gc():
            seq, bad = _decide(history, rt, budget)
            if seq is None:
                assert bad is not None
                cert = (_certificate(history, rt, bad, budget) if minimal or len(bad) == 1
                        else _refutation(history, rt, bad))
    except BudgetExhausted as e:
        return CheckResult(Verdict.UNKNOWN, model, graph, ENGINE, message=str(e),
                           seconds=time.perf_counter() - start, stats={"configurations": budget.states})
    stats = {"configurations": budget.states}
    if seq is not None:
        return CheckResult(Verdict.CONSISTENT, model, graph, ENGINE, witness=Witness(sequence=tuple(seq)),
                           seconds=time.perf_counter() - start, stats=stats)
    return CheckResult(Verdict.VIOLATION, model, graph, ENGINE, certificate=cert,
                       message=f"no sequence exists: the {len(cert[-1].ops)} operations of the certificate "
                               f"already admit none", seconds=time.perf_counter() - start, stats=stats)


def default_max_states(operations: int) -> int:
    """The configurations a check of ``operations`` operations may explore by default."""
    return max(DEFAULT_MAX_STATES, STATES_PER_OPERATION * operations)


def _decide(history: History, rt: RealTimePairs, budget: Budget
            ) -> tuple[list[int] | None, list[int] | None]:
    """(sequence, None), or (None, uids of a failing part).

    1. With real time, a linearization is a witness for fewer real-time pairs too
       (``sc``, any ``fisheye-lin``): ``lin`` first, register by register
       (locality), the registers' sequences merged.
    2. Each register alone: a witness restricted to one register still meets every
       clause on it, so a register without a sequence is a violation, with a core from
       that register only.  (Bounded: when it runs out, step 3 decides.)
    3. The whole history."""
    cols = _columns(history)
    by_reg = _by_register(history, cols)
    everything = list(range(len(history.ops)))
    orphan = _unsourced(history, cols)
    if orphan is not None:
        return None, [orphan]
    if history.timed:
        strongest = RealTimePairs.all()
        chains = []
        for uids in by_reg:
            seq = search(history, uids, strongest, budget, cols)
            if seq is None:
                if rt.every_pair:
                    return None, uids
                break
            chains.append(seq)
        else:
            merged = _merge(history, chains, cols)
            if merged is not None:
                return merged, None
            if rt.every_pair:  # same-time process boundaries: search the whole history
                seq = search(history, everything, rt, budget, cols)
                return (seq, None) if seq is not None else (None, everything)
    if len(by_reg) > 1:
        part = budget.part(budget.left() // 4)
        try:
            for uids in by_reg:
                if search(history, uids, rt, part, cols) is None:
                    return None, uids
        except BudgetExhausted:
            pass
        finally:
            budget.absorb(part)
    seq = search(history, everything, rt, budget, cols)
    return (seq, None) if seq is not None else (None, everything)


def _columns(history: History) -> Columns | None:
    """The history's arrays for the compiled search (:mod:`.lin_arrays`), for a timed
    history large enough to be searched compiled; None otherwise (no numpy)."""
    if not (history.timed and len(history.ops) >= compiled.COMPILED_FROM):
        return None
    from .lin_arrays import columns

    return columns(history)


def _by_register(history: History, cols: Columns | None) -> list[list[int]]:
    """The uids of each register, registers in order of their first operation."""
    if cols is not None:
        from .lin_arrays import by_register

        return [part.tolist() for part in by_register(cols)]
    by_reg: dict[str, list[int]] = {}
    for op in history.ops:
        by_reg.setdefault(op.register, []).append(op.uid)
    return list(by_reg.values())


def linearization(history: History, budget: Budget) -> list[int] | None:
    """A linearization of a timed history (uids; ``maybe`` operations left out did not
    take effect), or ``None`` when some register has none or the registers' sequences
    do not merge.  Register by register (locality, Herlihy and Wing, Theorem 1), then
    merged as in :func:`_decide`.  A linearization is a legal serialisation, so it is a
    witness of ``sc`` and of every weaker model (the direct engine's shortcut for
    recorded histories, whose real time is a strong guide).  Raises
    :class:`BudgetExhausted`."""
    if not history.timed:
        return None
    cols = _columns(history)
    if _unsourced(history, cols) is not None:
        return None
    chains = []
    for uids in _by_register(history, cols):
        seq = search(history, uids, RealTimePairs.all(), budget, cols)
        if seq is None:
            return None
        chains.append(seq)
    return _merge(history, chains, cols)


def _unsourced(history: History, cols: Columns | None = None) -> int | None:
    """An operation (not ``maybe``: one may be left out) observing a value that
    nothing writes to its register and that is not its initial value: alone, it has
    no legal sequence.  With ``cols``, found on arrays (:func:`.lin_arrays.unsourced`)."""
    if cols is not None:
        from .lin_arrays import unsourced

        return unsourced(cols)
    # values are integers and strings: equal as Python objects iff equal as JSON
    written = {(op.register, op.value) for op in history.ops if op.kind != "r"}
    for op in history.ops:
        if op.kind != "w" and not op.maybe:
            observed = op.value if op.kind == "r" else op.old
            if (op.register, observed) not in written and observed != history.initial_value(op.register):
                return op.uid
    return None


def _merge(history: History, chains: Sequence[Sequence[int]], cols: Columns | None = None
           ) -> list[int] | None:
    """One sequence containing each chain in order and respecting process order and
    real time among the chosen operations, or None when there is none.

    Each operation is keyed by the latest invocation up to it in its chain, and the
    operations are sorted by key, each chain kept in its order (its keys do not
    decrease).  That respects real time: if ``a`` completed before ``b`` was invoked,
    every operation up to ``a`` in its chain was invoked before ``a`` completed (a
    linearization respects real time), so ``a``'s key is below ``b``'s invocation, at
    most ``b``'s key.  Process order follows from real time except between operations
    of a process that share a time stamp; when such a tie breaks it, Kahn's algorithm
    over the chain heads decides (:func:`_merge_by_heads`).  With ``cols``, the sort
    and the check run on arrays (:func:`.lin_arrays.merge_order`)."""
    if cols is not None:
        from .lin_arrays import merge_order

        merged = merge_order(cols, chains)
        return merged if merged is not None else _merge_by_heads(history, chains)
    ops = history.ops
    keyed: list[tuple[float, int, int, int]] = []
    for c, chain in enumerate(chains):
        latest = accumulate([ops[u].invoke for u in chain], max)  # type: ignore[type-var]
        keyed += zip(latest, repeat(c), range(len(chain)), chain, strict=False)
    keyed.sort()
    out = [k[3] for k in keyed]
    placed = [0] * len(ops)
    for i, u in enumerate(out):
        placed[u] = i
    prev = None
    for u in sorted(out):  # uids follow process order
        if prev is not None and ops[prev].process == ops[u].process and placed[u] < placed[prev]:
            return _merge_by_heads(history, chains)
        prev = u
    return out


def _merge_by_heads(history: History, chains: Sequence[Sequence[int]]) -> list[int] | None:
    """:func:`_merge` by Kahn's algorithm over the chain heads (exact, slower), or None
    when the heads block each other."""
    ops = history.ops
    chosen = [u for c in chains for u in c]
    # real time: b may come once every chosen op completing before b's invocation has
    by_complete = sorted((ops[u].complete, u) for u in chosen if ops[u].complete is not None)
    placed: set[int] = set()
    prefix = 0  # by_complete[:prefix] are all placed
    in_chosen = set(chosen)
    prev_in_proc: dict[int, int | None] = {}
    for lane in history.by_process.values():
        prev: int | None = None
        for op in lane:
            if op.uid in in_chosen:
                prev_in_proc[op.uid] = prev
                prev = op.uid
    heads = [0] * len(chains)
    out: list[int] = []
    ready: list[tuple[float, int]] = []  # (invoke, chain) of heads that may be placed
    blocked = set(range(len(chains)))

    def free(u: int) -> bool:
        pp = prev_in_proc.get(u)
        if pp is not None and pp not in placed:
            return False
        return prefix >= len(by_complete) or not (by_complete[prefix][0] < ops[u].invoke)  # type: ignore[operator]

    while len(out) < len(chosen):
        for c in list(blocked):
            if heads[c] >= len(chains[c]):
                blocked.discard(c)
            elif free(chains[c][heads[c]]):
                blocked.discard(c)
                heapq.heappush(ready, (ops[chains[c][heads[c]]].invoke, c))  # type: ignore[arg-type]
        if not ready:
            return None
        _, c = heapq.heappop(ready)
        u = chains[c][heads[c]]
        out.append(u)
        placed.add(u)
        while prefix < len(by_complete) and by_complete[prefix][1] in placed:
            prefix += 1
        heads[c] += 1
        blocked.add(c)
    return out


def _relaxed(history: History, uids: Sequence[int], cut: float | None, optional: frozenset[int]
             ) -> tuple[History, list[int]]:
    """A relaxation of the sub-history ``uids``: if the original has a sequence, so has
    this one.  Operations invoked after ``cut`` are left out, with the reads still
    running at ``cut``; writes and cas still running become ``maybe`` operations that
    never returned (Herlihy and Wing's prefix closure: a linearization of the whole,
    cut before its first operation invoked after ``cut``, is one of the prefix); the
    operations of ``optional`` become ``maybe`` (keeping one is always allowed).
    Removing a read is also a relaxation (it changes no value and constrains no other
    operation beyond what process order and real time already imply transitively).
    Returns the history and, per new uid, the original uid."""
    ops = history.ops
    chosen: list = []
    for u in sorted(uids):
        op = ops[u]
        if cut is not None and op.invoke is not None and op.invoke > cut:
            continue
        running = cut is not None and op.invoke is not None and (op.complete is None or op.complete > cut)
        if running:
            if op.is_read:
                continue
            op = replace(op, complete=None, maybe=True)
        elif u in optional and not op.is_read:
            op = replace(op, maybe=True)
        chosen.append(op)
    back = [op.uid for op in chosen]
    new_ops = tuple(replace(op, uid=k) for k, op in enumerate(chosen))
    return History(history.processes, new_ops, history.edges, history.initial), back


def _no_sequence(rt: RealTimePairs, count: int, registers: Sequence[str]) -> str:
    """The certificate's last reason: what does not exist."""
    what = ("linearization" if rt.every_pair
            else "legal sequence respecting process order and real time between neighbours")
    return f"no {what} of these {count} operations on {', '.join(sorted(registers))}"


def _refutation(history: History, rt: RealTimePairs, uids: list[int]) -> tuple[Reason, ...]:
    """The search's own certificate: the part ``uids`` it refuted, as one reason (free:
    the search has already explored every configuration of this part)."""
    regs = {history.ops[u].register for u in uids}
    return (Reason(f"{_no_sequence(rt, len(uids), regs)} exists (a minimal core: fisheye explain, "
                   f"or check --minimal)", "no-sequence", tuple(sorted(uids))),)


def _certificate(history: History, rt: RealTimePairs, uids: list[int], budget: Budget
                 ) -> tuple[Reason, ...]:
    """A small failing core of ``uids``: the history as it stood at the earliest
    completion after which it fails, then, one operation at a time, every read removed and every write
    or cas made optional (``maybe``) whenever the failure remains (each step is a
    relaxation, so the core's failure implies the history's)."""
    ops = history.ops
    order = sorted(uids, key=lambda u: (ops[u].invoke or 0, u))

    def fails(keep: Sequence[int], cut: float | None, optional: frozenset[int]) -> bool:
        sub, _ = _relaxed(history, keep, cut, optional)
        return search(sub, range(len(sub.ops)), rt, budget) is None

    cut: float | None = None
    core = order
    if history.timed:
        # the earliest completion after which the operations as they stand fail
        times = sorted({ops[u].complete for u in order if ops[u].complete is not None})
        lo, hi = 0, len(times)  # cut at times[hi] fails; hi == len(times): no cut
        while lo < hi:
            mid = (lo + hi) // 2
            if fails(order, times[mid], frozenset()):
                hi = mid
            else:
                lo = mid + 1
        if hi < len(times):
            cut = times[hi]
            core = [u for u in order if ops[u].invoke <= cut]  # type: ignore[operator]
    optional: frozenset[int] = frozenset()
    if len(core) <= MAX_CORE_SEARCH:
        for u in reversed(list(core)):
            if ops[u].is_read:
                trial = [x for x in core if x != u]
                if fails(trial, cut, optional):
                    core = trial
            elif fails(core, cut, optional | {u}):
                optional = optional | {u}
    sub, back = _relaxed(history, core, cut, optional)
    idle = droppable_unread_maybes(sub, range(len(sub.ops)))
    shown = [(back[k], op) for k, op in enumerate(sub.ops) if k not in idle]
    reasons = [Reason(f"{ops[u].label()}{_times(op, relaxed=u in optional)}", "operation", (u,))
               for u, op in shown]
    regs = {op.register for _, op in shown}
    when = "" if cut is None else f" (as they stood at time {format_value(cut)})"
    reasons.append(Reason(f"{_no_sequence(rt, len(shown), regs)}{when} exists",
                          "no-sequence", tuple(u for u, _ in shown)))
    return tuple(reasons)


def _times(op: Op, relaxed: bool = False) -> str:
    """The operation's interval and whether it must have taken effect."""
    maybe = (" (whether or not it took effect)" if relaxed
             else " (may not have taken effect)" if op.maybe else "")
    if op.invoke is None:
        return maybe
    end = "not returned" if op.complete is None else f"completed {format_value(op.complete)}"
    return f" [invoked {format_value(op.invoke)}, {end}]{maybe}"
