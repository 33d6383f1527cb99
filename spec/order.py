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
    return _kahn(history, extra)[0]


def _kahn(history: History, extra: Iterable[tuple[int, int]]
          ) -> tuple[list[int], list[list[int]], list[list[int]], list[int]]:
    """Kahn's algorithm on process order ∪ ``extra``: (topological order of the nodes it
    reaches, successors, predecessors, remaining in-degrees: positive on and after cycles)."""
    n = len(history.ops)
    ops = history.ops
    succ: list[list[int]] = [[] for _ in range(n)]
    pred: list[list[int]] = [[] for _ in range(n)]
    indeg = [0] * n
    for a, b in extra:
        succ[a].append(b)
        pred[b].append(a)
        indeg[b] += 1
    for i in range(n - 1):
        if ops[i].process == ops[i + 1].process:
            succ[i].append(i + 1)
            pred[i + 1].append(i)
            indeg[i + 1] += 1
    ready = [u for u in range(n) if indeg[u] == 0]
    topo: list[int] = []
    while ready:
        u = ready.pop()
        topo.append(u)
        for v in succ[u]:
            indeg[v] -= 1
            if indeg[v] == 0:
                ready.append(v)
    return topo, succ, pred, indeg


def is_total(history: History, extra: Iterable[tuple[int, int]]) -> bool:
    """Whether the closure of process order ∪ ``extra`` is a total order (acyclic, with a
    unique topological order: Kahn's algorithm never has two operations ready at once).
    Linear time, no clocks."""
    n = len(history.ops)
    ops = history.ops
    succ: list[list[int]] = [[] for _ in range(n)]
    indeg = [0] * n
    for a, b in extra:
        succ[a].append(b)
        indeg[b] += 1
    for i in range(n - 1):
        if ops[i].process == ops[i + 1].process:
            succ[i].append(i + 1)
            indeg[i + 1] += 1
    ready = [u for u in range(n) if indeg[u] == 0]
    done = 0
    while len(ready) == 1:
        u = ready.pop()
        done += 1
        for v in succ[u]:
            indeg[v] -= 1
            if indeg[v] == 0:
                ready.append(v)
    return done == n


def find_cycle(history: History, extra: Iterable[tuple[int, int]]) -> Cycle | None:
    """A cycle of process order ∪ ``extra``, or None when it is acyclic (linear time)."""
    n = len(history.ops)
    topo, succ, _, indeg = _kahn(history, extra)
    if len(topo) == n:
        return None
    return Cycle(tuple(_find_cycle(n, succ, {u for u in range(n) if indeg[u] > 0})))


def close(history: History, extra: Iterable[tuple[int, int]]) -> ClosedOrder | Cycle:
    """Close process order ∪ ``extra`` transitively; return the order, or a cycle."""
    n = len(history.ops)
    ops = history.ops
    topo, succ, pred, indeg = _kahn(history, extra)
    proc_index = {p: k for k, p in enumerate(history.processes)}
    if len(topo) < n:
        return Cycle(tuple(_find_cycle(n, succ, {u for u in range(n) if indeg[u] > 0})))
    P = len(history.processes)
    clock: list[tuple[int, ...]] = [()] * n
    empty = (-1,) * P
    for u in topo:
        preds = pred[u]
        if not preds:
            c = list(empty)
        elif len(preds) == 1:
            c = list(clock[preds[0]])
        else:  # element-wise maximum, at C speed (P may be in the hundreds)
            c = list(map(max, *(clock[v] for v in preds)))
        k = proc_index[ops[u].process]
        if ops[u].index > c[k]:
            c[k] = ops[u].index
        clock[u] = tuple(c)
    return ClosedOrder(history, tuple(clock), tuple(topo), proc_index)


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
