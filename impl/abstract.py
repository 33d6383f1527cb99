"""The abstraction level: Algorithm 2 over the G-fisheye (SC,CC)-broadcast *specification*.

The register algorithm (Algorithm 2 of the 2015 text, section 5.1) is run over no
broadcast algorithm at all: every toco-delivery order that the properties of section 4.1
allow (validity, integrity, G-delivery order, causal order, termination) is generated
directly.  The proof of Theorem 2 assumes only those properties, so this level checks
Theorem 2 on its own, and reaches far larger programs than the protocol level
(:mod:`fisheye.impl.system`).

**Messages.**  The program is fixed, so every message is known statically: the k-th write
of the program (process by process, in program order) is message ``k``; its sender is the
writer, its payload ``WRITE(X, v, j)`` (Algorithm 2, line 2).

**State** (immutable, canonical, hashable): per process Algorithm 2's local state
(:class:`fisheye.impl.registers.RegState`: the program counter, ``delivered_i`` as
``waiting``, the local copies ``v_X`` and the values returned by its reads), changed only
by the one Algorithm 2 of :mod:`fisheye.impl.registers` (``invoke`` on an operation
step, ``on_deliver`` on a delivery, ``next_enabled`` for the wait of line 4 and awaits);
per process the *set* of messages it has toco-delivered (a bit mask); per message its
causal past (``-1`` while it is not broadcast); and the set ``decided`` of ordered pairs
``(a, b)`` of messages whose senders are neighbours in G (or equal) for which some process
has already delivered ``a`` at a point where it had not delivered ``b``.

Why sets and not sequences suffice: what the future of a run depends on is (a) the set
of messages each process delivered (causal order, the causal past of its next broadcast,
Algorithm 2's ``delivered_i``), (b) the local copies (reads), (c) the order decisions
already taken for the pairs that G-delivery order constrains; the recorded history is the
read values.  Two prefixes that agree on these have the same continuations and the same
histories.  With ``keep_logs=True`` the delivery sequences are kept in the state as well
(fewer merges), so that the section 4.1 checks of :mod:`fisheye.spec.broadcast` can be run
on every complete run; tests compare both forms.

**Steps.**  ``Step("op", p)``: p's next program operation (a write's invocation
broadcasts, Algorithm 2 line 2; the next operation is enabled only once the write's own
message is delivered, line 4 -- a ``bcast`` step does not wait, as at the protocol
level; a read returns the local copy, line 7; ``await X == v`` is
enabled only when the local copy holds v and is recorded as one read).  ``Step("deliver",
p, sender, (seq,))``: p toco-delivers message ``(sender, seq)`` (lines 9-12), enabled when

* the message was broadcast and p has not delivered it (validity, integrity);
* its causal past is delivered at p (causal order; the causal past of m is the set of
  messages its sender had delivered when it broadcast m -- which include the sender's own
  earlier messages, as Algorithm 2 waits for them --, closed by construction);
* G-delivery order stays satisfiable: for every message m' whose sender is a neighbour of
  m's sender, if p has delivered m' the pair is decided (m', m) (always the case), and if
  p has not, the pair is not decided (m', m).  Delivering m then decides (m, m') for the
  undecided pairs.

A prefix generated this way extends to a complete run exactly when every process can
still deliver every message; a state with no enabled step in which some message is not
delivered somewhere is not a prefix of any execution of the specification (termination
cannot be met without breaking an order property): :meth:`AbstractSystem.infeasible`
names it, and the explorer prunes and counts it instead of reporting a deadlock.

**Partial-order reduction model** (:meth:`por_dependents`, :meth:`por_enablers`): the
static dependency and necessary-enabling relations used by the explorer's stubborn sets;
their soundness argument is in ``docs/por.md``.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, NamedTuple

from fisheye.spec import broadcast as bspec
from fisheye.spec.graph import ProximityGraph
from fisheye.spec.history import DEFAULT_INITIAL, History, Value

from . import registers
from .api import (
    Network,
    Property,
    Step,
    SystemRequest,
    deadlock_freedom,
    model_property,
    some_complete_run,
)
from .programs import Program, Read, Write
from .properties import broadcast_properties

ALGORITHM = "toco"  # the registry name; the level (abstract) says it runs no Algorithm 1


class AState(NamedTuple):
    regs: tuple[registers.RegState, ...]      # Algorithm 2's local state, per process
    delivered: tuple[int, ...]                # bit mask of delivered messages, per process
    past: tuple[int, ...]                     # causal past (bit mask) per message, -1: not broadcast
    decided: int                              # bit a*K+b: pair (a, b) decided "a before b"
    logs: tuple[tuple[int, ...], ...]         # keep_logs only: events, +k+1 broadcast, -(k+1) deliver


class AbstractSystem:
    """Algorithm 2 over every delivery order the G-fisheye broadcast specification allows."""

    level = "abstract"

    def __init__(self, program: Program, graph: ProximityGraph, *, keep_logs: bool = False,
                 scenario: str | None = None):
        if graph.processes != program.processes:
            graph = ProximityGraph.of(program.processes, graph.edges)
        self.program, self.graph, self.keep_logs, self.scenario = program, graph, keep_logs, scenario
        self.processes: tuple[str, ...] = program.processes
        self.info = SystemRequest(scenario=scenario or str(program), graph=graph, network=Network.FIFO,
                                  level=self.level, system=ALGORITHM)
        self.read_names: tuple[str, ...] = program.read_names
        n = self.n = len(self.processes)
        idx = {p: i for i, p in enumerate(self.processes)}
        self.registers = program.registers
        self._reg = {r: k for k, r in enumerate(self.registers)}
        init = dict(program.initial)
        self._copies0 = tuple(init.get(r, DEFAULT_INITIAL) for r in self.registers)
        # static messages: k -> (sender, seq, register index, value)
        msgs: list[tuple[int, int, int, Value]] = []
        self._msg_at: list[dict[int, int]] = []   # per process: pc -> message index
        for i, ops in enumerate(program.ops):
            at: dict[int, int] = {}
            seq = 0
            for pc, op in enumerate(ops):
                if isinstance(op, Write):
                    at[pc] = len(msgs)
                    msgs.append((i, seq, self._reg[op.register], op.value))
                    seq += 1
            self._msg_at.append(at)
        self.msgs = tuple(msgs)
        K = self.K = len(msgs)
        self._all = (1 << K) - 1
        adj = [[False] * n for _ in range(n)]
        for a, b in graph.edges:
            adj[idx[a]][idx[b]] = adj[idx[b]][idx[a]] = True
        # messages whose order G-delivery order constrains with k: senders are neighbours
        self._nb = tuple(tuple(j for j in range(K) if adj[msgs[k][0]][msgs[j][0]]) for k in range(K))
        self._own_before = tuple(sum(1 << j for j in range(k) if msgs[j][0] == msgs[k][0])
                                 for k in range(K))
        self._ops = program.ops
        self._op_steps = tuple(Step("op", p) for p in self.processes)
        self._dlv_steps = tuple(tuple(Step("deliver", p, self.processes[m[0]], (m[1],)) for m in msgs)
                                for p in self.processes)
        self._idx = idx
        self._mid = {(self.processes[m[0]], m[1]): k for k, m in enumerate(msgs)}
        # static POR tables
        self._write_pcs = tuple(tuple(pc for pc, op in enumerate(ops) if isinstance(op, Write))
                                for ops in program.ops)
        self._reads_reg = tuple(tuple((pc, self._reg[op.register]) for pc, op in enumerate(ops)
                                      if not isinstance(op, Write)) for ops in program.ops)

    # ---- the step API ---------------------------------------------------------------------
    def initial(self) -> AState:
        n = self.n
        return AState((registers.initial_state(self._copies0),) * n, (0,) * n, (-1,) * self.K, 0,
                      ((),) * n if self.keep_logs else ())

    def _op_enabled(self, st: AState, i: int) -> bool:
        """Algorithm 2: the next operation exists, no write waits for its own WRITE
        (line 4), an await's value is in the local copy."""
        return registers.next_enabled(self._ops[i], self._reg, st.regs[i])

    def _dlv_block(self, st: AState, i: int, k: int) -> tuple[str, int] | None:
        """Why p_i cannot deliver message k now (None: it can): ``("done", k)``
        delivered already; ``("bcast", k)`` not broadcast; ``("causal", j)`` j of its
        causal past not delivered; ``("order", j)`` j must be delivered first
        (decided (j, k)); ``("never", j)`` p_i delivered j but (k, j) is decided."""
        d = st.delivered[i]
        if (d >> k) & 1:
            return ("done", k)
        past = st.past[k]
        if past < 0:
            return ("bcast", k)
        missing = past & ~d
        if missing:
            return ("causal", (missing & -missing).bit_length() - 1)
        K, dec = self.K, st.decided
        for j in self._nb[k]:
            if j == k:
                continue
            if (d >> j) & 1:
                if not (dec >> (j * K + k)) & 1:   # impossible by construction; kept as a guard
                    return ("never", j)
            elif (dec >> (j * K + k)) & 1:
                return ("order", j)
        return None

    def enabled(self, st: AState) -> list[Step]:
        out: list[Step] = []
        for i in range(self.n):
            if self._op_enabled(st, i):
                out.append(self._op_steps[i])
            d = st.delivered[i]
            for k in range(self.K):
                if st.past[k] >= 0 and not (d >> k) & 1 and self._dlv_block(st, i, k) is None:
                    out.append(self._dlv_steps[i][k])
        return out

    def apply(self, st: AState, step: Step) -> AState:
        i = self._idx[step.process]
        if step.kind == "op":
            if not self._op_enabled(st, i):
                raise ValueError(f"step {step} is not enabled")
            pc = st.regs[i].pc
            reg, payload = registers.invoke(self._ops[i], self._reg, st.regs[i])
            regs = _set(st.regs, i, reg)
            if payload is None:                                # line 7 (await: the read ending it)
                return st._replace(regs=regs)
            k = self._msg_at[i][pc]                            # lines 1-3: broadcast WRITE(X, v, i)
            past = _set(st.past, k, st.delivered[i] | self._own_before[k])
            logs = _set(st.logs, i, st.logs[i] + (k + 1,)) if self.keep_logs else st.logs
            return st._replace(regs=regs, past=past, logs=logs)
        if step.kind == "deliver":
            k = self._mid.get((step.src, step.detail[0] if step.detail else -1))
            if k is None or self._dlv_block(st, i, k) is not None:
                raise ValueError(f"step {step} is not enabled")
            K, d, dec = self.K, st.delivered[i], st.decided
            for j in self._nb[k]:
                if j != k and not (d >> j) & 1 and not (dec >> (k * K + j)) & 1:
                    dec |= 1 << (k * K + j)                    # p_i delivers k before j
            sender, _, r, v = self.msgs[k]                     # lines 9-12
            reg = registers.on_deliver(self._reg, st.regs[i], (self.registers[r], v), own=sender == i)
            logs = _set(st.logs, i, st.logs[i] + (-(k + 1),)) if self.keep_logs else st.logs
            return st._replace(regs=_set(st.regs, i, reg), delivered=_set(st.delivered, i, d | (1 << k)),
                               decided=dec, logs=logs)
        raise ValueError(f"unknown step kind {step.kind!r}")

    def is_final(self, st: AState) -> bool:
        return (all(registers.done(ops, reg) for reg, ops in zip(st.regs, self._ops, strict=True))
                and all(d == self._all for d in st.delivered))

    def infeasible(self, st: AState) -> str | None:
        """For a state with no enabled step: a reason when it is not a prefix of any
        execution of the specification (some message can no longer be delivered
        somewhere: termination is unreachable without breaking an order property)."""
        if any(d != self._all for d in st.delivered):
            return "termination unreachable"
        return None

    # ---- recorder -------------------------------------------------------------------------
    def history(self, st: AState) -> History:
        data = {p: registers.operations(ops, reg.pc, reg.results)
                for p, ops, reg in zip(self.processes, self._ops, st.regs, strict=True)}
        return History.build(data, processes=self.processes, edges=self.graph.edges,
                             initial=dict(self.program.initial))

    def outcome(self, st: AState) -> dict[str, Value]:
        out: dict[str, Value] = {}
        for ops, reg in zip(self._ops, st.regs, strict=True):
            it = iter(reg.results)
            for op in ops[:reg.pc]:
                if not isinstance(op, Write):
                    v = next(it)
                    if isinstance(op, Read) and op.name:
                        out[op.name] = v
        return out

    def matches_expected(self, st: AState) -> bool:
        for ops, reg in zip(self._ops, st.regs, strict=True):
            it = iter(reg.results)
            for op in ops[:reg.pc]:
                if not isinstance(op, Write):
                    v = next(it)
                    if isinstance(op, Read) and op.expect is not None and v != op.expect:
                        return False
        return True

    def delivery_logs(self, st: AState) -> dict[str, tuple[bspec.Event, ...]]:
        """Per process, broadcast and deliver events (empty unless ``keep_logs``)."""
        names = self.processes

        def ev(e: int) -> bspec.Event:
            s, q, _, _ = self.msgs[abs(e) - 1]
            return bspec.Event(bspec.BROADCAST if e > 0 else bspec.DELIVER, bspec.MsgId(names[s], q))

        if not self.keep_logs:
            return {p: () for p in names}
        return {names[i]: tuple(ev(e) for e in log) for i, log in enumerate(st.logs)}

    def properties(self) -> tuple[Property, ...]:
        """Theorem 2 (Algorithm 2 over any G-fisheye (SC,CC)-broadcast is G-fisheye
        (SC,CC)-consistent), with the section 4.1 properties when logs are kept,
        deadlock freedom and some complete run."""
        bprops = broadcast_properties(self) if self.keep_logs else ()
        return (model_property("fisheye"), *bprops, deadlock_freedom(self.is_final), some_complete_run())

    def broadcast_violations(self, st: AState, *, complete: bool | None = None
                             ) -> list[bspec.BroadcastViolation]:
        if not self.keep_logs:
            return []
        if complete is None:
            complete = self.is_final(st)
        return bspec.check(self.delivery_logs(st), self.graph, complete=complete)

    def describe(self) -> dict[str, Any]:
        return self.info.describe()

    @property
    def por_supported(self) -> bool:
        return True

    # ---- partial-order reduction model (docs/por.md, section "abstract level") ------------
    # Transitions are numbered: op(p_i) = i; deliver(p_i, k) = n + i*K + k.
    def por_enabled(self, st: AState) -> dict[int, Step]:
        out: dict[int, Step] = {}
        n, K = self.n, self.K
        for i in range(n):
            if self._op_enabled(st, i):
                out[i] = self._op_steps[i]
            d = st.delivered[i]
            for k in range(K):
                if st.past[k] >= 0 and not (d >> k) & 1 and self._dlv_block(st, i, k) is None:
                    out[n + i * K + k] = self._dlv_steps[i][k]
        return out

    def por_dependents(self, st: AState, t: int) -> Iterable[int]:
        """Transitions that may be dependent with the enabled transition ``t`` in some
        state reachable from ``st`` (an over-approximation)."""
        n, K = self.n, self.K
        if t < n:                         # op(p_i): only deliveries at p_i can interfere
            i = t
            pc = st.regs[i].pc
            if any(w >= pc for w in self._write_pcs[i]):
                # a write to come reads the whole delivered set (its causal past)
                return [n + i * K + k for k in range(K)]
            regs = {r for pc2, r in self._reads_reg[i] if pc2 >= pc}
            return [n + i * K + k for k in range(K) if self.msgs[k][2] in regs]
        i, k = divmod(t - n, K)
        out = [i]                         # op(p_i) (reads of the register, writes' causal past)
        sk, _, rk, _ = self.msgs[k]
        base = n + i * K
        for j in range(K):                # other deliveries at p_i
            if j == k:
                continue
            sj = self.msgs[j][0]
            if sj == sk:
                continue                  # same sender: never co-enabled at p_i (causal order)
            if self.msgs[j][2] == rk or j in self._nb[k]:
                out.append(base + j)
        dec = st.decided
        for j in self._nb[k]:             # deliveries elsewhere deciding an undecided pair
            if j == k or (dec >> (k * K + j)) & 1 or (dec >> (j * K + k)) & 1:
                continue
            out.extend(n + q * K + j for q in range(n) if q != i)
        return out

    def por_enablers(self, st: AState, t: int) -> Iterable[int]:
        """A necessary enabling set of the disabled transition ``t``: every path from
        ``st`` that enables ``t`` contains one of these transitions."""
        n, K = self.n, self.K
        if t < n:
            i = t
            reg = st.regs[i]
            ops = self._ops[i]
            if reg.pc >= len(ops):
                return []                 # never enabled again
            if reg.waiting:               # line 11: a delivery at p_i of one of its own messages
                d = st.delivered[i]
                return [n + i * K + k for k in range(K) if self.msgs[k][0] == i and not (d >> k) & 1]
            op = ops[reg.pc]                  # an await: a delivery at p_i of a write of that value
            r = self._reg[op.register]
            return [n + i * K + k for k in range(K) if self.msgs[k][2] == r and self.msgs[k][3] == op.value]
        i, k = divmod(t - n, K)
        why, j = self._dlv_block(st, i, k) or ("none", -1)
        if why == "bcast":
            return [self.msgs[k][0]]      # the sender's op (its broadcast)
        if why in ("causal", "order"):
            return [n + i * K + j]
        if why in ("done", "never"):
            return []
        raise AssertionError("por_enablers called on an enabled transition")


def _set(t: tuple[Any, ...], i: int, v: Any) -> tuple[Any, ...]:
    return t[:i] + (v,) + t[i + 1:]

