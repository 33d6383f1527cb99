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

:class:`LcbSystem` implements :class:`fisheye.impl.api.System` for a program on top of
the broadcast (:class:`BroadcastApp`: each process broadcasts a list of messages;
:class:`MemoryApp`: Algorithm 2 of the 2015 text over this broadcast instead of the
G-fisheye broadcast of Algorithm 1).

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
from itertools import permutations
from typing import Any

from fisheye.spec import lcurb
from fisheye.spec.graph import ProximityGraph
from fisheye.spec.history import DEFAULT_INITIAL, History

from . import network as net
from . import programs, registers, urb
from .api import (
    Channel,
    Expectation,
    Network,
    Property,
    PropertyKind,
    Step,
    SystemInfo,
    SystemRequest,
    deadlock_freedom,
    some_complete_run,
)
from .programs import SCENARIOS as ALL_SCENARIOS
from .programs import Operation, Program, Scenario
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

    def history(self, processes: Sequence[str], apps: Sequence[Any]) -> History:
        return History.build({p: [] for p in processes}, processes=processes)


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

    def history(self, processes: Sequence[str], apps: Sequence[Any]) -> History:
        ops = {p: registers.operations(self._ops(p), a.pc, a.results)
               for p, a in zip(processes, apps, strict=True)}
        return History.build(ops, processes=processes, initial=dict(self.program.initial) or None)


App = BroadcastApp | MemoryApp

# ---- the system -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Proc:
    urb: UrbState
    lcb: LcbLocal
    app: Any
    log: tuple[lcurb.Event, ...] = ()
    crashed: bool = False

    @cached_property
    def _hash(self) -> int:
        return hash((self.urb, self.lcb, self.app, self.log, self.crashed))

    def __hash__(self) -> int:  # cached: states are hashed many times by explorers
        return self._hash


@dataclass(frozen=True)
class LcbState:
    """``chans[i * n + j]``: the messages in transit from process ``i`` to process ``j``
    (in sending order with FIFO channels, sorted with unordered ones)."""

    procs: tuple[Proc, ...]
    chans: tuple[tuple[Data, ...], ...]
    crashes: int = 0

    @cached_property
    def _hash(self) -> int:
        return hash((self.procs, self.chans, self.crashes))

    def __hash__(self) -> int:  # cached: states are hashed many times by explorers
        return self._hash


def _msg_id(d: Data) -> tuple[Any, ...]:
    return (d.origin, d.payload)


URB_DELIVERY = ("deferred", "lazy", "eager")


