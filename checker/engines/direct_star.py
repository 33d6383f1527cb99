"""Fisheye (section 3.2) for a fixed read-from map: search for the star order.

The star order ``*~>H,G`` contains ``~>H``; for every edge ``(p,q)`` of ``G`` it is
total on ``M_pq``: the writes of ``p`` and ``q`` (2015 definition, ``fisheye``) or all
their operations (2014 report, ``fisheye-2014``); every view ``S_i`` respects it.

Forced orderings (sound): each view ``i`` is saturated on top of the current star order
(:mod:`.direct_cc`); if ``a, b ∈ M_pq`` are both in the scope of ``S_i`` and ``a``
precedes ``b`` in the saturated ``O_i``, every solution orders ``a`` before ``b`` in
``S_i``, and as the star order is total on ``M_pq`` and respected by ``S_i``, it must
contain ``a -> b``.  We add such pairs until nothing changes.

Solution (complete): when every ``M_pq`` is totally ordered and every view saturates
without a cycle, :func:`.direct_cc.build_view` gives legal views respecting the star
order.

Search: conflict-driven learning over the orientations of the pairs that saturation of
the root leaves open.  For an edge ``(p,q)``, ``M_pq`` is the union of two chains of the
process order (the members of ``p``, those of ``q``), so a total order on it is a merge
of the two chains: one Boolean variable per open pair ``(a, c)`` (``a`` of ``p``, ``c``
of ``q``: "``a`` before ``c``"), with the monotonicity of a merge as binary clauses
(``a`` before ``c`` implies ``a`` before every later ``c'`` and every earlier ``a'``
before ``c``).  A SAT solver proposes a full orientation, preferring that of a
topological order of the root that follows the views where it can (its *phase*: a guess
of real time, :func:`_guess`, moved after each model to follow the orientations the
learned clauses forced against it: :class:`_Phase`); the orientation is added to the
star order (two edges per member at most: where its row of the merge switches) and
saturated.  No cycle: a
solution.  A cycle (or an illegal view): conflict analysis (:mod:`.direct_learn`) follows
the forced orderings on it back to the chosen orientations they rest on, a set that
cannot hold together: the solver learns the clause (and, for each pair left unordered
that a view orders, the reason of that orientation: :func:`_implied`) and proposes
again.  The solver's refutation (no orientation avoids every
learned set) is a violation.  Complete and sound: learned clauses are implied by the
rules of saturation, and a full orientation that saturates without conflict is a
solution.  No recursion and no copy per choice: memory stays that of one saturation.
"""

from __future__ import annotations

from collections import ChainMap
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from itertools import islice, repeat

import numpy as np

from fisheye.spec.graph import ProximityGraph
from fisheye.spec.order import Cycle

from ..result import Reason
from .direct_cc import Reads, View, check_views, saturate_view, update_views
from .direct_learn import Analyser
from .direct_order import (
    STAR,
    Budget,
    Conflict,
    CycleSearch,
    DOrder,
    Edges,
    Index,
    Trail,
    conflict_of,
    cycle_reasons,
    extend_or_conflict,
    extend_order,
    flat_edges,
    flat_pairs,
    full_order,
    redundant,
    redundant_mask,
)
from .gcpause import paused_gc


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
    arrays: dict[tuple[int, bool], np.ndarray]  # (k, all operations?): writes or alls of k, as an array


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
            arrays = {(k, every): np.array((alls if every else writes)[k], np.int64)
                      for k in (p, q) for every in (False, True)}
            out.append(_Edge(p, q, members, writes, alls, arrays))
    return out


def _forced_star(ix: Index, star: DOrder, views: list[View], edges: list[_Edge],
                 all_operations: bool, beyond_scope: bool = False) -> Edges:
    """The star pairs the views force (module docstring): for each member ``b`` of an
    ``M_pq`` in a view's scope, the last member ``a`` of the other process that precedes
    ``b`` in the view's order (a bisection of ``b``'s clock entry), when the star order
    does not order them yet.  Read off the clock arrays, a member list at a time.
    ``beyond_scope``: every member, in the view's scope or not (sound too: the view's
    order contains the star order, so the reverse would close a cycle in it)."""
    new: Edges = {}
    star_arr = star.array
    what = "operations" if all_operations else "writes"
    for v in views:
        i = v.process
        arr = v.order.array
        name = f"S_{ix.procs[i]}"
        for e in edges:
            lists = {k: e.arrays[k, all_operations and (k == i or beyond_scope)] for k in (e.p, e.q)}
            for k_b, k in ((e.p, e.q), (e.q, e.p)):
                if not len(lists[k_b]) or not len(lists[k]):
                    continue
                b = ix.base[k_b] + lists[k_b]
                lst = lists[k]
                j = np.searchsorted(lst, arr[b, k], side="right") - 1
                a = ix.base[k] + lst[np.maximum(j, 0)]
                keep = (j >= 0) & (a - ix.base[k] > star_arr[b, k])  # a does not yet precede b
                for x, y in zip(a[keep].tolist(), b[keep].tolist(), strict=True):
                    if (x, y) not in new:
                        new[(x, y)] = ("edge", name, ix.procs[e.p], ix.procs[e.q], what)
    return new


