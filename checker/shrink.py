"""What one run of a system violates, and shrinking a violating schedule.

:class:`RunChecks` says what a state violates: a consistency model on the run's history
(``fisheye-2014``, ``fisheye``, ...; on a given graph or the system's own), a safety
property of the broadcast (section 4.1: validity, integrity, G-delivery order, causal
order), or ``deadlock`` (no step enabled, the run not complete).

:func:`shrink` makes a violating schedule small (after Hypothesis's shrinking): cut to
its shortest violating prefix (a safety property stays violated on every extension of
a violating prefix, and so does a model violation when written values are distinct),
then single steps are deleted while the schedule still replays and still violates, to
a fixpoint: a 1-minimal schedule (no single step can be removed), not necessarily a
globally shortest one (:func:`fisheye.checker.explore.shortest.shortest_violation`
finds that).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from fisheye.impl.api import ReplayError, Step, System
from fisheye.impl.api import replay as replay_schedule
from fisheye.impl.properties import PropertyKind
from fisheye.spec import broadcast as bspec
from fisheye.spec.graph import ProximityGraph, graph_of
from fisheye.spec.history import History

from .counterexample import DEADLOCK
from .explore.expand import history_key
from .judge import Judge
from .result import Verdict


@dataclass
class RunChecks:
    """What a run may violate: ``models`` (on ``model_graph``, default the system's
    graph), the system's other ``always`` properties (``properties``: the broadcast's
    safety properties, section 4.1, and the system's own), ``deadlock``; judged by
    :class:`fisheye.checker.judge.Judge`.  Model verdicts are cached by history;
    ``checks`` counts the model checks actually run.  An ``unknown`` verdict (the
    check's ``timeout`` ran out) is no violation."""

    models: tuple[str, ...]
    model_graph: ProximityGraph | None = None
    properties: bool = True
    deadlock: bool = True
    timeout: float | None = 30.0
    cache: dict[tuple[Any, ...], dict[str, Verdict]] = field(default_factory=dict)
    checks: int = 0
    _judges: dict[int, tuple[Any, Judge]] = field(default_factory=dict, repr=False)

    def judge(self, system: System[Any]) -> Judge:
        """The judge of ``system`` with these models (built once per system)."""
        got = self._judges.get(id(system))
        if got is None or got[0] is not system:
            got = self._judges[id(system)] = (system, Judge.of(system, model=self.models))
        return got[1]

    def check_model(self, history: History, model: str) -> Verdict:
        """The verdict of ``history`` under ``model`` on the model graph, cached."""
        from .engines import check

        got = self.cache.setdefault(history_key(history), {})
        if model not in got:
            self.checks += 1
            h = history if self.model_graph is None else history.with_edges(self.model_graph.edges)
            got[model] = check(h, model, graph_of(h), timeout=self.timeout).verdict
        return got[model]

    def model_violations(self, system: System[Any], state: Any) -> list[str]:
        """The models the history of the run so far violates."""
        judge = self.judge(system).only(self.models)
        return [v.prop for v in judge(state, False, self.check_model).failed]

    def violations(self, system: System[Any], state: Any, *, final: bool | None = None) -> list[str]:
        """Everything ``state`` violates: the models, the broadcast's safety properties
        and the system's own (on any state: prefix-closed), deadlock where no step is
        enabled."""
        if final is None:
            final = system.is_final(state)
        judged = self.judge(system)(state, final, self.check_model)
        out: list[str] = []
        if self.deadlock and not final and not system.enabled(state):
            out.append(DEADLOCK)
        if self.properties:
            out += sorted(v.prop for v in judged.failed if v.kind is PropertyKind.PROTOCOL
                          or (v.kind is PropertyKind.BROADCAST and v.prop in bspec.SAFETY))
        out += [v.prop for v in judged.failed if v.kind is PropertyKind.MODEL]
        return out


def still_violates(system: System[Any], schedule: Sequence[Step], what: str, checks: RunChecks) -> bool:
    """Whether ``schedule`` replays on ``system`` and its last state violates ``what``
    (a model of ``checks``, a property of the system, or ``deadlock``)."""
    try:
        state = replay_schedule(system, schedule)
    except ReplayError:
        return False
    if what == DEADLOCK:
        return not system.is_final(state) and not system.enabled(state)
    judged = checks.judge(system).only((what,))(state, system.is_final(state), checks.check_model)
    return what in judged.failed_names()


def shrink(system: System[Any], schedule: Sequence[Step], what: str, checks: RunChecks) -> list[Step]:
    """Shortest violating prefix, then single-step deletions to a fixpoint (module doc).
    A deadlock is shrunk by deletions only (a prefix of a deadlocked run is not one)."""
    sched = list(schedule)
    if what != DEADLOCK:
        for i in range(len(sched)):
            if still_violates(system, sched[:i + 1], what, checks):
                sched = sched[:i + 1]
                break
    changed = True
    while changed:
        changed = False
        for i in range(len(sched) - 1, -1, -1):
            cand = sched[:i] + sched[i + 1:]
            if still_violates(system, cand, what, checks):
                sched = cand
                changed = True
    return sched


__all__ = ["RunChecks", "shrink", "still_violates"]
