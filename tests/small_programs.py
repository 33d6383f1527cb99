"""The small random configurations the explorer's tests share: a seed gives a program of
2 or 3 processes with at most 2 operations each (``random_program``) and a random
proximity graph on its processes; SEEDS are those whose unreduced search is small."""

from __future__ import annotations

import random

from fisheye.impl.programs import Program, random_edges, random_program
from fisheye.spec.graph import ProximityGraph

SEEDS = [1, 4, 7, 8, 9, 11, 17, 19, 20, 21, 24, 26, 27, 28, 35]


def small_configuration(seed: int) -> tuple[Program, ProximityGraph]:
    rng = random.Random(seed)
    prog = random_program(rng, rng.choice([2, 3]), max_ops=2)
    return prog, ProximityGraph.of(prog.processes, random_edges(rng, prog.processes))
