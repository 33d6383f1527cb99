"""The per-process protocol API (impl/actors.py): Algorithm 2 over Algorithm 1 written
as one process's handlers (TocoSystem.actor()) and put on the generic network by
ActorSystem is the protocol-level system itself, step for step: the same enabled steps
in the same order, the same successors, the same final states and histories, on every
reachable state."""

from __future__ import annotations

import random

import pytest

from fisheye.impl.actors import ActorSystem
from fisheye.impl.api import MessagePassing, Network, System
from fisheye.impl.programs import random_edges, random_program
from fisheye.impl.system import make_system


def generic(system):
    return ActorSystem(system.actor(), system.processes, name="toco", graph=system.graph,
                       network=system.network, initial=dict(system.program.initial))


def compare_everywhere(system, limit: int = 20_000) -> int:
    g = generic(system)
    assert g.initial() == system.initial()
    seen = {system.initial()}
    frontier = list(seen)
    while frontier and len(seen) < limit:
        nxt = []
        for s in frontier:
            steps = system.enabled(s)
            assert g.enabled(s) == steps
            assert g.is_final(s) == system.is_final(s)
            if not steps:
                assert g.history(s) == system.history(s)
                assert g.delivery_logs(s) == system.delivery_logs(s)
            for step in steps:
                t = system.apply(s, step)
                assert g.apply(s, step) == t
                if t not in seen:
                    seen.add(t)
                    nxt.append(t)
        frontier = nxt
    return len(seen)


@pytest.mark.parametrize("scenario, graph, network, variant, mutant", [
    ("paris-berlin-newyork", "paper", "fifo", "corrected", None),
    ("paris-berlin-newyork", "empty", "unordered", "published", None),
    ("fig6", "paper", "fifo", "corrected", "no-t2"),
])
def test_the_actor_is_the_system(scenario, graph, network, variant, mutant):
    system = make_system(scenario, graph, network=network, variant=variant, mutant=mutant)
    assert compare_everywhere(system, limit=3_000) > 100


def test_random_programs_step_for_step():
    rng = random.Random(11)
    for _ in range(6):
        prog = random_program(rng, 3, max_ops=2)
        system = make_system(prog, random_edges(rng, prog.processes),
                             network=rng.choice(("fifo", "unordered")))
        compare_everywhere(system, limit=2_000)


def test_an_actor_system_keeps_the_contract():
    g = generic(make_system("fig6"))
    assert isinstance(g, System) and isinstance(g, MessagePassing)
    assert g.network is Network.FIFO and g.info.algorithm == "toco"
    assert [p.name for p in g.properties()] == ["sc", "deadlock", "complete run"]
