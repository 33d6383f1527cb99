"""The global system: Algorithm 2 over Algorithm 1 at every process, over an explicit
network, as a state machine implementing :class:`fisheye.impl.api.System`.

Global state (immutable, hashable, canonical): ``GlobalState(procs, channels)`` where
``procs[i] = ProcState(toco, reg, log)`` holds p_i's Algorithm 1 variables
(:class:`~fisheye.impl.toco.TocoState`), Algorithm 2 variables
(:class:`~fisheye.impl.registers.RegState`) and delivery log (events
``(0, sender, seq)`` broadcast / ``(1, sender, seq)`` deliver), and ``channels`` the
messages in transit (:mod:`fisheye.impl.network`).

Steps (:class:`fisheye.impl.api.Step`), listed by :meth:`TocoSystem.enabled` process by
process (in the order of ``processes``), for each process: ``op`` (its next program
operation, when enabled: not waiting for its own write, and for an await, the local
copy holds the value), ``deliver`` (one iteration of the background task, when
T2 ≠ ∅), then ``recv`` from each source in process order (fifo: the head; unordered:
every message, named in ``detail``).

A write is one ``op`` step (invocation: Algorithm 2 line 2 = Algorithm 1 lines 1-6);
it returns when its own message is delivered (Algorithm 2 line 11), which re-enables
the process's next ``op``.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from fisheye.spec import broadcast as bspec
from fisheye.spec.graph import ProximityGraph, parse_graph_option
from fisheye.spec.history import DEFAULT_INITIAL, History, Value

from . import network as net
from . import registers, toco
from .abstract import AbstractSystem
from .actors import Actor
from .api import (
    Channel,
    ExplorationView,
    MessagePassing,
    Network,
    Property,
    Step,
    SystemRequest,
    deadlock_freedom,
    model_property,
    some_complete_run,
)
from .api import logs_as_json as logs_as_json  # re-exported: the commands import it from here
from .broadcast_monitor import MonitorSpec
from .programs import SCENARIOS, Program, Read, Scenario, Write, parse_program, scenario
from .properties import broadcast_properties
from .protocol_state import GlobalState, ProcState
from .toco import TOCOBC, Msg, Mutant, TocoConfig, TocoState, Variant, Wire, wire_id

ALGORITHM = "toco"
_MISSING = object()
_CACHE_MAX = 1 << 17
B, D = 0, 1  # log event kinds: broadcast, deliver


class TocoSystem(MessagePassing["GlobalState"]):
    """Algorithms 1 and 2 for ``program`` on proximity graph ``graph``."""

    def __init__(self, program: Program, graph: ProximityGraph, *, network: Network = Network.FIFO,
                 variant: Variant = Variant.CORRECTED, mutant: Mutant | None = None,
                 scenario: str | None = None, condition_reads: bool = False, monitors: bool | None = None):
        if graph.processes != program.processes:
            graph = ProximityGraph.of(program.processes, graph.edges)
        self.program = program
        self.graph = graph
        self.network = Network(network)
        self.variant = Variant(variant)
        self.mutant = mutant
        self.processes: tuple[str, ...] = program.processes
        # monitors: the explored view judges the broadcast by online monitors instead of
        # keeping the delivery logs (None: not asked, off and not recorded)
        self.monitors = bool(monitors)
        options = () if monitors is None else (("monitors", bool(monitors)),)
        self.info = SystemRequest(scenario=scenario or str(program), graph=graph, network=self.network,
                                  variant=self.variant, mutant=mutant, system=ALGORITHM, options=options)
        self.read_names: tuple[str, ...] = program.read_names
        n = self.n = len(program.processes)
        self._index = {p: i for i, p in enumerate(self.processes)}
        nb = tuple(tuple(self._index[q] for q in graph.neighbours(p)) for p in self.processes)
        self._cfgs = tuple(TocoConfig(
            me=i, n=n, neighbours=nb, variant=self.variant,
            key=toco.ts_opposite if (mutant is Mutant.OPPOSITE_TIE_BREAK and i == 0) else toco.ts_paper,
            catch_up=mutant is not Mutant.NO_CATCH_UP,
            use_t1=mutant is not Mutant.NO_T1,
            use_t2=mutant is not Mutant.NO_T2) for i in range(n))
        self._wait = mutant is not Mutant.WRITE_RETURNS_EARLY
        # the runs of a figure only: a read with the figure's value waits for it
        self.condition_reads = condition_reads and any(
            isinstance(op, Read) and op.expect is not None for o in program.ops for op in o)
        self.registers = program.registers
        self._reg_index = {r: k for k, r in enumerate(self.registers)}
        # per process: its writes (register, value) in order; from each pc, its
        # conditioning reads still to run (register index, figure's value)
        self._writes = tuple(tuple((op.register, op.value) for op in o if isinstance(op, Write))
                             for o in program.ops)
        self._conditions_from = tuple(
            tuple(tuple((self._reg_index[op.register], op.register, op.expect) for op in o[pc:]
                        if isinstance(op, Read) and op.expect is not None)
                  for pc in range(len(o) + 1)) for o in program.ops)
        init = dict(program.initial)
        self._copies0: tuple[Value, ...] = tuple(init.get(r, DEFAULT_INITIAL) for r in self.registers)
        self._ops = program.ops
        self._op_steps = tuple(Step("op", p) for p in self.processes)
        self._deliver_steps = tuple(Step("deliver", p) for p in self.processes)
        self._recv_steps = tuple(tuple(Step("recv", p, q) for q in self.processes) for p in self.processes)
        self._select_cache: dict[tuple[int, TocoState], Msg | None] = {}
        self._last_write = tuple(max((pc for pc, op in enumerate(o) if isinstance(op, Write)), default=-1)
                                 for o in program.ops)

    def __getstate__(self) -> dict[str, Any]:
        state = dict(self.__dict__)
        state["_select_cache"] = {}  # do not ship the memo (e.g. to Spark workers)
        return state

    def explored_as(self, reduction: str, prune_deviations: bool) -> ExplorationView:
        """:class:`~fisheye.impl.api.ExploredAs`: the reads with a figure's value
        conditioned when runs that deviate are pruned, and unless ``reduction`` is
        ``none`` (the full search, every raw step) Algorithm 1's dead-clock quotient
        (:class:`fisheye.impl.toco_quotient.ProtocolSystem`) with this system's own
        ``may_send`` for the process-level persistent sets, and with ``monitors`` the
        broadcast judged by online monitors (:mod:`fisheye.impl.broadcast_monitor`)."""
        raw = self
        if prune_deviations != self.condition_reads:
            raw = TocoSystem(self.program, self.graph, network=self.network, variant=self.variant,
                             mutant=self.mutant, scenario=self.info.scenario_name,
                             condition_reads=prune_deviations,
                             monitors=dict(self.info.options).get("monitors"))
        if reduction == "none":
            if self.monitors:
                raise ValueError("--option monitors=true needs a reduction (the full search keeps the logs)")
            return ExplorationView(raw, "none")
        from .toco_quotient import ProtocolSystem

        return ExplorationView(ProtocolSystem(raw, monitors=self.monitors), reduction, raw.may_send)

    def _select(self, i: int, tstate: TocoState) -> Msg | None:
        """Line 26's choice at p_i, memoised (``enabled`` and ``apply`` both need it;
        a plain bounded dict, so the system stays picklable)."""
        cache = self._select_cache
        key = (i, tstate)
        m = cache.get(key, _MISSING)
        if m is _MISSING:
            if len(cache) >= _CACHE_MAX:
                cache.clear()
            m = cache[key] = toco.select(self._cfgs[i], tstate)
        return m  # type: ignore[return-value]

    # ---- the step API -------------------------------------------------------------------
    def initial(self) -> GlobalState:
        ps = ProcState(toco.initial_state(self.n), registers.initial_state(self._copies0), ())
        return GlobalState((ps,) * self.n, net.empty_channels(self.n))

    def enabled(self, state: GlobalState) -> list[Step]:
        steps: list[Step] = []
        n, ops, ri, network, chans = self.n, self._ops, self._reg_index, self.network, state.channels
        fifo = network is Network.FIFO
        cond = self.condition_reads
        for i, ps in enumerate(state.procs):
            if registers.next_enabled(ops[i], ri, ps.reg, cond):
                steps.append(self._op_steps[i])
            if ps.toco.pending and self._select(i, ps.toco) is not None:
                steps.append(self._deliver_steps[i])
            for src in range(n):
                c = chans[src * n + i]
                if not c:
                    continue
                if fifo:
                    steps.append(self._recv_steps[i][src])
                else:
                    p, q = self.processes[i], self.processes[src]
                    steps.extend(Step("recv", p, q, wire_id(w)) for w in c)
        return steps

    def apply(self, state: GlobalState, step: Step) -> GlobalState:
        i = self._index[step.process]
        procs, chans = state.procs, state.channels
        kind = step.kind
        if kind == "op":
            ps, sends = self.invoke_at(i, procs[i], step)
        elif kind == "deliver":
            ps, sends = self.deliver_at(i, procs[i], step), ()
        elif kind == "recv":
            src = self._index[step.src] if step.src is not None else -1
            chans, w = net.take(chans, self.n, src, i, self.network, step.detail, wire_id)
            ps, sends = self.receive_at(i, procs[i], src, w)
        else:
            raise ValueError(f"unknown step kind {step.kind!r}")
        if sends:
            chans = net.send_all(chans, self.n, i, sends, self.network, wire_id)
        return GlobalState(procs[:i] + (ps,) + procs[i + 1:], chans)

    # ---- one process's handlers (the per-process API of impl/actors.py, by index) ----------
    def invoke_at(self, i: int, ps: ProcState, step: Step | None = None
                  ) -> tuple[ProcState, tuple[tuple[int, Wire], ...]]:
        """p_i invokes its next operation: Algorithm 2 lines 1-3 or 6-7; a write
        toco-broadcasts (Algorithm 1 lines 1-6)."""
        if not registers.next_enabled(self._ops[i], self._reg_index, ps.reg, self.condition_reads):
            raise ValueError(f"step {step or Step('op', self.processes[i])} is not enabled")
        reg, payload = registers.invoke(self._ops[i], self._reg_index, ps.reg, wait=self._wait)
        if payload is None:
            return ProcState(ps.toco, reg, ps.log), ()
        tstate, m, sends = toco.toco_broadcast(self._cfgs[i], ps.toco, payload)
        return ProcState(tstate, reg, ps.log + ((B, i, m.seq),)), sends

    def deliver_at(self, i: int, ps: ProcState, step: Step | None = None) -> ProcState:
        """One iteration of p_i's background task (Algorithm 1 lines 18-31) and the
        delivery to Algorithm 2 (lines 9-12)."""
        m0 = self._select(i, ps.toco) if ps.toco.pending else None
        if m0 is None:
            raise ValueError(f"step {step or Step('deliver', self.processes[i])} is not enabled")
        tstate = toco.deliver(self._cfgs[i], ps.toco, m0)
        reg = registers.on_deliver(self._reg_index, ps.reg, m0.payload, m0.sender == i)
        return ProcState(tstate, reg, ps.log + ((D, m0.sender, m0.seq),))

    def receive_at(self, i: int, ps: ProcState, src: int, w: Wire
                   ) -> tuple[ProcState, tuple[tuple[int, Wire], ...]]:
        """p_i receives ``w`` from p_src (Algorithm 1 lines 7-14 or 15-17)."""
        kind, body = w
        if kind == TOCOBC:
            tstate, sends = toco.on_tocobc(self._cfgs[i], ps.toco, body)
            return ProcState(tstate, ps.reg, ps.log), sends
        return ProcState(toco.on_catch_up(self._cfgs[i], ps.toco, src, body), ps.reg, ps.log), ()

    def delivers_at(self, i: int, ps: ProcState) -> bool:
        """Whether p_i's background task can deliver a message now."""
        return bool(ps.toco.pending) and self._select(i, ps.toco) is not None

    def done_at(self, i: int, ps: ProcState) -> bool:
        return registers.done(self._ops[i], ps.reg) and not ps.toco.pending

    def actor(self) -> TocoProcess:
        """Algorithms 1 and 2 at one process, as an :class:`~fisheye.impl.actors.Actor`:
        ``ActorSystem(system.actor(), ...)`` is this very system, step for step (a test
        compares them on every reachable state); :meth:`enabled` and :meth:`apply` are
        the same composition of these handlers, fused for speed."""
        return TocoProcess(self)

    def is_final(self, state: GlobalState) -> bool:
        return all(self.done_at(i, ps) for i, ps in enumerate(state.procs)) and not any(state.channels)

    def is_deadlock(self, state: GlobalState) -> bool:
        return not self.is_final(state) and not self.enabled(state)

    # ---- the recorder ---------------------------------------------------------------------
    def history(self, state: GlobalState) -> History:
        """The register history of the run so far (the history-file format, with the graph):
        the operations invoked so far, reads with the values they returned."""
        data = {p: registers.operations(ops, ps.reg.pc, ps.reg.results)
                for p, ops, ps in zip(self.processes, self._ops, state.procs, strict=True)}
        return History.build(data, processes=self.processes, edges=self.graph.edges,
                             initial=dict(self.program.initial))

    def delivery_logs(self, state: GlobalState) -> dict[str, tuple[bspec.Event, ...]]:
        names = self.processes
        return {names[i]: tuple(bspec.Event(bspec.BROADCAST if k == B else bspec.DELIVER,
                                            bspec.MsgId(names[s], q)) for k, s, q in ps.log)
                for i, ps in enumerate(state.procs)}

    def broadcast_violations(self, state: GlobalState, *, complete: bool | None = None
                             ) -> list[bspec.BroadcastViolation]:
        """The section 4.1 properties on the run's delivery logs (termination only on
        a final state, unless ``complete`` says otherwise)."""
        if complete is None:
            complete = self.is_final(state)
        return bspec.check(self.delivery_logs(state), self.graph, complete=complete)

    def _executed_reads(self, state: GlobalState):
        """The (Read, returned value) pairs of the reads executed so far (awaits excluded)."""
        for ops, ps in zip(self._ops, state.procs, strict=True):
            results = iter(ps.reg.results)
            for op in ops[:ps.reg.pc]:
                if isinstance(op, Write):
                    continue
                v = next(results)
                if isinstance(op, Read):
                    yield op, v

    def outcome(self, state: GlobalState) -> dict[str, Value]:
        """The values returned by the named reads executed so far."""
        return {op.name: v for op, v in self._executed_reads(state) if op.name}

    def blocked_by_condition(self, state: GlobalState) -> bool:
        """With ``condition_reads``, on a state with no enabled step: whether a process
        waits at a read for the figure's value, which it can no longer get (without the
        condition the read would run and return another value: the run deviates)."""
        if not self.condition_reads:
            return False
        ops, ri = self._ops, self._reg_index
        return any(registers.next_enabled(ops[i], ri, ps.reg)
                   and not registers.next_enabled(ops[i], ri, ps.reg, True)
                   for i, ps in enumerate(state.procs))

    def matches_expected(self, state: GlobalState) -> bool:
        """Whether every executed read with a figure value (``Read.expect``) returned it
        (fig6: the runs whose other reads return the values of Figure 6).  With
        ``condition_reads`` no read deviates; instead a run stops matching once a
        conditioning read still to run can no longer return its value (:meth:`_doomed`)."""
        if self.condition_reads:
            return not self._doomed(state)
        return all(op.expect is None or v == op.expect for op, v in self._executed_reads(state))

    def _doomed(self, state: GlobalState) -> bool:
        """Whether some conditioning read still to run at p_i can never return its
        figure's value v on X: p_i's copy of X is not v and no write of v to X remains
        that p_i has not delivered (Algorithm 2, lines 9-10 are the only writes of a
        copy; p_j's messages are delivered in sequence order, from ``causal_i[j]`` on,
        Algorithm 1 line 21; p_i's own from the first still pending or not yet sent).
        Once true, true in every extension: the writes still to deliver only shrink."""
        writes = self._writes
        for i, ps in enumerate(state.procs):
            conds = self._conditions_from[i][ps.reg.pc]
            if not conds:
                continue
            t = ps.toco
            copies = ps.reg.copies
            for k, reg, v in conds:
                if copies[k] == v:
                    continue
                for j in range(self.n):
                    if j == i:
                        start = t.sent - sum(1 for m in t.pending if m.sender == i)
                    else:
                        start = t.causal[j]
                    if (reg, v) in writes[j][start:]:
                        break
                else:
                    return True
        return False

    def messages(self, state: GlobalState) -> dict[tuple[str, int], Msg]:
        """Every message broadcast so far, by (sender, seq) (for explanations)."""
        out: dict[tuple[str, int], Msg] = {}
        for ps in state.procs:
            for m in ps.toco.pending:
                out[(self.processes[m.sender], m.seq)] = m
        for c in state.channels:
            for kind, body in c:
                if kind == TOCOBC:
                    out[(self.processes[body.sender], body.seq)] = body
        return out

    def describe(self) -> dict[str, Any]:
        return self.info.describe()

    def monitor_spec(self) -> MonitorSpec:
        """The broadcast monitor's messages: each process's writes, in program order
        (the ``seq``-th write of p_j is its message ``seq``, Algorithm 2 line 2)."""
        return MonitorSpec.of(self.processes, [len(w) for w in self._writes], self.graph)

    # ---- properties and the network ------------------------------------------------------
    def properties(self) -> tuple[Property, ...]:
        """Theorem 2: every complete history is G-fisheye (SC,CC)-consistent; the
        section 4.1 properties of the broadcast (Theorem 1 and Lemmas 1-4); deadlock
        freedom and some complete run."""
        return self.properties_judged_by(self)

    def properties_judged_by(self, view: Any) -> tuple[Property, ...]:
        """:meth:`properties`, each judged on the states of ``view`` (this system, or
        an explored view of it whose states keep the broadcast's judgement their own
        way: :meth:`broadcast_violations`, ``is_final``)."""
        return (model_property("fisheye"), *broadcast_properties(view), deadlock_freedom(view.is_final),
                some_complete_run())

    def in_transit(self, state: GlobalState) -> dict[Channel, tuple[Any, ...]]:
        """The protocol messages in transit, per non-empty channel (src, dst)."""
        return net.in_transit(state.channels, self.processes)

    def may_send(self, state: GlobalState, q: str, p: str) -> bool:
        """Whether q may still append a message to the channel q -> p: q sends TOCOBC
        only when it invokes a write (Algorithm 1 line 3), and CATCH_UP only on the
        receipt of a TOCOBC (line 12), which needs a TOCOBC in transit to q or a write
        still to be invoked by another process (an over-approximation)."""
        n, qi = self.n, self._index[q]
        procs, last = state.procs, self._last_write
        if procs[qi].reg.pc <= last[qi]:
            return True
        for r in range(n):
            if r != qi and procs[r].reg.pc <= last[r]:
                return True
            if r != qi and any(w[0] == TOCOBC for w in state.channels[r * n + qi]):
                return True
        return False


