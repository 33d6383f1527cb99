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

from collections import ChainMap
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from ..result import Reason
from .direct_order import (
    Budget,
    Conflict,
    DOrder,
    Edges,
    Index,
    Info,
    Trail,
    conflict_of,
    extend_or_conflict,
    extend_order,
    full_order,
    path_reasons,
)


@dataclass(frozen=True)
class View:
    """The saturated order ``O_i`` of one process and the edges that generate it (with
    their reasons: read only)."""

    process: int
    order: DOrder
    edges: Mapping[tuple[int, int], Info]
    # the from-read answers of the rules' last pass on ``order`` (:func:`saturate_reads`),
    # for a later saturation on an order grown from it to pass over what grew only
    answers: np.ndarray | None = None


@dataclass(frozen=True)
class Reads:
    """The reads a sequence is saturated over and the sources they return in it
    (``-1``: the initial value), as the arrays the compiled rules read."""

    uids: np.ndarray
    sources: np.ndarray

    @staticmethod
    def of(reads: Sequence[int], sources: Mapping[int, int | None]) -> Reads:
        return Reads(np.array(reads, np.int64),
                     np.array([-1 if sources[r] is None else sources[r] for r in reads], np.int64))

    @staticmethod
    def of_view(ix: Index, proc: int, vs: Mapping[int, int | None]) -> Reads:
        """The reads of the view of process ``proc`` whose view source ``vs`` fixes."""
        return Reads.of([r for r in ix.reads_of[proc] if r in vs], vs)


def saturate_view(ix: Index, edges: Edges, proc: int, vs: Mapping[int, int | None], budget: Budget,
                  initial: DOrder | None = None, from_read: bool = False, trail: Trail | None = None,
                  resume: bool = False, reads: Reads | None = None, last: View | None = None
                  ) -> View | Conflict:
    """Saturate ``closure(po ∪ edges)`` with the forced orderings of the view of
    process ``proc``.  ``initial``, when given, is that closure already computed.
    ``from_read`` adds the (sound, not needed for completeness) rules: a write ``w'`` to
    the register after ``vs(r)`` must follow ``r``, and every write to the register must
    follow a read of its initial value (the view holds every write, and none may come
    between the initial value and the read); the star search uses them to force more
    pairs.  ``trail`` records the batches of forced orderings (conflict analysis).
    ``resume``: ``edges`` is the caller's own dict, grown in place (the caller undoes
    the growth on a conflict).  ``reads``: ``Reads.of_view(ix, proc, vs)``, when the
    caller keeps it.  ``last``: the view saturated (with the same ``from_read``) on an
    order that ``initial`` extends: the first pass of the rules then visits only what
    the extension may change (:func:`saturate_reads`), when the extension says which
    rows grew."""
    E: Edges = edges if resume else dict(edges)
    if initial is None:
        initial = _closed_or_conflict(ix, E, budget)
        if isinstance(initial, Conflict):
            return initial
    reads = Reads.of_view(ix, proc, vs) if reads is None else reads
    grown = None if last is None or last.answers is None else initial.raised_since(last.order)
    answers = _answers(ix, reads, from_read) if grown is None else last.answers.copy()  # type: ignore[union-attr]
    got = saturate_reads(ix, E, initial, reads, vs, f"S_{ix.procs[proc]}", budget, from_read=from_read,
                         initial=from_read, trail=trail, graph=proc, raised=grown, answers=answers)
    return got if isinstance(got, Conflict) else View(proc, got, E, answers if from_read else None)


def _answers(ix: Index, reads: Reads, from_read: bool) -> np.ndarray:
    """The from-read answers of :func:`.closure_kernel.view_rules` before any pass: per
    read and writer of its register, the from-read rule's write, not computed yet."""
    from .closure_kernel import NO_ANSWERS, UNKNOWN

    return np.full((len(reads.uids), ix.writers_per_register), UNKNOWN, np.int64) if from_read else NO_ANSWERS


