"""What a run violates and the shrinking of a violating schedule (fisheye.checker.shrink)."""

from __future__ import annotations

from fisheye.checker.counterexample import DEADLOCK
from fisheye.checker.explore import random_run
from fisheye.checker.explore.simulation import SWARM
from fisheye.checker.result import Verdict
from fisheye.checker.shrink import RunChecks, shrink, still_violates
from fisheye.impl.api import replay
from fisheye.impl.system import make_system
from fisheye.spec.graph import ProximityGraph


def test_model_verdicts_are_cached_per_history_as_verdicts():
    system = make_system("paris-berlin-newyork", "empty")
    mg = ProximityGraph.of(system.processes, [("paris", "berlin")])
    checks = RunChecks(("fisheye", "cc"), model_graph=mg, properties=False)
    _, state = random_run(system, 0)
    first = checks.model_violations(system, state)
    assert checks.checks == 2
    assert checks.model_violations(system, state) == first and checks.checks == 2
    (verdicts,) = checks.cache.values()
    assert set(verdicts) == {"fisheye", "cc"}
    assert all(isinstance(v, Verdict) for v in verdicts.values())
    assert first == [m for m, v in verdicts.items() if v is Verdict.VIOLATION]


def test_a_deadlock_is_found_and_shrunk_by_deletions():
    system = make_system("paris-berlin-newyork", "paper", mutant="no-catch-up")
    checks = RunChecks((), properties=False)
    for seed in range(50):
        sched, state = random_run(system, seed, chooser=SWARM)
        if DEADLOCK in checks.violations(system, state):
            break
    else:
        raise AssertionError("no deadlock of the no-catch-up mutant in 50 runs")
    small = shrink(system, sched, DEADLOCK, checks)
    assert len(small) <= len(sched) and still_violates(system, small, DEADLOCK, checks)
    state = replay(system, small)
    assert not system.enabled(state) and not system.is_final(state)
    for i in range(len(small)):        # 1-minimal
        assert not still_violates(system, small[:i] + small[i + 1:], DEADLOCK, checks)