class TocoProcess(Actor[ProcState]):
    """Algorithm 2 over Algorithm 1 at one process: the handlers of a
    :class:`TocoSystem` by process name (see :meth:`TocoSystem.actor`)."""

    def __init__(self, system: TocoSystem):
        self.system = system
        self._index = system._index
        self._names = system.processes

    def init(self, me: str) -> ProcState:
        return self.system.initial().procs[self._index[me]]

    def can_invoke(self, me: str, local: ProcState) -> bool:
        s = self.system
        i = self._index[me]
        return registers.next_enabled(s._ops[i], s._reg_index, local.reg, s.condition_reads)

    def _named(self, sends: tuple[tuple[int, Wire], ...]) -> tuple[tuple[str, Wire], ...]:
        return tuple((self._names[j], w) for j, w in sends)

    def on_invoke(self, me: str, local: ProcState) -> tuple[ProcState, tuple[tuple[str, Wire], ...]]:
        ps, sends = self.system.invoke_at(self._index[me], local)
        return ps, self._named(sends)

    def internal(self, me: str, local: ProcState) -> tuple[tuple[Any, ...], ...]:
        return ((),) if self.system.delivers_at(self._index[me], local) else ()

    def on_internal(self, me: str, local: ProcState, detail: tuple[Any, ...]
                    ) -> tuple[ProcState, tuple[tuple[str, Wire], ...]]:
        return self.system.deliver_at(self._index[me], local), ()

    def on_receive(self, me: str, local: ProcState, src: str, msg: Any
                   ) -> tuple[ProcState, tuple[tuple[str, Wire], ...]]:
        ps, sends = self.system.receive_at(self._index[me], local, self._index[src], msg)
        return ps, self._named(sends)

    def has_program(self, me: str, local: ProcState) -> bool:
        return not registers.done(self.system._ops[self._index[me]], local.reg)

    def is_done(self, me: str, local: ProcState) -> bool:
        return self.system.done_at(self._index[me], local)

    def operations(self, me: str, local: ProcState) -> list[list[Any]]:
        return registers.operations(self.system._ops[self._index[me]], local.reg.pc, local.reg.results)

    def delivery_log(self, me: str, local: ProcState) -> tuple[bspec.Event, ...]:
        names = self._names
        return tuple(bspec.Event(bspec.BROADCAST if k == B else bspec.DELIVER, bspec.MsgId(names[s], q))
                     for k, s, q in local.log)

    def message_name(self, msg: Any) -> tuple[Any, ...]:
        return wire_id(msg)


