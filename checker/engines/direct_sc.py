"""Sequential consistency (section 2.2) for a fixed read-from map: saturation of forced
orderings, then backtracking on the write orders that remain open.

The sought sequence ``S`` is one total order ``O`` of all operations containing the
process order and ``w -> r`` for each read ``r`` reading from ``w``.  Forced orderings
(sound), for a read ``r`` of register ``x`` reading from ``w`` and another write ``w'``
to ``x``:

* ``w' <O r``  ⇒  ``w' <O w``  (else ``w'`` sits between ``w`` and ``r``);
* ``w <O w'``  ⇒  ``r <O w'``  (the "from-read" edge);
* ``r`` reads the initial value: every write to ``x`` follows ``r``.

Leaf (complete): when the writes of every register are totally ordered by ``O`` and
``O`` is saturated, any topological order of ``O`` is legal (each write to ``x`` before
``r`` is ``w`` or precedes ``w``).  Otherwise we branch on an unordered pair of writes
to the same register, both orientations, after a cheap probe that orders every open
pair as in one topological order.  Memoisation: closures already refuted are skipped.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Mapping

from ..result import Reason
from .direct_order import (
    Budget,
    BudgetExhausted,
    Conflict,
    DOrder,
    Edges,
    Index,
    conflict_of,
    depth_limit,
    extend_order,
    fair_topo,
    full_order,
    order_key,
    path_reasons,
)
from .direct_order import (
    conflict_choice as _conflict_choice,
)
from .direct_sc_states import solve_sc_states


def _saturate(ix: Index, E: Edges, order: DOrder | None, added: Edges, rf: Mapping[int, int | None],
              budget: Budget) -> tuple[DOrder, Edges] | Conflict:
    """Saturate ``E ∪ added``; ``order`` is the closure of ``E`` when known."""
    E = {**E, **added}
    budget.tick()
    got = full_order(ix, E.keys()) if order is None else extend_order(ix, order, added.keys())
    while True:
        if got is None:
            return conflict_of(ix, E)
        clock = got.clock
        new: Edges = {}
        for r, w in rf.items():
            x = ix.reg[r]
            c = clock[r]
            for k in range(ix.P):
                lst = ix.xw.get((k, x))
                if not lst:
                    continue
                base = ix.base[k]
                if w is None:
                    first = base + lst[0]
                    if ix.idx[first] <= c[k]:
                        return Conflict(path_reasons(ix, E, first, r) + (Reason(
                            f"{ix.label(r)} returns the initial value of {x}, but {ix.label(first)} "
                            f"precedes it, so S cannot be legal", "legality", (first, r)),))
                    if ix.idx[r] > clock[first][ix.proc_of[r]]:
                        new[(r, first)] = ("init", "S")
                    continue
                # rule 1: the last write to x of k before r must precede w
                j = bisect_left(lst, c[k] + 1) - 1
                if j >= 0:
                    wp = base + lst[j]
                    if wp != w and ix.idx[wp] > clock[w][k]:
                        new[(wp, w)] = ("forced", "S", r)
                # rule 2: the first write to x of k after w must follow r
                pw, iw = ix.proc_of[w], ix.idx[w]
                j = bisect_left(lst, iw, key=lambda i, b=base, pw=pw: clock[b + i][pw])
                if j < len(lst) and base + lst[j] == w:
                    j += 1
                if j < len(lst):
                    wn = base + lst[j]
                    if ix.idx[r] > clock[wn][ix.proc_of[r]]:
                        new[(r, wn)] = ("fr", "S", r, w)
        if not new:
            return got, E
        E.update(new)
        budget.tick()
        got = extend_order(ix, got, new.keys())


def _sequence(order: DOrder) -> tuple[int, ...]:
    rank = order.rank()
    return tuple(sorted(range(len(rank)), key=rank.__getitem__))


def _open_pair(ix: Index, order: DOrder, groups: list[list[int]]) -> tuple[int, int] | None:
    rank = order.rank()
    for g in groups:
        s = sorted(g, key=rank.__getitem__)
        for a, b in zip(s, s[1:], strict=False):
            if not ix.precedes(order, a, b):
                return a, b
    return None


def _chain(ix: Index, order: DOrder, groups: list[list[int]]) -> Edges:
    rank = {u: i for i, u in enumerate(fair_topo(ix, order))}
    out: Edges = {}
    for g in groups:
        s = sorted(g, key=rank.__getitem__)
        for a, b in zip(s, s[1:], strict=False):
            if not ix.precedes(order, a, b):
                out[(a, b)] = ("probe",)
    return out


def solve_sc(ix: Index, edges: Edges, rf: Mapping[int, int | None], budget: Budget
             ) -> tuple[int, ...] | Conflict:
    """A legal sequence respecting ``edges`` and the process order, or the conflict of
    the root (the first refutation found, for the certificate)."""
    groups: dict[str, list[int]] = {}
    for u in range(ix.n):
        if ix.is_write[u]:
            groups.setdefault(ix.reg[u], []).append(u)
    glist = [g for g in groups.values() if len(g) > 1]
    refuted: set[bytes] = set()
    E_root_done: list[bool] = []

    def go(E: Edges, order: DOrder | None, added: Edges, depth: int = 0) -> tuple[int, ...] | Conflict:
        if depth > limit[0]:
            raise BudgetExhausted(f"the direct engine's search depth limit of {limit[0]} nested choices "
                                  f"(a memory bound) ran out")
        got = _saturate(ix, E, order, added, rf, budget)
        if isinstance(got, Conflict):
            return got
        order, E = got
        key = order_key(order)
        if key in refuted:
            return Conflict(())
        pair = _open_pair(ix, order, glist)
        if pair is None:
            return _sequence(order)
        if not E_root_done:
            # at the root: an execution search guided by the saturated order, with a small
            # budget (it is complete, so its refutation is final)
            E_root_done.append(True)
            try:
                seq = solve_sc_states(ix, budget.sub(40 + ix.n // 10), order=order)
            except BudgetExhausted:
                seq = None
            if seq is not None:
                return seq
        probe = _saturate(ix, E, order, _chain(ix, order, glist), rf, budget)
        if not isinstance(probe, Conflict) and _open_pair(ix, probe[0], glist) is None:
            return _sequence(probe[0])
        a, b = _conflict_choice(probe, pair, ix)
        failed: list[Conflict] = []
        for x, y in ((a, b), (b, a)):
            res = go(E, order, {(x, y): ("choice",)}, depth + 1)
            if not isinstance(res, Conflict):
                return res
            failed.append(res)
        refuted.add(key)
        return next((c for c in failed if c.reasons), Conflict(()))

    limit = [depth_limit(ix, len(edges))]
    return go(dict(edges), None, {})
