"""Localized causal broadcast over uniform reliable broadcast, with crash faults.

The algorithm is the one of S. Volodin's *Localized causal broadcast* note,
transcribed line by line in :func:`lcb_broadcast` and :func:`lcb_urb_deliver`::

    upon Init:       V-send := [0]^N; V-recv := [0]^N; lsn := 0; pending := ∅
    upon lcrb-Broadcast(m):
                     W := V-send; W[rank(self)] := lsn; lsn := lsn + 1
                     urb-Broadcast(self, (DATA, W, m))
    upon urb-Deliver(p, (DATA, W, m)):
                     pending := pending ∪ {(p, W, m)}
                     while exists (p', W', m') ∈ pending such that W' ≤ V-recv do
                         pending := pending \\ {(p', W', m')}
                         V-recv[rank(p')] := V-recv[rank(p')] + 1
                         if p' ∈ locality(self) then V-send[rank(p')] := V-send[rank(p')] + 1
                         lcrb-Deliver(p', m')

Each process has its own locality set (possibly asymmetric: the note defines locality per process).  The
``while`` loop runs inside one event handler, so it is atomic here; when several
entries qualify at once it takes the one with the smallest sender rank, then the smallest
``W'`` (a fixed choice, named: other choices are not explored).

One process is an :class:`~fisheye.impl.actors.Actor` (:class:`LcbProcess`): a program
on top of the broadcast (:class:`BroadcastApp`: each process broadcasts a list of
messages; :class:`MemoryApp`: Algorithm 2 of the 2015 text, :mod:`fisheye.impl.registers`,
over this broadcast instead of the G-fisheye broadcast of Algorithm 1), over the
localized causal broadcast, over majority-ack URB (:mod:`fisheye.impl.urb`).
:class:`LcbSystem` puts it at every process of the generic network with crash-stop
processes (:class:`fisheye.impl.actors.CrashStopSystem`).

Steps (``Step.kind``):

* ``op``: the process's next program action (a broadcast; for Algorithm 2 a read, or a
  write, which then blocks the process until its own WRITE is delivered, line 4);
* ``recv`` (``src``): the head of the channel ``src -> process`` is beb-delivered to the
  URB layer (with ``network="unordered"`` any message of the channel, named in ``detail``);
* ``deliver`` (``detail = (origin, payload)``): the URB ``candeliver`` rule fires for
  that message, which then runs the localized causal broadcast's handler above;
* ``crash``: the process crashes (at most ``crashes`` per run).  A crashed process takes
  no more steps; messages *to* it are discarded (it will never receive them).  In the
  default ``deferred`` mode crashes come as ``op+crash`` / ``recv+crash`` composite steps
  (see :class:`LcbSystem`);
* ``lose`` (``src``): a message of a crashed sender in the channel ``src -> process`` is
  lost.  Reliable links guarantee nothing for messages of a sender that crashes
  ("messages it sent before crashing *may* still arrive"): each such message is either
  received (``recv``) or lost (``lose``).  This also covers a crash in the middle of a
  best-effort broadcast, which the atomic send-to-all of a step would otherwise hide.

A run ends when no step is enabled (:meth:`LcbSystem.is_final`): then every correct
process has finished its program or is blocked, every message to a correct process has
been received or (sent by a crashed process) lost, and no URB delivery is pending.
Crashes are offered only while some other step is enabled: a run that is over is over
(a crash after the end would change nothing but who counts as correct), so a complete run
may have fewer than F crashes.
Validity and agreement are judged at such states, for correct processes
(:func:`check_run`, with :mod:`fisheye.spec.lcurb`).
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from functools import cached_property
from typing import Any

from fisheye.spec import lcurb
from fisheye.spec.graph import ProximityGraph
from fisheye.spec.history import DEFAULT_INITIAL, History, Value

from . import programs, registers, urb
from .actors import Actor, Crashed, CrashStopSystem, GlobalState, record_history
from .api import (
    ExplorationView,
    Network,
    Property,
    SystemRequest,
)
from .programs import SCENARIOS as ALL_SCENARIOS
from .programs import Operation, Program, Scenario
from .properties import broadcast_properties
from .urb import Data, UrbState

# ---- the localized causal broadcast, one process ----------------------------------------

Entry = tuple[str, tuple[int, ...], Any]
"""A pending entry ``(p', W', m')``."""


@dataclass(frozen=True)
class LcbLocal:
    v_send: tuple[int, ...]
    v_recv: tuple[int, ...]
    lsn: int = 0
    pending: frozenset[Entry] = frozenset()

    @cached_property
    def _hash(self) -> int:
        return hash((self.v_send, self.v_recv, self.lsn, self.pending))

    def __hash__(self) -> int:  # cached: states are hashed many times by explorers
        return self._hash

    @staticmethod
    def init(n: int) -> LcbLocal:
        """``upon Init``."""
        return LcbLocal((0,) * n, (0,) * n)


def lcb_broadcast(st: LcbLocal, rank: int, m: Any) -> tuple[LcbLocal, tuple[tuple[int, ...], Any]]:
    """``upon lcrb-Broadcast(m)``: returns the new state and the URB payload ``(W, m)``."""
    w = list(st.v_send)
    w[rank] = st.lsn
    return replace(st, lsn=st.lsn + 1), (tuple(w), m)


def _leq(a: Sequence[int], b: Sequence[int]) -> bool:
    return all(x <= y for x, y in zip(a, b, strict=True))


def lcb_urb_deliver(st: LcbLocal, ranks: Mapping[str, int], locality: frozenset[str], p: str,
                    payload: tuple[tuple[int, ...], Any]) -> tuple[LcbLocal, tuple[tuple[str, Any], ...]]:
    """``upon urb-Deliver(p, (DATA, W, m))``: returns the new state and the lcrb
    deliveries ``(p', m')`` in order."""
    w, m = payload
    pending = set(st.pending) | {(p, w, m)}
    v_send, v_recv = list(st.v_send), list(st.v_recv)
    out: list[tuple[str, Any]] = []
    while True:
        ready = [e for e in pending if _leq(e[1], v_recv)]
        if not ready:
            break
        e = min(ready, key=lambda e: (ranks[e[0]], e[1], repr(e[2])))
        pending.discard(e)
        p2, _, m2 = e
        v_recv[ranks[p2]] += 1
        if p2 in locality:
            v_send[ranks[p2]] += 1
        out.append((p2, m2))
    return LcbLocal(tuple(v_send), tuple(v_recv), st.lsn, frozenset(pending)), tuple(out)


# ---- programs on top of the broadcast ---------------------------------------------------


@dataclass(frozen=True)
class BroadcastApp:
    """Each process broadcasts its messages, in order, whenever it is scheduled.  The
    application state is the number of messages broadcast so far."""

    programs: Mapping[str, tuple[Any, ...]]
    kind = "broadcast"

    def initial(self, p: str) -> Hashable:
        return 0

    def can_step(self, a: Any, p: str) -> bool:
        return a < len(self.programs.get(p, ()))

    def has_more(self, a: Any, p: str) -> bool:
        return a < len(self.programs.get(p, ()))

    def step(self, a: Any, p: str) -> tuple[Any, Any | None]:
        return a + 1, self.programs[p][a]

    def on_deliver(self, a: Any, p: str, sender: str, m: Any) -> Any:
        return a

    def operations(self, a: Any, p: str) -> list[list[Any]]:
        """No register operation: the history is empty."""
        return []

    @property
    def initial_values(self) -> Mapping[str, Value]:
        return {}


@dataclass(frozen=True)
class MemoryApp:
    """Algorithm 2 of the 2015 text (fast reads, :mod:`fisheye.impl.registers`) over the
    localized causal broadcast instead of the G-fisheye broadcast of Algorithm 1.

    Application state: Algorithm 2's :class:`~fisheye.impl.registers.RegState`.
    ``write(X, v)`` broadcasts ``WRITE(X, v)`` (line 2) as the message ``(X, v, pc)``
    (the operation's index makes it unique per process, as the broadcast identifies a
    message by its sender and content) and waits for its own delivery (lines 3-4);
    ``read(X)`` returns the local copy at once (line 7); a delivery sets the copy (line
    10) and ends the wait of its sender (line 11)."""

    program: Program
    kind = "memory"

    @cached_property
    def _index(self) -> dict[str, int]:
        return {p: i for i, p in enumerate(self.program.processes)}

    @cached_property
    def _regs(self) -> dict[str, int]:
        return {r: k for k, r in enumerate(self.program.registers)}

    def _ops(self, p: str) -> tuple[Operation, ...]:
        return self.program.ops[self._index[p]]

    def initial(self, p: str) -> Hashable:
        init = dict(self.program.initial)
        return registers.initial_state(tuple(init.get(r, DEFAULT_INITIAL) for r in self.program.registers))

    def can_step(self, a: Any, p: str) -> bool:
        return registers.next_enabled(self._ops(p), self._regs, a)

    def has_more(self, a: Any, p: str) -> bool:
        return a.pc < len(self._ops(p))

    def step(self, a: Any, p: str) -> tuple[Any, Any | None]:
        st, payload = registers.invoke(self._ops(p), self._regs, a)
        return st, None if payload is None else (*payload, a.pc)

    def on_deliver(self, a: Any, p: str, sender: str, m: Any) -> Any:
        x, v, _ = m
        return registers.on_deliver(self._regs, a, (x, v), sender == p)

    def operations(self, a: Any, p: str) -> list[list[Any]]:
        """The recorder (:func:`fisheye.impl.registers.operations`)."""
        return registers.operations(self._ops(p), a.pc, a.results)

    @property
    def initial_values(self) -> Mapping[str, Value]:
        return dict(self.program.initial)


App = BroadcastApp | MemoryApp

# ---- one process: the program, the broadcast, URB -------------------------------------------


@dataclass(frozen=True)
class LcbProc:
    """One process's local state: its URB state, its localized causal broadcast state,
    its program's state, and its delivery log (:mod:`fisheye.spec.lcurb` events)."""

    urb: UrbState
    lcb: LcbLocal
    app: Any
    log: tuple[lcurb.Event, ...] = ()

    @cached_property
    def _hash(self) -> int:
        return hash((self.urb, self.lcb, self.app, self.log))

    def __hash__(self) -> int:  # cached: states are hashed many times by explorers
        return self._hash


class LcbProcess(Actor[LcbProc]):
    """The program, the localized causal broadcast and majority-ack URB at one process.

    Invocation: the program's next action; a broadcast runs ``lcrb-Broadcast``, then
    ``urb-Broadcast`` (which beb-broadcasts to the others).  Receipt: URB's
    ``beb-Deliver`` (acknowledge, relay the first time).  Internal steps: URB's
    ``candeliver`` rule, one per message a majority acknowledged (detail: its key
    ``(origin, payload)``), then ``urb-Deliver``: the handler of :func:`lcb_urb_deliver`
    and the program's deliveries.  These are *deferrable*: a delivery at p touches only
    p's state and sends nothing, so it commutes with every step of other processes and
    with p's receipts and losses.  A copy of a message that p already relayed and a
    majority acknowledged is ignored (:func:`fisheye.impl.urb.is_dead`).  A crashed
    process keeps its program state and delivery log (its URB and broadcast state can
    no longer matter)."""

    deferrable_internal = True

    def __init__(self, processes: Sequence[str], locality: Mapping[str, frozenset[str]], app: App):
        self.processes = tuple(processes)
        self.ranks = {p: i for i, p in enumerate(self.processes)}
        self.locality = locality
        self.app = app
        self.n = len(self.processes)

    def init(self, me: str) -> LcbProc:
        """``upon Init`` of both layers, and the program's initial state."""
        return LcbProc(UrbState(), LcbLocal.init(self.n), self.app.initial(me))

    def can_invoke(self, me: str, local: LcbProc) -> bool:
        return self.app.can_step(local.app, me)

    def has_program(self, me: str, local: LcbProc) -> bool:
        return self.app.has_more(local.app, me)

    def is_done(self, me: str, local: LcbProc) -> bool:
        return not self.app.has_more(local.app, me) and not local.urb.ready

    def on_invoke(self, me: str, local: LcbProc) -> tuple[LcbProc, urb.Sends]:
        app, m = self.app.step(local.app, me)
        if m is None:
            return LcbProc(local.urb, local.lcb, app, local.log), ()
        lcb, payload = lcb_broadcast(local.lcb, self.ranks[me], m)
        u, sends = urb.broadcast(local.urb, me, self.processes, payload)
        return LcbProc(u, lcb, app, local.log + (lcurb.broadcast_event(m),)), sends

    def on_receive(self, me: str, local: LcbProc, src: str, msg: Data) -> tuple[LcbProc, urb.Sends]:
        u, sends = urb.receive(local.urb, me, self.processes, src, msg)
        return LcbProc(u, local.lcb, local.app, local.log), sends

    def internal(self, me: str, local: LcbProc) -> tuple[urb.Key, ...]:
        return urb.deliverable(local.urb)

    def on_internal(self, me: str, local: LcbProc, detail: tuple[Any, ...]) -> tuple[LcbProc, urb.Sends]:
        """The URB ``candeliver`` rule fires for ``detail``, then the broadcast's handler."""
        key = (detail[0], detail[1])
        u = urb.deliver(local.urb, key)
        lcb, delivered = lcb_urb_deliver(local.lcb, self.ranks, self.locality[me], key[0], key[1])
        app, log = local.app, local.log
        for sender, m in delivered:
            app = self.app.on_deliver(app, me, sender, m)
            log = log + (lcurb.deliver_event(sender, m),)
        return LcbProc(u, lcb, app, log), ()

    def ignores(self, me: str, local: LcbProc, msg: Data) -> bool:
        return urb.is_dead(local.urb, msg.key)

    def on_crash(self, me: str, local: LcbProc) -> LcbProc:
        return LcbProc(UrbState(), LcbLocal.init(self.n), local.app, local.log)

    def operations(self, me: str, local: LcbProc) -> list[list[Any]]:
        return self.app.operations(local.app, me)

    def delivery_log(self, me: str, local: LcbProc) -> tuple[lcurb.Event, ...]:
        return local.log

    def message_name(self, msg: Data) -> tuple[Any, ...]:
        return (msg.origin, msg.payload)

    def message_order(self, msg: Data) -> str:
        return repr(msg)


# ---- the system -----------------------------------------------------------------------------

URB_DELIVERY = ("deferred", "lazy", "eager")


class LcbSystem(CrashStopSystem[LcbProc]):
    """The localized causal broadcast over majority-ack URB at every process, with at
    most ``crashes`` crashes among ``crashable`` (default: all).

    ``urb_delivery`` says when the URB ``candeliver`` rule (an internal step) may fire
    (:mod:`fisheye.impl.actors`, ``internal``):

    * ``lazy``: at any time once enabled (the algorithm's semantics, every schedule);
    * ``deferred`` (the default): the same runs up to the order of independent steps.
      A ``deliver`` step of p touches only p's own state (and discards copies that were
      already dead at p), so it commutes with every step of other processes and with p's
      receipts and losses; deliveries are offered only while p has program left or at
      the end, crashes only before p's first step or as ``op+crash`` / ``recv+crash``
      steps that deliver an ordered selection of p's ready messages first.  It reaches
      exactly the lazy system's terminal states (hence the same delivery logs,
      histories and verdicts) through far fewer states; the tests compare them;
    * ``eager``: the rule fires inside the step that enabled it.  A *restriction*: it
      misses runs (e.g. a process that holds a deliverable message while it receives
      another); kept only to explore larger configurations, never as a proof.

    ``graph`` is the graph of mutual locality (p - q iff each is in the other's
    locality, :func:`mutual_locality_graph`).  Exploring each set of at most F
    processes with exactly those crashable, and taking
    the union, gives the runs with at most F crashes without a crash budget shared by
    all (then crashes are independent: :class:`fisheye.impl.api.CrashStop`)."""

    def __init__(self, processes: Sequence[str], locality: Mapping[str, Iterable[str]], app: App, *,
                 crashes: int = 0, network: Network | str = Network.FIFO, urb_delivery: str = "deferred",
                 name: str = "lcb", crashable: Iterable[str] | None = None):
        processes = tuple(processes)
        known = set(processes)
        self.locality = {p: frozenset(locality.get(p, ())) for p in processes}
        for p, qs in self.locality.items():
            if not qs <= known:
                raise ValueError(f"locality of {p} names unknown processes {sorted(qs - known)}")
        if urb_delivery not in URB_DELIVERY:
            raise ValueError(f"urb_delivery must be one of {', '.join(URB_DELIVERY)}, not {urb_delivery!r}")
        self.urb_delivery = urb_delivery
        self.app = app
        self.name = name
        graph = mutual_locality_graph(processes, self.locality)
        super().__init__(LcbProcess(processes, self.locality, app), processes, name="lcb", graph=graph,
                         network=network, scenario=name, model=None, internal=urb_delivery,
                         crashes=crashes, crashable=crashable)
        self.ranks = dict(self._index)
        loc = tuple(sorted((p, tuple(sorted(qs))) for p, qs in self.locality.items()))
        self.info = SystemRequest(scenario=name, graph=self.graph, network=self.network, variant="published",
                                  crashes=crashes, system="lcb",
                                  options=(("locality", loc), ("urb_delivery", urb_delivery)))
        self.add_properties(*self._lcurb_properties())

    def _lcurb_properties(self) -> tuple[Property, ...]:
        """LCURB1-LCURB5 (always, on the delivery logs; LCURB1 and LCURB4 judged at the
        end of a run); deadlock freedom and some complete run follow them."""
        return broadcast_properties(self, lcurb.PROPERTIES)

    def explored_as(self, reduction: str, prune_deviations: bool) -> ExplorationView:
        """:class:`~fisheye.impl.api.ExploredAs`: no transition model is known for this
        system, so ``auto`` is the full search (the process-level reduction, which
        assumes the locality lemma of docs/por.md, only when asked)."""
        return ExplorationView(self, "none" if reduction == "auto" else reduction)

    def may_send(self, state: GlobalState, q: str, p: str) -> bool:
        """An over-approximation of "q may still append a message to the channel q -> p":
        q is alive and either some live process still has program left (a broadcast, which
        q would relay), or a message in transit to q carries a key q has not seen yet (q
        relays a message the first time it receives it, ``receive`` in URB)."""
        procs = state.procs
        qi = self.ranks[q]
        pr = procs[qi]
        if isinstance(pr, Crashed) or isinstance(procs[self.ranks[p]], Crashed):
            return False
        for r, other in zip(self.processes, procs, strict=True):
            if not isinstance(other, Crashed) and self.app.has_more(other.app, r):
                return True
        n = self.n
        return any(d.key not in pr.urb.pending for j in range(n) for d in state.channels[j * n + qi])

    def is_final(self, state: GlobalState) -> bool:
        """A run ends when no step is enabled (see the module docstring)."""
        return not self.enabled(state)

    def history(self, state: GlobalState) -> History:
        """The register operations of the program (none for :class:`BroadcastApp`), as a
        history without a graph: the localities are not a proximity graph, and a check
        names the graph it judges with."""
        ops = {p: self.actor.operations(p, local.local if isinstance(local, Crashed) else local)
               for p, local in zip(self.processes, state.procs, strict=True)}
        return record_history(self.processes, ProximityGraph.empty(self.processes), ops,
                              self.app.initial_values)

    def broadcast_violations(self, state: GlobalState, *, complete: bool | None = None
                             ) -> list[lcurb.Violation]:
        """LCURB1–LCURB5 on ``state`` (the explorer's hook; validity and agreement are
        judged only when ``complete``, by default when no step is enabled)."""
        run = self.run(state)
        if complete is not None and complete != run.complete:
            run = replace(run, complete=complete)
        return lcurb.check(run)

    def run(self, state: GlobalState) -> lcurb.BroadcastRun:
        """The delivery logs of ``state`` as a run for :mod:`fisheye.spec.lcurb`."""
        return lcurb.make_run(self.processes, self.locality, self.delivery_logs(state),
                              self.crashed(state), complete=self.is_final(state))


def mutual_locality_graph(processes: Sequence[str], locality: Mapping[str, frozenset[str]]) -> ProximityGraph:
    """p - q iff q ∈ locality(p) and p ∈ locality(q)."""
    edges = [(p, q) for a, p in enumerate(processes) for q in processes[a + 1:]
             if q in locality.get(p, ()) and p in locality.get(q, ())]
    return ProximityGraph.of(processes, edges)


def check_run(system: LcbSystem, state: GlobalState) -> list[lcurb.Violation]:
    """LCURB1–LCURB5 on the delivery logs of ``state`` (validity and agreement only if
    the run has ended: no step enabled)."""
    return lcurb.check(system.run(state))


def check_state(system: LcbSystem, state: GlobalState) -> list[lcurb.Violation]:
    """The safety properties (LCURB2, 3, 5), to check in every reachable state."""
    return lcurb.check_safety(system.run(state))


# ---- scenarios ------------------------------------------------------------------------------

SCENARIOS: dict[str, Scenario] = {n: s for n, s in ALL_SCENARIOS.items() if s.system == "lcb"}
"""The scenarios of the localized broadcast (:data:`fisheye.impl.programs.SCENARIOS`)."""


def app_of(s: Scenario) -> App:
    """The program on top of the broadcast: the scenario's broadcasts, or Algorithm 2."""
    if s.broadcasts:
        return BroadcastApp(dict(s.broadcasts))
    return MemoryApp(s.program)


def lcb_factory(request: SystemRequest) -> LcbSystem:
    """The registry's ``lcb``: a named scenario of :data:`SCENARIOS`, or Algorithm 2 running
    a program (text form, :func:`fisheye.impl.programs.parse_program`) with every process in
    every other's locality.  Option ``locality`` (pairs (process, [processes])) replaces
    the default locality; option ``urb_delivery`` (one of :data:`URB_DELIVERY`) says when
    the URB ``candeliver`` rule fires."""
    if request.level != "protocol":
        raise ValueError("the localized broadcast exists at the protocol level only")
    if request.variant not in (None, "published") or request.mutant not in (None, "none"):
        raise ValueError("the localized broadcast has no variant or mutant")
    opts = dict(request.options)
    unknown = set(opts) - {"locality", "urb_delivery"}
    if unknown:
        raise ValueError(f"lcb takes no option {sorted(unknown)[0]!r}")
    loc = opts.get("locality")
    locality = None if loc is None else {p: tuple(qs) for p, qs in loc}
    urb_delivery = opts.get("urb_delivery", "deferred")
    text = request.scenario or ""
    if text not in SCENARIOS and ":" in text:
        program = programs.parse_program(text)
        ps = program.processes
        system = LcbSystem(ps, locality or {p: [q for q in ps if q != p] for p in ps}, MemoryApp(program),
                           crashes=request.crashes, network=request.network, urb_delivery=urb_delivery,
                           name=str(program))
    else:
        system = make_lcb_system(text, crashes=request.crashes, network=request.network, locality=locality,
                                 urb_delivery=urb_delivery)
    g = request.graph
    if (isinstance(g, ProximityGraph) and g.edge_set != system.graph.edge_set) or \
            (isinstance(g, str) and g != "paper"):
        raise ValueError("the graph of the localized broadcast is its graph of mutual locality "
                         "(set by the localities, not by --graph)")
    return system


def make_lcb_system(scenario: str, *, crashes: int, locality: Mapping[str, Iterable[str]] | None = None,
                    network: Network | str = "fifo", urb_delivery: str = "deferred") -> LcbSystem:
    """The system of a named scenario (:data:`SCENARIOS`), with at most ``crashes``
    crashes, the scenario's default locality unless ``locality`` is given."""
    s = programs.scenario(scenario, "lcb")
    loc = dict(s.locality) if locality is None else locality
    return LcbSystem(s.processes, loc, app_of(s), crashes=crashes, network=network, urb_delivery=urb_delivery,
                     name=s.name)