def resolve_program(scenario_or_program: str | Scenario | Program) -> tuple[Program, Scenario | None]:
    """A scenario (object or name), a program, or a program in text form."""
    if isinstance(scenario_or_program, Scenario):
        return scenario_or_program.program, scenario_or_program
    if isinstance(scenario_or_program, Program):
        return scenario_or_program, None
    if scenario_or_program in SCENARIOS:
        sc = scenario(scenario_or_program)
        return sc.program, sc
    if ":" in scenario_or_program:
        return parse_program(scenario_or_program), None
    scenario(scenario_or_program)  # raises the "unknown scenario" error
    raise AssertionError("unreachable")


def make_system(scenario_or_program: str | Scenario | Program,
                graph: str | ProximityGraph | Iterable[tuple[str, str]] | None = None, *,
                network: str | Network = "fifo", variant: str | Variant = "corrected",
                mutant: str | Mutant | None = None, condition_reads: bool = False,
                monitors: bool | None = None) -> TocoSystem:
    """The factory the CLI, the explorer and the tests use.

    ``graph``: a :class:`ProximityGraph`, a list of edges, or the contract's GRAPH text
    (``paper`` -- the default for a scenario --, ``empty`` -- the default for a bare
    program --, ``complete``, ``p:q,r:s``); ``monitors``: explore with the broadcast
    judged by online monitors (:meth:`TocoSystem.explored_as`; None: not asked, off)."""
    program, sc = resolve_program(scenario_or_program)
    ps = program.processes
    if graph is None:
        graph = "paper" if sc is not None else "empty"
    if isinstance(graph, str):
        if graph.strip() == "file":
            raise ValueError("--graph file names a history file's graph; a scenario's graphs are "
                             "paper, empty, complete or p:q,r:s")
        g = parse_graph_option(graph, ps, paper=sc.paper_edges if sc else None)
    elif isinstance(graph, ProximityGraph):
        g = graph
    else:
        g = ProximityGraph.of(ps, graph)
    try:
        net_ = Network(network)
    except ValueError:
        raise ValueError(f"unknown network {network!r} (expected fifo or unordered)") from None
    return TocoSystem(program, g, network=net_, variant=toco.parse_variant(variant),
                      mutant=toco.parse_mutant(mutant), scenario=sc.name if sc else None,
                      condition_reads=condition_reads, monitors=monitors)


