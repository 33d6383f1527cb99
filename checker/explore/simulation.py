"""Random runs of a system (after Stateright's simulation checker): from the initial
state, one enabled step is chosen at random at each state until none is enabled (the
run is complete or deadlocked) or a step budget runs out.

The randomness lives here, in the checker, seeded; the state machines of
:mod:`fisheye.impl` are deterministic, so a run is replayed from its schedule alone
(:func:`fisheye.impl.api.replay`).

Two ways of choosing the step:

* ``uniform`` -- uniformly among the enabled steps (``fisheye simulate``);
* ``swarm`` -- swarm testing (Groce et al., ISSTA 2012): each (step kind, process) pair
  draws a weight in {0.1, 1, 10} the first time it is enabled and keeps it for the whole
  run, so runs differ in which processes are fast and whether invocations or deliveries
  come first (the counterexample searches, counterexamples/README.md).
"""

from __future__ import annotations

import random
from typing import Any

from fisheye.impl.api import Step, System, SystemFault

from .expand import fault

UNIFORM, SWARM = "uniform", "swarm"
CHOOSERS = (UNIFORM, SWARM)
SWARM_WEIGHTS = (0.1, 1.0, 10.0)


def random_run(system: System[Any], rng: random.Random | int, *, max_steps: int = 100_000,
               chooser: str = UNIFORM) -> tuple[list[Step], Any]:
    """One random run of ``system``: its schedule and its last state.  ``rng``: a
    generator, or a seed for a fresh one; ``chooser``: ``uniform`` or ``swarm`` (module
    doc); ``max_steps``: the run stops there even if steps are still enabled."""
    if chooser not in CHOOSERS:
        raise ValueError(f"unknown chooser {chooser!r} (expected one of: {', '.join(CHOOSERS)})")
    if not isinstance(rng, random.Random):
        rng = random.Random(rng)
    schedule: list[Step] = []
    try:
        state = system.initial()
    except Exception as e:
        raise fault(e, None, None, "building the initial state") from e
    weights: dict[tuple[str, str], float] = {}
    for _ in range(max_steps):
        try:
            enabled = list(system.enabled(state))
        except Exception as e:
            raise _located(fault(e, state, None, "listing the enabled steps"), schedule) from e
        if not enabled:
            break
        if chooser == SWARM:
            ws = []
            for s in enabled:
                key = (s.kind, s.process)
                if key not in weights:
                    weights[key] = rng.choice(SWARM_WEIGHTS)
                ws.append(weights[key])
            step = rng.choices(enabled, weights=ws)[0]
        else:
            step = enabled[rng.randrange(len(enabled))]
        schedule.append(step)
        try:
            state = system.apply(state, step)
        except Exception as e:
            raise _located(fault(e, state, step, "taking the step"), schedule) from e
    return schedule, state


def _located(f: SystemFault, schedule: list[Step]) -> SystemFault:
    f.schedule = tuple(schedule)
    return f


__all__ = ["CHOOSERS", "SWARM", "UNIFORM", "random_run"]
