"""The Z3 encoding of the sequential models with real time, cas and ``maybe``
operations: ``lin``, ``fisheye-lin`` and ``sc`` (:mod:`fisheye.spec.realtime`).

One integer position ``pos[u]`` per operation and one Boolean ``in[u]`` (true for
every operation not marked ``maybe``: clause 1); every constraint holds only between
operations that are in the sequence:

* ``po``: consecutive operations of a process in order (clause 3);
* ``rt``: ``a`` before ``b`` when ``a`` completed before ``b`` was invoked and their
  processes are neighbours in the real-time graph of the model (clause 4);
* ``legal``: each read and cas chooses a *source*, an operation that wrote its
  observed value to its register (a write, or a cas's ``new``), or the initial value;
  the source is in the sequence before it, and every other operation that writes the
  register is out of the sequence, before the source, or after the observer
  (clause 2).  Sources never tie with other writers and observers never tie with
  writers of their register, so sorting by ``(pos, uid)`` gives the witness.

Every constraint is tracked by name; the unsat core of a violation is the
certificate.  Quadratic in the operations: meant for agreement tests on small
histories, as the other Z3 encodings.
"""

from __future__ import annotations

import time

import z3

from fisheye.spec.graph import ProximityGraph
from fisheye.spec.history import History, Op, format_value, value_key
from fisheye.spec.models import Model
from fisheye.spec.realtime import RealTimePairs, real_time_pairs
from fisheye.spec.witness import Witness

from ..result import CheckResult, Reason, Verdict
from .limits import Deadline, OutOfTime, limit_z3_memory

ENGINE = "z3"
MAX_TERMS = 400_000
"""Legality terms (observers x writers x writers per register) above which the
encoding is not built: the verdict is *unknown* (the direct engine is the one for
large histories)."""


class _Encoding:
    def __init__(self, history: History, rt: RealTimePairs, deadline: Deadline) -> None:
        self.h = history
        self.rt = rt
        self.deadline = deadline
        self.solver = z3.Solver()
        self.reasons: dict[str, Reason] = {}
        n = len(history.ops)
        self.pos = [z3.Int(f"pos[{u}]") for u in range(n)]
        self.inn = [z3.BoolVal(True) if not op.maybe else z3.Bool(f"in[{op.uid}]") for op in history.ops]

    def track(self, formula: z3.BoolRef, text: str, rule: str, ops: tuple[int, ...]) -> None:
        self.deadline.check()
        name = f"c{len(self.reasons)}"
        self.reasons[name] = Reason(text, rule, ops)
        self.solver.assert_and_track(formula, z3.Bool(name))

    def both(self, a: int, b: int) -> z3.BoolRef:
        return z3.And(self.inn[a], self.inn[b])

    def build(self) -> None:
        h, pos = self.h, self.pos
        ops = h.ops
        for a, b in zip(ops, ops[1:], strict=False):
            if a.process == b.process:
                self.track(z3.Implies(self.both(a.uid, b.uid), pos[a.uid] < pos[b.uid]),
                           f"po: {a.label()} < {b.label()}", "po", (a.uid, b.uid))
        for a, b in self.real_time_pairs():
            self.track(z3.Implies(self.both(a.uid, b.uid), pos[a.uid] < pos[b.uid]),
                       f"rt: {a.label()} < {b.label()} (completed {format_value(a.complete)}, "
                       f"invoked {format_value(b.invoke)}) [edge {a.process}-{b.process}]",
                       "real-time", (a.uid, b.uid))
        writers: dict[str, list[int]] = {}
        for op in ops:
            if op.writes:
                writers.setdefault(op.register, []).append(op.uid)
        for r in ops:
            if not r.observes:
                continue
            want = value_key(r.observed)  # type: ignore[arg-type]
            on_x = [w for w in writers.get(r.register, []) if w != r.uid]
            options = []
            names = []
            if value_key(h.initial_value(r.register)) == want:
                options.append(z3.And([z3.Or(z3.Not(self.inn[w]), pos[w] > pos[r.uid]) for w in on_x]))
                names.append("the initial value")
            for s in on_x:
                self.deadline.check()
                if ops[s].vkey != want:
                    continue
                others = [z3.Or(z3.Not(self.inn[w]), pos[w] < pos[s], pos[w] > pos[r.uid])
                          for w in on_x if w != s]
                options.append(z3.And([self.inn[s], pos[s] < pos[r.uid]] + others))
                names.append(ops[s].label())
            body = z3.Implies(self.inn[r.uid], z3.Or(options) if options else z3.BoolVal(False))
            self.track(body, f"legal: {r.label()} follows a last write of "
                             f"{format_value(r.observed)} to {r.register} among {{{', '.join(names)}}}",
                       "legality", (r.uid,))

    def real_time_pairs(self) -> list[tuple[Op, Op]]:
        """The pairs (a, b) of clause 4 to encode.  For ``lin``, a pair implied through
        an operation c that is not ``maybe`` (a completed before c was invoked, c before
        b was) is left out: positions are ordered transitively, and c is always in the
        sequence.  So per b only the ``a`` completing at or after
        ``L(b) = max{c.invoke : c not maybe, c.complete < b.invoke}`` are kept."""
        ops = self.h.ops
        timed = [op for op in ops if op.invoke is not None]
        done = sorted((op for op in timed if op.complete is not None), key=lambda o: o.complete)
        out: list[tuple[Op, Op]] = []
        for b in timed:
            assert b.invoke is not None
            floor = -float("inf")
            if self.rt.every_pair:
                for c in done:
                    if c.complete >= b.invoke:  # type: ignore[operator]
                        break
                    if not c.maybe and c.invoke > floor:  # type: ignore[operator]
                        floor = c.invoke  # type: ignore[assignment]
            for a in done:
                if a.complete >= b.invoke:  # type: ignore[operator]
                    break
                if a.process != b.process and a.complete >= floor and self.rt.adjacent(a.process, b.process):
                    out.append((a, b))
        return out

    def witness(self, m: z3.ModelRef) -> Witness:
        taken = [u for u in range(len(self.h.ops)) if z3.is_true(m.eval(self.inn[u], model_completion=True))]
        at = {u: m.eval(self.pos[u], model_completion=True).as_long() for u in taken}
        return Witness(sequence=tuple(sorted(taken, key=lambda u: (at[u], u))))

    def certificate(self) -> tuple[Reason, ...]:
        core = {str(x) for x in self.solver.unsat_core()}
        return tuple(r for name, r in self.reasons.items() if name in core)


