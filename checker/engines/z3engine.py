"""The Z3 engine: SC, CC and fisheye (2015 and 2014 definitions) as one SMT problem.

The definitions (section 2.2, 2.3 and 3.2 of the 2015 text; section 3.2 of the 2014
report) ask for a read-from map (hence ``~>H``), a star order ``*~>H,G ⊇ ~>H`` and, for
each process ``p_i``, a sequential legal history ``S_i`` of ``H|(p_i + W)`` that
respects the order.  Searching partial orders directly is expensive; the encoding rests
on one lemma, proved here.

**Lemma.**  Let ``R`` be a relation on the operations of ``H`` with ``closure(R)``
acyclic, and let ``S_i`` be a total order of the subset ``p_i + W``.  Then ``S_i``
respects ``closure(R)|(p_i + W)`` iff there is a linear order ``L_i`` of *all* the
operations that contains the generators ``R`` and whose restriction to ``p_i + W`` is
``S_i``.

*Proof.*  (⇐) ``L_i`` is transitive, so it contains ``closure(R)``; restricting it to
``p_i + W`` gives ``S_i``.  (⇒) ``L_i`` exists iff ``R ∪ S_i`` is acyclic.  Take a
cycle of ``R ∪ S_i`` with the fewest ``S_i`` edges.  With no ``S_i`` edge it is a cycle
of ``R``, impossible.  Otherwise cut it at its ``S_i`` edges: between two consecutive
ones runs an ``R``-path from an element of ``p_i + W`` to another one, i.e. a pair of
``closure(R)|(p_i + W)``, which ``S_i`` respects, so it is an ``S_i`` edge too: the
cycle compresses to a cycle inside the total order ``S_i``, impossible.  ∎

So, per process ``p_i`` (a *view*), an integer position for *every* operation, with

* ``po``: consecutive operations of a process in order, in every view;
* ``rf``: each read reads from one of its candidate writes (same register, same value;
  :func:`fisheye.spec.causal.candidate_sources`), or from ⊥ when its value is the
  initial one: the chosen write precedes the read in every view.  ``~>H`` =
  closure(po ∪ rf) is then acyclic because any single view is a linear extension;
* ``legality`` by value (Ahamad et al.), only for the reads of ``p_i`` in view ``i``:
  a *local source* among the same-value writes on the register (or ⊥), every other
  write on the register before the source or after the read.  The local source need
  not be the rf write: rf only feeds ``~>H``, exactly as in
  :func:`fisheye.spec.validate.legality_problems`;
* ``edge`` (fisheye, 2015): for each edge ``(p,q)`` and each pair of *writes* of
  ``p ∪ q`` on different processes, one Boolean orientation, enforced in every view.
  The pairs chosen form the witness's ``star`` (the star order is closure(~>H ∪ star)),
  total on the writes of ``p`` and ``q``.  Conversely any valid star order orients
  these pairs, and a smaller star order only relaxes the views, so nothing is lost.
* ``edge`` (fisheye-2014): the same for each pair of *all operations* of ``p ∪ q``.
  Note where the 2014 definition needs the star order's transitive closure through
  reads of other processes: a pair ``r(X)@q < w(Y)@p`` ordered for the edge ``(p,q)``
  constrains the view of a third process ``s`` although ``r(X)@q`` is not in
  ``S_s``, for instance ``w(X)@s ~> r(X)@q < w(Y)@p`` orders ``w(X)@s`` before
  ``w(Y)@p`` in ``S_s``.  Because every view ``L_i`` holds *all* operations, these
  paths are captured exactly (the lemma).  In the 2015 definition only writes are
  oriented and writes are in every ``S_i``, so the closure through reads of other
  processes adds nothing beyond ``~>H`` itself, which the views also carry.
* ``sc``: one view of all operations with the legality of every read (section 2.2).

Positions are unbounded integers and all constraints between positions are strict
inequalities, so no ``Distinct`` is needed: operations left at the same position are
unconstrained with respect to each other, and any tie-break (we use the uid) yields a
linear order that satisfies every constraint.  (Legality: every write on the register
that is not a chosen source lies strictly before the source position or after the
read; chosen sources that tie all write the read's value.)
A view is only needed for a process with reads (plus one view when no process reads);
``S_i`` of a process without reads is the restriction of any view to ``W``, which
respects every generator.

Every constraint is added with ``assert_and_track`` under a name made of the
operations and the rule, e.g. ``po: w(X,1)@paris#0 < w(R,1)@paris#1``; the unsat core
of a violation becomes the result's certificate (:class:`~fisheye.checker.result.Reason`).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import combinations

import z3

from fisheye.spec.causal import candidate_sources
from fisheye.spec.graph import ProximityGraph
from fisheye.spec.history import History, Op, format_value
from fisheye.spec.models import Model
from fisheye.spec.witness import Witness

from ..result import CheckResult, Reason, Verdict
from .limits import Deadline, OutOfTime, limit_z3_memory

ENGINE = "z3"


@dataclass(frozen=True)
class _Tracked:
    """A named constraint: its tracking literal and the reason it stands for."""

    literal: z3.BoolRef
    reason: Reason


@dataclass(frozen=True)
class _Choice:
    """The read-from choice of a read: one literal per candidate source (``None``: the
    initial value ⊥)."""

    read: int
    sources: tuple[int | None, ...]
    literals: tuple[z3.BoolRef, ...]


def _source_text(history: History, read: Op, src: int | None) -> str:
    if src is None:
        return f"⊥ (initial {read.register}={format_value(history.initial_value(read.register))})"
    return history.ops[src].label()


class _Encoding:
    """Builds the constraints of one check (module docstring) into a solver."""

    def __init__(self, history: History, model: Model, graph: ProximityGraph, deadline: Deadline) -> None:
        self.h = history
        self.model = model
        self.graph = graph
        self.deadline = deadline
        self.solver = z3.Solver()
        self.solver.set("core.minimize", True)
        self.tracked: dict[str, _Tracked] = {}
        self.rf_choices: list[_Choice] = []
        self.orientations: list[tuple[int, int, z3.BoolRef]] = []
        n = len(history.ops)
        if model is Model.SC:
            self.view_names: tuple[str, ...] = ("S",)
        else:
            readers = tuple(p for p in history.processes if any(op.is_read for op in history.of(p)))
            self.view_names = readers or history.processes[:1]
        self.pos: dict[str, list[z3.ArithRef]] = {}
        for v in self.view_names:
            deadline.check()
            self.pos[v] = [z3.Int(f"pos[{v}][{u}]") for u in range(n)]

    # ---- helpers --------------------------------------------------------------------
    def before(self, a: int, b: int, views: Sequence[str] | None = None) -> z3.BoolRef:
        """``a`` before ``b`` in every view (or in the given ones)."""
        vs = self.view_names if views is None else views
        return z3.And([self.pos[v][a] < self.pos[v][b] for v in vs])

    def track(self, formula: z3.BoolRef, text: str, rule: str, ops: tuple[int, ...]) -> None:
        self.deadline.check()
        name = text
        k = 1
        while name in self.tracked:  # names are unique by construction; be safe anyway
            k += 1
            name = f"{text} ({k})"
        literal = z3.Bool(f"t{len(self.tracked)}")
        self.tracked[name] = _Tracked(literal, Reason(name, rule, ops))
        self.solver.assert_and_track(formula, literal)

    # ---- rules ----------------------------------------------------------------------
    def add_process_order(self) -> None:
        ops = self.h.ops
        for a, b in zip(ops, ops[1:], strict=False):
            if a.process == b.process:
                self.track(self.before(a.uid, b.uid), f"po: {a.label()} < {b.label()}", "po", (a.uid, b.uid))

    def add_read_from(self) -> None:
        """rf: every read reads from a candidate write (or ⊥), before it in every view."""
        for r in self.h.reads:
            sources = tuple(candidate_sources(self.h, r))
            lits = tuple(z3.Bool(f"rf[{r.uid}][{k}]") for k in range(len(sources)))
            parts = [z3.Or(list(lits)) if lits else z3.BoolVal(False)]
            parts += [z3.Implies(lit, self.before(src, r.uid))
                      for lit, src in zip(lits, sources, strict=True) if src is not None]
            names = ", ".join(_source_text(self.h, r, s) for s in sources)
            text = f"rf: {r.label()} reads from one of {{{names}}}"
            if not sources:
                text += (f" (no write of {format_value(r.value)} to {r.register}, initial value "
                         f"{format_value(self.h.initial_value(r.register))})")
            self.track(z3.And(parts), text, "rf", (r.uid,) + tuple(s for s in sources if s is not None))
            self.rf_choices.append(_Choice(r.uid, sources, lits))

    def add_legality(self, view: str, reads: Sequence[Op]) -> None:
        """legality in ``view``: the last write to X before each read writes its value.

        Per read: one literal per candidate local source (a same-value write, or ⊥);
        ``src`` is the position of the chosen write; every write on X is the source, or
        lies before ``src`` or after the read (⊥: every write on X after the read).
        Linear in the writes on X (a pairwise encoding is quadratic)."""
        pos = self.pos[view]
        writes_on: dict[str, list[Op]] = {}
        for w in self.h.writes:
            writes_on.setdefault(w.register, []).append(w)
        sname = "S" if view == "S" else f"S_{view}"
        for r in reads:
            sources = tuple(candidate_sources(self.h, r))
            lits = tuple(z3.Bool(f"src[{view}][{r.uid}][{k}]") for k in range(len(sources)))
            lit_of = dict(zip(sources, lits, strict=True))
            on_x = writes_on.get(r.register, [])
            parts = [z3.Or(list(lits)) if lits else z3.BoolVal(False)]
            if None in lit_of:
                parts.append(z3.Implies(lit_of[None], z3.And([pos[w.uid] > pos[r.uid] for w in on_x])))
            if any(s is not None for s in sources):
                src = z3.Int(f"srcpos[{view}][{r.uid}]")
                for s, lit in lit_of.items():
                    if s is not None:
                        parts.append(z3.Implies(lit, z3.And(src == pos[s], pos[s] < pos[r.uid])))
                for w in on_x:
                    self.deadline.check()
                    exempt = [lit_of[x] for x in (w.uid, None) if x in lit_of]
                    parts.append(z3.Or(exempt + [pos[w.uid] < src, pos[w.uid] > pos[r.uid]]))
            names = ", ".join(_source_text(self.h, r, s) for s in sources)
            text = (f"legal: {r.label()} in {sname} follows a last write to {r.register} "
                    f"among {{{names}}}")
            self.track(z3.And(parts), text, "legality", (r.uid,) + tuple(s for s in sources if s is not None))

    def add_edges(self, all_operations: bool) -> None:
        """edge: for every edge (p,q), one orientation per pair of writes (2015) or of
        operations (2014) of p and q on different processes, the same in every view."""
        done: set[tuple[int, int]] = set()
        for p, q in self.graph.edges:
            members = [op for op in self.h.ops
                       if op.process in (p, q) and (all_operations or op.is_write)]
            for a, b in combinations(members, 2):
                if a.process == b.process or (a.uid, b.uid) in done:
                    continue
                done.add((a.uid, b.uid))
                o = z3.Bool(f"star[{a.uid}][{b.uid}]")
                text = (f"{a.label()} < {b.label()} or {b.label()} < {a.label()}, "
                        f"the same in every view [edge {p}-{q}]")
                self.track(z3.If(o, self.before(a.uid, b.uid), self.before(b.uid, a.uid)),
                           text, "edge", (a.uid, b.uid))
                self.orientations.append((a.uid, b.uid, o))

    def build(self) -> None:
        self.add_process_order()
        if self.model is Model.SC:
            self.add_legality("S", self.h.reads)
            return
        self.add_read_from()
        for v in self.view_names:
            self.add_legality(v, [op for op in self.h.of(v) if op.is_read])
        if self.model.uses_graph:
            self.add_edges(all_operations=self.model is Model.FISHEYE_2014)

    # ---- results --------------------------------------------------------------------
    def witness(self, m: z3.ModelRef) -> Witness:
        h = self.h

        def order(view: str, uids: Sequence[int]) -> tuple[int, ...]:
            at = {u: m.eval(self.pos[view][u], model_completion=True).as_long() for u in uids}
            return tuple(sorted(uids, key=lambda u: (at[u], u)))

        def chosen(c: _Choice) -> int | None:
            for lit, src in zip(c.literals, c.sources, strict=True):
                if z3.is_true(m.eval(lit, model_completion=True)):
                    return src
            raise AssertionError(f"no source chosen for read {c.read}")

        if self.model is Model.SC:
            seq = order("S", range(len(h.ops)))
            last: dict[str, int] = {}
            read_from: dict[int, int | None] = {}
            for u in seq:  # informative only: sc is judged on the sequence
                op = h.ops[u]
                if op.is_write:
                    last[op.register] = u
                else:
                    read_from[u] = last.get(op.register)
            return Witness(read_from=read_from, sequence=seq)
        views: dict[str, tuple[int, ...]] = {}
        for p in h.processes:
            scope = [op.uid for op in h.ops if op.process == p or op.is_write]
            views[p] = order(p if p in self.pos else self.view_names[0], scope)
        star = tuple((a, b) if z3.is_true(m.eval(o, model_completion=True)) else (b, a)
                     for a, b, o in self.orientations)
        return Witness(read_from={c.read: chosen(c) for c in self.rf_choices}, star=star, views=views)

    def certificate(self) -> tuple[Reason, ...]:
        core = {str(lit) for lit in self.solver.unsat_core()}
        return tuple(t.reason for t in self.tracked.values() if str(t.literal) in core)

    def stats(self) -> dict[str, int]:
        return {"views": len(self.view_names), "tracked": len(self.tracked),
                "orientations": len(self.orientations)}


def check(history: History, model: Model | str, graph: ProximityGraph, *,
          timeout: float | None = None, memory: int | None = None) -> CheckResult:
    """Decide ``model`` on ``history`` for ``graph`` with Z3.

    Returns consistent with a witness, violation with the unsat core as certificate, or
    unknown (with a message naming the budget) when Z3 gives up.  ``timeout`` (seconds)
    bounds the whole check: the building of the encoding stops when it runs out, and
    what is left is Z3's own timeout.  ``memory`` (bytes) bounds Z3's memory (running
    out of it raises; the facade answers unknown)."""
    model = Model(model)
    start = time.perf_counter()
    budget = "no time budget" if timeout is None else f"the time budget of {timeout:g} s"
    limit_z3_memory(memory)
    try:
        enc = _Encoding(history, model, graph, Deadline.after(timeout))
        enc.build()
    except OutOfTime:
        return CheckResult(Verdict.UNKNOWN, model, graph, ENGINE, seconds=time.perf_counter() - start,
                           message=f"building the Z3 encoding used up {budget}")
    common = {"model": model, "graph": graph, "engine": ENGINE, "stats": enc.stats()}
    if timeout is not None:
        left = timeout - (time.perf_counter() - start)
        if left < 0.001:
            return CheckResult(Verdict.UNKNOWN, seconds=time.perf_counter() - start,
                               message=f"the encoding used up {budget} before Z3 could start", **common)
        enc.solver.set("timeout", int(left * 1000))
    answer = enc.solver.check()
    if answer == z3.sat:
        witness = enc.witness(enc.solver.model())
        return CheckResult(Verdict.CONSISTENT, witness=witness, seconds=time.perf_counter() - start,
                           **common)
    if answer == z3.unsat:
        cert = enc.certificate()
        return CheckResult(Verdict.VIOLATION, certificate=cert, seconds=time.perf_counter() - start,
                           message=f"no witness exists: the {len(cert)} named constraints of the "
                                   f"certificate cannot all hold", **common)
    return CheckResult(Verdict.UNKNOWN, seconds=time.perf_counter() - start,
                       message=f"Z3 gave up ({enc.solver.reason_unknown()}) within {budget}", **common)
