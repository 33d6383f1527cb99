"""A last-writer-wins replicated store ordered by Lamport timestamps: a user protocol
written on fisheye's per-process API (the names of ``fisheye`` only), outside the
fisheye package.

Every process keeps a replica of every register with the timestamp of the write it
holds.  ``X.write(v)``: tick the Lamport clock, install ``v`` with timestamp
``(clock, me)`` locally, send ``UPDATE(X, v, clock)`` to every other process, return at
once.  ``X.read()``: return the local replica at once.  On receipt of
``UPDATE(X, v, c)`` from ``j``: ``clock := max(clock, c)``; install ``v`` if ``(c, j)``
is greater than the held timestamp (the last writer wins).

Run it through the tools without touching fisheye::

    cd examples/lww
    fisheye explore dekker --system lww:make --model sc
    fisheye explore causal --system lww:make --model cc

The system offers a compiled kernel of itself (``lww_kernel.py``), which the explorer
runs unless told ``--kernel python``; this module stays the reference.

Properties: every complete history checked against the model (``--model``); the
protocol's own ``convergence`` (always: at the end of a complete run every replica
holds the same value for every register) and ``stale read`` (sometimes: in some
complete run a read returns the initial value; it holds in ``dekker``, where it is what
breaks sequential consistency, and fails -- never holds -- in ``race``, where every
process reads a register it wrote itself).
"""

from __future__ import annotations

from typing import Any, NamedTuple

from fisheye import (
    Actor,
    ActorSystem,
    Expectation,
    ExplorationKernel,
    Network,
    Property,
    PropertyKind,
    ProximityGraph,
    Sends,
    SystemRequest,
    parse_graph_option,
)

# A program: per process, operations ("w", X, v) or ("r", X).
SCENARIOS: dict[str, dict[str, tuple[tuple[Any, ...], ...]]] = {
    "dekker": {"p": (("w", "X", 1), ("r", "Y")),
               "q": (("w", "Y", 1), ("r", "X"))},
    "causal": {"p": (("w", "X", 1),),
               "q": (("r", "X"), ("w", "Y", 1)),
               "r": (("r", "Y"), ("r", "X"))},
    "race": {"p": (("w", "X", 1), ("r", "X")),
             "q": (("w", "X", 2), ("r", "X"))},
    "crossed": {"p": (("w", "X", 1), ("w", "Y", 1)),
                "q": (("w", "Y", 2), ("w", "X", 2)),
                "r": (("r", "X"), ("r", "Y")),
                "s": (("r", "Y"), ("r", "X"))},
}


class Replica(NamedTuple):
    """One process's local state: the Lamport clock, the replicas as sorted
    ``(register, value, clock, writer)`` entries, the program counter, and the values
    the reads returned (in program order)."""

    clock: int
    store: tuple[tuple[str, Any, int, str], ...]
    pc: int
    reads: tuple[Any, ...]

    def entry(self, x: str) -> tuple[str, Any, int, str]:
        for e in self.store:
            if e[0] == x:
                return e
        return (x, 0, 0, "")          # the initial value 0, older than every write

    def install(self, x: str, v: Any, c: int, j: str) -> Replica:
        store = tuple(sorted([e for e in self.store if e[0] != x] + [(x, v, c, j)]))
        return self._replace(store=store)