def _implied(ix: Index, star: DOrder, views: list[View], edges: list[_Edge], all_operations: bool,
             analyser: Analyser, trail: Trail) -> list[set[int]]:
    """After a check with conflicts: the pairs of some ``M_pq`` that the star order
    leaves unordered (their chosen orientation was left out) and that a view orders, as
    learned reasons "the literals the view's ordering rests on imply this orientation"
    (the clause the solver then propagates, instead of guessing which literal of the
    conflicts to flip).  Every operation of ``M_pq`` counts, in the view's scope or not:
    the view's order contains the star order, so the reverse orientation would close a
    cycle in it."""
    out: list[set[int]] = []
    by_view = {f"S_{ix.procs[v.process]}": v.process for v in views}
    for (a, b), info in _forced_star(ix, star, views, edges, all_operations, beyond_scope=True).items():
        v = analyser.var.get((a, b))
        lit = v
        if v is None:
            v = analyser.var.get((b, a))
            lit = None if v is None else -v
        if lit is not None:
            out.append(analyser.implied(by_view[info[1]], a, b, trail) | {-lit})
    return out


def _guess(ix: Index, star: DOrder, views: list[View]) -> list[int]:
    """The solver's phase, a guess of real time: a topological order of the star order
    (:func:`.closure_kernel.guided_order`) that takes first, among the processes' next
    operations, the one with the fewest predecessors in the union of the views: per
    process, the latest operation that any view places before it, summed.  The views'
    orders may contradict each other (each orders the writes its reads need), so no
    order follows them all; this rank still grows along each of them."""
    from .closure_kernel import guided_order

    soft = star.array.copy()  # what some view (or the star order) places before each operation
    for v in views:
        np.maximum(soft, v.order.array, out=soft)
    rank = soft.sum(axis=1)
    return guided_order(ix.P, star.array, rank, np.array(ix.base, np.int64),
                        np.array(ix.length, np.int64)).tolist()


@dataclass
class _Merges:
    """The open pairs of every ``M_pq`` as SAT variables (module docstring), numbered
    row by row: a *row* is a member ``a`` of an edge's first chain and its open pairs
    ``(a, c)``, in process order of ``c``; ``row_start``: the index (variable - 1) of
    each row's first pair, and one past the last pair at the end."""

    pairs: list[tuple[int, int]]  # var - 1 -> (a, c): a of the first chain, c of the second
    chains: list[tuple[list[int], list[int]]]  # var - 1 -> the two chains (uids) of its M_pq
    row_start: np.ndarray
    row_a: list[int]  # each row's a
    second: list[int]  # var - 1 -> its c
    clauses: list[list[int]]
    pair_array: np.ndarray  # the pairs as an array of shape (count, 2)

    @property
    def count(self) -> int:
        return len(self.pairs)


