"""Counterexample files (their format: docs/contract.md): write, read, replay.

A counterexample is a run of a system (Algorithm 2 over Algorithm 1, a variant, a
mutant, a network semantics) given by its schedule, and what the run violates: a
consistency model (``fisheye-2014``, ``fisheye``...), a broadcast property of section
4.1 (``G-delivery order``, ``causal order``...), or ``deadlock``.

Keys (the contract's, plus what replay and explanation need): ``history`` (the run's
history with, as its ``graph``, the graph the model is checked against), ``violates``,
``algorithm``, ``variant``, ``mutant``, ``network``, ``schedule`` (``Step.to_json()``
items), ``scenario`` or ``program`` (text form of :func:`fisheye.impl.programs.parse_program`),
``system_graph`` (the graph the algorithm ran with), ``search`` (which search found it),
``details``, ``delivery_logs`` and ``explanation`` (the data of :mod:`.explain`).
Files are produced by the tools (:mod:`fisheye.checker.searches`), never by hand;
:func:`replay` rebuilds the system, replays the schedule and checks that the same
violation occurs.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from fisheye.impl.api import ReplayError, Step
from fisheye.impl.api import replay as replay_schedule
from fisheye.spec.graph import ProximityGraph
from fisheye.spec.history import History, HistoryError, parse_history
from fisheye.spec.models import MODEL_NAMES

DEADLOCK = "deadlock"
ABSTRACT = "toco-spec"  # Algorithm 2 over the broadcast specification (no variant, no network)
REQUIRED = ("history", "violates", "algorithm", "variant", "mutant", "network", "schedule")


@dataclass(frozen=True)
class Counterexample:
    history: History
    violates: str
    algorithm: str
    variant: str | None      # None at the abstract level (no Algorithm 1)
    mutant: str | None
    network: str | None      # None at the abstract level (no channels)
    schedule: tuple[Step, ...]
    system_graph: tuple[tuple[str, str], ...]
    scenario: str | None = None
    program: str | None = None
    search: str = ""
    details: str = ""
    delivery_logs: Mapping[str, Any] = field(default_factory=dict)
    explanation: Mapping[str, Any] | None = None

    @property
    def is_model(self) -> bool:
        return self.violates in MODEL_NAMES

    def to_json(self) -> dict[str, Any]:
        return {
            "history": self.history.to_json(),
            "violates": self.violates,
            "algorithm": self.algorithm,
            "variant": self.variant,
            "mutant": self.mutant,
            "network": self.network,
            "schedule": [s.to_json() for s in self.schedule],
            "scenario": self.scenario,
            "program": self.program,
            "system_graph": [list(e) for e in self.system_graph],
            "search": self.search,
            "details": self.details,
            "delivery_logs": dict(self.delivery_logs),
            "explanation": self.explanation,
        }

    def save(self, path: str | Path) -> None:
        Path(path).write_text(json.dumps(self.to_json(), indent=1) + "\n", encoding="utf-8")

    def system(self):  # -> TocoSystem, AbstractSystem ("toco-spec") or LcbSystem ("lcb")
        """Rebuild the system the schedule runs on (:class:`ValueError` if it cannot be)."""
        if self.algorithm == "lcb":  # the scenario's default localities, F = its crash steps
            from fisheye.impl.lcb import crashes_in, make_lcb_system

            return make_lcb_system(self.scenario or "", crashes=crashes_in(self.schedule),
                                   network=self.network)
        from fisheye.impl.programs import parse_program
        from fisheye.impl.system import make_system

        target: Any = self.scenario if self.scenario else parse_program(self.program or "")
        if self.algorithm == ABSTRACT:
            from fisheye.impl.abstract import AbstractSystem
            from fisheye.impl.system import resolve_program

            program, sc = resolve_program(target)
            g = ProximityGraph.of(program.processes, list(self.system_graph))
            return AbstractSystem(program, g, keep_logs=True, scenario=sc.name if sc else None)
        if self.algorithm != "toco":
            raise ValueError(f"unknown algorithm {self.algorithm!r} (expected toco, {ABSTRACT} or lcb)")
        return make_system(target, list(self.system_graph), network=self.network, variant=self.variant,
                           mutant=self.mutant)


def is_counterexample(obj: Any) -> bool:
    return isinstance(obj, dict) and "violates" in obj and "schedule" in obj


def from_json(obj: Any, source: str | None = None) -> Counterexample:
    """Validate and build; a malformed file is a :class:`HistoryError` naming it."""
    def bad(msg: str) -> HistoryError:
        return HistoryError(msg, source)

    if not isinstance(obj, dict):
        raise bad("a counterexample file must be a JSON object")
    missing = [k for k in REQUIRED if k not in obj]
    if missing:
        raise bad(f"counterexample file misses key {missing[0]!r}")
    history = parse_history(obj["history"], source)
    if not isinstance(obj["violates"], str):
        raise bad("'violates' must be a string")
    sched = obj["schedule"]
    if not isinstance(sched, list) or not all(isinstance(s, list) and len(s) >= 2 for s in sched):
        raise bad("'schedule' must be a list of steps [kind, process, ...]")
    if not obj.get("scenario") and not obj.get("program"):
        raise bad("a counterexample file needs a 'scenario' or a 'program' to replay")
    sg = obj.get("system_graph", obj["history"].get("graph") or [])
    if not isinstance(sg, list) or not all(isinstance(e, list) and len(e) == 2 for e in sg):
        raise bad("'system_graph' must be a list of edges [p, q]")
    for key in ("algorithm", "variant", "network"):
        if not isinstance(obj[key], str) and not (obj[key] is None and obj["algorithm"] == ABSTRACT):
            raise bad(f"{key!r} must be a string")
    if obj["mutant"] is not None and not isinstance(obj["mutant"], str):
        raise bad("'mutant' must be a string or null")
    return Counterexample(
        history=history, violates=obj["violates"], algorithm=obj["algorithm"],
        variant=obj["variant"], mutant=obj["mutant"], network=obj["network"],
        schedule=tuple(Step.from_json(s) for s in sched),
        system_graph=tuple((a, b) for a, b in sg), scenario=obj.get("scenario"),
        program=obj.get("program"), search=str(obj.get("search", "")), details=str(obj.get("details", "")),
        delivery_logs=obj.get("delivery_logs") or {}, explanation=obj.get("explanation"))


def load(path: str | Path) -> Counterexample:
    source = str(path)
    try:
        obj = json.loads(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise HistoryError("no such file", source) from None
    except (OSError, UnicodeDecodeError) as e:
        raise HistoryError(f"cannot be read ({e})", source) from None
    except json.JSONDecodeError as e:
        raise HistoryError(f"is not JSON ({e.msg} at line {e.lineno}, column {e.colno})", source) from None
    return from_json(obj, source)


# ---- building from a run -----------------------------------------------------------------

def deadlock_details(system: Any, state: Any) -> str:
    """Who waits for what in a deadlocked state (from the delivery logs)."""
    logs = system.delivery_logs(state)
    sent = {e.msg for log in logs.values() for e in log if e.kind == "broadcast"}
    parts = []
    for p, log in logs.items():
        got = {e.msg for e in log if e.kind == "deliver"}
        missing = sorted(str(m) for m in sent - got)
        if missing:
            parts.append(f"{p} never delivers {', '.join(missing)}")
    return "no step is enabled but the run is not complete: " + ("; ".join(parts) or "a process waits")


def from_run(system: Any, schedule: Sequence[Step], violates: str, *, search: str,
             check_graph: ProximityGraph | None = None, details: str = "",
             explain: bool = True) -> Counterexample:
    """Replay ``schedule`` on ``system`` and record the counterexample (with the
    explanation data of a model violation)."""
    state = replay_schedule(system, schedule)
    h = system.history(state)
    if check_graph is not None:
        h = h.with_edges(check_graph.edges)
    ident = identity(system)
    explanation = None
    if violates in MODEL_NAMES and explain:
        from .explain import explain as do_explain

        g = ProximityGraph(h.processes, h.edges)
        explanation = do_explain(h, violates, g, schedule=[s.to_json() for s in schedule]).to_json()
    if violates == DEADLOCK and not details:
        details = _logs_safely(lambda: deadlock_details(system, state), "")
    elif violates not in MODEL_NAMES and not details:
        found = [v for v in system.broadcast_violations(state, complete=system.is_final(state))
                 if v.prop == violates]
        details = str(found[0]) if found else ""
    return Counterexample(
        history=h, violates=violates, schedule=tuple(schedule), search=search, details=details,
        delivery_logs=logs_json(system, state),
        explanation=explanation, **ident)


def logs_json(system: Any, state: Any) -> dict[str, list[Any]]:
    """The delivery logs as JSON: ``[kind, sender, seq]`` events (the toco systems), or
    the events' text for a system whose events have another shape."""
    from fisheye.impl.system import logs_as_json

    logs = system.delivery_logs(state)
    try:
        return logs_as_json(logs)
    except AttributeError:  # events as plain tuples (the localized broadcast's)
        return {p: [[str(x) for x in e] if isinstance(e, tuple) else str(e) for e in log]
                for p, log in logs.items()}