def toco_factory(request: SystemRequest) -> TocoSystem | AbstractSystem:
    """The registry's ``toco``: Algorithm 2 over Algorithm 1 (level ``protocol``), or
    Algorithm 2 over the broadcast specification (level ``abstract``)."""
    if request.crashes:
        raise ValueError("--crashes applies to the localized broadcast only (Algorithm 1 assumes no crash)")
    monitors = None
    for name, value in request.options:
        if name != "monitors":
            raise ValueError(f"toco takes no option {name!r} (it takes monitors=true|false)")
        if not isinstance(value, bool):
            raise ValueError(f"toco: --option monitors={value!r}: give true or false")
        monitors = value
        if request.level == "abstract":
            raise ValueError("toco: monitors apply to the protocol level (the abstract level has no logs "
                             "to replace)")
    if request.scenario is None:
        raise ValueError("toco needs a scenario or a program")
    if request.level == "abstract":
        if request.variant not in (None, "corrected") or request.mutant not in (None, "none"):
            raise ValueError("the abstract level runs no Algorithm 1: no variant or mutant")
        proto = make_system(request.scenario, request.graph, network=request.network)
        program, sc = resolve_program(request.scenario)
        return AbstractSystem(program, proto.graph, scenario=sc.name if sc else None)
    if request.level != "protocol":
        raise ValueError(f"unknown level {request.level!r} (expected protocol or abstract)")
    return make_system(request.scenario, request.graph, network=request.network,
                       variant=request.variant or Variant.CORRECTED, mutant=request.mutant, monitors=monitors)
