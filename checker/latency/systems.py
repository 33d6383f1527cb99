"""The system a latency run simulates, built from the reference implementation.

* ``toco``: Algorithm 2 (fast reads, writes wait for their own delivery) over Algorithm 1,
  the G-fisheye (SC,CC)-broadcast (section 4.2 and 5.1 of the 2015 text), for the run's
  proximity graph G: the registry's ``toco`` (:func:`fisheye.checker.systems.make`), the
  plan as a program.  Its histories are
  G-fisheye consistent (Theorem 4), hence causally consistent, and sequentially
  consistent when G is complete.
* ``lcb``: Algorithm 2 over the localized causal broadcast (uniform reliable broadcast
  with majority acknowledgements underneath), every process in every locality: a causal
  broadcast, whose histories are causally consistent: the registry's ``lcb`` running the
  plan as a program.  A baseline that pays for fault
  tolerance (a write waits for a majority) instead of for a total order.

Both run the same planned operations (:mod:`.workload`) on FIFO channels.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from fisheye.impl.api import Network, SystemRequest
from fisheye.impl.builtin_systems import BUILTIN
from fisheye.impl.programs import Operation, Program, Read, Write
from fisheye.spec.graph import ProximityGraph

from ..systems import make
from .workload import PlannedOp


def build_system(algorithm: str, graph: ProximityGraph, plan: Mapping[str, Sequence[PlannedOp]], *,
                 variant: str = "corrected") -> Any:
    processes = graph.processes
    progs: dict[str, list[Operation]] = {
        p: [Write(o.register, o.value) if o.kind == "w" else Read(o.register) for o in plan[p]]
        for p in processes}
    entry = BUILTIN.get(algorithm)
    if entry is None:
        raise ValueError(f"unknown algorithm {algorithm!r} (expected one of {', '.join(BUILTIN)})")
    takes = entry.accepts["protocol"]
    # through the registry, as every other command builds a system
    request = SystemRequest(scenario=str(Program.of(progs)), graph=graph if "graph" in takes else None,
                            network=Network.FIFO, variant=variant if "variant" in takes else None,
                            options=entry.timed)
    return make(algorithm, request)


def expected_models(algorithm: str, graph: ProximityGraph) -> tuple[str, ...]:
    """The models every history of the system must satisfy (what the tests check): its
    entry's models, and on the complete graph its further ones."""
    entry = BUILTIN[algorithm]
    n = len(graph.processes)
    complete = len(graph.edges) == n * (n - 1) // 2
    return entry.models + entry.complete_models if complete else entry.models
