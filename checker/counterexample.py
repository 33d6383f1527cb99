"""Counterexample files (their format: docs/contract.md): write, read, replay.

A counterexample is a run of a system (any system of the registry,
:mod:`fisheye.checker.systems`: Algorithm 2 over Algorithm 1 with a variant, a mutant,
a network semantics; the localized broadcast; a user's protocol) given by its schedule,
and what the run violates: a consistency model (``fisheye-2014``, ``fisheye``...), a
property of the system (section 4.1's ``G-delivery order``, ``causal order``...,
LCURB1-5, a protocol's own), or ``deadlock``.

Keys: ``history`` (the run's history with, as its ``graph``, the graph the model is
checked against), ``violates``, ``algorithm`` (the registry name of the system),
``variant``, ``mutant``, ``network``, ``schedule`` (``Step.to_json()`` items),
``scenario`` or ``program`` (text form of :func:`fisheye.impl.programs.parse_program`),
``system_graph`` (the graph the algorithm ran with), ``level``, ``crashes`` and
``options`` (further factory options), ``search`` (which search found it),
``details``, ``delivery_logs`` and ``explanation`` (the data of :mod:`.explain`).
Files are produced by the tools (``fisheye explore --save``, the research drivers of
``scripts/research/``), never by hand;
:func:`replay` rebuilds the system, replays the schedule and checks that the same
violation occurs.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from fisheye.impl.api import (
    Network,
    Quotient,
    ReplayError,
    Step,
    System,
    SystemRequest,
    crashes_in,
    logs_as_json,
)
from fisheye.impl.api import replay as replay_schedule
from fisheye.impl.properties import DEADLOCK
from fisheye.spec.graph import ProximityGraph, graph_of
from fisheye.spec.history import History, HistoryError, parse_history
from fisheye.spec.models import MODEL_NAMES

from .result import Verdict

REQUIRED = ("history", "violates", "algorithm", "variant", "mutant", "network", "schedule")


@dataclass(frozen=True)
class Counterexample:
    """A run that violates ``violates``: its ``history``, its ``schedule`` and the record
    of its system (``record``, the system's ``info``: what its factory rebuilds it from;
    the file's system keys are views of it)."""

    history: History
    violates: str
    record: SystemRequest
    schedule: tuple[Step, ...]
    search: str = ""
    details: str = ""
    delivery_logs: Mapping[str, Any] = field(default_factory=dict)
    explanation: Mapping[str, Any] | None = None

    @property
    def is_model(self) -> bool:
        return self.violates in MODEL_NAMES

    @property
    def algorithm(self) -> str:
        return self.record.system

    @property
    def variant(self) -> str | None:
        return None if self.record.variant is None else str(self.record.variant)

    @property
    def mutant(self) -> str | None:
        return None if self.record.mutant is None else str(self.record.mutant)

    @property
    def network(self) -> str:
        return Network(self.record.network).value

    @property
    def scenario(self) -> str | None:
        return self.record.scenario_name

    @property
    def program(self) -> str | None:
        return self.record.program

    @property
    def system_graph(self) -> tuple[tuple[str, str], ...]:
        g = self.record.graph
        return tuple(g.edges) if isinstance(g, ProximityGraph) else ()

    @property
    def level(self) -> str:
        return self.record.level

    @property
    def crashes(self) -> int:
        return self.record.crashes

    @property
    def options(self) -> tuple[tuple[str, Any], ...]:
        return self.record.options

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
            "level": self.level,
            "crashes": self.crashes,
            "options": {k: v for k, v in self.options},
        }

    def save(self, path: str | Path) -> None:
        Path(path).write_text(json.dumps(self.to_json(), indent=1) + "\n", encoding="utf-8")

    def request(self) -> SystemRequest:
        """What the system's factory is asked for to rebuild the run's system: its record."""
        return self.record

    def system(self) -> System[Any]:
        """The run's system, rebuilt by its factory (``ValueError`` if it cannot be)."""
        from .systems import make

        return make(self.algorithm, self.record)


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
    opts = obj.get("options") or {}
    if not isinstance(opts, dict):
        raise bad("'options' must be an object")
    crashes = obj.get("crashes")
    if crashes is not None and (not isinstance(crashes, int) or isinstance(crashes, bool) or crashes < 0):
        raise bad("'crashes' must be a non-negative integer")
    schedule = tuple(Step.from_json(s) for s in sched)
    if crashes is None:   # files written before the key: the crashes the schedule performs
        crashes = crashes_in(schedule)
    try:
        network = Network.parse(str(obj["network"]))
    except ValueError as e:
        raise bad(f"'network': {e}") from None
    record = SystemRequest(scenario=obj.get("scenario") or obj.get("program"),
                           graph=ProximityGraph.of(history.processes, [(a, b) for a, b in sg]),
                           network=network, variant=None if obj["variant"] is None else str(obj["variant"]),
                           mutant=obj["mutant"], crashes=crashes, level=str(obj.get("level") or "protocol"),
                           options=tuple(sorted((str(k), _tuplify(v)) for k, v in opts.items())),
                           system=str(obj["algorithm"]))
    return Counterexample(
        history=history, violates=obj["violates"], record=record, schedule=schedule,
        search=str(obj.get("search", "")), details=str(obj.get("details", "")),
        delivery_logs=obj.get("delivery_logs") or {}, explanation=obj.get("explanation"))


