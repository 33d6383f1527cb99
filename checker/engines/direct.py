"""The direct engine: decides every model without Z3.

* cc with a single possible read-from map (differentiated histories): polynomial, one
  saturation per process (:mod:`.direct_cc`, after Bouajjani, Enea, Guerraoui, Hamza,
  *On Verifying Causal Consistency*, POPL 2017, model CM).
* sc, fisheye, fisheye-2014, and every model with repeated values: a sound and complete
  search that saturates forced orderings first and backtracks only on what remains
  (:mod:`.direct_search`, :mod:`.direct_sc`, :mod:`.direct_star`).

**Phases.**  The history is first split into *phases*: the strongly connected
components of the graph on registers with an arc ``x -> y`` whenever some process
has an operation on ``x`` followed (in process order) by one on ``y``, in a
topological order of those components.  Every process then uses the phases one after
the other (it never comes back to an earlier one), and no read of one phase can read
from a write of another.  Independent parts (processes and registers shared by no one
else, as the key groups of a Jepsen ``independent`` test) are the special case of
phases that no process links; a Jepsen test whose client threads move from key to key
splits further, one phase per key.  ``H`` is consistent under sc, cc and both fisheye
definitions iff every phase is (for fisheye, with ``G`` restricted to the phase's
processes), and a witness of ``H`` is the phases' witnesses one after the other
(``docs/decomposition.md`` has the proofs; sc is not compositional in general, which
is why only register groups that process order crosses in one direction are split).

A consistent verdict carries a :class:`~fisheye.spec.witness.Witness` (re-validated by
the facade); a violation carries a certificate, typically a cycle of forced orderings
with the reason of each edge.  Budgets (nodes, ``timeout``) give *unknown*, never a
crash.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, replace

from fisheye.spec.graph import ProximityGraph
from fisheye.spec.history import History, Op, value_key
from fisheye.spec.models import Model
from fisheye.spec.order import linear_extension
from fisheye.spec.witness import Witness, effective_history, named_operations, remap

from ..result import CheckResult, Reason, Verdict
from .compiled_kernel import compiled_for
from .direct_order import Budget, BudgetExhausted, Index
from .direct_search import MANY_VIEWS, search
from .gcpause import paused_gc

DEFAULT_MAX_NODES = 20_000
"""Search nodes (closures computed, or 25 states of the execution search) the search may
use before answering *unknown*."""


def decides(history: History, model: Model | str) -> bool:
    """The direct engine decides every model (a complete search within its budget)."""
    Model(model)
    del history
    return True


@dataclass(frozen=True)
class Part:
    """A phase of a history (module docstring): the sub-history of the operations on
    its registers (every process keeps its name, its operations are re-indexed from 0
    in process order) and, per operation of the part, its uid in the whole history."""

    history: History
    uids: tuple[int, ...]  # uid in the part -> uid in the whole history


def phases(history: History) -> list[Part]:
    """The phases of ``history`` (module docstring), in a topological order of the
    register graph's components (ties: the component holding the earlier uid first);
    processes without operations belong to no phase."""
    ops = history.ops
    regs = list(dict.fromkeys(op.register for op in ops))
    rix = {x: i for i, x in enumerate(regs)}
    succ: list[set[int]] = [set() for _ in regs]
    for a, b in zip(ops, ops[1:], strict=False):
        if a.process == b.process and a.register != b.register:
            succ[rix[a.register]].add(rix[b.register])
    comp = _components(len(regs), succ)
    n_comp = max(comp, default=-1) + 1
    if n_comp <= 1:
        return [Part(history, tuple(range(len(ops))))]
    # the condensation, in topological order (Kahn, ready components by first uid)
    first = [len(ops)] * n_comp
    for op in ops:
        c = comp[rix[op.register]]
        first[c] = min(first[c], op.uid)
    csucc: list[set[int]] = [set() for _ in range(n_comp)]
    indeg = [0] * n_comp
    for x, ys in enumerate(succ):
        for y in ys:
            if comp[x] != comp[y] and comp[y] not in csucc[comp[x]]:
                csucc[comp[x]].add(comp[y])
                indeg[comp[y]] += 1
    import heapq

    ready = [(first[c], c) for c in range(n_comp) if indeg[c] == 0]
    heapq.heapify(ready)
    rank = [0] * n_comp
    k = 0
    while ready:
        _, c = heapq.heappop(ready)
        rank[c] = k
        k += 1
        for d in csucc[c]:
            indeg[d] -= 1
            if indeg[d] == 0:
                heapq.heappush(ready, (first[d], d))
    members: list[list[Op]] = [[] for _ in range(n_comp)]
    for op in ops:  # process by process, in process order
        members[rank[comp[rix[op.register]]]].append(op)
    parts = []
    for group in members:
        procs = tuple(dict.fromkeys(op.process for op in group))
        regs_k = {op.register for op in group}
        sub_ops = []
        index: dict[str, int] = {}
        for i, op in enumerate(group):
            j = index.get(op.process, 0)
            index[op.process] = j + 1
            sub_ops.append(replace(op, uid=i, index=j))
        sub = History(procs, tuple(sub_ops), (), {x: v for x, v in history.initial.items() if x in regs_k})
        parts.append(Part(sub, tuple(op.uid for op in group)))
    return parts


def _components(n: int, succ: list[set[int]]) -> list[int]:
    """Strongly connected components (Tarjan's algorithm, iterative): a component
    number per node."""
    index = [-1] * n
    low = [0] * n
    on_stack = [False] * n
    comp = [-1] * n
    stack: list[int] = []
    counter = 0
    n_comp = 0
    for root in range(n):
        if index[root] >= 0:
            continue
        work = [(root, iter(succ[root]))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack[root] = True
        while work:
            v, it = work[-1]
            advanced = False
            for w in it:
                if index[w] < 0:
                    index[w] = low[w] = counter
                    counter += 1
                    stack.append(w)
                    on_stack[w] = True
                    work.append((w, iter(succ[w])))
                    advanced = True
                    break
                if on_stack[w]:
                    low[v] = min(low[v], index[w])
            if advanced:
                continue
            work.pop()
            if work:
                u = work[-1][0]
                low[u] = min(low[u], low[v])
            if low[v] == index[v]:
                while True:
                    w = stack.pop()
                    on_stack[w] = False
                    comp[w] = n_comp
                    if w == v:
                        break
                n_comp += 1
    return comp


def check(history: History, model: Model | str, graph: ProximityGraph | None = None, *,
          timeout: float | None = None, max_nodes: int = DEFAULT_MAX_NODES,
          progress: Callable[[str], None] | None = None) -> CheckResult:
    model = Model(model)
    if graph is None:
        graph = ProximityGraph(history.processes, history.edges)
    start = time.perf_counter()
    budget = Budget(max_nodes=max_nodes, timeout=timeout, progress=progress,
                    stage=f"{model}: direct engine, {len(history.ops):,} operations")
    parts = 0
    try:
        # the engine builds large containers and no reference cycles (gcpause): the
        # collector's full passes over them cost 1.6 s of 15.6 on the fisheye-2014 check of
        # a 100,000-operation Algorithm 2 run
        with compiled_for(len(history.ops)), paused_gc():
            seq = _linearization_first(history, budget)
            if seq is not None:
                return CheckResult(Verdict.CONSISTENT, model, graph, "direct",
                                   witness=sequence_witness(history, model, seq),
                                   seconds=time.perf_counter() - start,
                                   stats={"nodes": budget.nodes, "linearized": 1})
            witness, cert, parts = _decide(history, model, graph, budget)
    except (BudgetExhausted, RecursionError) as e:
        msg = str(e) if isinstance(e, BudgetExhausted) else "the search went too deep (recursion limit)"
        return CheckResult(Verdict.UNKNOWN, model, graph, "direct", message=msg,
                           seconds=time.perf_counter() - start, stats={"nodes": budget.nodes})
    stats = {"nodes": budget.nodes, "parts": parts}
    if witness is None:
        return CheckResult(Verdict.VIOLATION, model, graph, "direct", certificate=cert,
                           seconds=time.perf_counter() - start, stats=stats)
    return CheckResult(Verdict.CONSISTENT, model, graph, "direct", witness=witness,
                       seconds=time.perf_counter() - start, stats=stats)


LINEARIZATION_STATES = 20
"""Configurations per operation the linearization shortcut may explore."""


def _linearization_first(history: History, budget: Budget) -> list[int] | None:
    """With real time (recorded histories): a linearization, when one is found within a
    small budget, is a legal serialisation (Herlihy and Wing's linearizability implies
    section 2.2's sc, which implies cc and both fisheye definitions for every graph).
    Real time guides the search of :mod:`.lin` (Wing-Gong-Lowe, register by register),
    which is what the history's own run did; ``None`` otherwise (the other searches
    decide)."""
    if not history.timed:
        return None
    from . import search_budget
    from .lin import linearization

    left = None if budget.timeout is None else budget.timeout - (time.monotonic() - budget.start)
    sub = search_budget.Budget(max_states=LINEARIZATION_STATES * len(history.ops) + 1000, timeout=left)
    try:
        return linearization(history, sub)
    except search_budget.BudgetExhausted:
        return None
    finally:
        budget.tick(sub.states // 25)


SERIALISATION_STATES = 100
"""Configurations per operation the serialisation shortcut (repeated values) may explore."""


def _serialisation_first(history: History, budget: Budget) -> list[int] | None:
    """With repeated values: a legal serialisation (``maybe`` writes taken or left out
    as the search finds best), when the search of :mod:`.seqsearch` (Wing and Gong's
    search with Lowe's memoisation, here with no real-time pairs) finds one within a
    small budget; it is a witness of every model (sc implies the others).  It
    complements the execution search of :mod:`.direct_sc_states`: each is fast on
    histories the other is slow on.  ``None`` concludes nothing."""
    from fisheye.spec.realtime import RealTimePairs

    from . import search_budget, seqsearch

    left = None if budget.timeout is None else budget.timeout - (time.monotonic() - budget.start)
    sub = search_budget.Budget(max_states=SERIALISATION_STATES * len(history.ops) + 1000, timeout=left)
    try:
        return seqsearch.search(history, range(len(history.ops)), RealTimePairs(False), sub)
    except search_budget.BudgetExhausted:
        return None
    finally:
        budget.tick(sub.states // 25)


def sequence_witness(history: History, model: Model, seq: list[int] | tuple[int, ...]) -> Witness:
    """The witness of ``model`` given by a legal serialisation ``seq`` of ``history``
    (``maybe`` operations absent from it did not take effect): each read reads from the
    last write to its register before it, every view is ``seq`` restricted to its scope
    (the witness's compact form), and the star order is ``seq`` itself."""
    ops = history.ops
    last: dict[str, int] = {}
    rf: dict[int, int | None] = {}
    for u in seq:
        if ops[u].is_write:
            last[ops[u].register] = u
        else:
            rf[u] = last.get(ops[u].register)
    star = tuple(zip(seq, seq[1:], strict=False)) if model.uses_graph else ()
    return Witness(read_from=rf, star=star, sequence=tuple(seq))


MAX_MAYBE_CHOICES = 10
"""``maybe`` writes whose taking effect is left to the search, beyond which only "all
of them" and "none of them" are tried (then *unknown* if both fail)."""


def _decide_maybe(history: History, model: Model, graph: ProximityGraph, budget: Budget,
                  labels: list[str] | None, many_views: bool = False
                  ) -> tuple[Witness | None, tuple[Reason, ...]]:
    """Writes marked ``maybe`` (they may or may not have taken effect).  A witness where
    such a write took effect but no read takes its value from it (as source in ``~>H`` or
    last write before the read in some view) stays a witness without it: it is the last
    operation of its process and the views and the star order restricted to the other
    operations still satisfy every clause.  So a ``maybe`` write whose register and value
    no read returns is dropped; one that is the only possible source of a value some read
    returns is kept; the others (repeated values) are searched, every subset of them."""
    ops = history.ops
    observed = {(op.register, op.vkey) for op in ops if op.is_read}
    sources: dict[tuple[str, object], int] = {}
    for op in ops:
        if op.is_write:
            sources[(op.register, op.vkey)] = sources.get((op.register, op.vkey), 0) + 1
    useful = [op for op in ops if op.maybe and (op.register, op.vkey) in observed]
    forced = [op.uid for op in useful if sources[(op.register, op.vkey)] == 1
              and op.vkey != value_key(history.initial_value(op.register))]
    open_ = [op.uid for op in useful if op.uid not in set(forced)]
    if len(open_) <= MAX_MAYBE_CHOICES:
        choices = [tuple(u for k, u in enumerate(open_) if mask >> k & 1)
                   for mask in sorted(range(1 << len(open_)), key=lambda m: -bin(m).count("1"))]
    else:
        choices = [tuple(open_), ()]
    first: tuple[Reason, ...] | None = None
    for chosen in choices:
        effective, old_uid = effective_history(history, [*forced, *chosen])
        witness, cert = _decide_plain(effective, model, graph, budget,
                                      None if labels is None else [labels[u] for u in old_uid], many_views)
        if witness is not None:
            return remap(witness, dict(enumerate(old_uid))), ()
        cert = tuple(Reason(r.text, r.rule, tuple(old_uid[u] for u in r.ops)) for r in cert)
        first = first or cert
    if len(open_) > MAX_MAYBE_CHOICES:
        raise BudgetExhausted(f"{len(open_)} writes marked maybe could each have taken effect or not "
                              f"(repeated values); the direct engine tries every combination only up "
                              f"to {MAX_MAYBE_CHOICES} of them, and neither all nor none worked")
    lead = (f"{len(open_)} write(s) marked maybe could each have taken effect or not, and none of "
            f"the {len(choices)} combinations has a witness; with "
            f"{'all of them' if open_ else 'the writes some read needs'} taking effect:")
    dropped = sum(1 for op in ops if op.maybe) - len(useful)
    if dropped:
        lead += f" ({dropped} write(s) marked maybe whose value no read returns are left out)"
    return None, (Reason(lead, "maybe"),) + (first or ())


def _decide_plain(history: History, model: Model, graph: ProximityGraph, budget: Budget,
                  labels: list[str] | None, many_views: bool = False
                  ) -> tuple[Witness | None, tuple[Reason, ...]]:
    """One phase without ``maybe`` writes: the search of :mod:`.direct_search`."""
    out = search(Index(history, labels, budget), model, graph, budget, many_views=many_views)
    return out.witness, out.certificate


def _decide(history: History, model: Model, graph: ProximityGraph, budget: Budget
            ) -> tuple[Witness | None, tuple[Reason, ...], int]:
    """(witness, certificate, number of phases); raises BudgetExhausted."""
    parts = phases(history)
    budget.tick(0)  # the deadline, after the split's linear passes
    whole = history.by_process
    witnesses: list[Witness] = []
    for k, part in enumerate(parts):
        sub = part.history
        labels = None
        sub_graph = graph
        if len(parts) > 1:
            budget.stage = (f"{model}: direct engine, phase {k + 1} of {len(parts)} "
                            f"({len(sub.ops):,} operations)")
            labels = [history.ops[u].label() for u in part.uids]
            procs = set(sub.processes)
            sub_graph = ProximityGraph(sub.processes,
                                       tuple(e for e in graph.edges if e[0] in procs and e[1] in procs))
        many = len(history.processes) > MANY_VIEWS
        seq = _serialisation_first(sub, budget) if not sub.differentiated else None
        if seq is not None:
            witnesses.append(sequence_witness(sub, model, seq))
            continue
        if sub.has_maybe:
            witness, cert = _decide_maybe(sub, model, sub_graph, budget, labels, many)
        else:
            witness, cert = _decide_plain(sub, model, sub_graph, budget, labels, many)
        if witness is None:
            cert = tuple(Reason(r.text, r.rule, tuple(part.uids[u] for u in r.ops)) for r in cert)
            shared = any(len(sub.by_process[p]) < len(whole[p]) for p in sub.processes) if len(parts) > 1 \
                else True
            if not shared:  # an independent part: say so (a phase's certificate speaks for itself)
                cert = (Reason(f"the history splits into independent parts (no process or register "
                               f"shared); this one, of processes {', '.join(sub.processes[:6])}"
                               f"{', ...' if len(sub.processes) > 6 else ''}, has no witness:",
                               "part"),) + cert
            return None, cert, len(parts)
        witnesses.append(witness)
    if len(parts) == 1:
        return witnesses[0], (), 1
    return assemble(history, model, graph, parts, witnesses), (), len(parts)


def _linear_extension(history: History, witness: Witness) -> list[int]:
    """A topological order of process order ∪ read-from ∪ the witness's star pairs
    (the witness has been found acyclic)."""
    pairs = [(w, r) for r, w in witness.read_from.items() if w is not None] + list(witness.star)
    return linear_extension(history, pairs)


def assemble(history: History, model: Model, graph: ProximityGraph, parts: list[Part],
             witnesses: list[Witness]) -> Witness:
    """The witness of the whole history from those of its phases, one after the other
    (module docstring; ``docs/decomposition.md``)."""
    ops = history.ops
    if all(w.sequence is not None and not w.views for w in witnesses):
        # every phase has a serialisation: together they serialise the whole history, a
        # compact witness whose star order is total (validated in linear time)
        seq = [part.uids[u] for part, w in zip(parts, witnesses, strict=True)
               for u in w.sequence]  # type: ignore[union-attr]
        return sequence_witness(history, model, seq)
    read_from: dict[int, int | None] = {}
    star: list[tuple[int, int]] = []
    sequence: list[int] = []
    seqs: list[list[int]] = []
    listed: list[dict[str, list[int]]] = []
    covered: list[set[str]] = []
    for part, w in zip(parts, witnesses, strict=True):
        m = part.uids
        read_from.update({m[r]: None if s is None else m[s] for r, s in w.read_from.items()})
        star += [(m[a], m[b]) for a, b in w.star]
        if w.sequence is not None:
            seq = [m[u] for u in w.sequence]
            lst = {p: [m[u] for u in v] for p, v in w.views.items()}
        else:  # the view of the phase's first process stands for it in the shared sequence
            first = part.history.processes[0]
            seq = [m[u] for u in w.views[first]]
            lst = {p: [m[u] for u in v] for p, v in w.views.items() if p != first}
        sequence += seq
        seqs.append(seq)
        listed.append(lst)
        covered.append({p for p in part.history.processes if p not in lst})
    in_part = [set(part.history.processes) for part in parts]
    views: dict[str, tuple[int, ...]] = {}
    for p in history.processes:
        if all(p in covered[k] for k in range(len(parts)) if p in in_part[k]):
            continue  # its view is the shared sequence restricted to p + W
        v: list[int] = []
        for k, seq in enumerate(seqs):
            if p in listed[k]:
                v += listed[k][p]
            else:
                v += [u for u in seq if ops[u].is_write or ops[u].process == p]
        views[p] = tuple(v)
    if model.uses_graph:
        star += _cross_phase_pairs(history, model, graph, parts, witnesses)
    return Witness(read_from=read_from, star=tuple(star), views=views, sequence=tuple(sequence))


def _cross_phase_pairs(history: History, model: Model, graph: ProximityGraph, parts: list[Part],
                       witnesses: list[Witness]) -> list[tuple[int, int]]:
    """Star pairs making ``M_pq`` total across phases: for every edge ``(p, q)``, the
    last member of ``M_pq`` in one phase (its star order is total there) before the
    first member in the next phase holding any.  They all go forward in the phase
    order, as do process order and read-from, so the star order stays acyclic."""
    all_ops = model is Model.FISHEYE_2014
    pos: dict[int, int] = {}
    first: dict[tuple[int, str], int] = {}
    last: dict[tuple[int, str], int] = {}
    phases_of: dict[str, list[int]] = {}
    for k, (part, w) in enumerate(zip(parts, witnesses, strict=True)):
        sub_ops = part.history.ops
        taken = named_operations(w) if part.history.has_maybe else set()
        for u in _linear_extension(part.history, w):
            g = part.uids[u]
            pos[g] = len(pos)
            op = sub_ops[u]
            if op.maybe and u not in taken:
                continue  # did not take effect in the phase's witness: not to be named
            if all_ops or op.is_write:
                if (k, op.process) not in first:
                    first[(k, op.process)] = g
                    phases_of.setdefault(op.process, []).append(k)
                last[(k, op.process)] = g
    out: list[tuple[int, int]] = []
    for p, q in graph.edges:
        prev: int | None = None
        for k in sorted(set(phases_of.get(p, ())) | set(phases_of.get(q, ()))):
            lo = min((first[(k, x)] for x in (p, q) if (k, x) in first), key=pos.__getitem__)
            hi = max((last[(k, x)] for x in (p, q) if (k, x) in last), key=pos.__getitem__)
            if prev is not None:
                out.append((prev, lo))
            prev = hi
    return out