def _logs_safely(make: Any, default: Any) -> Any:
    try:
        return make()
    except (AttributeError, TypeError):  # a system whose events have another shape
        return default


def replayable_system(system: Any) -> Any:
    """The system a saved schedule replays on: the raw protocol behind a quotiented one,
    an abstract system that keeps its delivery logs."""
    system = getattr(system, "raw", system)
    if getattr(system, "level", None) == "abstract" and not getattr(system, "keep_logs", True):
        from fisheye.impl.abstract import AbstractSystem

        return AbstractSystem(system.program, system.graph, keep_logs=True, scenario=system.scenario)
    return system


def identity(system: Any) -> dict[str, Any]:
    """What names a system in a counterexample file: algorithm, variant, mutant, network,
    the graph it ran with, its scenario or program."""
    info = getattr(system, "info", None)
    if info is not None:
        return {"algorithm": info.algorithm, "variant": info.variant.value,
                "mutant": info.mutant.value if info.mutant else None, "network": info.network.value,
                "system_graph": tuple(info.graph.edges), "scenario": info.scenario,
                "program": None if info.scenario else str(system.program)}
    desc = system.describe()
    scenario = desc.get("scenario")
    program = getattr(system, "program", None)
    if desc.get("algorithm") == ABSTRACT:
        return {"algorithm": ABSTRACT, "variant": None, "mutant": None, "network": None,
                "system_graph": tuple(system.graph.edges), "scenario": scenario,
                "program": None if scenario else str(program)}
    if desc.get("algorithm") == "lcb":
        return {"algorithm": "lcb", "variant": desc.get("variant", "published"), "mutant": None,
                "network": desc["network"], "system_graph": tuple(system.graph.edges), "scenario": scenario,
                "program": None}
    raise ValueError(f"cannot name the system {desc.get('algorithm')!r} in a counterexample file")


