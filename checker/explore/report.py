"""The exploration report (docs/contract.md, "Exploration report"), built from terminal
records by every engine (local or Spark) in the same way.

Keys of the contract: ``scenario``, ``graph``, ``engine``, ``level``, ``complete``,
``states``, ``terminal_states`` (distinct final states of complete runs), ``histories``
(distinct complete histories), ``outcomes``, ``violations``, ``seconds``.  Extra keys:
``algorithm``, ``variant``, ``network``, ``reduction``, ``model`` and ``model_graph``
(what complete histories are checked against), ``deadlocks``, ``pruned`` (runs cut by a
deviating conditioning read; abstraction-level states that are not prefixes of any
execution of the specification), ``transitions``, ``max_depth``, ``states_per_second``,
``violations_total``, ``unknown_checks``, ``stopped`` (why a run was cut short).

Every distinct complete history is checked once (verdicts are cached by history) with
:func:`fisheye.checker.engines.check`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from fisheye.impl.api import Quotient, Step, System
from fisheye.impl.properties import DEADLOCK as DEADLOCK_PROPERTY
from fisheye.impl.properties import Expectation, Property, PropertyKind, Violation
from fisheye.spec.graph import ProximityGraph
from fisheye.spec.hierarchy import instance, summarise, universe
from fisheye.spec.history import History
from fisheye.spec.models import Model

from ..result import Verdict
from .expand import DEADLOCK, FINAL, INFEASIBLE, Context, TerminalRecord, read_names

MAX_LISTED = 50


@dataclass
class _Violation:
    """A violation and the shortest run found for it: ``schedule`` is a zero-argument
    callable giving its steps, or a reference an engine resolves when the report is
    built (only the listed violations' schedules are ever rebuilt)."""

    violates: str
    kind: str
    history: History
    length: int
    schedule: Any
    count: int = 1


@dataclass
class ReportBuilder:
    """Accumulates terminal records; :meth:`build` gives the report dictionary."""

    ctx: Context
    level: str
    engine: str = "local"
    model: Model | None = Model.FISHEYE
    model_graph: ProximityGraph | None = None     # None: the run's own graph
    check_engine: str = "auto"
    check_timeout: float | None = 60.0
    scenario: str | None = None
    terminal_states: int = 0
    deadlocks: int = 0
    infeasible: int = 0
    pruned: int = 0
    unknown_checks: int = 0
    _histories: set[tuple[Any, ...]] = field(default_factory=set)
    _outcomes: set[tuple[Any, ...]] = field(default_factory=set)
    _verdicts: dict[tuple[Any, ...], Verdict] = field(default_factory=dict)
    _violations: dict[tuple[str, tuple[Any, ...]], _Violation] = field(default_factory=dict)
    _held: set[str] = field(default_factory=set)
    properties: tuple[Property, ...] = field(init=False, default=())

    def __post_init__(self) -> None:
        # every property judged, known before the search: one the judge cannot evaluate
        # is a ValueError here, before any state is visited
        self.properties = self.ctx.judge.properties
        if self.model is not None and not isinstance(self.model, Model):
            self.model = Model(self.model)

    @property
    def graph(self) -> ProximityGraph:
        return self.ctx.system.graph

    def add_pruned(self, n: int = 1) -> None:
        self.pruned += n

    def add_terminal(self, rec: TerminalRecord, length: int, schedule: Any) -> None:
        """One distinct terminal state, reached by a schedule of ``length`` steps
        (``schedule``: a callable that builds it, or an engine's reference to it; used
        only if the report lists this run)."""
        if rec.kind == INFEASIBLE:
            self.infeasible += 1
            return
        if rec.kind == DEADLOCK:
            self.deadlocks += 1
        for v in rec.judged.failed:
            self._violation(v.prop, violation_kind(v), rec, length, schedule)
        self._held.update(rec.judged.held)
        if rec.kind != FINAL:
            return
        self.terminal_states += 1
        self._histories.add(rec.history_key)
        if rec.matches:
            self._outcomes.add(rec.outcome)
        if self.model is not None:
            if self._verdict(rec) is Verdict.VIOLATION:
                self._violation(self.model.value, "model", rec, length, schedule)

    def seed_verdict(self, history_key: tuple[Any, ...], verdict: Verdict) -> None:
        """Record a verdict computed elsewhere (the Spark engine checks each distinct
        history once, on an executor), so that :meth:`add_terminal` does not check that
        history again; an ``unknown`` verdict counts in ``unknown_checks`` as if checked here."""
        if history_key in self._verdicts:
            return
        self._verdicts[history_key] = verdict
        if verdict is Verdict.UNKNOWN:
            self.unknown_checks += 1

    def verdict_counts(self) -> dict[Verdict, int]:
        """How many distinct complete histories the model check judged consistent, a
        violation, or unknown (only the verdicts found so far; none without a model)."""
        counts: dict[Verdict, int] = {}
        for key in self._histories:
            v = self._verdicts.get(key)
            if v is not None:
                counts[v] = counts.get(v, 0) + 1
        return {v: counts[v] for v in Verdict if v in counts}

    def _verdict(self, rec: TerminalRecord) -> Verdict:
        v = self._verdicts.get(rec.history_key)
        if v is None:
            from fisheye.checker.engines import check

            assert self.model is not None
            res = check(rec.history, self.model, self.model_graph or self.graph, engine=self.check_engine,
                        timeout=self.check_timeout)
            v = self._verdicts[rec.history_key] = res.verdict
            if v is Verdict.UNKNOWN:
                self.unknown_checks += 1
        return v

    def _violation(self, violates: str, kind: str, rec: TerminalRecord, length: int, schedule: Any) -> None:
        key = (violates, rec.history_key)
        old = self._violations.get(key)
        if old is None:
            self._violations[key] = _Violation(violates, kind, rec.history, length, schedule)
        else:
            old.count += 1
            if length < old.length:
                old.length, old.schedule = length, schedule

    def _replayable(self, schedule: Callable[[], Sequence[Step]]) -> list[Step]:
        """The schedule as the raw system replays it (a quotiented system lifts it)."""
        steps = list(schedule())
        system = self.ctx.system
        return list(system.lift(steps)) if isinstance(system, Quotient) else steps

    _STATE = ("terminal_states", "deadlocks", "infeasible", "pruned", "unknown_checks", "_histories",
              "_outcomes", "_verdicts", "_violations", "_held")

    def snapshot(self) -> dict[str, Any]:
        """What the builder has accumulated (picklable when the schedules are references),
        for a checkpoint."""
        return {k: getattr(self, k) for k in self._STATE}

    def restore(self, snap: dict[str, Any]) -> None:
        for k in self._STATE:
            if k in snap:
                setattr(self, k, snap[k])
        # a checkpoint written before verdicts were kept as Verdict holds their names
        self._verdicts = {h: Verdict(v) for h, v in self._verdicts.items()}

    @property
    def violation_count(self) -> int:
        return len(self._violations)

    def build(self, *, complete: bool, states: int, transitions: int, max_depth: int, seconds: float,
              stopped: str | None = None, extra: dict[str, Any] | None = None,
              resolve: Callable[[list[Any]], list[list[Step]]] | None = None) -> dict[str, Any]:
        """The report.  ``resolve`` turns an engine's schedule references into replayable
        schedules (all at once); callables are called and lifted to the raw system."""
        system = self.ctx.system
        names = read_names(system)
        values = sorted((list(o) for o in self._outcomes), key=_sort_key)
        vios = sorted(self._violations.values(), key=lambda v: (v.violates, v.length))
        listed = vios[:MAX_LISTED]
        refs = [v.schedule for v in listed if not callable(v.schedule)]
        resolved = dict(zip(map(id, refs), resolve(refs), strict=True)) if refs and resolve else {}
        schedules = [resolved[id(v.schedule)] if id(v.schedule) in resolved else self._replayable(v.schedule)
                     for v in listed]
        desc = system.info.describe() if isinstance(system, System) else {}
        out: dict[str, Any] = {
            "scenario": self.scenario if self.scenario is not None else desc.get("scenario"),
            "graph": self.graph.to_json(),
            "engine": self.engine,
            "level": self.level,
            "algorithm": desc.get("algorithm"),
            "variant": desc.get("variant"),
            "network": desc.get("network"),
            "reduction": self.ctx.reduction_kind,
            "model": self.model.value if self.model is not None else None,
            "model_graph": (self.model_graph or self.graph).to_json(),
            "complete": complete,
            "states": states,
            "terminal_states": self.terminal_states,
            "histories": len(self._histories),
            "deadlocks": self.deadlocks,
            "pruned": {"deviating_reads": self.pruned, "infeasible": self.infeasible},
            "transitions": transitions,
            "max_depth": max_depth,
            "outcomes": {"reads": list(names), "values": values},
            "violations": [{"violates": v.violates, "kind": v.kind, "runs": v.count, "length": v.length,
                            "schedule": [s.to_json() for s in sched], "history": v.history.to_json()}
                           for v, sched in zip(listed, schedules, strict=True)],
            "violations_total": len(vios),
            "unknown_checks": self.unknown_checks,
            "seconds": round(seconds, 3),
            "states_per_second": round(states / seconds) if seconds > 0 else None,
        }
        out["properties"] = self._properties(complete)
        if self.model is not None:
            out["model_hierarchy"] = self._hierarchy(complete)
        if stopped:
            out["stopped"] = stopped
        if extra:
            out.update(extra)
        return out


    def _hierarchy(self, complete: bool) -> dict[str, Any]:
        """What the model check implies by the model hierarchy (spec/hierarchy.py): a
        violation of the model on the model graph is a violation of every stronger model
        (``implied_violated``); a complete exploration with every history checked
        consistent satisfies every weaker one (``implied_satisfied``)."""
        assert self.model is not None
        g = self.model_graph or self.graph
        checked = instance(self.model.value, g)
        violated = any(v.kind == "model" for v in self._violations.values())
        all_ok = complete and not violated and not self.unknown_checks and bool(self._histories)
        s = summarise([checked] if violated else [], [checked] if all_ok else [], universe(g))
        return {"checked": str(checked), "implied_violated": [str(i) for i in s.implied_violated],
                "implied_satisfied": [str(i) for i in s.implied_satisfied]}

    def _properties(self, complete: bool) -> list[dict[str, Any]]:
        """Every property judged, with its status: ``held`` or ``violated`` (always;
        ``not violated so far`` when the exploration was cut short, ``undecided`` for a
        model some history of which no engine could decide), ``held`` or ``never held``
        (sometimes; ``not seen`` when cut short).  The model is the one asked for
        (``model``), not the system's own."""
        names = {v.violates for v in self._violations.values()}
        out = []
        if self.model is not None:
            status = ("violated" if self.model.value in names else "undecided" if self.unknown_checks
                      else "held" if complete else "not violated so far")
            out.append({"name": self.model.value, "expectation": "always", "kind": "model", "status": status})
        for p in self.properties:
            if p.kind is PropertyKind.MODEL:
                continue
            if p.expectation is Expectation.ALWAYS:
                status = "violated" if p.name in names else ("held" if complete else "not violated so far")
            else:
                status = "held" if p.name in self._held else ("never held" if complete else "not seen")
            out.append({"name": p.name, "expectation": p.expectation.value, "kind": p.kind.value,
                        "status": status})
        return out


def violation_kind(v: Violation) -> str:
    """The report's ``kind`` of a violation: ``deadlock``, ``broadcast``, ``model``, or
    ``property`` (the system's own, liveness ones included)."""
    if v.prop == DEADLOCK_PROPERTY:
        return "deadlock"
    if v.kind in (PropertyKind.BROADCAST, PropertyKind.MODEL):
        return v.kind.value
    return "property"


def _sort_key(values: list[Any]) -> tuple[Any, ...]:
    return tuple((v is None, type(v).__name__, v if v is not None else 0) for v in values)


def exit_status(report: dict[str, Any]) -> int:
    """The exit status of ``fisheye explore`` (docs/contract.md, "Command line"): 0
    complete and no violation, 1 violations, 3 cut short (or a check that could not
    decide) before finding any violation."""
    if report["violations_total"] or any(p["status"] == "never held" for p in report.get("properties", ())):
        return 1
    if not report["complete"] or report.get("unknown_checks"):
        return 3
    return 0
