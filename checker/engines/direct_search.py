"""The direct engine's outer search: read-from maps (repeated values), then the model's
inner decision procedure.

Legality is by *value* (``spec/validate.py``), so with repeated values each read ``r``
of ``p_i`` has two unknowns for cc and fisheye: its source ``rf(r)`` in the causal order
``~>H`` (section 2.3) and its *view source* ``vs(r)``, the last write to its register
before it in ``S_i``.  ``rf(r) != vs(r)`` is possible (``rf(r)`` then precedes
``vs(r)`` in ``S_i``; the saturation of :mod:`.direct_cc` enforces it).  When ``r``
returns its register's initial value, ``rf(r) = ⊥`` dominates every other source (a
solution with ``rf(r) = w`` stays one with ``⊥``: ``~>H`` only shrinks, and ``w -> r``
moves into the star pairs), so only ``⊥`` is tried.  For sc, ``rf`` is the source in
the single sequence.

Reads with a single option are fixed first; the others are assigned one by one, most
constrained first, and each partial assignment is pruned by saturation (sound: the
constraints only grow with the assignment).  sc with repeated values is searched over
executions instead (:mod:`.direct_sc_states`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from fisheye.spec.graph import ProximityGraph
from fisheye.spec.models import Model
from fisheye.spec.witness import Witness

from ..result import Reason
from .direct_cc import build_view, check_views
from .direct_order import Budget, BudgetExhausted, Conflict, Edges, Index, conflict_of, full_order, rf_edges
from .direct_sc import first_pass, solve_sc
from .direct_sc_states import solve_sc_states
from .direct_star import solve_star

Option = tuple[int | None, int | None]  # (rf, vs)

MANY_VIEWS = 16
"""With more processes than this, cc also tries sc first: per-process views cost
``O(|processes| * |H|)`` to build and to validate, a serialisation ``O(|H|)``.  A phase
of a larger history counts the whole history's processes (``many_views``): a view
listed in one phase is a view of the whole, every write of every phase in it."""


@dataclass(frozen=True)
class Outcome:
    """``witness`` (consistent) or ``certificate`` (violation)."""

    witness: Witness | None
    certificate: tuple[Reason, ...] = ()
    stats: Mapping[str, int] | None = None


def _options(ix: Index, model: Model, r: int) -> list[Option]:
    cands = ix.cands[r]
    if model is Model.SC:
        return [(w, w) for w in cands]
    writes = [w for w in cands if w is not None]
    if None in cands:
        return [(None, None)] + [(None, w) for w in writes]
    same = [(w, w) for w in writes]
    mixed = [(w, v) for w in writes for v in writes if v != w]
    return same + mixed


def _from_sequence(ix: Index, model: Model, seq: tuple[int, ...]) -> Witness:
    """The witness of ``model`` given by a legal serialisation ``seq`` (sc implies every
    model): each read reads from the last write to its register before it, every view is
    ``seq`` restricted to its scope (the witness's compact form), and the star order is
    ``seq`` itself."""
    last: dict[str, int] = {}
    rf: dict[int, int | None] = {}
    for u in seq:
        if ix.is_write[u]:
            last[ix.reg[u]] = u
        else:
            rf[u] = last.get(ix.reg[u])
    star = tuple(zip(seq, seq[1:], strict=False)) if model.uses_graph else ()
    return Witness(read_from=rf, star=star, sequence=seq)


class _Solver:
    def __init__(self, ix: Index, model: Model, graph: ProximityGraph, budget: Budget, many_views: bool):
        self.ix, self.model, self.graph, self.budget = ix, model, graph, budget
        self.many_views = many_views or ix.P > MANY_VIEWS
        self.first_conflict: Conflict | None = None

    def inner(self, rf: dict[int, int | None], vs: dict[int, int | None], *, partial: bool
              ) -> Witness | Conflict | None:
        """Decide the model for a (partial) read-from map; with ``partial``, only
        propagate: ``None`` means "not refuted"."""
        ix, model, budget = self.ix, self.model, self.budget
        hb = rf_edges(ix, rf)
        if model is Model.SC:
            budget.tick()
            if full_order(ix, hb.keys()) is None:
                return conflict_of(ix, hb)
            if partial:
                return None
            res = solve_sc(ix, hb, rf, budget)
            if isinstance(res, Conflict):
                return res
            return Witness(read_from=dict(rf), sequence=res)
        if model is Model.CC:
            if not partial and self.many_views and ix.h.differentiated:
                seq = self._sc_first(hb, rf)
                if seq is not None:
                    return _from_sequence(ix, model, seq)
            views = check_views(ix, hb, vs, budget)
            if isinstance(views, Conflict) or partial:
                return views if isinstance(views, Conflict) else None
            return Witness(read_from=dict(rf), views={ix.procs[v.process]: build_view(ix, v)
                                                      for v in views})
        if not partial and (self.graph.edges or self.many_views) and ix.h.differentiated:
            seq = self._sc_first(hb, rf)
            if seq is not None:
                return _from_sequence(ix, model, seq)
        res = solve_star(ix, self.graph, hb, vs, budget, all_operations=model is Model.FISHEYE_2014,
                         propagate_only=partial)
        if res is None or isinstance(res, Conflict):
            return res
        star = tuple(sorted(e for e in res.star if e not in hb))
        return Witness(read_from=dict(rf), star=star,
                       views={ix.procs[v.process]: build_view(ix, v) for v in res.views})

    def _sc_first(self, hb: Edges, rf: dict[int, int | None]) -> tuple[int, ...] | None:
        """The common case first: sc implies every model, and a serialisation is a compact
        witness (one sequence instead of a view per process); a small budget, and no
        more than :func:`.direct_sc.first_pass` when that refutes sc already."""
        budget = self.budget.sub(100 + self.ix.n // 10)
        try:
            order = first_pass(self.ix, hb, rf, budget)
            if order is None:
                return None
            seq = solve_sc(self.ix, hb, rf, budget, order)
        except BudgetExhausted:
            return None
        return seq if isinstance(seq, tuple) else None

    def run(self) -> Outcome:
        ix = self.ix
        for r in ix.reads:
            if not ix.cands[r]:
                op = ix.h.ops[r]
                return Outcome(None, (Reason(
                    f"{ix.label(r)} returns {op.value!r}, which no write to {op.register} that may "
                    f"precede it supplies and which is not the initial value of {op.register}",
                    "rf", (r,)),))
        if self.model is Model.SC and not ix.h.differentiated:
            seq = solve_sc_states(ix, self.budget)
            if isinstance(seq, Conflict):
                return Outcome(None, seq.reasons)
            return Outcome(Witness(sequence=seq))
        if not ix.h.differentiated:
            # common case first: an sc history is consistent for every model, and the
            # serialisation gives the witness; half the budget (the search over read-from
            # maps that follows is weaker with repeated values), then the full search
            try:
                left = self.budget.max_nodes - self.budget.nodes
                seq = solve_sc_states(ix, self.budget.sub(max(2000, left // 2)))
            except BudgetExhausted:
                seq = None
            if isinstance(seq, tuple):
                return Outcome(_from_sequence(ix, self.model, seq))
        opts: dict[int, list[Option]] = {}
        for i, r in enumerate(ix.reads):
            if not i & 0xFFFF:
                self.budget.tick(0)  # the deadline, as the options of the reads are listed
            opts[r] = _options(ix, self.model, r)
        self.budget.tick(0)
        fixed = {r: o[0] for r, o in opts.items() if len(o) == 1}
        open_reads = sorted((r for r in ix.reads if len(opts[r]) > 1), key=lambda r: (len(opts[r]), r))
        rf = {r: o[0] for r, o in fixed.items()}
        vs = {r: o[1] for r, o in fixed.items()}
        if open_reads:
            got = self.inner(rf, vs, partial=True)
            if isinstance(got, Conflict):
                return Outcome(None, got.reasons)
        result = self._dfs(open_reads, 0, opts, rf, vs)
        if isinstance(result, Witness):
            return Outcome(result)
        reasons = result.reasons
        if not reasons:
            reasons = (Reason("every choice left open after saturation (read-from sources, order of "
                              "writes) leads to a cycle of forced orderings; the first one refuted was: "
                              + "; ".join(r.text for r in (self.first_conflict.reasons
                                                           if self.first_conflict else ())),
                              "search"),)
        elif reasons[0].rule != "search" and any(x.rule == "choice" for x in reasons):
            reasons = (Reason("saturation leaves orderings open; the search tried both orientations of "
                              "each and every branch closes a cycle of orderings; for instance, after the "
                              "choices marked 'choice' below:", "search"),) + reasons
        elif open_reads:
            reasons = (Reason("no choice of read-from sources works (repeated values); the first "
                              "choice refuted failed with the cycle below", "search"),) + reasons
        return Outcome(None, reasons)

    def _dfs(self, open_reads: list[int], k: int, opts: Mapping[int, list[Option]],
             rf: dict[int, int | None], vs: dict[int, int | None]) -> Witness | Conflict:
        if k == len(open_reads):
            got = self.inner(rf, vs, partial=False)
            assert got is not None
            if isinstance(got, Conflict) and got.reasons and self.first_conflict is None:
                self.first_conflict = got
            return got
        r = open_reads[k]
        first: Conflict | None = None
        for src, view_src in opts[r]:
            rf[r], vs[r] = src, view_src
            if k + 1 < len(open_reads):
                got = self.inner(rf, vs, partial=True)
            else:
                got = None
            res = got if isinstance(got, Conflict) else self._dfs(open_reads, k + 1, opts, rf, vs)
            if isinstance(res, Witness):
                return res
            if first is None or (not first.reasons and res.reasons):
                first = res
            if self.first_conflict is None and res.reasons:
                self.first_conflict = res
        del rf[r], vs[r]
        assert first is not None
        return first if len(opts[r]) == 1 else Conflict(())


def search(ix: Index, model: Model, graph: ProximityGraph, budget: Budget, *,
           many_views: bool = False) -> Outcome:
    """Decide ``model``: an :class:`Outcome`; raises ``BudgetExhausted``."""
    out = _Solver(ix, model, graph, budget, many_views).run()
    return Outcome(out.witness, out.certificate, {"nodes": budget.nodes})
