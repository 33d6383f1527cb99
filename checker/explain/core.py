"""The minimal core of a violation (``fisheye explain``, ``fisheye check --minimal``): a
set of operations that still violates the model, while removing any one of them (a write
together with the reads it leaves without any possible source) makes the history
consistent.  It is grown from the operations the engine's certificate names until it
violates, then shrunk by deleting halves, quarters ... and single operations (each
deletion checked with :func:`fisheye.checker.engines.check`), then verified 1-minimal.

:func:`minimal_violating_core` is the whole procedure from a history and a model;
:func:`minimal_core` the shrinking alone, given any decision procedure.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from fisheye.spec.causal import candidate_sources
from fisheye.spec.graph import ProximityGraph
from fisheye.spec.history import History, Op, value_key
from fisheye.spec.models import Model

from .. import engines
from ..result import Verdict
from .errors import Deadline, ExplainError, OutOfTime

Decide = Callable[[History], Verdict]
Progress = Callable[[str], None]


def all_candidate_sources(history: History) -> dict[int, list[int | None]]:
    """:func:`fisheye.spec.causal.candidate_sources` of every read at once (the writes
    indexed by register and value: linear, not quadratic, in the history's size)."""
    writes: dict[tuple[str, Any], list[Op]] = {}
    for w in history.ops:
        if w.is_write:
            writes.setdefault((w.register, w.vkey), []).append(w)
    out: dict[int, list[int | None]] = {}
    for r in history.reads:
        srcs: list[int | None] = []
        if r.vkey == value_key(history.initial_value(r.register)):
            srcs.append(None)
        srcs += [w.uid for w in writes.get((r.register, r.vkey), ())
                 if not (w.process == r.process and w.index > r.index)]
        out[r.uid] = srcs
    return out


def sourceless_reads(history: History) -> list[Op]:
    """Reads whose value no write can supply (none exists, or only later writes of the
    reader) and that is not the register's initial value: a violation of every model."""
    srcs = all_candidate_sources(history)
    return [r for r in history.reads if not srcs[r.uid]]


def _removal(history: History, keep: set[int], u: int | set[int]) -> set[int]:
    """Removing the operation ``u`` (or a set of them) from ``keep``: the removed writes
    take with them the kept reads they leave without any possible source."""
    rem = {u} if isinstance(u, int) else set(u)
    if any(history.ops[x].is_write for x in rem):
        orig = sorted(keep - rem)
        rest = history.restrict(orig)
        rem |= {orig[r.uid] for r in sourceless_reads(rest)}
    return rem


@dataclass(frozen=True)
class Core:
    """``uids``: operations of the original history kept; ``history``: the sub-history
    (operations renumbered); ``minimal``: every single removal was checked consistent."""

    uids: tuple[int, ...]
    history: History
    minimal: bool
    checks: int


def _closed(history: History, keep: set[int]) -> set[int]:
    """``keep`` plus, for each kept read left without any possible source, every write
    that could be its source in ``history`` (so a candidate core never violates merely
    because a source was cut away)."""
    keep = set(keep)
    while True:
        order = sorted(keep)
        sub = history.restrict(order)
        missing = [history.ops[order[r.uid]] for r in sourceless_reads(sub)]
        add: set[int] = set()
        for r in missing:
            add |= {s for s in candidate_sources(history, r) if s is not None}
        if not add - keep:
            return keep
        keep |= add


def certificate_seeds(history: History, cert_ops: Sequence[int]) -> list[set[int]]:
    """Candidate cores grown from the operations an engine's certificate names, smallest
    first: those operations; with every operation of their registers at their processes;
    of their registers anywhere; of their processes."""
    base = set(cert_ops)
    if not base:
        return []
    regs = {history.ops[u].register for u in base}
    procs = {history.ops[u].process for u in base}
    levels = [base,
              base | {op.uid for op in history.ops if op.register in regs and op.process in procs},
              base | {op.uid for op in history.ops if op.register in regs},
              base | {op.uid for op in history.ops if op.process in procs}]
    out: list[set[int]] = []
    for lv in levels:
        c = _closed(history, lv)
        if len(c) < len(history.ops) and c not in out:
            out.append(c)
    return out


def minimal_core(history: History, decide: Decide, *, seeds: Sequence[set[int]] = (),
                 progress: Progress | None = None) -> Core:
    """A 1-minimal violating sub-history (see the module docstring).  ``decide(h)`` is the
    model's verdict on ``h``; ``seeds`` are candidate cores (from an engine's certificate,
    smallest first), tried before the whole history.  Deletion runs in halving chunks
    (a few checks per kept operation, not one per operation of the history), then one
    operation at a time to a fixpoint.  When ``decide`` raises :class:`OutOfTime`, the
    violating set found so far is returned with ``minimal`` false."""
    checks = 0
    say = progress or (lambda _m: None)
    bad = sourceless_reads(history)
    if bad:
        return Core((bad[0].uid,), history.restrict([bad[0].uid]), True, 0)
    keep = set(range(len(history.ops)))
    try:
        for seed in seeds:
            checks += 1
            if decide(history.restrict(sorted(seed))) is Verdict.VIOLATION:
                keep = set(seed)
                say(f"the certificate's operations give a violating set of {len(keep)} operations")
                break
        chunk = max(1, len(keep) // 2)
        while True:
            changed = False
            order = sorted(keep, reverse=True)
            for i in range(0, len(order), chunk):
                group = {u for u in order[i:i + chunk] if u in keep}
                rem = _removal(history, keep, group) if group else set()
                if not rem or rem >= keep:
                    continue
                checks += 1
                if decide(history.restrict(sorted(keep - rem))) is Verdict.VIOLATION:
                    keep -= rem
                    changed = True
            if chunk > 1:
                chunk = max(1, chunk // 2)
                say(f"{len(keep)} operations left after {checks} checks")
            elif not changed:
                break
    except OutOfTime:
        uids = tuple(sorted(keep))
        return Core(uids, history.restrict(uids), False, checks)
    minimal = True
    try:
        for u in sorted(keep):
            rem = _removal(history, keep, u)
            checks += 1
            if decide(history.restrict(sorted(keep - rem))) is not Verdict.CONSISTENT:
                minimal = False
    except OutOfTime:
        minimal = False
    uids = tuple(sorted(keep))
    return Core(uids, history.restrict(uids), minimal, checks)


def refuse(verdict: Verdict, model: Model) -> None:
    """Raise :class:`ExplainError` unless ``verdict`` is a violation."""
    if verdict is Verdict.CONSISTENT:
        raise ExplainError(f"the history is consistent under {model.value}: nothing to explain", verdict)
    if verdict is Verdict.UNKNOWN:
        raise ExplainError(f"the check of {model.value} was inconclusive (unknown)", verdict)


def minimal_violating_core(history: History, model: Model | str, graph: ProximityGraph | None = None, *,
                           engine: str = "auto", timeout: float | None = None,
                           decide: Decide | None = None, progress: Progress | None = None,
                           deadline: Deadline | None = None) -> Core:
    """A 1-minimal sub-history of ``history`` that violates ``model`` on ``graph`` (by
    default the history's own graph), checked with ``engine``.

    The history is checked first; the operations its certificate names seed the search
    (:func:`certificate_seeds`), then :func:`minimal_core` shrinks it.  ``decide``
    replaces the engines (then no certificate seeds the search).  ``timeout`` (or a
    ``deadline`` shared with later work) bounds every check: when it runs out before a
    violation is established, :class:`ExplainError` (unknown); after, the violating set
    found so far is returned with ``minimal`` false.  Raises :class:`ExplainError` when
    the history is consistent or its check unknown.  A read that no write can supply is
    a core of one operation, found without any check."""
    model = Model(model)
    if graph is None:
        graph = ProximityGraph(history.processes, history.edges)
    limit = deadline if deadline is not None else Deadline.after(timeout)
    say = progress or (lambda _m: None)
    seeds: list[set[int]] = []
    if decide is None:
        def decide(h: History) -> Verdict:
            res = engines.check(h, model, graph, engine=engine, timeout=limit.remaining())
            if res.verdict is Verdict.UNKNOWN and limit.expired():
                raise OutOfTime(f"the time limit ({limit.timeout:g} s) ran out")
            return res.verdict

        if not sourceless_reads(history):
            say(f"checking the history ({len(history.ops)} operations) against {model.value}")
            try:
                first = engines.check(history, model, graph, engine=engine, timeout=limit.remaining())
            except OutOfTime as e:
                raise ExplainError(str(e), Verdict.UNKNOWN) from None
            if first.verdict is Verdict.UNKNOWN and limit.at is not None:
                raise ExplainError(f"the check of {model.value} was unknown within the time limit "
                                   f"({limit.timeout:g} s)", Verdict.UNKNOWN)
            refuse(first.verdict, model)
            cert_ops = sorted({u for reason in first.certificate for u in reason.ops})
            seeds = certificate_seeds(history, cert_ops)
    elif not sourceless_reads(history):
        refuse(decide(history), model)
    say("looking for a minimal core")
    return minimal_core(history, decide, seeds=seeds, progress=progress)
