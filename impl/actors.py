"""The per-process protocol API (after Stateright's actors): write one process's
handlers, get a system.

A protocol is an :class:`Actor`: for one process ``me`` and its local state (any
immutable, hashable value) it says

* ``init(me)``: the initial local state;
* ``can_invoke(me, local)`` / ``on_invoke(me, local)``: whether the process's next
  program operation can be invoked now, and its invocation (a step ``op``);
* ``internal(me, local)`` / ``on_internal(me, local, detail)``: the internal steps
  enabled now, each named by a JSON-able ``detail`` tuple, and their effect (steps
  ``deliver``: a background task, a delivery rule);
* ``on_receive(me, local, src, msg)``: the receipt of ``msg`` from ``src`` (a step
  ``recv``);
* ``is_done(me, local)``: the process has nothing left to do (its program finished,
  nothing pending);
* ``operations(me, local)``: the recorder's view: the register operations the process
  has executed so far, as history-file items (``["w", X, v]``, ``["r", X, v]``);
* ``message_name(msg)``: a short JSON-able name of a message, unique within a channel
  (it names the message a receipt takes on unordered channels).

Every handler returns the new local state and the messages to send, as
``(destination, message)`` pairs.  A handler sees only its own process's state: the
processes share nothing but the network, so :class:`ActorSystem` declares
:class:`~fisheye.impl.api.MessagePassing` (the locality lemma holds by construction).

:class:`ActorSystem` makes a system of an actor, a list of processes, a proximity graph
and a :class:`~fisheye.impl.api.Network` (:mod:`fisheye.impl.network`): the global state
is ``GlobalState(procs, channels)``; the steps of each process, in process order, are
``op``, its internal steps, then ``recv`` from each source in process order (FIFO: the
head; unordered: every message, named in ``detail``).  The history is the generic
recorder's (:func:`record_history`); the delivery logs are the actor's
``delivery_log`` (empty by default).
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from typing import Any, Generic, NamedTuple, TypeVar

from fisheye.spec.graph import ProximityGraph
from fisheye.spec.history import History, Value

from . import network as net
from .api import (
    Channel,
    MessagePassing,
    Network,
    Property,
    Step,
    SystemInfo,
    deadlock_freedom,
    model_property,
    some_complete_run,
)

L = TypeVar("L", bound=Hashable)
Sends = Sequence[tuple[str, Hashable]]
"""Messages to send: ``(destination process, message)`` pairs, in sending order."""


class Actor(Generic[L]):
    """One process's handlers (see the module doc).  Subclass it and override what
    your protocol has; the defaults describe a process with no program, no internal
    step, and no history."""

    def init(self, me: str) -> L:
        raise NotImplementedError

    def can_invoke(self, me: str, local: L) -> bool:
        return False

    def on_invoke(self, me: str, local: L) -> tuple[L, Sends]:
        raise NotImplementedError

    def internal(self, me: str, local: L) -> Sequence[tuple[Any, ...]]:
        return ()

    def on_internal(self, me: str, local: L, detail: tuple[Any, ...]) -> tuple[L, Sends]:
        raise NotImplementedError

    def on_receive(self, me: str, local: L, src: str, msg: Any) -> tuple[L, Sends]:
        raise NotImplementedError

    def is_done(self, me: str, local: L) -> bool:
        return not self.can_invoke(me, local)

    def operations(self, me: str, local: L) -> Sequence[Sequence[Any]]:
        return ()

    def delivery_log(self, me: str, local: L) -> tuple[Any, ...]:
        return ()

    def message_name(self, msg: Any) -> tuple[Any, ...]:
        return (repr(msg),)


class GlobalState(NamedTuple):
    """Every process's local state, and the channels (``src * n + dst``)."""

    procs: tuple[Any, ...]
    channels: net.Channels


def record_history(processes: Sequence[str], graph: ProximityGraph,
                   operations: Mapping[str, Sequence[Sequence[Any]]],
                   initial: Mapping[str, Value] | None = None) -> History:
    """The generic history recorder: the operations each process executed so far (in
    program order, history-file items) as a history on ``graph``."""
    return History.build({p: [list(o) for o in operations.get(p, ())] for p in processes},
                         processes=processes, edges=graph.edges, initial=dict(initial or {}))