class LcbSystem:
    """The localized causal broadcast over majority-ack URB, as a step-API system.

    ``urb_delivery`` says when the URB ``candeliver`` rule (an internal step) may fire:

    * ``lazy``: at any time once enabled (the algorithm's semantics, every schedule);
    * ``deferred`` (the default): the same runs up to the order of independent steps.
      A ``deliver`` step of p touches only p's own state (and discards copies that were
      already dead at p), so it commutes with every step of other processes and with p's
      receipts and losses; it does not commute with p's own ``op``, ``crash`` or other
      ``deliver`` steps.  Any lazy run can therefore be rearranged, keeping the order of
      those dependent steps and reaching the *same* state, so that each of p's deliveries
      happens just before p's next ``op`` or ``crash``, or at the end, when no ``op``,
      ``recv`` or ``lose`` step is left.  ``deferred`` offers ``deliver`` steps only while
      p has program left or at the end, and lets a ``crash`` step deliver any ordered
      selection of p's ready messages first (``detail``); it reaches exactly the lazy
      system's terminal states (hence the same delivery logs, histories and verdicts)
      through far fewer states.  Crashes are deferred likewise, in the other direction:
      a crash of p commutes with every step of another process (messages to p are
      discarded whether they are sent before or after it) and with p's losses, so it can
      be moved back to just after p's last ``op`` or ``recv`` step and the deliveries
      that followed it.  ``deferred`` therefore offers ``crash`` only before p's first
      step, and otherwise the composite steps ``op+crash`` / ``recv+crash`` (the step,
      then an ordered selection of p's ready messages delivered, then the crash; ``detail
      = (the step's detail, the delivered keys)``).  The tests compare the terminal sets
      of ``lazy`` and ``deferred``;
    * ``eager``: the rule fires inside the step that enabled it.  A *restriction*: it
      misses runs (e.g. a process that holds a deliverable message while it receives
      another); kept only to explore larger configurations, never as a proof.
    """

    def __init__(self, processes: Sequence[str], locality: Mapping[str, Iterable[str]], app: App, *,
                 crashes: int = 0, network: Network | str = Network.FIFO, urb_delivery: str = "deferred",
                 name: str = "lcb", crashable: Iterable[str] | None = None):
        self.processes = tuple(processes)
        known = set(self.processes)
        self.locality = {p: frozenset(locality.get(p, ())) for p in self.processes}
        for p, qs in self.locality.items():
            if not qs <= known:
                raise ValueError(f"locality of {p} names unknown processes {sorted(qs - known)}")
        if crashes < 0:
            raise ValueError("the number of crashes must be >= 0")
        self.app = app
        self.max_crashes = crashes
        # ``crashable``: the processes allowed to crash (default: all).  Exploring each
        # set of at most F processes with exactly those crashable, and taking the union,
        # gives the runs with at most F crashes, without the crash budget shared by all.
        self.crashable = frozenset(self.processes if crashable is None else crashable)
        if not self.crashable <= known:
            raise ValueError(f"crashable names unknown processes {sorted(self.crashable - known)}")
        self.network = Network(network)
        if urb_delivery not in URB_DELIVERY:
            raise ValueError(f"urb_delivery must be one of {', '.join(URB_DELIVERY)}, not {urb_delivery!r}")
        self.urb_delivery = urb_delivery
        self.eager = urb_delivery == "eager"
        self.deferred = urb_delivery == "deferred"
        self.name = name
        self.n = len(self.processes)
        self.ranks = {p: i for i, p in enumerate(self.processes)}
        self._initial_procs = tuple(Proc(UrbState(), LcbLocal.init(self.n), app.initial(p))
                                    for p in self.processes)
        self.graph: ProximityGraph = mutual_locality_graph(self.processes, self.locality)
        loc = tuple(sorted((p, tuple(sorted(qs))) for p, qs in self.locality.items()))
        self.info = SystemInfo("lcb", name, self.network, self.graph, variant="published", crashes=crashes,
                               options=(("locality", loc), ("urb_delivery", urb_delivery)))

    # -- derived descriptions (``graph``: the graph of mutual locality, p - q iff each
    # is in the other's locality) --
    def describe(self) -> dict[str, Any]:
        """What the explorer's report says about the system."""
        return {"scenario": self.name, "algorithm": "lcb", "variant": "published", "mutant": None,
                "network": self.network.value, "crashes": self.max_crashes, "urb_delivery": self.urb_delivery,
                "locality": {p: sorted(qs) for p, qs in self.locality.items()},
                "graph": self.graph.to_json()}

    def properties(self) -> tuple[Property, ...]:
        """LCURB1-LCURB5 (always, on the delivery logs; LCURB1 and LCURB4 judged at the
        end of a run), deadlock freedom, and some complete run."""
        def prop(name: str) -> Property:
            def check(state: LcbState, complete: bool) -> str | None:
                found = [v for v in self.broadcast_violations(state, complete=complete) if v.prop == name]
                return str(found[0]) if found else None
            return Property(name, Expectation.ALWAYS, PropertyKind.BROADCAST, check)
        return (*(prop(name) for name in lcurb.PROPERTIES), deadlock_freedom(self.is_final),
                some_complete_run())

    def in_transit(self, state: LcbState) -> dict[Channel, tuple[Data, ...]]:
        """The URB messages in transit, per non-empty channel (src, dst)."""
        return net.in_transit(state.chans, self.processes)

    # -- System protocol --
    def initial(self) -> LcbState:
        return LcbState(self._initial_procs, ((),) * (self.n * self.n))

    def enabled(self, state: LcbState) -> list[Step]:
        """Steps in process order; per process: ``op``, ``deliver``, ``recv``/``lose``
        (by sender), ``crash``.  With ``urb_delivery="deferred"`` a ``deliver`` step of
        ``p`` is offered only while ``p`` has program left or when no ``op``, ``recv`` or
        ``lose`` step is enabled anywhere, and a crash may deliver some ready messages
        first (``detail``: their keys, in order); see :class:`LcbSystem`."""
        n, ps = self.n, self.processes
        can_crash = state.crashes < self.max_crashes
        per: list[tuple[list[Step], bool]] = []
        busy = False  # some op, recv or lose step is enabled
        for i, p in enumerate(ps):
            pr = state.procs[i]
            steps: list[Step] = []
            if pr.crashed:
                per.append((steps, False))
                continue
            if self.app.can_step(pr.app, p):
                steps.append(Step("op", p))
            for j, src in enumerate(ps):
                chan = state.chans[j * n + i]
                if not chan:
                    continue
                kinds = ("recv", "lose") if state.procs[j].crashed else ("recv",)
                for kind in kinds:
                    if self.network is Network.FIFO:
                        steps.append(Step(kind, p, src))
                    else:
                        steps.extend(Step(kind, p, src, _msg_id(d)) for d in dict.fromkeys(chan))
            busy = busy or bool(steps)
            per.append((steps, not self.deferred or self.app.has_more(pr.app, p)))
        out: list[Step] = []
        for i, (steps, may_deliver) in enumerate(per):
            pr, p = state.procs[i], ps[i]
            if pr.crashed:
                continue
            ready = urb.deliverable(pr.urb)
            k = 1 if steps and steps[0].kind == "op" else 0
            out.extend(steps[:k])
            if ready and (may_deliver or not busy):
                out.extend(Step("deliver", p, None, key) for key in ready)
            out.extend(steps[k:])
            if can_crash and self.deferred and p in self.crashable:
                out.extend(self._crash_steps(state, i, steps))
        if can_crash and not self.deferred and out:  # a run that is over has no crash left
            out.extend(Step("crash", p) for p, pr in zip(ps, state.procs, strict=True)
                       if not pr.crashed and p in self.crashable)
        return out

    def may_send(self, state: LcbState, q: str, p: str) -> bool:
        """An over-approximation of "q may still append a message to the channel q -> p":
        q is alive and either some live process still has program left (a broadcast, which
        q would relay), or a message in transit to q carries a key q has not seen yet (q
        relays a message the first time it receives it, ``receive`` in URB)."""
        qi = self.ranks[q]
        pr = state.procs[qi]
        if pr.crashed or state.procs[self.ranks[p]].crashed:
            return False
        for r, other in zip(self.processes, state.procs, strict=True):
            if not other.crashed and self.app.has_more(other.app, r):
                return True
        n = self.n
        return any(d.key not in pr.urb.pending for j in range(n) for d in state.chans[j * n + qi])

    def _crash_steps(self, state: LcbState, i: int, steps: list[Step]) -> list[Step]:
        """Deferred mode: p crashes before doing anything (``crash``), or right after one of
        its ``op``/``recv`` steps ``t``, having delivered an ordered selection of its ready
        messages (``t.kind + "+crash"``, ``detail = (t.detail, burst)``)."""
        p = self.processes[i]
        out = [Step("crash", p)] if state.procs[i] == self._initial_procs[i] else []
        for t in steps:
            if t.kind not in ("op", "recv"):
                continue
            after = self.apply(state, t).procs[i]
            for burst in ((),) + tuple(_bursts(urb.deliverable(after.urb))):
                out.append(Step(t.kind + "+crash", p, t.src, (t.detail, burst)))
        return out

    def apply(self, state: LcbState, step: Step) -> LcbState:
        i = self.ranks[step.process]
        pr = state.procs[i]
        if pr.crashed:
            raise ValueError(f"{step}: {step.process} has crashed")
        if step.kind == "crash":
            return self._crash(state, i, step.detail)
        if step.kind in ("op+crash", "recv+crash"):
            base = Step(step.kind[:-6], step.process, step.src, step.detail[0])
            return self._crash(self.apply(state, base), i, step.detail[1])
        if step.kind in ("recv", "lose"):
            j = self.ranks[step.src]
            chans, msg = self._take(state.chans, j, i, step)
            state = LcbState(state.procs, chans, state.crashes)
            if step.kind == "lose":
                return state
            u, sends = urb.receive(pr.urb, step.process, self.processes, step.src, msg)
            return self._after(state, i, self._eager(Proc(u, pr.lcb, pr.app, pr.log), step.process), sends)
        if step.kind == "deliver":
            key = (step.detail[0], step.detail[1])
            if key not in pr.urb.ready:
                raise ValueError(f"{step}: not deliverable")
            return self._after(state, i, self._deliver(pr, step.process, key), ())
        if step.kind == "op":
            app, m = self.app.step(pr.app, step.process)
            if m is None:
                return self._after(state, i, Proc(pr.urb, pr.lcb, app, pr.log), ())
            lcb, payload = lcb_broadcast(pr.lcb, i, m)
            u, sends = urb.broadcast(pr.urb, step.process, self.processes, payload)
            pr = self._eager(Proc(u, lcb, app, pr.log + (lcurb.broadcast_event(m),)), step.process)
            return self._after(state, i, pr, sends)
        raise ValueError(f"unknown step kind {step.kind!r}")

    def _deliver(self, pr: Proc, p: str, key: urb.Key) -> Proc:
        """The URB ``candeliver`` rule fires for ``key``, then the broadcast's handler."""
        u = urb.deliver(pr.urb, key)
        lcb, delivered = lcb_urb_deliver(pr.lcb, self.ranks, self.locality[p], key[0], key[1])
        app, log = pr.app, pr.log
        for sender, m in delivered:
            app = self.app.on_deliver(app, p, sender, m)
            log = log + (lcurb.deliver_event(sender, m),)
        return Proc(u, lcb, app, log)

    def _eager(self, pr: Proc, p: str) -> Proc:
        """With ``urb_delivery="eager"``, the ``candeliver`` rule fires at once, inside
        the step that enabled it."""
        if self.eager:
            for key in urb.deliverable(pr.urb):
                pr = self._deliver(pr, p, key)
        return pr

    def is_final(self, state: LcbState) -> bool:
        """A run ends when no step is enabled (see the module docstring)."""
        return not self.enabled(state)

    def history(self, state: LcbState) -> History:
        return self.app.history(self.processes, [pr.app for pr in state.procs])

    def delivery_logs(self, state: LcbState) -> dict[str, tuple[lcurb.Event, ...]]:
        return {p: pr.log for p, pr in zip(self.processes, state.procs, strict=True)}

    def broadcast_violations(self, state: LcbState, *, complete: bool | None = None) -> list[lcurb.Violation]:
        """LCURB1–LCURB5 on ``state`` (the explorer's hook; validity and agreement are
        judged only when ``complete``, by default when no step is enabled)."""
        run = self.run(state)
        if complete is not None and complete != run.complete:
            run = replace(run, complete=complete)
        return lcurb.check(run)

    def crashed(self, state: LcbState) -> frozenset[str]:
        return frozenset(p for p, pr in zip(self.processes, state.procs, strict=True) if pr.crashed)

    def run(self, state: LcbState) -> lcurb.BroadcastRun:
        """The delivery logs of ``state`` as a run for :mod:`fisheye.spec.lcurb`."""
        return lcurb.make_run(self.processes, self.locality, self.delivery_logs(state),
                              self.crashed(state), complete=self.is_final(state))

    # -- internals --
    def _take(self, chans: tuple[tuple[Data, ...], ...], j: int, i: int, step: Step
              ) -> tuple[tuple[tuple[Data, ...], ...], Data]:
        try:
            return net.take(chans, self.n, j, i, self.network, step.detail, _msg_id)
        except ValueError:
            raise ValueError(f"{step}: no such message in the channel") from None

    def _after(self, state: LcbState, i: int, pr: Proc, sends: urb.Sends) -> LcbState:
        """Install ``pr`` as process ``i``'s new state and put ``sends`` on the network.

        Reduction (exact): copies of a message that are *dead* at their destination
        (:func:`fisheye.impl.urb.is_dead`: receiving them would only empty the channel)
        are discarded, both those just sent and those already in transit to ``i``."""
        n = self.n
        procs = state.procs[:i] + (pr,) + state.procs[i + 1:]
        chans = list(state.chans)
        u = pr.urb
        if u.ready or u.delivered:
            for j in range(n):
                c = chans[j * n + i]
                if c and any(urb.is_dead(u, d.key) for d in c):
                    chans[j * n + i] = tuple(d for d in c if not urb.is_dead(u, d.key))
        # a crashed process never receives anything; a dead copy is a no-op
        live = [(j, msg) for j, msg in ((self.ranks[dst], msg) for dst, msg in sends)
                if not procs[j].crashed and not urb.is_dead(procs[j].urb, msg.key)]
        chans_out = net.send_all(tuple(chans), n, i, live, self.network, _msg_id, repr)
        return LcbState(procs, chans_out, state.crashes)

    def _crash(self, state: LcbState, i: int, burst: tuple[Any, ...] = ()) -> LcbState:
        if state.crashes >= self.max_crashes:
            raise ValueError(f"crash of {self.processes[i]}: at most {self.max_crashes} crashes")
        pr = state.procs[i]
        for key in burst:  # deferred deliveries, just before the crash
            key = (key[0], key[1])
            if key not in pr.urb.ready:
                raise ValueError(f"crash of {self.processes[i]}: {key!r} is not deliverable")
            pr = self._deliver(pr, self.processes[i], key)
        # Normalise: a crashed process's URB and broadcast state can no longer matter.
        dead = Proc(UrbState(), LcbLocal.init(self.n), pr.app, pr.log, crashed=True)
        procs = state.procs[:i] + (dead,) + state.procs[i + 1:]
        chans = tuple(() if k % self.n == i else c for k, c in enumerate(state.chans))
        return LcbState(procs, chans, state.crashes + 1)


