"""Shared machinery of the direct engine: a dense index of the history, labelled edge
sets (each forced ordering carries the reason that forced it), closures, paths and
cycles turned into certificates, and the search budget.

Every order the direct engine builds contains the process order, so it is closed with
:func:`fisheye.spec.order.close` (vector clocks: ``clock[b][k]`` is the last index of
process ``k`` that precedes or equals ``b``).
"""

from __future__ import annotations

import time
from bisect import bisect_right
from collections import deque
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from fisheye.spec.causal import candidate_sources
from fisheye.spec.history import History
from fisheye.spec.order import ClosedOrder, Cycle, close

from ..result import Reason

Edges = dict[tuple[int, int], Reason]
"""A relation on uids, each pair with the reason it holds (rule ``rf``, ``forced``...)."""


class BudgetExhausted(Exception):
    """The search ran out of nodes or time: the verdict is *unknown*."""


@dataclass
class Budget:
    """A node budget and an optional deadline (``timeout`` seconds from creation).
    ``tick`` is called once per closure computed, the unit of work of the engine."""

    max_nodes: int = 200_000
    timeout: float | None = None
    nodes: int = 0
    start: float = field(default_factory=time.monotonic)

    def tick(self, cost: int = 1) -> None:
        self.nodes += cost
        if self.nodes > self.max_nodes:
            raise BudgetExhausted(f"the direct engine's search budget of {self.max_nodes} nodes "
                                  f"(closures computed) ran out")
        if self.timeout is not None and time.monotonic() - self.start > self.timeout:
            raise BudgetExhausted(f"the timeout of {self.timeout:g} s ran out")


@dataclass(frozen=True)
class Conflict:
    """Why a (partial) set of choices has no solution: the certificate's reasons."""

    reasons: tuple[Reason, ...]


class Index:
    """Dense integer views of a history, computed once per check."""

    def __init__(self, history: History):
        self.h = history
        ops = history.ops
        self.n = len(ops)
        self.procs = history.processes
        self.P = len(self.procs)
        pidx = {p: k for k, p in enumerate(self.procs)}
        self.proc_of = [pidx[op.process] for op in ops]
        self.idx = [op.index for op in ops]
        self.base = [0] * self.P
        self.length = [0] * self.P
        for op in ops:
            k = pidx[op.process]
            if op.index == 0:
                self.base[k] = op.uid
            self.length[k] = op.index + 1
        self.reg = [op.register for op in ops]
        self.is_write = [op.is_write for op in ops]
        # per (process index, register): po indices of the writes, increasing
        self.xw: dict[tuple[int, str], list[int]] = {}
        # per process index: po indices of its writes
        self.wlist: list[list[int]] = [[] for _ in range(self.P)]
        self.reads_of: list[list[int]] = [[] for _ in range(self.P)]
        for op in ops:
            k = pidx[op.process]
            if op.is_write:
                self.xw.setdefault((k, op.register), []).append(op.index)
                self.wlist[k].append(op.index)
            else:
                self.reads_of[k].append(op.uid)
        self.reads = [op.uid for op in ops if op.is_read]
        self.cands: dict[int, list[int | None]] = {r: candidate_sources(history, ops[r]) for r in self.reads}

    def label(self, u: int) -> str:
        return self.h.ops[u].label()

    def uid(self, k: int, i: int) -> int:
        return self.base[k] + i

    def precedes(self, order: ClosedOrder, a: int, b: int) -> bool:
        """``a`` strictly before ``b`` in ``order`` (clock test)."""
        return a != b and self.idx[a] <= order.clock[b][self.proc_of[a]]

    def last_write_before(self, order: ClosedOrder, b: int, k: int, reg: str) -> int | None:
        """The last write of process ``k`` to ``reg`` that precedes or equals ``b``."""
        lst = self.xw.get((k, reg))
        if not lst:
            return None
        j = bisect_right(lst, order.clock[b][k]) - 1
        return None if j < 0 else self.base[k] + lst[j]


def po_reason(ix: Index, a: int, b: int) -> Reason:
    return Reason(f"{ix.label(a)} < {ix.label(b)}: process order of {ix.h.ops[a].process}", "po", (a, b))


def rf_edges(ix: Index, rf: Mapping[int, int | None]) -> Edges:
    out: Edges = {}
    for r, w in rf.items():
        if w is not None:
            out[(w, r)] = Reason(f"{ix.label(w)} < {ix.label(r)}: the read reads from this write", "rf",
                                 (w, r))
    return out


