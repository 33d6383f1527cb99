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
* ``has_program(me, local)``: the process still has program operations to invoke, now
  or later (required of an actor that overrides ``can_invoke``: a process blocked on an
  ``await`` or a write that has not returned has operations pending though it cannot
  invoke one now); ``is_done(me, local)``: nothing else is left to do (by default: no
  program left).  A process is finished only when it has no program left *and* is done,
  so a blocked process is never finished: a run that stops there is a deadlock;
* ``operations(me, local)``: the recorder's view: the register operations the process
  has executed so far, as history-file items (``["w", X, v]``, ``["r", X, v]``);
* ``message_name(msg)``: a short JSON-able name of a message, unique within a channel
  (it names the message a receipt takes on unordered channels); ``message_order(msg)``:
  the key that sorts an unordered channel (by default the name);
* ``ignores(me, local, msg)``: receiving ``msg`` now or in any later state of ``me``
  would change nothing but the channel (default: never); the network then drops it,
  an exact reduction;
* ``on_crash(me, local)``: what a crashed process keeps (its recorded operations and
  delivery log; by default everything).

Every handler returns the new local state and the messages to send, as
``(destination, message)`` pairs.  A handler sees only its own process's state: the
processes share nothing but the network, so :class:`ActorSystem` declares
:class:`~fisheye.impl.api.MessagePassing` (the locality lemma holds by construction),
and :class:`CrashStopSystem`, the same with crash-stop processes, declares
:class:`~fisheye.impl.api.CrashStop`.

