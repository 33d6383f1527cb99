"""Fisheye (section 3.2) for a fixed read-from map: search for the star order.

The star order ``*~>H,G`` contains ``~>H``; for every edge ``(p,q)`` of ``G`` it is
total on ``M_pq``: the writes of ``p`` and ``q`` (2015 definition, ``fisheye``) or all
their operations (2014 report, ``fisheye-2014``); every view ``S_i`` respects it.

Forced orderings (sound): each view ``i`` is saturated on top of the current star order
(:mod:`.direct_cc`); if ``a, b ∈ M_pq`` are both in the scope of ``S_i`` and ``a``
precedes ``b`` in the saturated ``O_i``, every solution orders ``a`` before ``b`` in
``S_i``, and as the star order is total on ``M_pq`` and respected by ``S_i``, it must
contain ``a -> b``.  We add such pairs until nothing changes.

Leaf (complete): when every ``M_pq`` is totally ordered and every view saturates
without a cycle, :func:`.direct_cc.build_view` gives legal views respecting the star
order.  Otherwise we branch on an unordered pair of some ``M_pq`` (both orientations),
after a probe that orders all open pairs as in one topological order.  Closures already
refuted are memoised.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Mapping
from dataclasses import dataclass

from fisheye.spec.graph import ProximityGraph

from .direct_cc import View, check_views, update_views
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
from .direct_order import conflict_choice as _conflict_choice


@dataclass(frozen=True)
class StarSolution:
    star: Edges
    views: list[View]


@dataclass(frozen=True)
class _Edge:
    p: int
    q: int
    members: tuple[int, ...]  # uids of M_pq
    # per process k in (p, q) and per viewer "own"/"other": po indices of M_pq ops of k
    writes: dict[int, list[int]]
    alls: dict[int, list[int]]


def _edges_of(ix: Index, graph: ProximityGraph, all_operations: bool) -> list[_Edge]:
    pidx = {p: k for k, p in enumerate(ix.procs)}
    out = []
    for a, b in graph.edges:
        p, q = pidx[a], pidx[b]
        writes = {k: list(ix.wlist[k]) for k in (p, q)}
        alls = {k: list(range(ix.length[k])) for k in (p, q)}
        if all_operations:
            members = tuple(ix.base[k] + i for k in (p, q) for i in alls[k])
        else:
            members = tuple(ix.base[k] + i for k in (p, q) for i in writes[k])
        if len(members) > 1:
            out.append(_Edge(p, q, members, writes, alls))
    return out


def _forced_star(ix: Index, star: DOrder, views: list[View], edges: list[_Edge],
                 all_operations: bool) -> Edges:
    new: Edges = {}
    for v in views:
        i = v.process
        clock = v.order.clock
        name = f"S_{ix.procs[i]}"
        what = "operations" if all_operations else "writes"
        for e in edges:
            lists = {k: (e.alls[k] if (all_operations and k == i) else e.writes[k]) for k in (e.p, e.q)}
            for k_b in (e.p, e.q):
                for ib in lists[k_b]:
                    b = ix.base[k_b] + ib
                    cb = clock[b]
                    for k in (e.p, e.q):
                        if k == k_b:
                            continue  # process order, already in the star order
                        lst = lists[k]
                        j = bisect_right(lst, cb[k]) - 1
                        if j < 0:
                            continue
                        a = ix.base[k] + lst[j]
                        if ix.idx[a] <= star.clock[b][k] or (a, b) in new:
                            continue
                        new[(a, b)] = ("edge", name, ix.procs[e.p], ix.procs[e.q], what)
    return new


def _open_pair(ix: Index, order: DOrder, edges: list[_Edge]) -> tuple[int, int] | None:
    rank = order.rank()
    for e in edges:
        s = sorted(e.members, key=rank.__getitem__)
        for a, b in zip(s, s[1:], strict=False):
            if not ix.precedes(order, a, b):
                return a, b
    return None


def _chain(ix: Index, order: DOrder, edges: list[_Edge], guess: DOrder | None = None) -> Edges:
    """Orient every pair of each ``M_pq`` left open by ``order`` as in the fair
    topological order of ``guess`` (default: ``order``)."""
    rank = {u: i for i, u in enumerate(fair_topo(ix, guess or order))}
    out: Edges = {}
    for e in edges:
        s = sorted(e.members, key=rank.__getitem__)
        for a, b in zip(s, s[1:], strict=False):
            if not ix.precedes(order, a, b):
                out[(a, b)] = ("probe",)
    return out


def _guess(ix: Index, star: DOrder, E: Edges, views: list[View]) -> DOrder:
    """The order whose fair topological order orients the probe's pairs: the star order
    with the forced orderings of every view (when their union is acyclic), so that the
    guess agrees with what each view already needs."""
    union: Edges = dict(E)
    for v in views:
        union.update(v.edges)
    got = full_order(ix, union.keys())
    return star if got is None else got


def _premise_pair(ix: Index, order: DOrder, probe: Conflict, members_of: dict[int, set[int]],
                  default: tuple[int, int]) -> tuple[int, int]:
    """After a probe refuted without a probe choice on its cycle: an open pair of some
    ``M_pq`` that a step of the cycle relied on (the premise ``w < w'`` of a from-read
    step, or a star pair forced at the probe), reversed.  Branching on it keeps the
    search complete (it is an open pair of some ``M_pq``) and targets the conflict."""
    for r in probe.reasons:
        if r.rule == "forced" and len(r.ops) == 3 and not ix.is_write[r.ops[0]]:
            x, y = r.ops[2], r.ops[1]  # from-read: the read's source precedes y
        elif r.rule == "edge":
            x, y = r.ops[0], r.ops[1]
        else:
            continue
        if members_of.get(x, set()) & members_of.get(y, set()) and not ix.precedes(order, x, y) \
                and not ix.precedes(order, y, x):
            return y, x
    return default


def solve_star(ix: Index, graph: ProximityGraph, hb_edges: Edges, vs: Mapping[int, int | None],
               budget: Budget, *, all_operations: bool, propagate_only: bool = False
               ) -> StarSolution | Conflict | None:
    """Search the star order.  ``propagate_only``: saturate the root and stop (``None``
    when no conflict is found), used to prune partial read-from maps."""
    edges = _edges_of(ix, graph, all_operations)
    refuted: set[bytes] = set()
    members_of: dict[int, set[int]] = {}
    for n_e, e in enumerate(edges):
        for u in e.members:
            members_of.setdefault(u, set()).add(n_e)

    def saturate(E: Edges, order: DOrder | None, added: Edges, views: list[View] | None = None
                 ) -> tuple[DOrder, Edges, list[View]] | Conflict:
        """Saturate the star order ``E ∪ added`` and the views on top of it; ``views``:
        the views saturated on ``E`` (they resume from there)."""
        E = {**E, **added}
        budget.tick()
        got = full_order(ix, E.keys()) if order is None else extend_order(ix, order, added.keys(), E.keys())
        fresh = added
        while True:
            if got is None:
                return conflict_of(ix, E)
            if views is None:
                now = check_views(ix, E, vs, budget, base=got, from_read=True)
            else:
                now = update_views(ix, views, fresh, vs, budget, from_read=True)
            if isinstance(now, Conflict):
                return now
            views = now
            new = _forced_star(ix, got, views, edges, all_operations)
            if not new:
                return got, E, views
            E.update(new)
            fresh = new
            budget.tick()
            got = extend_order(ix, got, new.keys(), E.keys())

    def go(E: Edges, order: DOrder | None, added: Edges, depth: int = 0,
           parent_views: list[View] | None = None) -> StarSolution | Conflict:
        if depth > limit[0]:
            raise BudgetExhausted(f"the direct engine's search depth limit of {limit[0]} nested choices "
                                  f"(a memory bound) ran out")
        got = saturate(E, order, added, parent_views)
        if isinstance(got, Conflict):
            return got
        order, E, views = got
        key = order_key(order)
        if key in refuted:
            return Conflict(())
        pair = _open_pair(ix, order, edges)
        if pair is None:
            return StarSolution(E, views)
        probe = saturate(E, order, _chain(ix, order, edges, _guess(ix, order, E, views)), views)
        if not isinstance(probe, Conflict) and _open_pair(ix, probe[0], edges) is None:
            return StarSolution(probe[1], probe[2])
        a, b = _conflict_choice(probe, pair, ix)
        if (a, b) == pair and isinstance(probe, Conflict):
            a, b = _premise_pair(ix, order, probe, members_of, pair)
        failed: list[Conflict] = []
        for x, y in ((a, b), (b, a)):
            res = go(E, order, {(x, y): ("choice",)}, depth + 1, views)
            if not isinstance(res, Conflict):
                return res
            failed.append(res)
        refuted.add(key)
        return next((c for c in failed if c.reasons), Conflict(()))

    limit = [0]
    if propagate_only:
        got = saturate(dict(hb_edges), None, {})
        return got if isinstance(got, Conflict) else None
    limit = [depth_limit(ix, len(hb_edges))]
    return go(dict(hb_edges), None, {})
