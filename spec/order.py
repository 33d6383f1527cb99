"""Orders over the operations of a history, closed under transitivity.

Every order the papers use on a history (causal order ``~>H``, the star order
``*~>H,G``) contains the process order.  The set of predecessors of an operation in
the transitive closure of such a relation is then a union of per-process *prefixes*,
so the closure is represented exactly by a vector clock per operation:
``clock[b][k]`` is the largest index of an operation of process ``k`` that precedes or
equals ``b``.  This takes ``n * |Pi|`` integers instead of ``n^2`` bits.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cached_property
from itertools import compress
from operator import eq

from .history import History


@dataclass(frozen=True)
class Cycle:
    """A cycle of the generating relation: ``ops[0] -> ops[1] -> ... -> ops[0]``
    (uids)."""

    ops: tuple[int, ...]


@dataclass(frozen=True)
class ClosedOrder:
    """The transitive closure of (process order ∪ ``extra``) on ``history``, known to
    be acyclic (a strict partial order)."""

    history: History
    clock: tuple[tuple[int, ...], ...]  # per uid: per process index -> max index, -1 if none
    topo: tuple[int, ...]  # a topological order of all uids
    proc_index: dict[str, int]

    def precedes(self, a: int, b: int) -> bool:
        """``a`` strictly before ``b`` in the order."""
        if a == b:
            return False
        oa = self.history.ops[a]
        return oa.index <= self.clock[b][self.proc_index[oa.process]]

    def comparable(self, a: int, b: int) -> bool:
        return self.precedes(a, b) or self.precedes(b, a)

    def predecessors(self, b: int) -> Iterable[int]:
        """All strict predecessors of ``b`` (uids)."""
        ops = self.history.ops
        base = _process_bases(self.history)
        for k, p in enumerate(self.history.processes):
            top = self.clock[b][k]
            for i in range(top + 1):
                u = base[p] + i
                if u != b:
                    yield ops[u].uid


def _process_bases(history: History) -> dict[str, int]:
    """uid of the first operation of each process (uids are dense, process by process)."""
    base: dict[str, int] = {}
    for op in history.ops:
        base.setdefault(op.process, op.uid - op.index)
    for p in history.processes:
        base.setdefault(p, 0)
    return base


def linear_extension(history: History, extra: Iterable[tuple[int, int]]) -> list[int]:
    """A topological order of process order ∪ ``extra`` (Kahn's algorithm; the nodes on
    or after a cycle are left out)."""
    return generate(history, extra).topo


@dataclass(frozen=True)
class Generated:
    """Process order ∪ ``pairs`` on ``history`` as successor lists and in-degrees, with
    the outcome of Kahn's algorithm on it: built once, then asked for a cycle, for
    totality, for reachability, for the transitive closure (the orders of sections 2.3
    and 3.2 are such closures)."""

    history: History
    pairs: tuple[tuple[int, int], ...]
    succ: Sequence[Sequence[int]]
    indeg: Sequence[int]  # per operation, its number of generating predecessors
    topo: Sequence[int]  # Kahn's order of the operations it reaches: all of them iff acyclic
    left: Sequence[int]  # remaining in-degrees: positive on and after cycles

    @property
    def acyclic(self) -> bool:
        return len(self.topo) == len(self.history.ops)

    def cycle(self) -> Cycle | None:
        """A cycle of the relation, or None when it is acyclic."""
        if self.acyclic:
            return None
        left = self.left
        return Cycle(tuple(_find_cycle(len(left), self.succ, {u for u, d in enumerate(left) if d > 0})))

    def is_total(self) -> bool:
        """Whether the closure is a total order: acyclic, with a unique topological order,
        i.e. each two consecutive operations of Kahn's order are a generating pair (two
        consecutive ones that are not could be swapped).  Linear time, no clocks."""
        succ, topo = self.succ, self.topo
        return self.acyclic and all(b in succ[a] for a, b in zip(topo, topo[1:], strict=False))

    @cached_property
    def rank(self) -> list[int]:
        """Each operation's position in ``topo`` (of an acyclic relation)."""
        rank = [0] * len(self.topo)
        for i, u in enumerate(self.topo):
            rank[u] = i
        return rank

    def reaches(self, a: int, b: int) -> bool:
        """Whether generating pairs lead from ``a`` to ``b`` (``a`` ranked before ``b``), i.e.
        ``a`` precedes ``b`` in the closure.  The search visits only operations ranked
        between the two (every path does), so asking it of the consecutive members of a
        set in ``topo`` order costs linear time in total."""
        succ, rank = self.succ, self.rank
        limit = rank[b]
        seen = {a}
        stack = [a]
        while stack:
            for v in succ[stack.pop()]:
                if v == b:
                    return True
                if rank[v] < limit and v not in seen:
                    seen.add(v)
                    stack.append(v)
        return False

    def closed(self) -> ClosedOrder | Cycle:
        """The transitive closure as vector clocks, or a cycle."""
        cycle = self.cycle()
        if cycle is not None:
            return cycle
        history = self.history
        ops = history.ops
        n = len(ops)
        pred: list[list[int]] = [[] for _ in range(n)]
        for a, succ in enumerate(self.succ):
            for b in succ:
                pred[b].append(a)
        proc_index = {p: k for k, p in enumerate(history.processes)}
        own = [proc_index[op.process] for op in ops]
        clock: list[tuple[int, ...]] = [()] * n
        empty = (-1,) * len(history.processes)
        for u in self.topo:
            preds = pred[u]
            if not preds:
                c = list(empty)
            elif len(preds) == 1:
                c = list(clock[preds[0]])
            else:  # element-wise maximum, at C speed (P may be in the hundreds)
                c = list(map(max, *(clock[v] for v in preds)))
            k = own[u]
            index = ops[u].index
            if index > c[k]:
                c[k] = index
            clock[u] = tuple(c)
        return ClosedOrder(history, tuple(clock), tuple(self.topo), proc_index)