The system of an actor, a list of processes, a proximity graph and a
:class:`~fisheye.impl.api.Network` (:mod:`fisheye.impl.network`): the global state is
``GlobalState(procs, channels)`` (a crashed process's entry is :class:`Crashed`); the
steps of each process, in process order, are ``op``, its internal steps, then ``recv``
from each source in process order (FIFO: the head; unordered: every message, named in
``detail``), each followed by ``lose`` when the source has crashed.  The history is the
generic recorder's (:func:`record_history`); the delivery logs are the actor's
``delivery_log`` (empty by default).

When internal steps fire (``internal=``):

* ``lazy`` (the default): at any time once enabled (every schedule);
* ``deferred``: for an actor whose internal steps are *deferrable*
  (``Actor.deferrable_internal``: they send nothing, and commute with every step of
  other processes and with the process's own receipts and losses).  Any run can be
  rearranged, keeping the order of dependent steps and reaching the same state, so that
  each internal step of p happens just before p's next ``op`` or crash, or at the end
  when no ``op``, ``recv`` or ``lose`` step is left anywhere: they are offered only
  while p has program left or at the end.  Crashes are deferred likewise, the other
  way: a crash of p commutes with every step of another process (messages to p are
  dropped whether sent before or after it) and with p's losses, so it is offered only
  before p's first step, and otherwise as a composite ``op+crash`` / ``recv+crash``
  step (the step, an ordered selection of p's then enabled internal steps, the crash:
  ``detail = (the step's detail, the internal steps' details)``).  The same terminal
  states as ``lazy``, through far fewer states;
* ``eager``: inside the ``op`` or ``recv`` step that enabled them, first enabled first.
  A restriction that misses runs: never a proof.

Crashes (:class:`CrashStopSystem`, at most ``crashes`` of the ``crashable``
processes): a ``crash`` step of p stops p (``on_crash`` says what it keeps), empties
the channels into p, and makes the network drop every later message to p; a message
of a crashed sender in transit may be received or lost (``lose``).  In ``lazy`` mode
crashes are offered only while some other step is enabled (a run that is over is
over).
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Generic, NamedTuple, TypeVar

from fisheye.spec.graph import ProximityGraph
from fisheye.spec.history import History, Value

from . import network as net
from .api import (
    Channel,
    CrashStop,
    MessagePassing,
    Network,
    Property,
    Step,
    SystemFault,
    SystemRequest,
    deadlock_freedom,
    model_property,
    some_complete_run,
)

L = TypeVar("L", bound=Hashable)
Sends = Sequence[tuple[str, Hashable]]
"""Messages to send: ``(destination process, message)`` pairs, in sending order."""

INTERNAL_SCHEDULES = ("lazy", "deferred", "eager")


class Actor(Generic[L]):
    """One process's handlers (see the module doc).  Subclass it and override what
    your protocol has; the defaults describe a process with no program, no internal
    step, and no history."""

    deferrable_internal: bool = False
    """The internal steps send nothing and commute with every step of other processes
    and with this process's receipts and losses (``internal="deferred"`` needs it)."""

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
        return not self.has_program(me, local)

    def has_program(self, me: str, local: L) -> bool:
        return False

    def operations(self, me: str, local: L) -> Sequence[Sequence[Any]]:
        return ()

    def delivery_log(self, me: str, local: L) -> tuple[Any, ...]:
        return ()

    def message_name(self, msg: Any) -> tuple[Any, ...]:
        return (repr(msg),)

    def message_order(self, msg: Any) -> Any:
        return self.message_name(msg)

    def ignores(self, me: str, local: L, msg: Any) -> bool:
        return False

    def on_crash(self, me: str, local: L) -> L:
        return local


class GlobalState(NamedTuple):
    """Every process's local state (:class:`Crashed` once it crashed), and the channels
    (``src * n + dst``)."""

    procs: tuple[Any, ...]
    channels: net.Channels


@dataclass(frozen=True)
class Crashed:
    """The entry of a crashed process in ``GlobalState.procs``: what it kept
    (``Actor.on_crash``)."""

    local: Any


def record_history(processes: Sequence[str], graph: ProximityGraph,
                   operations: Mapping[str, Sequence[Sequence[Any]]],
                   initial: Mapping[str, Value] | None = None) -> History:
    """The generic history recorder: the operations each process executed so far (in
    program order, history-file items) as a history on ``graph``."""
    return History.build({p: [list(o) for o in operations.get(p, ())] for p in processes},
                         processes=processes, edges=graph.edges, initial=dict(initial or {}))


def _kept(local: Any) -> Any:
    return local.local if isinstance(local, Crashed) else local


class _ActorNetwork(Generic[L]):
    """An :class:`Actor` at every process over the generic network (see the module
    doc); :class:`ActorSystem` and :class:`CrashStopSystem` declare what it is."""

    def __init__(self, actor: Actor[L], processes: Sequence[str], *, name: str,
                 graph: ProximityGraph | None = None, network: Network | str = Network.FIFO,
                 scenario: str | None = None, model: str | None = "sc",
                 properties: Sequence[Property] = (), initial: Mapping[str, Value] | None = None,
                 options: tuple[tuple[str, Any], ...] = (), internal: str = "lazy", crashes: int = 0,
                 crashable: Iterable[str] | None = None):
        cls = type(actor)
        if cls.can_invoke is not Actor.can_invoke and cls.has_program is Actor.has_program:
            raise ValueError(f"{cls.__name__} overrides can_invoke but not has_program: say whether a "
                             "process still has program operations, enabled or not (a process blocked "
                             "on an await must not count as finished)")
        self.actor = actor
        self.processes: tuple[str, ...] = tuple(processes)
        self.graph = graph if graph is not None else ProximityGraph.empty(self.processes)
        self.network = Network.parse(network)
        self.n = len(self.processes)
        self._index = {p: i for i, p in enumerate(self.processes)}
        self._initial_values = dict(initial or {})
        if internal not in INTERNAL_SCHEDULES:
            raise ValueError(f"internal steps fire {', '.join(INTERNAL_SCHEDULES)}, not {internal!r}")
        if internal == "deferred" and not actor.deferrable_internal:
            raise ValueError("internal='deferred' needs an actor whose internal steps are deferrable")
        self.internal = internal
        self.eager = internal == "eager"
        self.deferred = internal == "deferred"
        if crashes < 0:
            raise ValueError("the number of crashes must be >= 0")
        self.max_crashes = crashes
        self.crashable = frozenset(self.processes if crashable is None else crashable)
        unknown = self.crashable - set(self.processes)
        if unknown:
            raise ValueError(f"crashable names unknown processes {sorted(unknown)}")
        self.info = SystemRequest(scenario=scenario, graph=self.graph, network=self.network, crashes=crashes,
                                  options=options, system=name)
        base = (model_property(model),) if model else ()
        self._properties = (*base, *properties, deadlock_freedom(self.is_final), some_complete_run())
        self._op_steps = tuple(Step("op", p) for p in self.processes)
        self._recv_steps = tuple(tuple(Step("recv", p, q) for q in self.processes) for p in self.processes)
        self._name = actor.message_name
        self._order = actor.message_order
        self._plain = crashes == 0 and internal == "lazy"
        self._init = tuple(actor.init(p) for p in self.processes)

    # ---- the step API -------------------------------------------------------------------
    def initial(self) -> GlobalState:
        return GlobalState(self._init, net.empty_channels(self.n))

    def enabled(self, state: GlobalState) -> list[Step]:
        if self._plain:
            return self._enabled_lazy(state)
        return self._enabled(state)

    def _receipts(self, state: GlobalState, i: int, kinds_of: Sequence[tuple[str, ...]]) -> list[Step]:
        out: list[Step] = []
        n, ps, chans = self.n, self.processes, state.channels
        fifo = self.network is Network.FIFO
        p = ps[i]
        for src in range(n):
            c = chans[src * n + i]
            if not c:
                continue
            for kind in kinds_of[src]:
                if fifo:
                    out.append(self._recv_steps[i][src] if kind == "recv" else Step(kind, p, ps[src]))
                else:
                    q = ps[src]
                    out.extend(Step(kind, p, q, self._name(m)) for m in dict.fromkeys(c))
        return out

    def _enabled_lazy(self, state: GlobalState) -> list[Step]:
        steps: list[Step] = []
        actor, kinds = self.actor, (("recv",),) * self.n
        for i, local in enumerate(state.procs):
            p = self.processes[i]
            if actor.can_invoke(p, local):
                steps.append(self._op_steps[i])
            steps.extend(Step("deliver", p, None, tuple(d)) for d in actor.internal(p, local))
            steps.extend(self._receipts(state, i, kinds))
        return steps

    def _enabled(self, state: GlobalState) -> list[Step]:
        """With crashes or deferred internal steps (see the module doc)."""
        actor, ps, procs = self.actor, self.processes, state.procs
        crashed = [isinstance(local, Crashed) for local in procs]
        can_crash = sum(crashed) < self.max_crashes
        kinds = tuple(("recv", "lose") if c else ("recv",) for c in crashed)
        per: list[list[Step] | None] = []
        busy = False  # some op, recv or lose step is enabled
        for i, local in enumerate(procs):
            if crashed[i]:
                per.append(None)
                continue
            steps = [self._op_steps[i]] if actor.can_invoke(ps[i], local) else []
            steps.extend(self._receipts(state, i, kinds))
            busy = busy or bool(steps)
            per.append(steps)
        out: list[Step] = []
        for i, steps in enumerate(per):
            if steps is None:
                continue
            p, local = ps[i], procs[i]
            internal = actor.internal(p, local)
            k = 1 if steps and steps[0].kind == "op" else 0
            out.extend(steps[:k])
            if internal and (not self.deferred or not busy or actor.has_program(p, local)):
                out.extend(Step("deliver", p, None, tuple(d)) for d in internal)
            out.extend(steps[k:])
            if can_crash and self.deferred and p in self.crashable:
                out.extend(self._deferred_crashes(state, i, steps))
        if can_crash and not self.deferred and out:  # a run that is over has no crash left
            out.extend(Step("crash", p) for p, c in zip(ps, crashed, strict=True)
                       if not c and p in self.crashable)
        return out

    def _deferred_crashes(self, state: GlobalState, i: int, steps: list[Step]) -> list[Step]:
        """Deferred mode: p crashes before doing anything (``crash``), or right after one of
        its ``op``/``recv`` steps ``t``, having taken an ordered selection of its then
        enabled internal steps (``t.kind + "+crash"``, ``detail = (t.detail, selection)``)."""
        p = self.processes[i]
        out = [Step("crash", p)] if state.procs[i] == self._init[i] else []
        for t in steps:
            if t.kind not in ("op", "recv"):
                continue
            after = self.apply(state, t).procs[i]
            for burst in ((), *self._selections(p, after)):
                out.append(Step(t.kind + "+crash", p, t.src, (t.detail, burst)))
        return out

    def _selections(self, p: str, local: L) -> list[tuple[tuple[Any, ...], ...]]:
        """Every non-empty ordered selection of internal steps of ``p`` from ``local``
        (each enabled after the previous ones), shortest first, in the order of
        ``Actor.internal``."""
        out: list[tuple[tuple[Any, ...], ...]] = []
        level: list[tuple[tuple[tuple[Any, ...], ...], L]] = [((), local)]
        while level:
            nxt = []
            for seq, loc in level:
                for d in self.actor.internal(p, loc):
                    loc2, _ = self.actor.on_internal(p, loc, tuple(d))
                    nxt.append(((*seq, tuple(d)), loc2))
            out.extend(seq for seq, _ in nxt)
            level = nxt
        return out

    def apply(self, state: GlobalState, step: Step) -> GlobalState:
        i = self._index.get(step.process)
        if i is None:
            raise ValueError(f"step {step}: unknown process {step.process!r}")
        p, actor, chans, kind = step.process, self.actor, state.channels, step.kind
        local = state.procs[i]
        if isinstance(local, Crashed):
            raise ValueError(f"{step}: {p} has crashed")
        if kind == "crash":
            return self._crash(state, i, step.detail)
        if kind in ("op+crash", "recv+crash"):
            inner = Step(kind[:-6], p, step.src, tuple(step.detail[0]))
            return self._crash(self.apply(state, inner), i, tuple(step.detail[1]))
        if kind in ("recv", "lose"):
            src = self._index.get(step.src or "")
            if src is None:
                raise ValueError(f"step {step}: unknown source {step.src!r}")
            chans, msg = net.take(chans, self.n, src, i, self.network, step.detail, self._name)
            if kind == "lose":
                if not isinstance(state.procs[src], Crashed):
                    raise ValueError(f"step {step}: {step.src} has not crashed")
                return GlobalState(state.procs, chans)
            local, sends = actor.on_receive(p, local, step.src or "", msg)
        elif kind == "op":
            if not actor.can_invoke(p, local):
                raise ValueError(f"step {step} is not enabled")
            local, sends = actor.on_invoke(p, local)
        elif kind == "deliver":
            local, sends = self._internal(p, local, tuple(step.detail), step)
        else:
            raise ValueError(f"unknown step kind {step.kind!r}")
        if self.eager:
            sends = list(sends)
            while internal := actor.internal(p, local):
                local, more = actor.on_internal(p, local, tuple(internal[0]))
                sends.extend(more)
        return self._install(state.procs, chans, i, local, sends)

    def _internal(self, p: str, local: L, detail: tuple[Any, ...], step: Step | None = None
                  ) -> tuple[L, Sends]:
        if detail not in {tuple(d) for d in self.actor.internal(p, local)}:
            raise ValueError(f"step {step or Step('deliver', p, None, detail)} is not enabled")
        return self.actor.on_internal(p, local, detail)

    def _install(self, procs: tuple[Any, ...], chans: net.Channels, i: int, local: L, sends: Sends
                 ) -> GlobalState:
        """Install ``local`` as process ``i``'s state and put ``sends`` on the network;
        drop the messages to a crashed process, and those the destination ignores
        (``Actor.ignores``), both those just sent and those in transit to ``i``."""
        actor, n, p = self.actor, self.n, self.processes[i]
        procs = procs[:i] + (local,) + procs[i + 1:]
        for j in range(n):
            c = chans[j * n + i]
            if c and any(actor.ignores(p, local, m) for m in c):
                chans = chans[:j * n + i] + (tuple(m for m in c if not actor.ignores(p, local, m)),) \
                    + chans[j * n + i + 1:]
        out = []
        for dst, m in sends:
            j = self._index.get(dst)
            if j is None or j == i:
                raise ValueError(f"{p} sends to {dst!r}: not another process of the system")
            if isinstance(procs[j], Crashed) or actor.ignores(dst, procs[j], m):
                continue
            out.append((j, m))
        chans = net.send_all(chans, n, i, out, self.network, self._name, self._order)
        if self.network is Network.UNORDERED:
            for j in dict.fromkeys(j for j, _ in out):
                self._unique_names(i, j, chans[i * n + j])
        return GlobalState(procs, chans)

    def _unique_names(self, i: int, j: int, channel: tuple[Any, ...]) -> None:
        """Two different messages in flight on one unordered channel must have different
        names (a receipt names the message it takes): else :class:`SystemFault`."""
        seen: dict[Any, Any] = {}
        for m in channel:
            name = self._name(m)
            other = seen.setdefault(name, m)
            if other != m:
                raise SystemFault(f"two different messages in flight from {self.processes[i]} to "
                                  f"{self.processes[j]} have the same message_name {name!r}: {other!r} "
                                  f"and {m!r} (a receipt could not tell them apart)")

    def _crash(self, state: GlobalState, i: int, selection: tuple[Any, ...] = ()) -> GlobalState:
        p = self.processes[i]
        if p not in self.crashable:
            raise ValueError(f"crash of {p}: it is not crashable")
        if sum(isinstance(local, Crashed) for local in state.procs) >= self.max_crashes:
            raise ValueError(f"crash of {p}: at most {self.max_crashes} crashes")
        local = state.procs[i]
        for detail in selection:  # deferred internal steps, just before the crash
            local, sends = self._internal(p, local, tuple(detail))
            if sends:
                raise ValueError(f"crash of {p}: a deferred internal step sends messages")
        dead = Crashed(self.actor.on_crash(p, local))
        procs = state.procs[:i] + (dead,) + state.procs[i + 1:]
        n = self.n
        chans = tuple(() if k % n == i else c for k, c in enumerate(state.channels))
        return GlobalState(procs, chans)

    def is_final(self, state: GlobalState) -> bool:
        """No message in transit, and every process crashed or finished: no program
        left (``has_program``) and done (``is_done``)."""
        actor = self.actor
        return not any(state.channels) and all(
            isinstance(local, Crashed) or (not actor.has_program(p, local) and actor.is_done(p, local))
            for p, local in zip(self.processes, state.procs, strict=True))

    def crashed(self, state: GlobalState) -> frozenset[str]:
        """The processes that have crashed."""
        return frozenset(p for p, local in zip(self.processes, state.procs, strict=True)
                         if isinstance(local, Crashed))

    # ---- the recorder and the network ------------------------------------------------------
    def history(self, state: GlobalState) -> History:
        pairs = zip(self.processes, state.procs, strict=True)
        ops = {p: self.actor.operations(p, _kept(local)) for p, local in pairs}
        return record_history(self.processes, self.graph, ops, self._initial_values)

    def delivery_logs(self, state: GlobalState) -> dict[str, tuple[Any, ...]]:
        pairs = zip(self.processes, state.procs, strict=True)
        return {p: self.actor.delivery_log(p, _kept(local)) for p, local in pairs}

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


class ActorSystem(_ActorNetwork[L], MessagePassing[GlobalState]):
    """An :class:`Actor` at every process, over the generic network: a system whose
    processes never crash.

    ``name`` is the registry name (``SystemRequest.system``); ``scenario`` and
    ``options`` identify the configuration (what the factory needs to rebuild it);
    ``properties``: the protocol's own properties (a model check of every complete
    history against ``model``, deadlock freedom and some complete run are added);
    ``internal``: when internal steps fire (see the module doc)."""

    def __init__(self, actor: Actor[L], processes: Sequence[str], *, name: str,
                 graph: ProximityGraph | None = None, network: Network | str = Network.FIFO,
                 scenario: str | None = None, model: str | None = "sc",
                 properties: Sequence[Property] = (), initial: Mapping[str, Value] | None = None,
                 options: tuple[tuple[str, Any], ...] = (), internal: str = "lazy"):
        super().__init__(actor, processes, name=name, graph=graph, network=network, scenario=scenario,
                         model=model, properties=properties, initial=initial, options=options,
                         internal=internal)


class CrashStopSystem(_ActorNetwork[L], CrashStop[GlobalState]):
    """An :class:`Actor` at every process, over the generic network, with at most
    ``crashes`` crashes among the ``crashable`` processes (default: all); the other
    arguments are :class:`ActorSystem`'s."""

    @property
    def independent_crashes(self) -> bool:
        """Each crashable process may crash once whatever the others do (the budget
        covers them all): then crashes of different processes commute."""
        return self.max_crashes >= len(self.crashable)

    def may_crash(self, state: GlobalState, q: str) -> bool:
        """q is alive, crashable, and the budget is not spent."""
        procs = state.procs
        return (q in self.crashable and not isinstance(procs[self._index[q]], Crashed)
                and sum(isinstance(local, Crashed) for local in procs) < self.max_crashes)
