"""Random runs (fisheye.checker.explore.simulation): seeded, replayable, uniform or swarm."""

from __future__ import annotations

import random

import pytest

from fisheye.checker.explore import random_run
from fisheye.checker.explore.simulation import SWARM, UNIFORM
from fisheye.impl.api import replay
from fisheye.impl.system import make_system


@pytest.mark.parametrize("chooser", [UNIFORM, SWARM])
def test_a_run_is_complete_replayable_and_seeded(chooser):
    system = make_system("paris-berlin-newyork", "paper")
    sched, state = random_run(system, random.Random(5), chooser=chooser)
    assert system.is_final(state) and not system.enabled(state)
    assert replay(system, sched) == state
    again, _ = random_run(system, random.Random(5), chooser=chooser)
    assert again == sched
    assert random_run(system, 5, chooser=chooser)[0] == sched       # a seed is a fresh generator


def test_the_choosers_differ_and_seeds_differ():
    system = make_system("fig6", "paper")
    runs = {tuple(random_run(system, seed, chooser=c)[0]) for seed in range(4) for c in (UNIFORM, SWARM)}
    assert len(runs) > 4


def test_the_step_budget_cuts_the_run():
    system = make_system("fig6", "paper")
    sched, state = random_run(system, 1, max_steps=3)
    assert len(sched) == 3 and system.enabled(state)


def test_an_unknown_chooser_is_refused():
    with pytest.raises(ValueError, match="unknown chooser"):
        random_run(make_system("fig6", "paper"), 0, chooser="fast")