def _merges(ix: Index, order: DOrder, edges: list[_Edge], all_operations: bool) -> _Merges:
    """The variables and merge clauses of every edge's open pairs, clauses in the order
    of the variables: for each pair ``(a, c)``, "``a < c`` implies ``a < c'``" for the
    previous ``c`` of its row, then "``a < c`` implies ``a' < c``" for the previous
    member ``a'`` of ``a``'s chain, when that pair is open too.  The open ``c`` of a row
    are a run of the other chain: those before it precede ``a``, those after follow it
    (rows of the clocks grow along the process order): two bisections per member."""
    arr = order.array
    firsts, seconds, clause_parts, chains = [], [], [], []
    row_starts: list[np.ndarray] = []
    count = 0
    for e in edges:
        kind = e.arrays[e.p, all_operations], e.arrays[e.q, all_operations]
        P, Q = ix.base[e.p] + kind[0], ix.base[e.q] + kind[1]
        lo = np.searchsorted(Q, ix.base[e.q] + arr[P, e.q], side="right")
        hi = np.maximum(np.searchsorted(arr[Q, e.p], ix.idx_array[P], side="left"), lo)
        size = hi - lo
        total = int(size.sum())
        if not total:
            continue
        start = np.cumsum(size) - size  # each row's first pair, from this edge's first
        row = np.repeat(np.arange(len(P)), size)
        j = lo[row] + np.arange(total) - start[row]  # each pair's c, as a position in Q
        var = count + 1 + np.arange(total)
        # the previous c of the row, and (a', c) for the previous member a' of the chain
        has_prev = j > lo[row]
        up_row = np.maximum(row - 1, 0)
        has_up = (row > 0) & (j >= lo[up_row]) & (j < hi[up_row])
        up = count + 1 + start[up_row] + j - lo[up_row]
        two = np.stack((-(var - 1), var, -var, up), axis=1).reshape(-1, 2)
        clause_parts.append(two[np.stack((has_prev, has_up), axis=1).ravel()])
        firsts.append(P[row])
        seconds.append(Q[j])
        row_starts.append(count + start[size > 0])
        lists = (P.tolist(), Q.tolist())
        chains.extend([lists] * total)
        count += total
    if not count:
        return _Merges([], [], np.zeros(1, np.int64), [], [], [], np.empty((0, 2), np.int64))
    a, c = np.concatenate(firsts), np.concatenate(seconds)
    row_start = np.concatenate([*row_starts, [count]])
    pair_array = np.stack((a, c), axis=1)
    second = c.tolist()
    return _Merges(list(zip(a.tolist(), second, strict=True)), chains, row_start, a[row_start[:-1]].tolist(),
                   second, np.concatenate(clause_parts).tolist(), pair_array)


@dataclass(frozen=True)
class _Orientation:
    """The edges of a full orientation with their reasons, in guessed time order of
    their later end (earlier first), and the same pairs as an array of shape ``(k, 2)``."""

    edges: Edges
    pairs: np.ndarray


def _orientation(m: _Merges, model: list[int], rank: np.ndarray) -> _Orientation:
    """The edges of a full orientation: per row, ``a -> c`` at its first chosen ``c``
    after ``a`` and ``c -> a`` at its last chosen before (they imply the rest with the
    process order).  The merge clauses make every row false, then true: the first
    true pair of a row comes after as many pairs as the row has false ones.  In the
    order of the guessed time ``rank`` of their later end (rows in order for a tie)."""
    if not m.count:
        return _Orientation({}, np.empty((0, 2), np.int64))
    false = np.fromiter(model, np.int64, m.count) < 0
    start = m.row_start[:-1]
    first = start + np.add.reduceat(false, start)  # the first true pair (the end: none)
    # per row its two edges, in this order, and which of them it has
    a = np.asarray(m.row_a, np.int64)
    c = m.pair_array[:, 1]
    after, before = first < m.row_start[1:], first > start
    src = np.stack((a, c[np.maximum(first - 1, 0)]), axis=1)
    dst = np.stack((c[np.minimum(first, m.count - 1)], a), axis=1)
    lit = np.stack((first + 1, -first), axis=1)
    has = np.stack((after, before), axis=1)
    pairs = np.stack((src[has], dst[has]), axis=1)
    at = np.argsort(np.maximum(rank[pairs[:, 0]], rank[pairs[:, 1]]), kind="stable")
    pairs = pairs[at]
    keys = zip(pairs[:, 0].tolist(), pairs[:, 1].tolist(), strict=True)
    edges = dict(zip(keys, zip(repeat("choice"), lit[has][at].tolist()), strict=True))
    assert len(edges) == len(pairs)  # each row has its own member a
    return _Orientation(edges, pairs)


def _refutation(m: _Merges, learned: int, first: Conflict) -> Conflict:
    lead = Reason(
        f"the star order must be total on each M_pq; saturation leaves {m.count} "
        f"pair{'s' if m.count != 1 else ''} of them unordered, and no orientation of those pairs "
        f"works: the search learned {learned} sets of orientations that cannot hold together "
        f"(each closes a cycle of forced orderings or makes a view illegal) and no "
        f"orientation avoids them all; the first orientation refuted fails as follows (orderings "
        f"marked 'search choice' are the orientation's):", "search")
    return Conflict((lead,) + first.reasons, first.edges)


