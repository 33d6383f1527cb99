"""The sequential members of the family: ``sc``, ``lin`` and G-fisheye (LIN,SC).

All three ask for one sequence ``S`` of the operations (the papers' section 2.2 for
SC; Herlihy and Wing, *Linearizability*, TOPLAS 1990, for LIN) and differ only in the
real-time pairs ``S`` must respect:

* **sc**: none (process order only);
* **lin**: every pair ``a``, ``b`` with ``a`` completed before ``b`` was invoked;
* **fisheye-lin** (G-fisheye (LIN,SC)-consistency, named in the conclusion of the 2015
  text, section 6: "linearizability for operations by nearby nodes with an overall
  sequential consistency guarantee"): those pairs whose processes are neighbours in G.

Precisely, ``S`` witnesses the model for the proximity graph ``G`` when

1. ``S`` is a sequence of distinct operations of ``H`` holding every operation not
   marked ``maybe`` (a ``maybe`` operation took effect iff it is in ``S``; Herlihy and
   Wing's completion of pending operations, which may be completed or removed);
2. ``S`` is legal: each read returns, and each cas finds as its ``old``, the value of
   the last operation that changed the register before it in ``S`` (a write, or a
   cas's ``new``), or the register's initial value;
3. ``S`` respects process order (equivalence, section 2.2);
4. for every edge ``(p, q)`` of ``G`` and operations ``a`` of ``p`` and ``b`` of ``q``
   in ``S``: if ``a`` completed before ``b`` was invoked (``a.complete < b.invoke``,
   strictly; an operation that never returned precedes nothing), then ``a`` precedes
   ``b`` in ``S``.

The choice mirrors the paper's construction of G-fisheye (SC,CC): there the weak
model's order (``~>H``) is extended by what the strong model adds (a total order) on
the operations of neighbours; here the weak model SC gives ``S`` and the strong model
LIN adds exactly one ingredient, the real-time order, on the operations of
neighbours.  So on the empty graph the definition is SC, on the complete graph LIN
(every pair of distinct processes is an edge, and pairs inside a process are ordered
by process order, which real time implies there), and it is monotone in ``G``.

The witness is :attr:`fisheye.spec.witness.Witness.sequence` (uids); ``maybe``
operations absent from it did not take effect.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from .graph import ProximityGraph
from .history import History, Op, format_value

_MAX_PROBLEMS = 20


@dataclass(frozen=True)
class RealTimePairs:
    """Which pairs of processes a model orders by real time (clause 4): every pair
    (``lin``; kept implicit, a complete graph on hundreds of processes being large), or
    the neighbours of a graph (``fisheye-lin``; no edges: ``sc``)."""

    every_pair: bool
    neighbours: Mapping[str, frozenset[str]] = field(default_factory=dict)

    @staticmethod
    def all() -> RealTimePairs:
        return RealTimePairs(True)

    @staticmethod
    def of(graph: ProximityGraph) -> RealTimePairs:
        n = len(graph.processes)
        if n > 1 and len(graph.edges) * 2 == n * (n - 1):
            return RealTimePairs(True)
        adj: dict[str, set[str]] = {p: set() for p in graph.processes}
        for a, b in graph.edges:
            adj[a].add(b)
            adj[b].add(a)
        return RealTimePairs(False, {p: frozenset(q) for p, q in adj.items()})

    @property
    def none(self) -> bool:
        return not self.every_pair and not any(self.neighbours.values())

    def adjacent(self, p: str, q: str) -> bool:
        return p != q and (self.every_pair or q in self.neighbours.get(p, ()))

    def of_process(self, p: str) -> frozenset[str]:
        """The neighbours of ``p`` (meaningful when not ``every_pair``)."""
        return self.neighbours.get(p, frozenset())


def membership_problems(history: History, seq: Sequence[int], name: str = "S") -> list[str]:
    """Clause 1: distinct operations of the history, every non-``maybe`` one present."""
    n = len(history.ops)
    if not (all(type(u) is int for u in seq) and (not seq or (min(seq) >= 0 and max(seq) < n))):
        bad = [u for u in seq if not (isinstance(u, int) and not isinstance(u, bool) and 0 <= u < n)]
        if bad:
            return [f"{name} names unknown operations {bad[:5]}"]
    seen = set(seq)
    if len(seen) < len(seq):
        seen = set()
        for u in seq:
            if u in seen:
                return [f"{name} holds {history.ops[u].label()} twice"]
            seen.add(u)
    if len(seen) == n:
        return []
    missing = [op.label() for op in history.ops if op.uid not in seen and not op.maybe]
    if missing:
        return [f"{name} misses {', '.join(missing[:5])} (only operations marked maybe may be left out)"]
    return []


def legality_problems(history: History, seq: Sequence[int], name: str = "S") -> list[str]:
    """Clause 2: reads and cas find the current value of their register."""
    ops = history.ops
    current: dict[str, Any] = {}  # register -> its value
    source: dict[str, Op] = {}  # register -> the operation that wrote it
    out: list[str] = []
    for u in seq:
        op = ops[u]
        kind = op.kind
        if kind != "w":  # it observes: a read, or a cas
            reg = op.register
            value = current.get(reg, _UNWRITTEN)
            if value is _UNWRITTEN:
                value = history.initial_value(reg)
            # values are integers and strings: == compares them as value_key does
            observed = op.value if kind == "r" else op.old
            if value != observed:
                src = source.get(reg)
                was = "the initial value" if src is None else src.label()
                out.append(f"{name} is not legal: {op.label()} follows {was} with no write of "
                           f"{format_value(observed)} to {reg} in between")
                if len(out) >= _MAX_PROBLEMS:
                    break
        if kind != "r":  # it writes: a write, or a cas
            current[op.register] = op.value
            source[op.register] = op
    return out


_UNWRITTEN = object()


def process_order_problems(history: History, seq: Sequence[int], name: str = "S") -> list[str]:
    """Clause 3: the projection of ``S`` on each process follows its process order."""
    ops = history.ops
    last: dict[str, int] = {}
    for u in seq:
        op = ops[u]
        if op.index < last.get(op.process, -1):
            prev = history.op(op.process, last[op.process])
            return [f"{name} puts {prev.label()} before {op.label()}, against the process order "
                    f"of {op.process}"]
        last[op.process] = op.index
    return []


def real_time_problems(history: History, pairs: RealTimePairs, seq: Sequence[int],
                       name: str = "S") -> list[str]:
    """Clause 4, in one pass: ``a`` violates it iff some ``b`` of a neighbour process
    placed before ``a`` was invoked after ``a`` completed, so it suffices to keep, per
    process, the latest invocation placed so far (with the operation, for the message).
    """
    if pairs.none:
        return []
    ops = history.ops
    complete = pairs.every_pair
    latest: dict[str, int] = {}  # process -> uid of its placed op with the latest invocation
    overall: int | None = None  # (every pair) the placed op with the latest invocation
    overall_invoke = 0.0
    out: list[str] = []
    for u in seq:
        a = ops[u]
        invoke = a.invoke
        if invoke is None:
            return [f"{name} cannot be judged in real time: {a.label()} has no time"]
        if a.complete is not None:
            if complete:
                # Also a same-process op: if it is the latest and process order holds,
                # its invocation precedes a's, so no op placed so far violates clause 4.
                cands = [] if overall is None or not a.complete < overall_invoke else [overall]
            else:
                cands = [latest[q] for q in pairs.of_process(a.process) if q in latest]
            for v in cands:
                b = ops[v]
                if b.invoke is not None and a.complete < b.invoke:
                    out.append(f"{name} puts {b.label()} (invoked at {format_value(b.invoke)}) before "
                           f"{a.label()} (completed at {format_value(a.complete)}), against real "
                           f"time [edge {a.process}-{b.process}]")
                    break
            if len(out) >= _MAX_PROBLEMS:
                break
        if not complete:  # (every pair: only the overall latest is compared with)
            prev = latest.get(a.process)
            if prev is None or ops[prev].invoke < invoke:  # type: ignore[operator]
                latest[a.process] = u
        if overall is None or overall_invoke < invoke:
            overall, overall_invoke = u, invoke
    return out


def sequence_problems(history: History, graph: ProximityGraph | RealTimePairs, seq: Sequence[int] | None,
                      name: str = "S") -> list[str]:
    """Every clause (module docstring) ``seq`` fails for ``graph``; empty: ``seq``
    witnesses G-fisheye (LIN,SC) (``sc`` for the empty graph, ``lin`` for the complete
    one)."""
    if seq is None:
        return [f"the witness has no sequence {name}"]
    out = membership_problems(history, seq, name)
    if out:
        return out
    pairs = graph if isinstance(graph, RealTimePairs) else RealTimePairs.of(graph)
    return (process_order_problems(history, seq, name) + legality_problems(history, seq, name)
            + real_time_problems(history, pairs, seq, name))


def real_time_pairs(model: str, graph: ProximityGraph) -> RealTimePairs:
    """The pairs of processes ``model`` orders by real time: none for ``sc``, every
    pair for ``lin``, the edges of ``graph`` for ``fisheye-lin``."""
    if model == "sc":
        return RealTimePairs(False)
    if model == "lin":
        return RealTimePairs.all()
    return RealTimePairs.of(graph)


def handles(history: History, model: str) -> bool:
    """This module defines ``model`` on ``history``: ``lin`` and ``fisheye-lin`` always,
    ``sc`` when the history has cas or ``maybe`` operations."""
    return model in ("lin", "fisheye-lin") or (model == "sc" and (history.has_cas or history.has_maybe))


def problems(history: History, model: str, graph: ProximityGraph, seq: Sequence[int] | None) -> list[str]:
    """:func:`sequence_problems` for ``model`` (``sc``, ``lin`` or ``fisheye-lin``)."""
    return sequence_problems(history, real_time_pairs(model, graph), seq)
