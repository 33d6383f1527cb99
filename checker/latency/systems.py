"""The system a latency run simulates, built from the reference implementation.

* ``toco``: Algorithm 2 (fast reads, writes wait for their own delivery) over Algorithm 1,
  the G-fisheye (SC,CC)-broadcast (section 4.2 and 5.1 of the 2015 text), for the run's
  proximity graph G: :func:`fisheye.impl.system.make_system`.  Its histories are
  G-fisheye consistent (Theorem 4), hence causally consistent, and sequentially
  consistent when G is complete.
* ``lcb``: Algorithm 2 over the localized causal broadcast (uniform reliable broadcast
  with majority acknowledgements underneath), every process in every locality: a causal
  broadcast, whose histories are causally consistent.  A baseline that pays for fault
  tolerance (a write waits for a majority) instead of for a total order.

Both run the same planned operations (:mod:`.workload`) on FIFO channels.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from fisheye.impl.lcb import LcbSystem, MemoryApp
from fisheye.impl.programs import Operation, Program, Read, Write
from fisheye.impl.system import make_system
from fisheye.spec.graph import ProximityGraph

from .workload import PlannedOp


def build_system(algorithm: str, graph: ProximityGraph, plan: Mapping[str, Sequence[PlannedOp]], *,
                 variant: str = "corrected") -> Any:
    processes = graph.processes
    if algorithm == "toco":
        progs: dict[str, list[Operation]] = {
            p: [Write(o.register, o.value) if o.kind == "w" else Read(o.register) for o in plan[p]]
            for p in processes}
        return make_system(Program.of(progs), graph, network="fifo", variant=variant)
    if algorithm == "lcb":
        programs = {p: tuple(("w", o.register, o.value) if o.kind == "w" else ("r", o.register)
                             for o in plan[p]) for p in processes}
        locality = {p: [q for q in processes if q != p] for p in processes}
        return LcbSystem(processes, locality, MemoryApp(programs), network="fifo", urb_delivery="lazy",
                         name="latency")
    raise ValueError(f"unknown algorithm {algorithm!r} (expected toco or lcb)")


def expected_models(algorithm: str, graph: ProximityGraph) -> tuple[str, ...]:
    """The models every history of the system must satisfy (what the tests check)."""
    if algorithm == "lcb":
        return ("cc",)
    n = len(graph.processes)
    complete = len(graph.edges) == n * (n - 1) // 2
    return ("fisheye", "cc", "sc") if complete else ("fisheye", "cc")