def saturate(ix: Index, edges: list[_Edge], vs: Mapping[int, int | None], budget: Budget,
             all_operations: bool, E: Edges, order: DOrder | None, added: Edges, views: list[View] | None
             ) -> tuple[DOrder, Edges, list[View]] | Conflict:
    """Saturate the star order ``E ∪ added`` (``order``: the closure of ``E``, or
    ``None``) and the views on top of it, adding the star pairs the views force until
    nothing changes; ``views``: the views saturated on ``E`` (they resume from there)."""
    E = {**E, **added}
    budget.tick()
    got = full_order(ix, E.keys()) if order is None else extend_order(ix, order, added.keys())
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
        got = extend_order(ix, got, new.keys())


def solve_star(ix: Index, graph: ProximityGraph, hb_edges: Edges, vs: Mapping[int, int | None],
               budget: Budget, *, all_operations: bool, propagate_only: bool = False
               ) -> StarSolution | Conflict | None:
    """Search the star order.  ``propagate_only``: saturate the root and stop (``None``
    when no conflict is found), used to prune partial read-from maps."""
    edges = _edges_of(ix, graph, all_operations)

    root = saturate(ix, edges, vs, budget, all_operations, dict(hb_edges), None, {}, None)
    if propagate_only or isinstance(root, Conflict):
        return root if isinstance(root, Conflict) else None
    order, E, views = root
    # the set-up below computes no closure of the search but takes about a second on
    # 100,000 operations: the deadline is looked at between its steps (tick(0))
    m = _merges(ix, order, edges, all_operations)
    if not m.count:
        return _solution(ix, E, order, views)
    from pysat.solvers import Solver

    budget.tick(0)
    guess = _guess(ix, order, views)
    rank = np.empty(ix.n, np.int64)  # each operation's place in the guess
    rank[guess] = np.arange(ix.n)
    # the root's closures again, without the pairs they imply anyway: every closure of
    # the search extends one of them and re-reads its generating pairs
    order = _lean(ix, E, order)
    lean: list[View] = []
    for v in views:
        budget.tick(0)
        flat = flat_edges(v.edges)
        lean.append(View(v.process, _lean(ix, flat, v.order), flat))
    views = lean
    analyser = Analyser(ix, E, [v.edges for v in views], m.pairs, m.chains, order, [v.order for v in views])
    reads = {v.process: Reads.of_view(ix, v.process, vs) for v in views}
    first: Conflict | None = None
    learned = 0
    budget.tick(0)
    with paused_gc(), Solver(name="glucose4", bootstrap_with=m.clauses) as solver:
        budget.tick(0)
        phase = _Phase(ix, m, order, rank)
        solver.set_phases(phase.literals())
        while solver.solve():
            model = phase.follow(solver, _model(solver, m))
            got = _check(ix, E, order, views, _orientation(m, model, rank), vs, edges, all_operations, budget,
                         analyser, reads)
            if isinstance(got, StarSolution):
                return got
            clauses, conflict = got
            first = first or conflict
            for lits in clauses:
                if not lits:
                    return conflict  # refuted without any choice
                solver.add_clause([-v for v in lits])
                learned += 1
    assert first is not None
    return _refutation(m, learned, first)


def _model(solver: object, m: _Merges) -> list[int]:
    """The solver's model over every variable (those in no clause are true)."""
    model = solver.get_model()  # type: ignore[attr-defined]
    if len(model) < m.count:
        model = model + list(range(len(model) + 1, m.count + 1))
    return model