def saturate_reads(ix: Index, E: Edges, order: DOrder, reads: Sequence[int] | Reads,
                   sources: Mapping[int, int | None], name: str, budget: Budget, *, from_read: bool,
                   initial: bool = False, trail: Trail | None = None, graph: int = 0,
                   raised: np.ndarray | None = None, answers: np.ndarray | None = None) -> DOrder | Conflict:
    """The saturation loop of one sequence ``name`` (a view ``S_i``, or sc's ``S``) on
    the closure ``order`` of ``E``, over ``reads`` returning the values of
    ``sources`` (or as :class:`Reads` already): each pass of the rules is compiled
    (:func:`.closure_kernel.view_rules`; ``initial``: sc's rule for reads of the initial
    value), the orderings it derives are added to ``E`` (in place) as one batch,
    recorded in ``trail`` under ``graph``, and the order closed again, until a pass
    derives nothing.  A pass after a closure extended row by row visits only the reads
    whose premises the rows that grew may change (``view_rules``' pass since the last).
    ``raised`` and ``answers``, when given: ``order`` is an extension, by the rows
    ``raised``, of an order on which a pass of the same rules derived nothing and left
    ``answers`` (the from-read rule's writes, updated here in place), so the first pass
    is one since that pass too."""
    from .closure_kernel import (  # numba: loaded when first needed
        EVERY_ROW,
        FORCED,
        INITIAL,
        LEGALITY,
        VIEW,
        view_rules,
    )

    given = reads if isinstance(reads, Reads) else Reads.of(reads, sources)
    rs, src = given.uids, given.sources
    if raised is None or answers is None:
        raised = EVERY_ROW
    if answers is None:
        answers = _answers(ix, given, from_read)
    while True:
        rows, m = view_rules(order.array, rs, src, ix.reg_array, ix.proc_array, ix.idx_array,
                             *ix.writer_arrays, from_read, initial, raised, answers)
        if not m:
            return order
        found = rows[:m]
        if found[0, 0] == LEGALITY:
            wp, r = int(found[0, 1]), int(found[0, 2])
            return Conflict(path_reasons(ix, E, wp, r) + (Reason(
                f"{ix.label(r)} returns the initial value of {ix.reg[r]}, but {ix.label(wp)} "
                f"precedes it, so {name} cannot be legal", "legality", (wp, r)),), E)
        new: Edges = {}
        for kind, a, b, r, w in found.tolist():
            new[(a, b)] = (("view", name) if kind == VIEW else ("forced", name, r) if kind == FORCED
                           else ("init", name) if kind == INITIAL else ("fr", name, r, w))
        # a ChainMap writes to its first map: updated directly (one call, not one per edge)
        (E.maps[0] if isinstance(E, ChainMap) else E).update(new)
        if trail is not None:
            trail.add(graph, new)
        budget.tick()
        got = extend_or_conflict(ix, E, order, found[:, 1:3].ravel())
        if isinstance(got, Conflict):
            return got
        grown = got.raised_since(order)
        raised = EVERY_ROW if grown is None else grown
        order = got


def build_view(ix: Index, view: View) -> tuple[int, ...]:
    """The greedy construction above: ``S_i`` as a tuple of uids.  Each write of
    another process goes into the batch of the first own operation it precedes (a
    bisection of that operation's column of clocks, which grows along the process
    order), batches in process order, each in the order of a topological rank."""
    k_i = view.process
    arr = view.order.array
    rank = arr.sum(axis=1)
    lo, m = ix.base[k_i], ix.length[k_i]
    batches = [np.arange(m, dtype=np.int64)]
    uids = [np.arange(lo, lo + m, dtype=np.int64)]
    for k in range(ix.P):
        if k == k_i or not ix.wlist[k]:
            continue
        writes = np.array(ix.wlist[k], np.int64)
        batches.append(np.searchsorted(arr[lo:lo + m, k], writes, side="left") if m
                       else np.zeros(len(writes), np.int64))
        uids.append(ix.base[k] + writes)
    batch, uid = np.concatenate(batches), np.concatenate(uids)
    return tuple(uid[np.lexsort((uid, rank[uid], batch))].tolist())


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
    rules only fire more on a larger order), so each view resumes where it stopped.
    Each view's edges are its own layered over ``added`` and the view's (not copied)."""
    if not added:
        return views
    out: list[View] = []
    for v in views:
        edges: ChainMap[tuple[int, int], Info] = ChainMap({}, added, v.edges)  # type: ignore[arg-type]
        if trail is not None:
            trail.add(v.process, added)
        budget.tick()
        base = extend_order(ix, v.order, added.keys())
        if base is None:
            return conflict_of(ix, edges)
        got = saturate_view(ix, edges, v.process, vs, budget, initial=base, from_read=from_read, trail=trail,
                            resume=True, last=v)
        if isinstance(got, Conflict):
            return got
        out.append(got)
    return out


def _closed_or_conflict(ix: Index, edges: Edges, budget: Budget) -> DOrder | Conflict:
    """``closure(po ∪ edges)``, or the conflict (cycle, with its reasons) that prevents it."""
    budget.tick()
    got = full_order(ix, edges.keys())
    return conflict_of(ix, edges) if got is None else got