def closure(ix: Index, edges: Iterable[tuple[int, int]]) -> ClosedOrder | Cycle:
    return close(ix.h, edges)


def edge_reason(ix: Index, edges: Mapping[tuple[int, int], Reason], a: int, b: int) -> Reason:
    if (a, b) in edges:
        return edges[(a, b)]
    if ix.proc_of[a] == ix.proc_of[b] and ix.idx[a] < ix.idx[b]:
        return po_reason(ix, a, b)
    return Reason(f"{ix.label(a)} < {ix.label(b)}", "order", (a, b))


def cycle_reasons(ix: Index, edges: Mapping[tuple[int, int], Reason], cycle: Cycle) -> tuple[Reason, ...]:
    """A cycle of forced orderings, each edge with its reason."""
    ops = list(cycle.ops)
    return tuple(edge_reason(ix, edges, a, b) for a, b in zip(ops, ops[1:] + ops[:1], strict=True))


def path_reasons(ix: Index, edges: Mapping[tuple[int, int], Reason], a: int, b: int) -> tuple[Reason, ...]:
    """A path ``a -> ... -> b`` in process order ∪ ``edges`` (BFS), each step with its
    reason; empty if there is none (should not happen when the order says a < b)."""
    succ: dict[int, list[int]] = {}
    for x, y in edges:
        succ.setdefault(x, []).append(y)
    parent: dict[int, int] = {a: a}
    queue = deque([a])
    while queue:
        u = queue.popleft()
        if u == b:
            break
        nxt = list(succ.get(u, ()))
        if u + 1 < ix.n and ix.proc_of[u + 1] == ix.proc_of[u]:
            nxt.append(u + 1)
        for v in nxt:
            if v not in parent:
                parent[v] = u
                queue.append(v)
    if b not in parent:
        return ()
    path = [b]
    while path[-1] != a:
        path.append(parent[path[-1]])
    path.reverse()
    return tuple(edge_reason(ix, edges, x, y) for x, y in zip(path, path[1:], strict=False))


def order_key(order: ClosedOrder) -> bytes:
    """A 128-bit digest of a closure (memoisation of refuted search nodes without keeping
    the clocks alive)."""
    from array import array
    from hashlib import blake2b

    flat = array("q", (x for c in order.clock for x in c))
    return blake2b(flat.tobytes(), digest_size=16).digest()


def fair_topo(ix: Index, order: ClosedOrder) -> list[int]:
    """A topological order of ``order`` that interleaves the processes by progress (the
    ready operation whose position ``index / length`` in its process is smallest comes
    first): a guess of real time, used to orient the pairs a search must choose."""
    import heapq

    P = ix.P
    # immediate predecessors are enough: u is ready once, for every process k, the
    # operations of k up to clock[u][k] are placed
    placed = [0] * P  # number of placed operations of each process
    heap: list[tuple[float, int, int]] = []
    waiting: dict[tuple[int, int], list[int]] = {}

    def try_ready(u: int) -> None:
        c = order.clock[u]
        k_u = ix.proc_of[u]
        for k in range(P):
            need = c[k] + 1 if k != k_u else ix.idx[u]
            if placed[k] < need:
                waiting.setdefault((k, need), []).append(u)
                return
        heapq.heappush(heap, (ix.idx[u] / ix.length[k_u], k_u, u))

    for k in range(P):
        if ix.length[k]:
            try_ready(ix.base[k])
    out: list[int] = []
    while heap:
        _, k, u = heapq.heappop(heap)
        out.append(u)
        placed[k] += 1
        if placed[k] < ix.length[k]:
            try_ready(u + 1)
        for v in waiting.pop((k, placed[k]), ()):
            try_ready(v)
    return out


def conflict_choice(probe: object, default: tuple[int, int]) -> tuple[int, int]:
    """The pair to branch on after a failed probe: a probe choice on the refuted cycle,
    reversed (at least one of them must flip), else ``default``.  Any open pair keeps
    the search complete; this one focuses it on the conflict."""
    if isinstance(probe, Conflict):
        for r in probe.reasons:
            if r.rule == "probe" and len(r.ops) == 2:
                return r.ops[1], r.ops[0]
    return default