class _Phase:
    """The solver's phase: the orientation of every open pair by a guessed total order
    of the operations (its ``rank``: first :func:`_guess`).

    The phase follows the search (:meth:`follow`): where a model departs from the phase
    (the orientations the learned clauses forced the other way), those orientations
    are added to the root star order and a new topological order is taken, guided by
    the old one (:func:`.closure_kernel.guided_order`); the solver is asked again with
    that phase (once: asking again until a model stays on the phase took as many
    iterations).  A departure then moves the whole stretch of guessed time around it,
    coherently for every ``M_pq``, instead of the few pairs the clauses name, which
    closed cycles of the star order across edges of ``G`` (measured on Algorithm 2 runs:
    fewer SAT iterations).  The phase only chooses which model the solver proposes:
    every model is checked as before, so the search stays complete and sound."""

    def __init__(self, ix: Index, m: _Merges, root: DOrder, rank: np.ndarray):
        self.ix, self.m, self.root = ix, m, root
        self.rank = rank.copy()
        self.pairs = m.pair_array
        self.var = np.arange(1, m.count + 1)

    def _ahead(self) -> np.ndarray:
        """Per variable: is its pair's first operation earlier in the guess?"""
        return self.rank[self.pairs[:, 0]] < self.rank[self.pairs[:, 1]]

    def literals(self) -> list[int]:
        return np.where(self._ahead(), self.var, -self.var).tolist()

    def follow(self, solver: object, model: list[int]) -> list[int]:
        """A model of ``solver`` (a satisfiable one, whose last model is ``model``)
        that departs little from the phase, the phase moved to follow ``model``."""
        from .closure_kernel import guided_order

        ix = self.ix
        true = np.fromiter(model, np.int64, self.m.count) > 0
        off = np.flatnonzero(true != self._ahead())
        if not len(off):
            return model
        pairs = self.pairs[off]
        order = extend_order(ix, self.root, np.where(true[off][:, None], pairs, pairs[:, ::-1]).ravel())
        if order is None:  # the departures close a cycle: keep the phase
            return model
        guess = guided_order(ix.P, order.array, self.rank, np.array(ix.base, np.int64),
                             np.array(ix.length, np.int64))
        self.rank = np.empty(ix.n, np.int64)
        self.rank[guess] = np.arange(ix.n)
        solver.set_phases(self.literals())  # type: ignore[attr-defined]
        assert solver.solve()  # type: ignore[attr-defined]  # no clause was added
        return _model(solver, self.m)


def _solution(ix: Index, star: Edges, order: DOrder, views: list[View]) -> StarSolution:
    """The solution with the star order's pairs ``star`` (``order``: their closure)
    less those :func:`.direct_order.redundant` leaves out: the same star order, from
    fewer generating pairs (a smaller witness, validated faster: about two thirds of
    the pairs on Algorithm 2 runs)."""
    skip = redundant(ix, star, order)
    return StarSolution({e: info for e, info in star.items() if e not in skip} if skip else star, views)


def _lean(ix: Index, edges: Edges, order: DOrder) -> DOrder:
    """``order`` (the closure of ``edges``) generated by the pairs of ``edges`` that
    :func:`.direct_order.redundant_mask` does not mark: the same closure, its pairs in
    the order of ``edges``."""
    flat = flat_pairs(edges.keys())
    got = full_order(ix, flat.reshape(-1, 2)[~redundant_mask(ix, flat, order)].ravel())
    assert got is not None
    return got


CHUNK = 150
"""Fewest chosen orientations added to a graph at a time by :func:`_check`."""


def _chunks(chosen: _Orientation, n: int) -> list[_Batch]:
    """``chosen`` in batches, in its order (guessed time of their later end):
    :data:`CHUNK` edges, or ``n`` on a history of ``n`` operations (each batch costs a
    closure of the whole history, and each retry of a batch after a conflict another;
    smaller batches find more conflicts per check, larger ones cost fewer closures.
    Since a refused batch also yields the other cycles of its relation
    (:func:`_cycles_left`), a check finds many conflicts per retry, and large batches
    are best: on the Algorithm 2 runs of 10,000 and 100,000 operations, ``n`` and
    ``n / 2`` cost 10-30 % less CPU than ``n / 5``, ``n / 10`` more)."""
    size = max(CHUNK, n)
    if len(chosen.pairs) <= size:
        return [_Batch(chosen.edges, chosen.pairs)]
    items = list(chosen.edges.items())
    return [_Batch(dict(items[i:i + size]), chosen.pairs[i:i + size]) for i in range(0, len(items), size)]


NEAR = 3
"""How far along the process order :func:`_drop` looks around a conflict's chosen
orientations when none of them is pending."""


class _Ends:
    """The rows of a batch's pairs by operation: the pairs' ends sorted, with the row of
    each (built when first asked: only :func:`_drop`'s search near a conflict needs it)."""

    def __init__(self, pairs: np.ndarray):
        self.pairs = pairs
        self.sorted: tuple[np.ndarray, np.ndarray] | None = None

    def rows_touching(self, ops: Sequence[int]) -> np.ndarray:
        """The rows whose pair has an end among ``ops`` (a row may come twice)."""
        if self.sorted is None:
            flat = self.pairs.ravel()
            at = np.argsort(flat, kind="stable")
            self.sorted = flat[at], at // 2
        ends, rows = self.sorted
        lo = np.searchsorted(ends, ops, side="left").tolist()
        hi = np.searchsorted(ends, ops, side="right").tolist()
        spans = [rows[a:b] for a, b in zip(lo, hi, strict=True) if b > a]
        return np.concatenate(spans) if spans else np.empty(0, np.int64)


