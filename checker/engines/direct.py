"""The direct engine: decides every model without Z3.

* cc with a single possible read-from map (differentiated histories): polynomial, one
  saturation per process (:mod:`.direct_cc`, after Bouajjani, Enea, Guerraoui, Hamza,
  *On Verifying Causal Consistency*, POPL 2017, model CM).
* sc, fisheye, fisheye-2014, and every model with repeated values: a sound and complete
  search that saturates forced orderings first and backtracks only on what remains
  (:mod:`.direct_search`, :mod:`.direct_sc`, :mod:`.direct_star`).

**Independent parts.**  The history is first split into its *independent parts*: the
connected components of the graph linking each process to the registers it uses (a
Jepsen test of independent keys, each worked on by its own group of client threads,
has one part per group).  No read of one part can read from a write of another, so
``H`` is consistent under each model iff every part is (for fisheye, with ``G``
restricted to the part):

* sc: the parts' serialisations, one after the other, form a legal serialisation of
  ``H`` (each register lives in one part); conversely a serialisation of ``H``
  restricted to a part is one of the part.
* cc: ``~>H`` (process order ∪ read-from) has no pair across parts; ``S_i`` is the
  view of ``p_i`` in its own part, preceded and followed by the writes of the other
  parts, each part's writes in an order its causal order allows.
* fisheye (section 3.2, both definitions): the star order is the union of the parts'
  star orders, with every operation of an earlier part before every operation of a
  later one whenever an edge of ``G`` joins them (so ``M_pq`` is total for an edge
  across parts; it stays acyclic as these pairs all go forward); each view as for cc.

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
from fisheye.spec.history import History, value_key
from fisheye.spec.models import Model
from fisheye.spec.witness import Witness, effective_history, remap

from ..result import CheckResult, Reason, Verdict
from .direct_order import Budget, BudgetExhausted, Index
from .direct_search import Outcome, search

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
    """An independent part of a history: a sub-history made of whole processes (process
    names and indices unchanged) and the uids of its operations in the whole history."""

    history: History
    uids: tuple[int, ...]  # uid in the part -> uid in the whole history


def independent_parts(history: History) -> list[Part]:
    """The connected components of the process–register graph, in the order of their
    first process; processes without operations belong to no part."""
    parent: dict[object, object] = {}

    def find(x: object) -> object:
        root = x
        while parent.get(root, root) != root:
            root = parent[root]
        while parent.get(x, x) != root:
            parent[x], x = root, parent[x]
        return root

    for op in history.ops:
        a, b = find(("p", op.process)), find(("r", op.register))
        if a != b:
            parent[a] = b
    by_process = history.by_process
    groups: dict[object, list[str]] = {}
    for p in history.processes:
        if by_process[p]:
            groups.setdefault(find(("p", p)), []).append(p)
    if len(groups) <= 1:
        return [Part(history, tuple(range(len(history.ops))))]
    parts = []
    for procs in groups.values():
        ops = [op for p in procs for op in by_process[p]]
        regs = {op.register for op in ops}
        sub = History(tuple(procs), tuple(replace(op, uid=i) for i, op in enumerate(ops)),
                      (), {x: v for x, v in history.initial.items() if x in regs})
        parts.append(Part(sub, tuple(op.uid for op in ops)))
    return parts


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
        seq = _linearization_first(history, budget)
        if seq is not None:
            return CheckResult(Verdict.CONSISTENT, model, graph, "direct",
                               witness=sequence_witness(history, model, seq),
                               seconds=time.perf_counter() - start,
                               stats={"nodes": budget.nodes, "linearized": 1})
        if history.has_maybe:
            witness, cert, parts = _decide_maybe(history, model, graph, budget)
        else:
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
    from . import seqsearch
    from .lin import linearization

    left = None if budget.timeout is None else budget.timeout - (time.monotonic() - budget.start)
    sub = seqsearch.Budget(max_states=LINEARIZATION_STATES * len(history.ops) + 1000, timeout=left)
    try:
        return linearization(history, sub)
    except seqsearch.BudgetExhausted:
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


def _decide_maybe(history: History, model: Model, graph: ProximityGraph, budget: Budget
                  ) -> tuple[Witness | None, tuple[Reason, ...], int]:
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
    parts = 0
    for chosen in choices:
        effective, old_uid = effective_history(history, [*forced, *chosen])
        witness, cert, parts = _decide(effective, model, graph, budget)
        if witness is not None:
            return remap(witness, dict(enumerate(old_uid))), (), parts
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
    return None, (Reason(lead, "maybe"),) + (first or ()), parts


def _decide(history: History, model: Model, graph: ProximityGraph, budget: Budget
            ) -> tuple[Witness | None, tuple[Reason, ...], int]:
    """(witness, certificate, number of independent parts); raises BudgetExhausted."""
    parts = independent_parts(history)
    outcomes: list[Outcome] = []
    for k, part in enumerate(parts):
        if len(parts) > 1:
            budget.stage = (f"{model}: direct engine, independent part {k + 1} of {len(parts)} "
                            f"({len(part.history.ops):,} operations)")
        procs = set(part.history.processes)
        sub_graph = ProximityGraph(part.history.processes,
                                   tuple(e for e in graph.edges if e[0] in procs and e[1] in procs))
        out = search(Index(part.history), model, sub_graph, budget)
        if out.witness is None:
            cert = tuple(Reason(r.text, r.rule, tuple(part.uids[u] for u in r.ops))
                         for r in out.certificate)
            if len(parts) > 1:
                cert = (Reason(f"the history splits into {len(parts)} independent parts (no "
                               f"process or register shared); this one, of processes "
                               f"{', '.join(part.history.processes[:6])}"
                               f"{', ...' if len(part.history.processes) > 6 else ''}, has no "
                               f"witness:", "part"),) + cert
            return None, cert, len(parts)
        outcomes.append(out)
    if len(parts) == 1:
        return outcomes[0].witness, (), 1
    return assemble(history, model, graph, parts, [o.witness for o in outcomes]), (), len(parts)


def assemble(history: History, model: Model, graph: ProximityGraph, parts: list[Part],
             witnesses: list[Witness | None]) -> Witness:
    """The witness of the whole history from those of its independent parts (module
    docstring): parts one after the other, in the order of ``parts``."""
    ops = history.ops
    if all(w is not None and w.sequence is not None and not w.views for w in witnesses):
        # every part has a serialisation: together they serialise the whole history, a
        # compact witness whose star order is total (validated in linear time)
        seq = [part.uids[u] for part, w in zip(parts, witnesses, strict=True)
               for u in w.sequence]  # type: ignore[union-attr]
        return sequence_witness(history, model, seq)
    read_from: dict[int, int | None] = {}
    sequence: list[int] = []
    views: dict[str, tuple[int, ...]] = {}
    own: dict[str, list[int]] = {}  # a part's explicit views, in whole-history uids
    writes_of_part: list[list[int]] = []
    star: list[tuple[int, int]] = []
    part_of: dict[str, int] = {}
    for k, (part, w) in enumerate(zip(parts, witnesses, strict=True)):
        assert w is not None
        m = part.uids
        for p in part.history.processes:
            part_of[p] = k
        read_from.update({m[r]: None if s is None else m[s] for r, s in w.read_from.items()})
        star += [(m[a], m[b]) for a, b in w.star]
        if w.sequence is not None:
            seq = [m[u] for u in w.sequence]
            listed = dict(w.views)
        else:  # the view of the part's first process stands for it in the shared sequence
            first = part.history.processes[0]
            seq = [m[u] for u in w.views[first]]
            listed = {p: v for p, v in w.views.items() if p != first}
        sequence += seq
        writes_of_part.append([u for u in seq if ops[u].is_write])
        for p, v in listed.items():
            own[p] = [m[u] for u in v]
    if model is Model.SC:
        return Witness(read_from=read_from, sequence=tuple(sequence))
    for p, v in own.items():
        k = part_of[p]
        views[p] = tuple(u for j, ws in enumerate(writes_of_part) for u in (v if j == k else ws))
    if model.uses_graph:
        all_ops = model is Model.FISHEYE_2014
        members = {p: [op.uid for op in ops_p if all_ops or op.is_write]
                   for p, ops_p in history.by_process.items()}
        for p, q in graph.edges:
            if p in part_of and q in part_of and part_of[p] != part_of[q] and members[p] and members[q]:
                a, b = (p, q) if part_of[p] < part_of[q] else (q, p)
                star.append((members[a][-1], members[b][0]))
    return Witness(read_from=read_from, star=tuple(star), views=views, sequence=tuple(sequence))