# ---- replay -------------------------------------------------------------------------------

@dataclass(frozen=True)
class Replayed:
    ok: bool
    message: str
    state: Any = None


def replay(cx: Counterexample, *, engine: str = "auto") -> Replayed:
    """Rebuild the system, replay the schedule, and check the same violation occurs."""
    system = cx.system()
    try:
        state = replay_schedule(system, cx.schedule)
    except ReplayError as e:
        return Replayed(False, f"the schedule does not replay: {e}")
    if cx.violates == DEADLOCK:
        if not system.is_final(state) and not system.enabled(state):
            return Replayed(True, "the run deadlocks", state)
        return Replayed(False, "the replayed run does not deadlock", state)
    if cx.is_model:
        from .engines import check

        h = system.history(state).with_edges(cx.history.edges)
        if h.to_json() != cx.history.to_json():
            return Replayed(False, "the replayed run has another history", state)
        g = ProximityGraph(h.processes, h.edges)
        res = check(h, cx.violates, g, engine=engine)
        if res.verdict.value != "violation":
            return Replayed(False, f"the replayed history is {res.verdict.value} under {cx.violates}", state)
        return Replayed(True, f"the replayed history violates {cx.violates}", state)
    found = system.broadcast_violations(state, complete=system.is_final(state))
    props = {v.prop for v in found}
    if cx.violates in props:
        text = next(str(v) for v in found if v.prop == cx.violates)
        return Replayed(True, text, state)
    return Replayed(False, f"the replayed run does not violate {cx.violates}", state)
