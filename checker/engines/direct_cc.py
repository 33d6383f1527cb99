"""Per-process views for a fixed read-from map: saturation of forced orderings, then a
greedy construction (the polynomial core of the direct engine).

Setting: a partial order ``O`` on the operations that contains the process order
(``~>H`` for cc, the star order for fisheye), a process ``p_i``, and for each read
``r`` of ``p_i`` its *view source* ``vs(r)``: the write whose value ``r`` returns in
``S_i`` (``None``: the initial value).  We look for a sequential, legal ``S_i`` of
``H|(p_i + W)`` respecting ``O`` (section 2.3 of the 2015 text, clause (c); section 3.2
with the star order).

*Saturation* (sound).  If a write ``w'`` to the register of ``r`` precedes ``r`` in
``O_i`` and ``w' != vs(r)``, then ``w'`` must precede ``vs(r)`` in ``S_i`` (otherwise it
would sit between ``vs(r)`` and ``r``): add ``w' -> vs(r)`` and close again.  If
``vs(r)`` is the initial value, such a ``w'`` is a violation.  This is the "WriteCORead"
/ "WriteHBInitRead" bad patterns of Bouajjani, Enea, Guerraoui and Hamza (POPL 2017) for
their model CM, which is the papers' cc.

*Construction* (complete).  If the saturated ``O_i`` is acyclic, put every operation of
the scope in the batch of the first operation of ``p_i`` that it precedes in ``O_i``
(the last batch if none), batches in process order, each batch in a topological order
of ``O_i``.  Then a write ``w'`` placed before a read ``r`` precedes some operation of
``p_i`` not after ``r``, hence ``r`` itself, so saturation placed it before ``vs(r)``:
the sequence is legal, and it respects ``O_i`` by construction.  So, for a fixed
read-from map, cc is decided by one saturation per process: polynomial.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Mapping
from dataclasses import dataclass

from ..result import Reason
from .direct_order import (
    Budget,
    Conflict,
    DOrder,
    Edges,
    Index,
    Trail,
    conflict_of,
    extend_order,
    full_order,
    path_reasons,
)


@dataclass(frozen=True)
class View:
    """The saturated order ``O_i`` of one process and the edges that generate it."""

    process: int
    order: DOrder
    edges: Edges


def saturate_view(ix: Index, edges: Edges, proc: int, vs: Mapping[int, int | None], budget: Budget,
                  initial: DOrder | None = None, from_read: bool = False, trail: Trail | None = None,
                  resume: bool = False) -> View | Conflict:
    """Saturate ``closure(po ∪ edges)`` with the forced orderings of the view of
    process ``proc``.  ``initial``, when given, is that closure already computed.
    ``from_read`` adds the (sound, not needed for completeness) rule: a write ``w'`` to
    the register after ``vs(r)`` must follow ``r``; the star search uses it to force
    more pairs.  ``trail`` records the batches of forced orderings (conflict analysis).

    ``resume``: ``initial`` extends (:func:`.direct_order.extend_order`) an order on
    which the view was saturated, and ``edges`` is the caller's own dict, grown in place
    (the caller undoes the growth on a conflict).  Every rule reads the row of a read
    of the view and the rows of the writes to its register, so only the reads whose row
    or whose register's writes' rows changed are visited again."""
    E: Edges = edges if resume else dict(edges)
    if initial is None:
        initial = _closed_or_conflict(ix, E, budget)
        if isinstance(initial, Conflict):
            return initial
    order = initial
    name = f"S_{ix.procs[proc]}"
    all_reads = [r for r in ix.reads_of[proc] if r in vs]
    reads = all_reads
    moved: set[int] = set()
    writers_moved: dict[str, set[int]] | None = None  # None: every rule is evaluated
    while True:
        clock = order.clock
        if resume:
            if order.changed is None:
                reads, writers_moved = all_reads, None
            else:
                # the rules of read r and writer k read the rows of r, of vs(r) and of
                # k's writes to r's register: only those whose rows changed are evaluated
                writers_moved = {}
                for u in order.changed:
                    if ix.is_write[u]:
                        writers_moved.setdefault(ix.reg[u], set()).add(ix.proc_of[u])
                moved = set(order.changed)
                reads = [r for r in all_reads if r in moved or ix.reg[r] in writers_moved]
        new: Edges = {}
        for r in reads:
            w = vs[r]
            x = ix.reg[r]
            c = clock[r]
            if w is not None and ix.idx[w] > c[ix.proc_of[w]]:
                new[(w, r)] = ("view", name)  # vs(r) != rf(r): r returns w's value in S_i
                continue
            fr = from_read and w is not None
            if fr:
                pw, iw = ix.proc_of[w], ix.idx[w]
            only = None if writers_moved is None or r in moved or w in moved else writers_moved.get(x)
            for k, base, lst in ix.writers.get(x, ()):
                if only is not None and k not in only:
                    continue
                j = bisect_right(lst, c[k]) - 1
                wp = base + lst[j] if j >= 0 else w
                if wp != w:
                    if w is None:
                        return Conflict(path_reasons(ix, E, wp, r) + (Reason(
                            f"{ix.label(r)} returns the initial value of {x}, but {ix.label(wp)} "
                            f"precedes it, so {name} cannot be legal", "legality", (wp, r)),), E)
                    if ix.idx[wp] > clock[w][k]:  # not yet wp < w
                        new[(wp, w)] = ("forced", name, r)
                if fr:
                    # the first write to x of k after w must follow r ("from-read")
                    j = _first_after(lst, j, base, clock, pw, iw)
                    if j < len(lst) and base + lst[j] == w:
                        j += 1
                    if j < len(lst):
                        wn = base + lst[j]
                        if ix.idx[r] > clock[wn][proc]:
                            new[(r, wn)] = ("fr", name, r, w)
        if not new:
            return View(proc, order, E)
        E.update(new)
        if trail is not None:
            trail.add(proc, new)
        budget.tick()
        got = extend_order(ix, order, new.keys(), E.keys())
        if got is None:
            return conflict_of(ix, E, order, new.keys())
        order = got


def _first_after(lst: list[int], j: int, base: int, clock: list[list[int]], pw: int, iw: int) -> int:
    """The first position in ``lst`` (po indices of writes of one process, whose rows
    ``clock[base + i][pw]`` do not decrease) whose write has ``clock[.][pw] >= iw``
    (follows or is operation ``iw`` of process ``pw``).  ``j``: the last position of a
    write that precedes the read; when that write does not follow ``iw`` (the usual
    case) the answer is after it, and usually next to it, so the search starts there."""
    if j >= 0 and clock[base + lst[j]][pw] >= iw:
        lo = 0
    else:
        lo = j + 1
        if lo >= len(lst) or clock[base + lst[lo]][pw] >= iw:
            return lo
        lo += 1
    return bisect_left(lst, iw, lo=lo, key=lambda i: clock[base + i][pw])


def build_view(ix: Index, view: View) -> tuple[int, ...]:
    """The greedy construction above: ``S_i`` as a tuple of uids."""
    k_i = view.process
    clock = view.order.clock
    rank = view.order.rank()
    mine = range(ix.base[k_i], ix.base[k_i] + ix.length[k_i])
    cols = [[clock[o][k] for o in mine] for k in range(ix.P)]
    nmine = len(mine)
    keyed: list[tuple[int, int, int]] = []
    for u in mine:
        keyed.append((ix.idx[u], rank[u], u))
    for k in range(ix.P):
        if k == k_i:
            continue
        col = cols[k]
        for i in ix.wlist[k]:
            u = ix.base[k] + i
            j = bisect_left(col, i) if nmine else 0
            keyed.append((j, rank[u], u))
    keyed.sort()
    return tuple(u for _, _, u in keyed)


def check_views(ix: Index, edges: Edges, vs: Mapping[int, int | None], budget: Budget,
                base: DOrder | None = None, from_read: bool = False) -> list[View] | Conflict:
    """Saturate the view of every process on top of ``closure(po ∪ edges)``."""
    if base is None:
        base = _closed_or_conflict(ix, edges, budget)
        if isinstance(base, Conflict):
            return base
    views: list[View] = []
    for k in range(ix.P):
        v = saturate_view(ix, edges, k, vs, budget, initial=base, from_read=from_read)
        if isinstance(v, Conflict):
            return v
        views.append(v)
    return views


def update_views(ix: Index, views: list[View], added: Edges, vs: Mapping[int, int | None], budget: Budget,
                 from_read: bool = False, trail: Trail | None = None) -> list[View] | Conflict:
    """The views saturated on top of an order grown by ``added``, starting from views
    already saturated on the smaller order: every forced ordering stays forced (the
    rules only fire more on a larger order), so each view resumes where it stopped."""
    if not added:
        return views
    out: list[View] = []
    for v in views:
        edges = {**v.edges, **added}
        if trail is not None:
            trail.add(v.process, added)
        budget.tick()
        base = extend_order(ix, v.order, added.keys(), edges.keys())
        if base is None:
            return conflict_of(ix, edges)
        got = saturate_view(ix, edges, v.process, vs, budget, initial=base, from_read=from_read, trail=trail,
                            resume=True)
        if isinstance(got, Conflict):
            return got
        out.append(got)
    return out


def _closed_or_conflict(ix: Index, edges: Edges, budget: Budget) -> DOrder | Conflict:
    """``closure(po ∪ edges)``, or the conflict (cycle, with its reasons) that prevents it."""
    budget.tick()
    got = full_order(ix, edges.keys())
    return conflict_of(ix, edges) if got is None else got