def crashes_in(schedule: Iterable[Step]) -> int:
    """The number of crashes a schedule performs (``crash`` and ``...+crash`` steps)."""
    return sum(1 for s in schedule if s.kind == "crash" or s.kind.endswith("+crash"))


def _bursts(ready: Sequence[Any]) -> list[tuple[Any, ...]]:
    """Every non-empty ordered selection of ``ready`` (deliveries just before a crash)."""
    return [perm for r in range(1, len(ready) + 1) for perm in permutations(ready, r)]


def mutual_locality_graph(processes: Sequence[str], locality: Mapping[str, frozenset[str]]) -> ProximityGraph:
    """p - q iff q ∈ locality(p) and p ∈ locality(q)."""
    edges = [(p, q) for a, p in enumerate(processes) for q in processes[a + 1:]
             if q in locality.get(p, ()) and p in locality.get(q, ())]
    return ProximityGraph.of(processes, edges)


def check_run(system: LcbSystem, state: LcbState) -> list[lcurb.Violation]:
    """LCURB1–LCURB5 on the delivery logs of ``state`` (validity and agreement only if
    the run has ended: no step enabled)."""
    return lcurb.check(system.run(state))


def check_state(system: LcbSystem, state: LcbState) -> list[lcurb.Violation]:
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
    """The registry's ``lcb``: a named scenario of :data:`SCENARIOS`; option
    ``locality`` (pairs (process, [processes])) replaces the scenario's default."""
    if request.level != "protocol":
        raise ValueError("the localized broadcast exists at the protocol level only")
    if request.variant not in (None, "published") or request.mutant not in (None, "none"):
        raise ValueError("the localized broadcast has no variant or mutant")
    opts = dict(request.options)
    unknown = set(opts) - {"locality", "urb_delivery"}
    if unknown:
        raise ValueError(f"lcb takes no option {sorted(unknown)[0]!r}")
    if opts.get("urb_delivery", "deferred") != "deferred":
        raise ValueError("lcb files replay with urb_delivery deferred only")
    loc = opts.get("locality")
    system = make_lcb_system(request.scenario or "", crashes=request.crashes, network=request.network,
                             locality=None if loc is None else {p: tuple(qs) for p, qs in loc})
    g = request.graph
    if (isinstance(g, ProximityGraph) and g.edge_set != system.graph.edge_set) or \
            (isinstance(g, str) and g != "paper"):
        raise ValueError("the graph of the localized broadcast is its graph of mutual locality "
                         "(set by the localities, not by --graph)")
    return system


def make_lcb_system(scenario: str, *, crashes: int, locality: Mapping[str, Iterable[str]] | None = None,
                    network: Network | str = "fifo") -> LcbSystem:
    """The system of a named scenario (:data:`SCENARIOS`), with at most ``crashes``
    crashes, the scenario's default locality unless ``locality`` is given."""
    s = programs.scenario(scenario, "lcb")
    loc = dict(s.locality) if locality is None else locality
    return LcbSystem(s.processes, loc, app_of(s), crashes=crashes, network=network, name=s.name)
