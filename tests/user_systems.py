"""User systems for the command line's tests, each a factory named by
``--system user_systems:NAME`` (this directory on the Python path): an honest
replicated store running a program (``parse_program``), and deliberately broken
variants of it -- each breaks one promise of the system contract, and the tools must
say so, never report a pass.

The store is *eager*: a write is applied locally and sent to every other process,
which applies it on receipt; a read returns the local copy; ``await X==v`` waits until
the local copy of X is v.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from fisheye.impl.actors import Actor, ActorSystem, Sends
from fisheye.impl.api import Expectation, Network, Property, PropertyKind, SystemRequest
from fisheye.impl.programs import Await, Program, Read, Write, parse_program
from fisheye.spec.graph import ProximityGraph, parse_graph_option


class Local(NamedTuple):
    pc: int
    store: tuple[tuple[str, int], ...]   # register -> value, sorted
    reads: tuple[int, ...]
    sent: int                            # writes sent so far (names the messages)

    def get(self, x: str) -> int:
        return dict(self.store).get(x, 0)

    def put(self, x: str, v: int) -> Local:
        return self._replace(store=tuple(sorted({**dict(self.store), x: v}.items())))


class EagerStore(Actor[Local]):
    def __init__(self, program: Program):
        self.program = program
        self.ops = dict(zip(program.processes, program.ops, strict=True))

    def init(self, me: str) -> Any:
        return Local(0, (), (), 0)

    def _next(self, me: str, local: Any) -> Any:
        ops = self.ops[me]
        return ops[local.pc] if local.pc < len(ops) else None

    def can_invoke(self, me: str, local: Any) -> bool:
        op = self._next(me, local)
        return op is not None and (not isinstance(op, Await) or local.get(op.register) == op.value)

    def has_program(self, me: str, local: Any) -> bool:
        return local.pc < len(self.ops[me])

    def on_invoke(self, me: str, local: Any) -> tuple[Any, Sends]:
        op = self._next(me, local)
        local = local._replace(pc=local.pc + 1)
        if isinstance(op, Read):
            return local._replace(reads=local.reads + (local.get(op.register),)), ()
        if isinstance(op, Write):
            local = local.put(op.register, op.value)._replace(sent=local.sent + 1)
            return local, [(q, self.message(me, local.sent, op)) for q in self.program.processes if q != me]
        return local, ()

    def message(self, me: str, seq: int, op: Write) -> Any:
        return ("W", op.register, op.value, me, seq)

    def on_receive(self, me: str, local: Any, src: str, msg: Any) -> tuple[Any, Sends]:
        return local.put(msg[1], msg[2]), ()

    def operations(self, me: str, local: Any) -> list[list[Any]]:
        reads = iter(local.reads)
        out: list[list[Any]] = []
        for op in self.ops[me][:local.pc]:
            if isinstance(op, Write):
                out.append(["w", op.register, op.value])
            elif isinstance(op, Read):
                out.append(["r", op.register, next(reads)])
        return out

    def message_name(self, msg: Any) -> Any:
        return msg


def build(request: SystemRequest, actor_class: type[EagerStore] = EagerStore, *,
          network: Network | None = None, graph: ProximityGraph | None = None,
          properties: tuple[Property, ...] = ()) -> ActorSystem[Any]:
    """The system of ``request`` (``network``, ``graph``: what a broken factory uses
    instead of what was asked)."""
    if request.variant or request.mutant or request.crashes or request.options:
        raise ValueError("the eager store takes no variant, mutant, crashes or option")
    program = parse_program(request.scenario or "p0: write(X,1); p1: read(X)")
    g = request.graph
    if graph is None:
        graph = (ProximityGraph.empty(program.processes) if g is None
                 else parse_graph_option(g, program.processes) if isinstance(g, str) else g)
    return ActorSystem(actor_class(program), program.processes, name=request.system, graph=graph,
                       network=network or request.network, scenario=request.scenario, model="sc",
                       properties=properties)


def eager(request: SystemRequest) -> ActorSystem[Any]:
    """Honest."""
    return build(request)


def fifo_only(request: SystemRequest) -> ActorSystem[Any]:
    """Ignores --network: always FIFO channels."""
    return build(request, network=Network.FIFO)


def no_graph(request: SystemRequest) -> ActorSystem[Any]:
    """Ignores --graph: always the empty graph."""
    program = parse_program(request.scenario or "p0: write(X,1); p1: read(X)")
    return build(request, graph=ProximityGraph.empty(program.processes))


class SameNames(EagerStore):
    def message_name(self, msg: Any) -> Any:
        return ("W", msg[1])                  # not unique: two writes of X share it


def same_names(request: SystemRequest) -> ActorSystem[Any]:
    """Names two different messages alike."""
    return build(request, SameNames)


class Raising(EagerStore):
    def on_receive(self, me: str, local: Any, src: str, msg: Any) -> tuple[Any, Sends]:
        raise ZeroDivisionError("division by zero in on_receive")


def raising(request: SystemRequest) -> ActorSystem[Any]:
    """A handler that raises."""
    return build(request, Raising)


class Unhashable(EagerStore):
    def on_receive(self, me: str, local: Any, src: str, msg: Any) -> tuple[Any, Sends]:
        return local._replace(store={msg[1]: msg[2]}), ()   # a dict in the state


def unhashable(request: SystemRequest) -> ActorSystem[Any]:
    """A local state that is not immutable and hashable."""
    return build(request, Unhashable)


def unjudgeable(request: SystemRequest) -> ActorSystem[Any]:
    """A property with no check."""
    nobody = Property("checked by nobody", Expectation.ALWAYS, PropertyKind.PROTOCOL)
    return build(request, properties=(nobody,))


def no_remote_write(request: SystemRequest) -> ActorSystem[Any]:
    """A user broadcast property, always: no process ever applied another's write
    (false as soon as one is received)."""
    program = parse_program(request.scenario or "")
    own = [{op.register for op in ops if isinstance(op, Write)} for ops in program.ops]

    def check(state: Any, complete: bool) -> str | None:
        got = [program.processes[i] for i, local in enumerate(state.procs)
               if {x for x, _ in local.store} - own[i]]
        return f"{got[0]} applied a write of another process" if got else None
    return build(request, properties=(Property("no remote write", Expectation.ALWAYS, PropertyKind.BROADCAST,
                                               check),))


def never(request: SystemRequest) -> ActorSystem[Any]:
    """A sometimes property that never holds."""
    return build(request, properties=(Property("impossible", Expectation.SOMETIMES, PropertyKind.PROTOCOL,
                                               lambda s, c: "never"),))


def tuned(request: SystemRequest) -> ActorSystem[Any]:
    """Honest, with a factory option: ``replicas`` (default 2) must equal the program's
    processes, and ``label`` (any text) only names the configuration; both recorded."""
    replicas = request.option("replicas", 2)
    label = request.option("label", "plain")
    system = build(SystemRequest(scenario=request.scenario, graph=request.graph, network=request.network,
                                 system=request.system))
    if replicas != len(system.processes):
        raise ValueError(f"replicas={replicas!r}, but the program has {len(system.processes)} processes")
    return ActorSystem(system.actor, system.processes, name=request.system, graph=system.graph,
                       network=request.network, scenario=request.scenario, model="sc",
                       options=(("label", label), ("replicas", replicas)))