class ActorSystem(MessagePassing[GlobalState], Generic[L]):
    """An :class:`Actor` at every process, over the generic network: a system.

    ``name`` is the registry name (``SystemRequest.system``); ``scenario`` and
    ``options`` identify the configuration (what the factory needs to rebuild it);
    ``properties``: the protocol's own properties (a model check of every complete
    history against ``model``, deadlock freedom and some complete run are added);
    ``read_names``: the names of the reads whose values are the run's outcome (with
    ``outcome``)."""

    def __init__(self, actor: Actor[L], processes: Sequence[str], *, name: str,
                 graph: ProximityGraph | None = None, network: Network | str = Network.FIFO,
                 scenario: str | None = None, model: str | None = "sc",
                 properties: Sequence[Property] = (), initial: Mapping[str, Value] | None = None,
                 options: tuple[tuple[str, Any], ...] = ()):
        self.actor = actor
        self.processes: tuple[str, ...] = tuple(processes)
        self.graph = graph if graph is not None else ProximityGraph.empty(self.processes)
        self.network = Network.parse(network)
        self.n = len(self.processes)
        self._index = {p: i for i, p in enumerate(self.processes)}
        self._initial_values = dict(initial or {})
        self.info = SystemInfo(name, scenario, self.network, self.graph, options=options)
        base = (model_property(model),) if model else ()
        self._properties = (*base, *properties, deadlock_freedom(self.is_final), some_complete_run())
        self._op_steps = tuple(Step("op", p) for p in self.processes)
        self._recv_steps = tuple(tuple(Step("recv", p, q) for q in self.processes) for p in self.processes)
        self._name = actor.message_name

    # ---- the step API -------------------------------------------------------------------
    def initial(self) -> GlobalState:
        return GlobalState(tuple(self.actor.init(p) for p in self.processes), net.empty_channels(self.n))

    def enabled(self, state: GlobalState) -> list[Step]:
        steps: list[Step] = []
        actor, n, ps, chans = self.actor, self.n, self.processes, state.channels
        fifo = self.network is Network.FIFO
        for i, local in enumerate(state.procs):
            p = ps[i]
            if actor.can_invoke(p, local):
                steps.append(self._op_steps[i])
            steps.extend(Step("deliver", p, None, tuple(d)) for d in actor.internal(p, local))
            for src in range(n):
                c = chans[src * n + i]
                if not c:
                    continue
                if fifo:
                    steps.append(self._recv_steps[i][src])
                else:
                    q = ps[src]
                    steps.extend(Step("recv", p, q, self._name(m)) for m in dict.fromkeys(c))
        return steps

    def apply(self, state: GlobalState, step: Step) -> GlobalState:
        i = self._index.get(step.process)
        if i is None:
            raise ValueError(f"step {step}: unknown process {step.process!r}")
        p, actor, chans = step.process, self.actor, state.channels
        local = state.procs[i]
        if step.kind == "op":
            if not actor.can_invoke(p, local):
                raise ValueError(f"step {step} is not enabled")
            local, sends = actor.on_invoke(p, local)
        elif step.kind == "deliver":
            if tuple(step.detail) not in {tuple(d) for d in actor.internal(p, local)}:
                raise ValueError(f"step {step} is not enabled")
            local, sends = actor.on_internal(p, local, tuple(step.detail))
        elif step.kind == "recv":
            src = self._index.get(step.src or "")
            if src is None:
                raise ValueError(f"step {step}: unknown source {step.src!r}")
            chans, msg = net.take(chans, self.n, src, i, self.network, step.detail, self._name)
            local, sends = actor.on_receive(p, local, step.src or "", msg)
        else:
            raise ValueError(f"unknown step kind {step.kind!r}")
        out = []
        for dst, m in sends:
            j = self._index.get(dst)
            if j is None or j == i:
                raise ValueError(f"{p} sends to {dst!r}: not another process of the system")
            out.append((j, m))
        chans = net.send_all(chans, self.n, i, out, self.network, self._name)
        return GlobalState(state.procs[:i] + (local,) + state.procs[i + 1:], chans)

    def is_final(self, state: GlobalState) -> bool:
        return not any(state.channels) and all(self.actor.is_done(p, local)
                                               for p, local in zip(self.processes, state.procs, strict=True))

    # ---- the recorder and the network ------------------------------------------------------
    def history(self, state: GlobalState) -> History:
        pairs = zip(self.processes, state.procs, strict=True)
        ops = {p: self.actor.operations(p, local) for p, local in pairs}
        return record_history(self.processes, self.graph, ops, self._initial_values)

    def delivery_logs(self, state: GlobalState) -> dict[str, tuple[Any, ...]]:
        pairs = zip(self.processes, state.procs, strict=True)
        return {p: self.actor.delivery_log(p, local) for p, local in pairs}

    def properties(self) -> tuple[Property, ...]:
        return self._properties

    def add_properties(self, *props: Property) -> None:
        """Add protocol properties that need the system itself (before exploring)."""
        base = self._properties[:-2]
        self._properties = (*base, *props, *self._properties[-2:])

    def in_transit(self, state: GlobalState) -> dict[Channel, tuple[Any, ...]]:
        return net.in_transit(state.channels, self.processes)

    def may_send(self, state: GlobalState, q: str, p: str) -> bool:
        """Always (sound; an actor knows nothing the system could use to say more)."""
        return True