class _Batch:
    """A batch of chosen orientations (:func:`_chunks`) and which of them are still
    pending: the pairs as an array once, a mask of the pending ones (a retry after a
    conflict adds the pending pairs again: no pairs are listed anew), and the log of the
    rows left out, in the order they were (:func:`_cycles_left` reads what is new in
    it instead of comparing masks)."""

    def __init__(self, edges: Edges, pairs: np.ndarray | None = None, row: dict[int, int] | None = None,
                 ends: _Ends | None = None):
        self.edges = edges  # every orientation of the batch, with its reason
        self.pairs = flat_pairs(edges.keys()).reshape(-1, 2) if pairs is None else pairs
        # literal -> its row
        lits = [info[1] for info in edges.values()] if row is None else []
        self.row = dict(zip(lits, range(len(lits)), strict=True)) if row is None else row
        self.pending = np.ones(len(edges), np.bool_)
        self.ends = _Ends(self.pairs) if ends is None else ends
        self.taken: list[np.ndarray] = []  # the rows left out, a batch of them at a time

    def again(self) -> _Batch:
        """The same batch, every orientation pending."""
        return _Batch(self.edges, self.pairs, self.row, self.ends)

    def take(self, rows: np.ndarray) -> None:
        """No longer pending: the rows ``rows`` (those still pending are logged)."""
        rows = rows[self.pending[rows]]
        if len(rows):
            self.pending[rows] = False
            self.taken.append(rows)

    def flat(self) -> np.ndarray:
        """The pending pairs, flat."""
        return self.pairs[self.pending].ravel()

    def any(self) -> bool:
        return bool(self.pending.any())

    def leave_out(self, lits: Iterable[int]) -> None:
        """No longer pending: the orientations of the literals ``lits`` in the batch."""
        self.take(np.array([self.row[lit] for lit in lits if lit in self.row], np.int64))


def _drop(ix: Index, batch: _Batch, lits: set[int], pairs: Sequence[tuple[int, int]]) -> None:
    """Leave out of ``batch`` the chosen orientations ``lits`` of a conflict found on
    adding it (``pairs``: the pair of each variable).  When none of them is pending,
    the explanation read them from the star order's records, which hold every chosen
    orientation, those a view left out earlier too (a view's premise paths may use
    them: the view respects the star order), and the cycle in the view goes through
    pending orientations near them: those with an end at most :data:`NEAR` operations
    from an end of ``lits`` in its process are left out, or, if none is, every pending
    one.  (Which ones are left out only decides what the rest of the check sees; the
    learned clauses are the explanation's.)"""
    rows = np.array([batch.row[lit] for lit in lits if lit in batch.row], np.int64)
    if batch.pending[rows].any():
        batch.take(rows)
        return
    near = [x for lit in lits for u in pairs[abs(lit) - 1]
            for x in range(max(u - NEAR, 0), min(u + NEAR + 1, ix.n)) if ix.proc_of[x] == ix.proc_of[u]]
    close = batch.ends.rows_touching(near)
    close = close[batch.pending[close]]
    batch.take(close if len(close) else np.flatnonzero(batch.pending))


class _Growing:
    """A view during a check: the edges its saturation forces on top of the root view's
    (``derived``, grown in place), and its order, which also holds the chosen
    orientations added so far.  The reasons of the root view's edges and of the
    orientations are read from the root view and the whole orientation ``chosen`` (an
    edge the view has of its own keeps its own reason), so they are not copied."""

    def __init__(self, view: View, chosen: Edges, reads: Reads):
        self.process = view.process
        self.reads = reads
        self.derived: Edges = {}
        self.order = view.order
        self.reasons = ChainMap(self.derived, view.edges, chosen)
        self.edges = ChainMap(self.derived, view.edges)  # the view's own edges
        # the last refused attempt: its relation, where the chosen pairs it added start
        # in it (in pairs), and the edges its saturation derived, with their reasons
        self.refused: tuple[Conflict, int, Edges] | None = None

    def attempt(self, ix: Index, new: np.ndarray, vs: Mapping[int, int | None], budget: Budget, trail: Trail
                ) -> Conflict | None:
        """Add the chosen orientations ``new`` (pairs, flat) and saturate; on a conflict,
        undo and return it."""
        size = len(self.derived)
        self.refused = None
        # the chosen orientations are not recorded in the view's trail: premise paths of
        # a view read them from the star order's (a view respects the star order)
        budget.tick()
        at = len(self.order.pairs) // 2  # where ``new`` starts in the relations that follow
        base = extend_or_conflict(ix, self.reasons, self.order, new)
        if isinstance(base, Conflict):
            if base.relation is not None:
                self.refused = base, at, {}
            return base
        if base is self.order:
            at = -1  # every pair of ``new`` was implied: it is in no relation
        got = saturate_view(ix, self.reasons, self.process, vs, budget,  # type: ignore[arg-type]
                            initial=base, from_read=True, trail=trail, resume=True, reads=self.reads)
        if not isinstance(got, Conflict):
            self.order = got.order
            return None
        derived = list(islice(self.derived, size, None))
        if got.relation is not None and at >= 0:
            self.refused = got, at, {e: self.derived[e] for e in derived}
        for e in derived:
            del self.derived[e]
        return got