def _tuplify(x: Any) -> Any:
    if isinstance(x, list):
        return tuple(_tuplify(v) for v in x)
    return x


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

def deadlock_details(system: System[Any], state: Any) -> str:
    """Who waits for what in a deadlocked state (from the delivery logs)."""
    from fisheye.spec.broadcast import Event

    logs = {p: [e for e in log if isinstance(e, Event)] for p, log in system.delivery_logs(state).items()}
    sent = {e.msg for log in logs.values() for e in log if e.kind == "broadcast"}
    parts = []
    for p, log in logs.items():
        got = {e.msg for e in log if e.kind == "deliver"}
        missing = sorted(str(m) for m in sent - got)
        if missing:
            parts.append(f"{p} never delivers {', '.join(missing)}")
    return "no step is enabled but the run is not complete: " + ("; ".join(parts) or "a process waits")


def from_run(system: System[Any], schedule: Sequence[Step], violates: str, *, search: str,
             check_graph: ProximityGraph | None = None, details: str = "",
             explain: bool = True) -> Counterexample:
    """Replay ``schedule`` on ``system`` and record the counterexample (with the
    explanation data of a model violation)."""
    state = replay_schedule(system, schedule)
    h = system.history(state)
    if check_graph is not None:
        h = h.with_edges(check_graph.edges)
    explanation = None
    if violates in MODEL_NAMES and explain:
        from .explain import explain as do_explain

        explanation = do_explain(h, violates, graph_of(h), schedule=[s.to_json() for s in schedule]).to_json()
    if violates == DEADLOCK and not details:
        details = deadlock_details(system, state)
    elif violates not in MODEL_NAMES and not details:
        details = property_failure(system, state, violates) or ""
    return Counterexample(
        history=h, violates=violates, record=system.info, schedule=tuple(schedule), search=search,
        details=details, delivery_logs=logs_as_json(system.delivery_logs(state)), explanation=explanation)


def property_failure(system: System[Any], state: Any, name: str) -> str | None:
    """Why the system's property ``name`` fails at ``state`` (the end of a run), or None
    if it holds there (or the system has no such property); judged by
    :class:`fisheye.checker.judge.Judge`."""
    from .judge import Judge

    found = Judge.of(system, model=None).failure(state, name)
    return None if found is None else found.reason


def replayable_system(system: System[Any]) -> System[Any]:
    """The system a saved schedule replays on: the raw protocol behind a quotiented one."""
    return system.raw if isinstance(system, Quotient) else system


def logs_json(system: System[Any], state: Any) -> dict[str, list[Any]]:
    """The delivery logs at ``state`` in JSON form."""
    return logs_as_json(system.delivery_logs(state))


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
        state = replay_schedule(system, cx.schedule)    # a failing system: SystemFault, a system error
    except ReplayError as e:
        return Replayed(False, f"the schedule does not replay: {e}")
    if cx.violates == DEADLOCK:
        if not system.enabled(state) and not system.is_final(state):
            return Replayed(True, "the run deadlocks", state)
        return Replayed(False, "the replayed run does not deadlock", state)
    if cx.is_model:
        from .engines import check

        h = system.history(state).with_edges(cx.history.edges)
        if h.to_json() != cx.history.to_json():
            return Replayed(False, "the replayed run has another history", state)
        res = check(h, cx.violates, graph_of(h), engine=engine)
        if res.verdict is not Verdict.VIOLATION:
            return Replayed(False, f"the replayed history is {res.verdict.value} under {cx.violates}", state)
        return Replayed(True, f"the replayed history violates {cx.violates}", state)
    text = property_failure(system, state, cx.violates)
    if text is not None:
        return Replayed(True, text, state)
    return Replayed(False, f"the replayed run does not violate {cx.violates}", state)