class LastWriterWins(Actor[Replica]):
    def __init__(self, programs: dict[str, tuple[tuple[Any, ...], ...]]):
        self.programs = programs
        self.processes = tuple(programs)

    def init(self, me: str) -> Replica:
        return Replica(0, (), 0, ())

    def can_invoke(self, me: str, local: Replica) -> bool:
        return local.pc < len(self.programs[me])

    def has_program(self, me: str, local: Replica) -> bool:
        return local.pc < len(self.programs[me])     # every operation can be invoked at once

    def on_invoke(self, me: str, local: Replica) -> tuple[Replica, Sends]:
        op = self.programs[me][local.pc]
        if op[0] == "r":
            v = local.entry(op[1])[1]
            return local._replace(pc=local.pc + 1, reads=local.reads + (v,)), ()
        _, x, v = op
        c = local.clock + 1
        local = local._replace(clock=c, pc=local.pc + 1).install(x, v, c, me)
        return local, tuple((q, ("UPDATE", x, v, c)) for q in self.processes if q != me)

    def on_receive(self, me: str, local: Replica, src: str, msg: Any) -> tuple[Replica, Sends]:
        _, x, v, c = msg
        local = local._replace(clock=max(local.clock, c))
        _, _, hc, hj = local.entry(x)
        if (c, src) > (hc, hj):
            local = local.install(x, v, c, src)
        return local, ()

    def operations(self, me: str, local: Replica) -> list[list[Any]]:
        reads = iter(local.reads)
        return [["w", op[1], op[2]] if op[0] == "w" else ["r", op[1], next(reads)]
                for op in self.programs[me][:local.pc]]

    def message_name(self, msg: Any) -> tuple[Any, ...]:
        return msg                    # (UPDATE, X, v, clock): unique within a channel


class LwwSystem(ActorSystem[Replica]):
    """The store's system: an :class:`ActorSystem` that offers the explorer its compiled
    kernel (``lww_kernel.py``, numba) for FIFO channels, with the process-level
    reduction or none; ``--kernel python`` (or another configuration) runs the actor."""

    def compiled_kernel(self, *, reduction: str, prune: bool) -> ExplorationKernel | None:
        if self.network is not Network.FIFO or reduction not in ("process", "none"):
            return None
        from lww_kernel import LwwKernel  # numba is imported when a kernel is asked for

        return LwwKernel(self, reduce=reduction == "process")


def convergence(system: ActorSystem[Replica]) -> Property:
    def check(state: Any, complete: bool) -> str | None:
        if not complete:
            return None
        stores = {p: {e[0]: e[1] for e in local.store}
                  for p, local in zip(system.processes, state.procs, strict=True)}
        regs = sorted({x for s in stores.values() for x in s})
        for x in regs:
            values = {p: s.get(x, 0) for p, s in stores.items()}
            if len(set(values.values())) > 1:
                return f"replicas of {x} differ: " + ", ".join(f"{p}={v}" for p, v in values.items())
        return None
    return Property("convergence", Expectation.ALWAYS, PropertyKind.PROTOCOL, check,
                    description="at the end of a complete run every replica holds the same values")


def stale_read(programs: dict[str, tuple[tuple[Any, ...], ...]]) -> Property:
    def check(state: Any, complete: bool) -> str | None:
        for prog, local in zip(programs.values(), state.procs, strict=True):
            reads = iter(local.reads)
            for op in prog[:local.pc]:
                if op[0] == "r" and next(reads) == 0:
                    return None       # a read returned the initial value
        return "no read returned the initial value"
    return Property("stale read", Expectation.SOMETIMES, PropertyKind.PROTOCOL, check,
                    description="some complete run has a read returning the initial value")


def make(request: SystemRequest) -> LwwSystem:
    """The system factory (``fisheye explore SCENARIO --system lww:make``)."""
    if request.variant is not None or request.mutant is not None or request.crashes or request.options:
        raise ValueError("lww takes no variant, mutant, crashes or options")
    if request.level != "protocol":
        raise ValueError("lww exists at the protocol level only")
    name = request.scenario or "dekker"
    if name not in SCENARIOS:
        raise ValueError(f"unknown lww scenario {name!r} (expected one of: {', '.join(SCENARIOS)})")
    programs = SCENARIOS[name]
    processes = tuple(programs)
    g = request.graph
    if g is None or g == "paper":
        graph = ProximityGraph.empty(processes)
    elif isinstance(g, str):
        graph = parse_graph_option(g, processes)
    else:
        graph = g
    system = LwwSystem(LastWriterWins(programs), processes, graph=graph, name=request.system or "lww",
                       network=request.network, scenario=name)
    system.add_properties(convergence(system), stale_read(programs))
    return system
