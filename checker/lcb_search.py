"""Searches of the localized causal broadcast (its LCURB1-5 properties, and Algorithm 2
over it), on the one explorer (:mod:`fisheye.checker.explore`).

* :func:`explore`: every reachable state of an :class:`fisheye.impl.lcb.LcbSystem`
  (breadth-first, the explorer's engine), LCURB1-LCURB5 (:mod:`fisheye.spec.lcurb`)
  judged at every terminal state; per violated property, the number of terminal states
  violating it and a shortest schedule;
* :func:`explore_fates`: at most F crashes, as one search per set C of at most F
  processes with exactly C crashable (each at most once): crashes are then
  independent, so the explorer's process-level persistent sets apply
  (:class:`fisheye.impl.api.CrashStop`, docs/por.md); the terminal states of the
  searches are merged (a run in which some process of C does not crash also belongs to
  a smaller C) and judged as runs of the system with at most F crashes;
* :func:`explore_memory`: every distinct complete history of Algorithm 2 over the
  broadcast (histories grouped by :func:`fisheye.checker.explore.expand.history_key`),
  checked against consistency models by the explorer's report;

Their schedules replay on the system they explored; counterexample files of them are
made by :func:`fisheye.checker.counterexample.from_run`.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from itertools import combinations
from typing import Any

from fisheye.impl.api import Step, replay
from fisheye.impl.lcb import LcbSystem, make_lcb_system
from fisheye.impl.properties import PropertyKind
from fisheye.spec.graph import ProximityGraph
from fisheye.spec.history import History
from fisheye.spec.lcurb import PROPERTIES
from fisheye.spec.models import Model

from .explore.engine import explore as explore_engine
from .explore.expand import Context, TerminalRecord
from .explore.report import ReportBuilder
from .judge import Judge
from .result import Verdict


@dataclass
class _LcurbReport(ReportBuilder):
    """The explorer's report, and per LCURB property the number of terminal states
    violating it (one count per terminal state and property)."""

    runs: dict[str, int] = field(default_factory=dict)

    def add_terminal(self, rec: TerminalRecord, length: int, schedule: Any) -> None:
        for prop in rec.broadcast:
            self.runs[prop] = self.runs.get(prop, 0) + 1
        super().add_terminal(rec, length, schedule)


@dataclass(frozen=True)
class Exploration:
    """What :func:`explore` found.  ``violations[prop]``: the number of terminal states
    violating ``prop``; ``shortest[prop]``: a shortest schedule reaching one, and the
    violation's text; ``report``: the explorer's report."""

    states: int
    terminal_states: int
    violations: Mapping[str, int]
    shortest: Mapping[str, tuple[tuple[Step, ...], str]]
    complete: bool
    seconds: float
    report: Mapping[str, Any]

    @property
    def violated(self) -> tuple[str, ...]:
        return tuple(p for p in PROPERTIES if p in self.violations)


def _schedules(report: Mapping[str, Any], kind: str) -> dict[str, tuple[Step, ...]]:
    """The first (shortest) listed schedule of each violated property of ``kind``."""
    out: dict[str, tuple[Step, ...]] = {}
    for v in report["violations"]:
        if v["kind"] == kind and v["violates"] not in out:
            out[v["violates"]] = tuple(Step.from_json(s) for s in v["schedule"])
    return out


def explore(system: LcbSystem, *, reduction: str = "auto", until: Iterable[str] = (),
            on_terminal: Callable[[Any, str], None] | None = None) -> Exploration:
    """Every reachable state of ``system`` (the explorer's engine with exact states and
    ``reduction``; ``auto`` is the process-level reduction when the crashes are
    independent, else none), LCURB1-5 judged at each terminal state.  ``until``: stop
    after the breadth-first level at which all these properties are found violated
    (``complete`` is then false: no claim of exhaustiveness).  ``on_terminal(state,
    kind)`` sees every distinct terminal state."""
    ctx = Context(system, reduction=reduction)
    builder = _LcurbReport(ctx, "protocol", model=None)
    wanted = frozenset(until)

    def found(depth: int, states: int) -> str | None:
        if wanted and wanted <= set(builder.runs):
            return f"found {' and '.join(sorted(wanted))}"
        return None

    start = time.perf_counter()
    report = explore_engine(ctx, builder, exact=True, on_level=found, on_terminal=on_terminal)
    schedules = _schedules(report, "broadcast")
    missing = set(builder.runs) - set(schedules)
    if missing:
        raise RuntimeError(f"the report lists no schedule for {sorted(missing)}")
    shortest = {}
    for prop, sched in schedules.items():
        found = ctx.judge.failure(replay(system, sched), prop)
        if found is None:
            raise RuntimeError(f"the shortest schedule listed for {prop} does not violate it")
        shortest[prop] = (sched, found.reason)
    return Exploration(report["states"], report["terminal_states"], dict(builder.runs), shortest,
                       report["complete"], time.perf_counter() - start, report)


@dataclass(frozen=True)
class FateExploration:
    """The union of the reduced searches over every set of at most F crashable
    processes: the terminal states of the system with at most F crashes, each with the
    crashable set (``"p,q"``) of the first search that reached it."""

    states: int
    terminal_states: int
    violations: Mapping[str, int]
    shortest: Mapping[str, tuple[str, tuple[Step, ...], str]]  # prop -> (fate, schedule, text)
    terminals: Mapping[Any, str]
    seconds: float


def explore_fates(scenario: str, crashes: int, *, locality: Mapping[str, Iterable[str]] | None = None,
                  network: str = "fifo", reduced: bool = True) -> FateExploration:
    """At most ``crashes`` crashes, explored as one search per set C of at most that many
    processes, with exactly C crashable (each at most once), reduced with the
    explorer's process-level persistent sets unless ``reduced`` is false; terminal
    states are merged and judged (LCURB1-5) as runs of the system with at most
    ``crashes`` crashes.  ``states`` sums the states of the searches."""
    start = time.perf_counter()
    base = make_lcb_system(scenario, crashes=0, locality=locality, network=network)
    terminals: dict[Any, str] = {}
    states = 0
    shortest: dict[str, tuple[str, tuple[Step, ...], str]] = {}
    for k in range(crashes + 1):
        for fate in combinations(base.processes, k):
            label = ",".join(fate)
            system = LcbSystem(base.processes, base.locality, base.app, crashes=k, network=network,
                               name=base.name, crashable=fate)
            found: list[Any] = []
            res = explore(system, reduction="auto" if reduced else "none",
                          on_terminal=lambda s, _kind, found=found: found.append(s))
            states += res.states
            for t in found:
                terminals.setdefault(t, label)
            for prop, (sched, text) in res.shortest.items():
                if prop not in shortest or len(sched) < len(shortest[prop][1]):
                    shortest[prop] = (label, sched, text)
    violations: dict[str, int] = {}
    judge = Judge.of(make_lcb_system(scenario, crashes=crashes, locality=locality, network=network),
                     model=None)
    for t in terminals:
        for v in judge(t, judge.system.is_final(t)).failed:
            if v.kind is PropertyKind.BROADCAST:
                violations[v.prop] = violations.get(v.prop, 0) + 1
    if set(violations) != set(shortest):
        raise RuntimeError(f"the crash-fate searches judged {sorted(shortest)} violated, "
                           f"their union {sorted(violations)}")
    return FateExploration(states, len(terminals), violations, shortest, terminals,
                           time.perf_counter() - start)


@dataclass(frozen=True)
class MemoryReport:
    """Algorithm 2 over the broadcast: distinct histories and, per model, how many the
    model check judged of each :class:`~fisheye.checker.result.Verdict` (with one
    shortest example of a violation)."""

    scenario: str
    graph: ProximityGraph
    states: int
    terminal_states: int
    histories: int
    verdicts: Mapping[Model, Mapping[Verdict, int]]
    examples: Mapping[Model, tuple[History, tuple[Step, ...]]]


def explore_memory(system: LcbSystem, models: Iterable[Model | str] = (Model.CC, Model.FISHEYE),
                   graph: ProximityGraph | None = None) -> MemoryReport:
    """Every complete history of ``system`` (a memory scenario), checked against each
    model (``fisheye``: with the graph of mutual locality unless ``graph`` is given):
    one exploration per model, its report's verdicts per distinct history."""
    g = graph if graph is not None else system.graph
    verdicts: dict[Model, Mapping[Verdict, int]] = {}
    examples: dict[Model, tuple[History, tuple[Step, ...]]] = {}
    report: Mapping[str, Any] = {}
    for model in map(Model, models):
        ctx = Context(system)
        builder = ReportBuilder(ctx, "protocol", model=model, model_graph=g)
        report = explore_engine(ctx, builder, exact=True)
        if report["violations_total"] > len(report["violations"]):
            raise RuntimeError(f"{report['violations_total']} violations, more than the report lists")
        verdicts[model] = builder.verdict_counts()
        if verdicts[model].get(Verdict.VIOLATION):
            sched = _schedules(report, "model")[model.value]
            examples[model] = (system.history(replay(system, sched)).with_edges(g.edges), sched)
    return MemoryReport(system.name, g, report.get("states", 0), report.get("terminal_states", 0),
                        report.get("histories", 0), verdicts, examples)
