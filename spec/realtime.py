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


def order_problems(history: History, pairs: RealTimePairs, seq: Sequence[int],
                   name: str = "S") -> list[str]:
    """Clauses 3, 2 and 4, judged in one pass over ``seq`` (at most one problem of
    clause 3, then at most ``_MAX_PROBLEMS`` of clause 2 and of clause 4, in that order).

    * Clause 3 (process order): each operation's index exceeds that of the last
      operation of its process placed so far.
    * Clause 2 (legality): a read or a cas finds the value of the last operation placed
      so far that changed its register (values are integers and strings: ``==``
      compares them as ``value_key`` does), or the register's initial value.
    * Clause 4 (real time): ``a`` violates it iff some ``b`` of a neighbour process placed
      before ``a`` was invoked after ``a`` completed, so it suffices to keep, per process,
      the latest invocation placed so far (every pair: the latest overall; an op of
      ``a``'s own process there was invoked before ``a`` when process order holds, so it
      violates nothing)."""
    ops = history.ops
    last: dict[str, int] = {}               # clause 3: process -> index of its last op placed
    current: dict[str, Any] = {}            # clause 2: register -> its value
    source: dict[str, Op] = {}              # clause 2: register -> the operation that wrote it
    judge_legal = True                      # clause 2 (until _MAX_PROBLEMS are found)
    judge_time = not pairs.none             # clause 4 (likewise)
    every = pairs.every_pair
    latest: dict[str, int] = {}             # clause 4: process -> uid of its latest-invoked op
    overall: Op | None = None               # clause 4 (every pair): the latest-invoked op
    top = float("-inf")                     # ... and its invocation
    order: list[str] = []
    legal: list[str] = []
    timely: list[str] = []
    for u in seq:
        a = ops[u]
        p, kind = a.process, a.kind
        if not order:
            if a.index < last.get(p, -1):
                prev = history.op(p, last[p])
                order.append(f"{name} puts {prev.label()} before {a.label()}, against the process order "
                             f"of {p}")
            last[p] = a.index
        if kind != "w" and judge_legal:  # it observes: a read, or a cas
            reg = a.register
            value = current.get(reg, _UNWRITTEN)
            if value is _UNWRITTEN:
                value = history.initial_value(reg)
            observed = a.value if kind == "r" else a.old
            if value != observed:
                src = source.get(reg)
                was = "the initial value" if src is None else src.label()
                legal.append(f"{name} is not legal: {a.label()} follows {was} with no write of "
                             f"{format_value(observed)} to {reg} in between")
                judge_legal = len(legal) < _MAX_PROBLEMS
        if kind != "r":  # it writes: a write, or a cas
            current[a.register] = a.value
            source[a.register] = a
        if judge_time:
            invoke = a.invoke
            if invoke is None:
                timely = [f"{name} cannot be judged in real time: {a.label()} has no time"]
                judge_time = False
                continue
            done = a.complete
            if every:
                if done is not None and done < top:
                    assert overall is not None
                    timely.append(_late(name, overall, a))
                if top < invoke:
                    overall, top = a, invoke
            else:
                if done is not None:
                    for q in pairs.of_process(p):
                        v = latest.get(q)
                        if v is not None and done < ops[v].invoke:  # type: ignore[operator]
                            timely.append(_late(name, ops[v], a))
                            break
                prev_u = latest.get(p)
                if prev_u is None or ops[prev_u].invoke < invoke:  # type: ignore[operator]
                    latest[p] = u
            judge_time = len(timely) < _MAX_PROBLEMS
    return order + legal + timely


def _late(name: str, b: Op, a: Op) -> str:
    return (f"{name} puts {b.label()} (invoked at {format_value(b.invoke)}) before {a.label()} "
            f"(completed at {format_value(a.complete)}), against real time [edge {a.process}-{b.process}]")


_UNWRITTEN = object()


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
    return order_problems(history, pairs, seq, name)


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