def _cycles_left(ix: Index, grow: _Growing, batch: _Batch, rows: np.ndarray, mark: int, first: Conflict,
                 budget: Budget) -> Iterator[Conflict]:
    """Further conflicts of ``grow``'s last refused attempt (the pending rows ``rows`` of
    ``batch``, refused with the cycle ``first``; ``mark``: the length of the batch's log
    of rows left out at the attempt), without another closure or saturation: the
    cycles of the refused relation once the chosen orientations of ``batch`` left out
    since are taken out of it, and, of each cycle that none of those went through,
    its pairs among those whose addition closed it (every cycle holds one: the relation
    was acyclic before), until it is acyclic or nothing of the batch is pending; so no
    cycle comes twice.  (A cycle broken by an orientation left out keeps its derived
    pairs: another cycle through them is another conflict, found here rather than by a
    retry that derives them again: measured on the fisheye-2014 Algorithm 2 run of
    100,000 operations, a third fewer retries.)  Each is a cycle of the relation,
    every edge of it derived from the root and the orientation being checked, so a
    conflict of that orientation, which the analysis explains as it does ``first``.
    Each cycle is :func:`.closure_kernel.cycle_through`'s on the relation less the
    pairs taken out so far, found by :func:`.closure_kernel.cycle_after_removal`: one
    pass of Kahn's algorithm over the relation, then only the operations the pairs
    taken out since the last cycle free."""
    if grow.refused is None:
        return
    refused, at, derived = grow.refused
    grow.refused = None
    assert refused.relation is not None
    flat, add = refused.relation
    reasons = ChainMap(derived, grow.reasons)
    pairs = flat.reshape(-1, 2)
    keep = np.ones(len(pairs), np.bool_)  # the pairs the search state still holds
    last = len(pairs) - len(add) // 2  # the pairs whose addition closed the cycles
    key = pairs[last:, 0] * ix.n + pairs[last:, 1]
    by_key = np.argsort(key, kind="stable")  # the closing pairs by key: a pair's copies at once
    sorted_key = key[by_key]

    def closing(keys: np.ndarray) -> np.ndarray:
        """The places (from ``last``) of the closing pairs with a key among ``keys``."""
        lo = np.searchsorted(sorted_key, keys, side="left").tolist()
        hi = np.searchsorted(sorted_key, keys, side="right").tolist()
        spans = [by_key[a:b] for a, b in zip(lo, hi, strict=True) if b > a]
        return np.concatenate(spans) if spans else by_key[:0]
    place = np.full(len(batch.pending), -1, np.int64)  # each pending row's place in ``rows``
    place[rows] = np.arange(len(rows))
    mine = pairs[at:at + len(rows), 0] * ix.n + pairs[at:at + len(rows), 1]  # the rows' pairs
    search = refused.cycles
    cycle = first
    while batch.any():
        steps = np.array([r.ops[:2] for r in cycle.reasons if len(r.ops) >= 2], np.int64).reshape(-1, 2)
        steps_key = steps[:, 0] * ix.n + steps[:, 1]
        left = place[np.concatenate(batch.taken[mark:])] if len(batch.taken) > mark else place[:0]
        mark = len(batch.taken)
        gone = at + left
        # broken: a step of the cycle left out, with no copy among the pairs kept
        out = steps_key[np.isin(steps_key, mine[left])]
        if not len(out) or keep[last + closing(out)].any():
            gone = np.concatenate((gone, last + closing(steps_key)))
        gone = np.unique(gone)
        gone = gone[keep[gone]]
        keep[gone] = False
        new_ids = last + np.flatnonzero(keep[last:])
        budget.tick(0)
        if search is None:
            search = CycleSearch(ix, flat)
        found = search.cycle(gone, pairs[gone, 0].copy(), pairs[new_ids], new_ids)
        if not len(found):
            return
        cycle = Conflict(cycle_reasons(ix, reasons, Cycle(tuple(found.tolist()))), reasons)
        yield cycle