def generate(history: History, extra: Iterable[tuple[int, int]]) -> Generated:
    """Process order ∪ ``extra`` and Kahn's algorithm on it (linear time)."""
    n = len(history.ops)
    procs = [op.process for op in history.ops]
    pairs = tuple(extra)
    succ: list[list[int]] = [[] for _ in range(n)]
    indeg = [0] * n
    for a, b in pairs:
        succ[a].append(b)
        indeg[b] += 1
    for i in compress(range(n - 1), map(eq, procs, procs[1:])):  # consecutive in a process
        succ[i].append(i + 1)
        indeg[i + 1] += 1
    left = indeg.copy()
    ready = [u for u in range(n) if left[u] == 0]
    topo: list[int] = []
    while ready:
        u = ready.pop()
        topo.append(u)
        for v in succ[u]:
            left[v] -= 1
            if left[v] == 0:
                ready.append(v)
    return Generated(history, pairs, succ, indeg, topo, left)


def find_cycle(history: History, extra: Iterable[tuple[int, int]]) -> Cycle | None:
    """A cycle of process order ∪ ``extra``, or None when it is acyclic (linear time)."""
    return generate(history, extra).cycle()


def close(history: History, extra: Iterable[tuple[int, int]]) -> ClosedOrder | Cycle:
    """Close process order ∪ ``extra`` transitively; return the order, or a cycle."""
    return generate(history, extra).closed()


def _find_cycle(n: int, succ: Sequence[Sequence[int]], candidates: set[int]) -> list[int]:
    """A simple cycle among ``candidates`` (nodes left by Kahn's algorithm, each of
    which lies on or after a cycle).  Iterative DFS."""
    color = dict.fromkeys(candidates, 0)  # 0 white, 1 on stack, 2 done
    for start in sorted(candidates):
        if color[start]:
            continue
        # each frame keeps its filtered successor list (built once per visit)
        stack: list[tuple[int, list[int], int]] = [(start, [v for v in succ[start] if v in color], 0)]
        path: list[int] = [start]
        color[start] = 1
        while stack:
            u, nxt, i = stack[-1]
            if i < len(nxt):
                stack[-1] = (u, nxt, i + 1)
                v = nxt[i]
                if color[v] == 1:
                    return path[path.index(v):]
                if color[v] == 0:
                    color[v] = 1
                    stack.append((v, [w for w in succ[v] if w in color], 0))
                    path.append(v)
            else:
                color[u] = 2
                stack.pop()
                path.pop()
    raise AssertionError("no cycle found among nodes left by Kahn's algorithm")
