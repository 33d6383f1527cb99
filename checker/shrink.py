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

from fisheye.impl.api import ChecksBroadcast, ReplayError, Step, System
from fisheye.impl.api import replay as replay_schedule
from fisheye.spec import broadcast as bspec
from fisheye.spec.graph import ProximityGraph
from fisheye.spec.models import MODEL_NAMES

from .counterexample import DEADLOCK
from .explore.expand import history_key
from .result import Verdict


@dataclass
class RunChecks:
    """What a run may violate: ``models`` (on ``model_graph``, default the system's
    graph), the broadcast's safety ``properties``, ``deadlock``.  Model verdicts are
    cached by history; ``checks`` counts the model checks actually run.  An ``unknown``
    verdict (the check's ``timeout`` ran out) is no violation."""

    models: tuple[str, ...]
    model_graph: ProximityGraph | None = None
    properties: bool = True
    deadlock: bool = True
    timeout: float | None = 30.0
    cache: dict[tuple[Any, ...], dict[str, Verdict]] = field(default_factory=dict)
    checks: int = 0

    def model_violations(self, system: System[Any], state: Any) -> list[str]:
        """The models the history of the run so far violates."""
        from .engines import check

        h = system.history(state)
        got = self.cache.setdefault(history_key(h), {})
        g = self.model_graph or system.graph
        if self.model_graph is not None:
            h = h.with_edges(g.edges)
        out = []
        for m in self.models:
            if m not in got:
                self.checks += 1
                got[m] = check(h, m, g, timeout=self.timeout).verdict
            if got[m] is Verdict.VIOLATION:
                out.append(m)
        return out

    def violations(self, system: System[Any], state: Any, *, final: bool | None = None) -> list[str]:
        """Everything ``state`` violates (models on any state: prefix-closed)."""
        out: list[str] = []
        if final is None:
            final = system.is_final(state)
        if self.deadlock and not final and not system.enabled(state):
            out.append(DEADLOCK)
        if self.properties:
            out += sorted(_broadcast_violations(system, state, final) & set(bspec.SAFETY))
        out += self.model_violations(system, state)
        return out


def still_violates(system: System[Any], schedule: Sequence[Step], what: str, checks: RunChecks) -> bool:
    """Whether ``schedule`` replays on ``system`` and its last state violates ``what``
    (a model of ``checks``, a broadcast property, or ``deadlock``)."""
    try:
        state = replay_schedule(system, schedule)
    except ReplayError:
        return False
    if what == DEADLOCK:
        return not system.is_final(state) and not system.enabled(state)
    if what in MODEL_NAMES:
        return what in checks.model_violations(system, state)
    return what in _broadcast_violations(system, state, system.is_final(state))


def _broadcast_violations(system: System[Any], state: Any, complete: bool) -> set[str]:
    """The names of the broadcast properties violated at ``state`` (none for a system
    that does not check the broadcast's properties)."""
    if not isinstance(system, ChecksBroadcast):
        return set()
    return {v.prop for v in system.broadcast_violations(state, complete=complete)}


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