def _check(ix: Index, E: Edges, order: DOrder, views: list[View], chosen: _Orientation,
           vs: Mapping[int, int | None], edges: list[_Edge], all_operations: bool, budget: Budget,
           analyser: Analyser, reads: Mapping[int, Reads]
           ) -> StarSolution | tuple[list[set[int]], Conflict]:
    """The saturated root with a full orientation ``chosen``: a solution, or the sets of
    literals of the conflicts found, and one of them as a certificate.

    The orientation is added in batches in guessed time order (:func:`_chunks`), first
    to the star order, then to each view (saturated after each batch).  A batch that
    closes a cycle (or makes a view illegal) gives a conflict; the chosen orientations
    its explanation met (as chosen, not generalised: :attr:`.direct_learn.Analyser.met`,
    or pending ones near them: :func:`_drop`) are left out and the rest of the batch
    is tried again, so that one check finds the conflicts of the whole history, not
    only the first.  Before a view tries a batch again, the other cycles of the
    relation it refused are taken one by one (:func:`_cycles_left`: a breadth-first
    search each, where a retry costs a closure and a pass of the rules over the whole
    history).  Each view starts from its root order with the batches the star order
    accepted, less the orientations left out by the views before it (their conflicts
    are known); its first attempt is a retry like the others, so the other cycles of
    a relation it refuses are taken from the first.  The orientation makes every
    ``M_pq`` total, so a view forces no new star pair: each view is saturated on its
    own."""
    trail = Trail()
    out: list[set[int]] = []
    first: Conflict | None = None
    accepted: list[_Batch] = []  # per batch, the orientations the star order took
    # the star order and its edges: the root's, then each batch accepted (layered, not copied)
    star, star_edges = order, ChainMap(E)
    for batch in _chunks(chosen, ix.n):
        chunk = batch.edges
        trail.add(STAR, chunk, batch.pairs)  # a retry holds part of the batch, recorded already
        while batch.any():
            budget.tick()
            flat = batch.flat()
            got = extend_or_conflict(ix, ChainMap(chunk, star_edges), star, flat)
            if not isinstance(got, Conflict):
                star = got
                if batch.pending.all():
                    accepted.append(batch.again())
                else:
                    took = {e: info for (e, info), keep in zip(chunk.items(), batch.pending.tolist(),
                                                               strict=True) if keep}
                    accepted.append(_Batch(took, flat.reshape(-1, 2)))
                star_edges = star_edges.new_child(accepted[-1].edges)
                break
            c = got
            first = first or Conflict(c.reasons)
            out.extend(analyser.literals(c, trail, STAR))
            _drop(ix, batch, analyser.met, analyser.pairs)
    good: list[View] = []
    dropped: set[int] = set()  # left out of the later views too: their conflicts are known
    for v in views:
        grow = _Growing(v, chosen.edges, reads[v.process])

        def learn(c: Conflict, batch: _Batch | None, process: int = v.process) -> None:
            nonlocal first
            lits = analyser.literals(c, trail, process)
            first = first or Conflict(c.reasons)
            out.extend(lits)
            dropped.update(analyser.met)
            if batch is not None:
                _drop(ix, batch, analyser.met, analyser.pairs)

        for took in accepted:
            batch = took.again()
            batch.leave_out(dropped)
            while batch.any():
                rows = np.flatnonzero(batch.pending)
                mark = len(batch.taken)
                c = grow.attempt(ix, batch.pairs[rows].ravel(), vs, budget, trail)
                if c is None:
                    break
                learn(c, batch)
                for more in _cycles_left(ix, grow, batch, rows, mark, c, budget):
                    learn(more, batch)
        good.append(View(v.process, grow.order, grow.edges))
    if out:
        out.extend(_implied(ix, star, good, edges, all_operations, analyser, trail))
        assert first is not None
        return out, first
    forced = _forced_star(ix, star, good, edges, all_operations)
    if not forced:
        return _solution(ix, flat_edges(star_edges), star, good)
    by_view = {f"S_{ix.procs[v.process]}": v.process for v in good}
    for (a, b), info in forced.items():
        out.append(analyser.contradiction(by_view[info[1]], a, b, trail))
        if first is None:
            first = conflict_of(ix, {**star_edges, (a, b): info})
    assert first is not None
    return out, first
