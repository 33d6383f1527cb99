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

from collections.abc import Mapping

from .direct_cc import Reads, saturate_reads
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
)
from .direct_order import (
    conflict_choice as _conflict_choice,
)
from .direct_sc_states import solve_sc_states


def _saturate(ix: Index, E: Edges, order: DOrder | None, added: Edges, rf: Mapping[int, int | None],
              budget: Budget) -> tuple[DOrder, Edges] | Conflict:
    """Saturate ``E ∪ added`` with the three rules above (the same compiled passes as
    a view's, over every read, :func:`.direct_cc.saturate_reads`); ``order`` is the
    closure of ``E`` when known."""
    E = {**E, **added}
    budget.tick()
    got = full_order(ix, E.keys()) if order is None else extend_order(ix, order, added.keys())
    if got is None:
        return conflict_of(ix, E)
    sat = saturate_reads(ix, E, got, list(rf), rf, "S", budget, from_read=True, initial=True)
    return sat if isinstance(sat, Conflict) else (sat, E)


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


def first_pass(ix: Index, edges: Edges, rf: Mapping[int, int | None], budget: Budget) -> DOrder | None:
    """``closure(po ∪ edges)``, or None when it, or it with the orderings one pass of
    the rules above derives on it, has a cycle (or a read of an initial value follows
    a write to its register): then no legal sequence respects ``edges`` (the rules are
    sound).  Said without the reasons a certificate needs: a first try of sc that gives
    way to another search when sc fails (:mod:`.direct_search`) skips building them; on
    the Algorithm 2 runs of ``bench/histgen.py`` (fisheye, 100,000 operations) the
    root of :func:`solve_sc` fails at its first pass, at three times this cost."""
    from .closure_kernel import EVERY_ROW, LEGALITY, NO_ANSWERS, view_rules  # numba: loaded when first needed

    budget.tick()
    order = full_order(ix, edges.keys())
    if order is None:
        return None
    given = Reads.of(list(rf), rf)
    rows, m = view_rules(order.array, given.uids, given.sources, ix.reg_array, ix.proc_array, ix.idx_array,
                         *ix.writer_arrays, True, True, EVERY_ROW, NO_ANSWERS)
    if m and (rows[0, 0] == LEGALITY or extend_order(ix, order, rows[:m, 1:3].ravel()) is None):
        return None
    return order


def solve_sc(ix: Index, edges: Edges, rf: Mapping[int, int | None], budget: Budget,
             order: DOrder | None = None) -> tuple[int, ...] | Conflict:
    """A legal sequence respecting ``edges`` and the process order, or the conflict of
    the root (the first refutation found, for the certificate); ``order``: the closure
    of ``edges`` when known."""
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
    return go(dict(edges), order, {})