def _legality_terms(history: History) -> int:
    writers: dict[str, int] = {}
    observers: dict[str, int] = {}
    for op in history.ops:
        if op.writes:
            writers[op.register] = writers.get(op.register, 0) + 1
        if op.observes:
            observers[op.register] = observers.get(op.register, 0) + 1
    return sum(k * writers.get(r, 0) ** 2 for r, k in observers.items())


def check(history: History, model: Model | str, graph: ProximityGraph, *,
          timeout: float | None = None, memory: int | None = None) -> CheckResult:
    model = Model(model)
    start = time.perf_counter()
    terms = _legality_terms(history)
    if terms > MAX_TERMS:
        return CheckResult(Verdict.UNKNOWN, model, graph, ENGINE, seconds=time.perf_counter() - start,
                           message=f"the Z3 encoding of these {len(history.ops)} operations would need "
                                   f"{terms} legality terms (at most {MAX_TERMS})")
    limit_z3_memory(memory)
    try:
        enc = _Encoding(history, real_time_pairs(model.value, graph), Deadline.after(timeout))
        enc.build()
    except OutOfTime:
        return CheckResult(Verdict.UNKNOWN, model, graph, ENGINE, seconds=time.perf_counter() - start,
                           message=f"building the Z3 encoding used up the time budget of {timeout:g} s")
    stats = {"tracked": len(enc.reasons)}
    if timeout is not None:
        left = timeout - (time.perf_counter() - start)
        if left < 0.001:
            return CheckResult(Verdict.UNKNOWN, model, graph, ENGINE, seconds=time.perf_counter() - start,
                               message=f"the encoding used up the time budget of {timeout:g} s", stats=stats)
        enc.solver.set("timeout", int(left * 1000))
    answer = enc.solver.check()
    secs = time.perf_counter() - start
    if answer == z3.sat:
        return CheckResult(Verdict.CONSISTENT, model, graph, ENGINE, witness=enc.witness(enc.solver.model()),
                           seconds=secs, stats=stats)
    if answer == z3.unsat:
        cert = enc.certificate()
        return CheckResult(Verdict.VIOLATION, model, graph, ENGINE, certificate=cert, seconds=secs,
                           message=f"no sequence exists: the {len(cert)} named constraints of the "
                                   f"certificate cannot all hold", stats=stats)
    return CheckResult(Verdict.UNKNOWN, model, graph, ENGINE, seconds=secs, stats=stats,
                       message=f"Z3 gave up ({enc.solver.reason_unknown()})")
