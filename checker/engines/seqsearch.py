"""One search for the sequential models: a legal sequence of (a subset of) a history's
operations respecting process order and the real-time order between neighbours
(:mod:`fisheye.spec.realtime`).

It is Wing and Gong's linearizability search (*Testing and verifying concurrent
objects*, 1993) with Lowe's memoisation of configurations (*Testing for
linearizability*, 2017; Porcupine does the same): a configuration is how far each
process has got (process order makes the set of placed operations a prefix per
process) and the registers' values; a configuration met twice is explored once.

Moves from a configuration, for the next operation ``b`` of a process ``p``:

* ``b`` may be placed when no *unplaced* operation of a neighbour of ``p`` completed
  before ``b`` was invoked.  Completions grow along process order, so it suffices to
  look at each neighbour's next operation: ``b.invoke <= min(complete(next(q)))``.
* a ``maybe`` operation may also be *dropped* (it did not take effect).  One that
  never returned blocks nothing, so it is simply left unplaced at the end.

Reductions, each preserving the answer:

* a read (or a cas that writes the value it reads) that may be placed and returns
  the current value is placed at once, without branching: moving it to the front of
  any solution keeps the solution legal and can only relax real-time constraints;
* among pending operations (never returned) that do the same thing (same kind,
  register, values, ``maybe``) and may both be placed, only the first is tried: they
  are interchangeable from then on;
* ``maybe`` operations whose written value nothing ever reads (no read, no cas ``old``
  on the register) are dropped up front: removing one from any solution keeps it a
  solution.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from fisheye.spec.graph import ProximityGraph
from fisheye.spec.history import History, Op, value_key

INF = float("inf")


class BudgetExhausted(Exception):
    """The search ran out of configurations or time: the verdict is *unknown*."""


@dataclass
class Budget:
    """A bound on configurations explored and an optional deadline."""

    max_states: int = 2_000_000
    timeout: float | None = None
    states: int = 0
    start: float = field(default_factory=time.monotonic)

    def tick(self, n: int = 1) -> None:
        self.states += n
        if self.states > self.max_states:
            raise BudgetExhausted(f"the search budget of {self.max_states} configurations ran out")
        if self.timeout is not None and self.states % 256 == 0 \
                and time.monotonic() - self.start > self.timeout:
            raise BudgetExhausted(f"the timeout of {self.timeout:g} s ran out")


def droppable_unread_maybes(history: History, uids: Iterable[int]) -> set[int]:
    """The ``maybe`` operations among ``uids`` whose written value no operation among
    ``uids`` observes on their register: they can be left out of every solution."""
    ops = history.ops
    observed: set[tuple[str, tuple]] = set()
    chosen = list(uids)
    for u in chosen:
        op = ops[u]
        if op.observes:
            observed.add((op.register, value_key(op.observed)))  # type: ignore[arg-type]
    return {u for u in chosen if ops[u].maybe and (ops[u].register, ops[u].vkey) not in observed}


def search(history: History, uids: Sequence[int], graph: ProximityGraph, budget: Budget
           ) -> list[int] | None:
    """A sequence (uids) of the operations ``uids`` meeting clauses 1-4 of
    :mod:`fisheye.spec.realtime` restricted to them, or ``None`` when there is none.
    Raises :class:`BudgetExhausted`."""
    ops = history.ops
    skip = droppable_unread_maybes(history, uids)
    keep = sorted(u for u in uids if u not in skip)
    procs = [p for p in history.processes if any(ops[u].process == p for u in keep)]
    pindex = {p: i for i, p in enumerate(procs)}
    lanes: list[list[Op]] = [[] for _ in procs]
    for u in keep:
        lanes[pindex[ops[u].process]].append(ops[u])
    regs = sorted({ops[u].register for u in keep})
    rindex = {r: i for i, r in enumerate(regs)}
    P = len(procs)
    complete_g = len(graph.edges) * 2 == len(graph.processes) * (len(graph.processes) - 1)
    if complete_g:
        nbrs: list[tuple[int, ...]] | None = None
    else:
        nbrs = [tuple(pindex[q] for q in graph.neighbours(p) if q in pindex) for p in procs]

    # per lane, arrays for speed
    inv = [[op.invoke if op.invoke is not None else 0 for op in lane] for lane in lanes]
    comp = [[(INF if op.complete is None else op.complete) if op.invoke is not None else INF
             for op in lane] for lane in lanes]
    timed = any(op.invoke is not None for lane in lanes for op in lane)
    kind = [[op.kind for op in lane] for lane in lanes]
    reg = [[rindex[op.register] for op in lane] for lane in lanes]
    new = [[op.vkey for op in lane] for lane in lanes]
    old = [[value_key(op.observed) if op.observes else None for op in lane] for lane in lanes]  # type: ignore[arg-type]
    maybe = [[op.maybe for op in lane] for lane in lanes]
    lengths = [len(lane) for lane in lanes]
    # a lane is finished when every operation is placed, or only a maybe that never
    # returned is left (one that returned must be placed or dropped explicitly)
    need = [n - 1 if n and lanes[i][-1].maybe and comp[i][-1] == INF else n for i, n in enumerate(lengths)]
    sig = [[(op.kind, op.register, op.vkey, old[i][k], op.maybe) if comp[i][k] == INF else None
            for k, op in enumerate(lane)] for i, lane in enumerate(lanes)]

    init = tuple(value_key(history.initial_value(r)) for r in regs)
    start = (tuple([0] * P), init)
    seen: set[tuple[tuple[int, ...], tuple]] = {start}
    path: list[int | None] = []  # uid placed, or None for a drop

    def moves(pos: tuple[int, ...], vals: tuple) -> list[tuple[int, bool]]:
        """(lane, place?) pairs possible from here; a single forced move first."""
        if timed:
            nxt_comp = [comp[i][pos[i]] if pos[i] < lengths[i] else INF for i in range(P)]
            gmin = min(nxt_comp) if complete_g else 0
        out: list[tuple[int, bool]] = []
        pend_sigs: set = set()
        for i in range(P):
            k = pos[i]
            if k >= lengths[i]:
                continue
            if timed:
                if complete_g:
                    bound = gmin
                else:
                    assert nbrs is not None
                    bound = min((nxt_comp[q] for q in nbrs[i]), default=INF)
                if inv[i][k] > bound:
                    continue
            kd = kind[i][k]
            cur = vals[reg[i][k]]
            if kd != "w" and old[i][k] != cur:
                ok = False
            else:
                ok = True
                if kd == "r" or (kd == "cas" and new[i][k] == cur):
                    return [(i, True)]  # forced: a state-preserving legal observation
            s = sig[i][k]
            if s is not None:
                if s in pend_sigs:
                    continue
                pend_sigs.add(s)
            if ok:
                out.append((i, True))
            if maybe[i][k] and comp[i][k] != INF:
                out.append((i, False))
        return out

    def finished(pos: tuple[int, ...]) -> bool:
        return all(pos[i] >= need[i] for i in range(P))

    def apply(pos: tuple[int, ...], vals: tuple, i: int, place: bool):
        k = pos[i]
        npos = pos[:i] + (k + 1,) + pos[i + 1:]
        if place and kind[i][k] != "r":
            r = reg[i][k]
            vals = vals[:r] + (new[i][k],) + vals[r + 1:]
        return npos, vals

    # iterative depth-first search
    stack: list[tuple[tuple[int, ...], tuple, list[tuple[int, bool]]]] = []
    pos, vals = start
    if finished(pos):
        return []
    stack.append((pos, vals, moves(pos, vals)))
    while stack:
        pos, vals, todo = stack[-1]
        if not todo:
            stack.pop()
            if path:
                path.pop()
            continue
        i, place = todo.pop()
        npos, nvals = apply(pos, vals, i, place)
        key = (npos, nvals)
        if key in seen:
            continue
        seen.add(key)
        budget.tick()
        path.append(lanes[i][pos[i]].uid if place else None)
        if finished(npos):
            return [u for u in path if u is not None]
        stack.append((npos, nvals, moves(npos, nvals)))
    return None
