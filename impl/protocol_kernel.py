"""The protocol level (Algorithms 1 and 2, FIFO channels, dead-clock quotient, stubborn
sets) as compiled functions over whole batches of states: a second implementation of
:class:`fisheye.impl.toco_quotient.ProtocolSystem`, which stays the reference.

A state is one row of ``int16`` (:class:`ProtocolLayout`): per process p_i,
``causal_i[n]``, ``total_i[n]``, ``sent``, Algorithm 2's ``pc``, ``waiting``, copies and
read results (indices into the value table), one flag per message "in ``pending_i``",
and the delivery log (``2*g + kind`` per event, message ``g``; with broadcast monitors,
no log: the log's length slot holds D[p], the messages p delivered, as a bit mask); then,
per message ``g``
(``g`` numbers the writes of p_0, then p_1, ...: the ``seq``-th write of p_j is message
``offset[j] + seq``), its timestamp ``<caus[.], tot>`` (line 3) while a copy of it is in
some ``pending`` or channel, zeros otherwise; then the channels, as a length and the
protocol messages in FIFO order (``2*seq`` for ``TOCOBC``, ``2*date + 1`` for
``CATCH_UP``); with broadcast monitors, last, the rest of the monitor's state
(:class:`fisheye.impl.broadcast_monitor.MonitorState`: B, past[M], before[M], violated;
bit masks, so at most :data:`MONITOR_MESSAGES` messages).  The row is canonical: two
states are equal iff their rows are.

:func:`expand_batch` does per state what the explorer does with the reference
(:func:`fisheye.checker.explore.expand.expand`): the pruning test (a conditioning read
that can no longer return the figure's value), the enabled transitions, Valmari's
stubborn set on the transition model of :class:`fisheye.impl.protocol_por.ProtocolPor`
(docs/por.md, section 3.2), each chosen step (Algorithm 1 lines 1-31, Algorithm 2 lines
1-12) followed by the quotient map of :class:`fisheye.impl.dead_clock.DeadClockSystem`,
and a 64-bit fingerprint of every successor row.  States with no successor are handed
back: their kind and terminal record come from the reference.

numba compiles the functions on first use and caches the machine code (``cache=True``);
this module is imported only by the explorer.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from numba import njit

from fisheye.impl.dead_clock import SATURATED
from fisheye.impl.kernel_api import INNER, NO_STEP, PRUNED, KernelBatch
from fisheye.impl.programs import Await, Broadcast, Read, Write
from fisheye.impl.row_kernel import row_fingerprint, row_fingerprints, row_width
from fisheye.impl.toco import CATCH_UP, TOCOBC, Msg, Mutant, TocoState, Variant, ts_opposite

STATE_DTYPE = np.int16
OP_WRITE, OP_READ, OP_AWAIT = 0, 1, 2
NO_EXPECT, UNKNOWN_VALUE = -1, -2       # a read's expected value: none, or one no copy can hold

# indices into the integer table ``cfg`` handed to the compiled functions
(C_N, C_M, C_P, C_MT0, C_CH0, C_CAP, C_WIDTH, C_R, C_RES, C_LOG, C_CORRECTED, C_CATCH_UP, C_T1, C_T2,
 C_COND, C_PRUNE, C_MON, C_LEN) = range(18)
MONITOR_MESSAGES = 15       # a monitor's bit masks fit an int16 slot without its sign bit


@dataclass(frozen=True)
class ProtocolLayout:
    """Where each variable sits in a state row (see module doc)."""

    n: int
    registers: int
    messages: int           # M: every write of the program is one message
    results: int            # read results slots per process
    log: int                # log slots per process
    capacity: int           # messages a channel can hold
    monitors: bool = False  # broadcast monitors instead of logs (then ``log`` is 0)

    @property
    def total(self) -> int:
        return self.n

    @property
    def sent(self) -> int:
        return 2 * self.n

    @property
    def pc(self) -> int:
        return 2 * self.n + 1

    @property
    def waiting(self) -> int:
        return 2 * self.n + 2

    @property
    def copies(self) -> int:
        return 2 * self.n + 3

    @property
    def result0(self) -> int:
        return self.copies + self.registers

    @property
    def pending(self) -> int:
        return self.result0 + self.results

    @property
    def nlog(self) -> int:
        return self.pending + self.messages

    @property
    def log0(self) -> int:
        return self.nlog + 1

    @property
    def block(self) -> int:
        return self.log0 + self.log

    @property
    def table(self) -> int:
        return self.n * self.block

    @property
    def channels(self) -> int:
        return self.table + self.messages * (self.n + 1)

    @property
    def monitor(self) -> int:
        """The monitor's global part: B, past[M], before[M], violated (monitors only)."""
        return self.channels + self.n * self.n * (1 + self.capacity)

    @property
    def width(self) -> int:
        """Whole 64-bit words (zero padding at the end): the fingerprint reads words."""
        used = self.monitor + (2 * self.messages + 2 if self.monitors else 0)
        return row_width(used, STATE_DTYPE)


class ProtocolKernel:
    """The compiled kernel of one protocol-level system (see module doc)."""

    name = "compiled"
    dtype = STATE_DTYPE

    def __init__(self, system: Any, *, prune: bool):
        raw = system.raw
        if raw.network.value != "fifo":
            raise ValueError("the compiled kernel covers FIFO channels only")
        self.system = system
        n = self.n = len(raw.processes)
        ops = raw.program.ops
        codec = system.state_codec()
        self.values = codec.values
        vidx = codec.vidx
        writes = [[op for op in o if isinstance(op, Write)] for o in ops]
        W = [len(w) for w in writes]
        off = [sum(W[:j]) for j in range(n)]
        M = sum(W)
        nonw = [sum(not isinstance(op, Write) for op in o) for o in ops]
        spec = self.monitor = system.monitor
        if spec is not None and M > MONITOR_MESSAGES:
            raise ValueError(f"the compiled kernel's broadcast monitors hold {MONITOR_MESSAGES} messages "
                             f"at most (this program broadcasts {M})")
        logs = 0 if spec is not None else max((W[i] + M for i in range(n)), default=0)
        lay = self.layout = ProtocolLayout(n, len(raw.registers), M, max(nonw, default=0), logs, max(M, 1),
                                           spec is not None)
        # the monitor's static masks: per message, the messages of its sender's
        # G-neighbours; then per process, its own messages
        self.monitor_masks = np.array([*spec.neighbours, *spec.own] if spec is not None else [0],
                                      dtype=np.int64)
        self.width = lay.width
        self._off, self._W = off, W
        ri = raw._reg_index
        self.msg_sender = np.array([j for j in range(n) for _ in range(W[j])], dtype=np.int64)
        self.msg_seq = np.array([q for j in range(n) for q in range(W[j])], dtype=np.int64)
        self.msg_reg = np.array([ri[op.register] for j in range(n) for op in writes[j]], dtype=np.int64)
        self.msg_val = np.array([vidx[op.value] for j in range(n) for op in writes[j]], dtype=np.int64)
        self.payloads = tuple((op.register, op.value) for j in range(n) for op in writes[j])
        maxops = max((len(o) for o in ops), default=0)
        K = self.op_kind = np.zeros((n, maxops + 1), dtype=np.int64)
        self.op_reg = np.zeros((n, maxops + 1), dtype=np.int64)
        self.op_val = np.full((n, maxops + 1), NO_EXPECT, dtype=np.int64)
        self.op_waits = np.zeros((n, maxops + 1), dtype=np.int64)
        self.op_slot = np.zeros((n, maxops + 1), dtype=np.int64)
        self.read_regs_from = np.zeros((n, maxops + 1), dtype=np.int64)
        wait = raw._wait

        def index_of(v: Any) -> int:
            for k, w in enumerate(self.values):
                if type(w) is type(v) and w == v:
                    return k
            for k, w in enumerate(self.values):
                if w == v:
                    return k
            return UNKNOWN_VALUE

        conds: list[list[tuple[int, int, int]]] = []
        for i, o in enumerate(ops):
            slot = 0
            cs = []
            for pc, op in enumerate(o):
                self.op_reg[i, pc] = ri[op.register]
                if isinstance(op, Write):
                    K[i, pc] = OP_WRITE
                    self.op_val[i, pc] = vidx[op.value]
                    self.op_waits[i, pc] = 1 if (wait and not isinstance(op, Broadcast)) else 0
                    continue
                self.op_slot[i, pc] = slot
                slot += 1
                if isinstance(op, Await):
                    K[i, pc] = OP_AWAIT
                    self.op_val[i, pc] = index_of(op.value)
                elif isinstance(op, Read):
                    K[i, pc] = OP_READ
                    self.op_val[i, pc] = NO_EXPECT if op.expect is None else index_of(op.expect)
                    if op.expect is not None:
                        cs.append((pc, ri[op.register], index_of(op.expect)))
                else:
                    raise TypeError(f"unknown operation {op!r}")
            for pc in range(len(o) + 1):
                m = 0
                for op in o[pc:]:
                    if not isinstance(op, Write):
                        m |= 1 << ri[op.register]
                self.read_regs_from[i, pc] = m
            conds.append(cs)
        maxc = max((len(c) for c in conds), default=0)
        self.cond_pc = np.full((n, maxc + 1), -1, dtype=np.int64)
        self.cond_reg = np.zeros((n, maxc + 1), dtype=np.int64)
        self.cond_val = np.zeros((n, maxc + 1), dtype=np.int64)
        for i, cs in enumerate(conds):
            for k, (pc, r, v) in enumerate(cs):
                self.cond_pc[i, k], self.cond_reg[i, k], self.cond_val[i, k] = pc, r, v
        self.nops = np.array([len(o) for o in ops], dtype=np.int64)
        self.last_w = np.array(system._last_w, dtype=np.int64)
        self.W = np.array(W, dtype=np.int64)
        self.off = np.array(off, dtype=np.int64)
        self.nbmask = np.array(system._nbmask, dtype=np.int64)
        self.dead = np.array([1 if d else 0 for d in system.dead], dtype=np.int64)
        cfgs = raw._cfgs
        self.opposite = np.array([1 if c.key is ts_opposite else 0 for c in cfgs], dtype=np.int64)
        cfg = np.zeros(C_LEN, dtype=np.int64)
        cfg[C_N], cfg[C_M], cfg[C_P], cfg[C_MT0], cfg[C_CH0] = n, M, lay.block, lay.table, lay.channels
        cfg[C_CAP], cfg[C_WIDTH], cfg[C_R], cfg[C_RES], cfg[C_LOG] = (lay.capacity, lay.width, lay.registers,
                                                                      lay.results, lay.log)
        cfg[C_CORRECTED] = 1 if raw.variant is Variant.CORRECTED else 0
        cfg[C_CATCH_UP] = 0 if raw.mutant is Mutant.NO_CATCH_UP else 1
        cfg[C_T1] = 0 if raw.mutant is Mutant.NO_T1 else 1
        cfg[C_T2] = 0 if raw.mutant is Mutant.NO_T2 else 1
        cfg[C_COND] = 1 if raw.condition_reads else 0
        cfg[C_PRUNE] = 1 if prune else 0
        cfg[C_MON] = lay.monitor if spec is not None else -1
        self.cfg = cfg
        self._tables = (cfg, self.msg_sender, self.msg_reg, self.msg_val, self.off, self.W, self.nops,
                        self.op_kind, self.op_reg, self.op_val, self.op_waits, self.op_slot,
                        self.read_regs_from, self.cond_pc, self.cond_reg, self.cond_val, self.last_w,
                        self.nbmask, self.dead, self.opposite, self.monitor_masks, *self._memo_tables(n))
        from fisheye.impl.protocol_state import GlobalState, MonitoredState, ProcState
        from fisheye.impl.registers import RegState

        self._types = (GlobalState, ProcState, RegState)
        self._monitored = MonitoredState
        self._out: tuple[np.ndarray, ...] | None = None
        self._vkey = {}
        for k, v in enumerate(self.values):
            self._vkey[(type(v), v)] = k

    MEMO = 1 << 20          # entries of the stubborn sets' memo (cleared when half full)

    @classmethod
    def _memo_tables(cls, n: int) -> tuple[np.ndarray, ...]:
        """The memo's arrays; its key is three 64-bit words, which hold n <= 5 processes."""
        cap = cls.MEMO if n <= 5 else 1
        return (np.zeros((cap, 3), dtype=np.int64), np.zeros(cap, dtype=np.int64),
                np.zeros(cap, dtype=np.bool_), np.zeros(1, dtype=np.int64))

    # ---- rows and states -------------------------------------------------------------------
    def _vi(self, v: Any) -> int:
        return self._vkey[(type(v), v)]

    def encode(self, state: Any) -> np.ndarray:
        """The row of a state of the quotient (``GlobalState``)."""
        lay, n = self.layout, self.n
        row = np.zeros(lay.width, dtype=STATE_DTYPE)
        off = self._off
        for i, ps in enumerate(state.procs):
            b = i * lay.block
            t, r = ps.toco, ps.reg
            row[b:b + n] = t.causal
            row[b + lay.total:b + lay.total + n] = t.total
            row[b + lay.sent] = t.sent
            row[b + lay.pc] = r.pc
            row[b + lay.waiting] = 1 if r.waiting else 0
            for k, v in enumerate(r.copies):
                row[b + lay.copies + k] = self._vi(v)
            for k, v in enumerate(r.results):
                row[b + lay.result0 + k] = self._vi(v)
            for m in t.pending:
                g = off[m.sender] + m.seq
                row[b + lay.pending + g] = 1
                self._put_msg(row, g, m)
            if self.monitor is not None:
                row[b + lay.nlog] = state.monitor.delivered[i]
                continue
            row[b + lay.nlog] = len(ps.log)
            for k, (kind, s, q) in enumerate(ps.log):
                row[b + lay.log0 + k] = 2 * (off[s] + q) + kind
        for idx, c in enumerate(state.channels):
            base = lay.channels + idx * (1 + lay.capacity)
            row[base] = len(c)
            src = idx // n
            for k, (kind, body) in enumerate(c):
                if kind == TOCOBC:
                    row[base + 1 + k] = 2 * body.seq
                    self._put_msg(row, off[src] + body.seq, body)
                else:
                    row[base + 1 + k] = 2 * body + 1
        if self.monitor is not None:
            st = state.monitor
            row[lay.monitor:lay.monitor + 2 * lay.messages + 2] = (st.broadcast, *st.past, *st.before,
                                                                  st.violated)
        return row

    def _put_msg(self, row: np.ndarray, g: int, m: Msg) -> None:
        base = self.layout.table + g * (self.n + 1)
        row[base:base + self.n] = m.caus
        row[base + self.n] = m.tot

    def decode(self, row: np.ndarray) -> Any:
        """The ``GlobalState`` of a row (the inverse of :meth:`encode`)."""
        GlobalState, ProcState, RegState = self._types
        lay, n, values = self.layout, self.n, self.values
        r = [int(x) for x in row]
        ops = self.system.raw.program.ops

        def msg(g: int) -> Msg:
            base = lay.table + g * (n + 1)
            return Msg(int(self.msg_sender[g]), int(self.msg_seq[g]), tuple(r[base:base + n]), r[base + n],
                       self.payloads[g])

        procs = []
        for i in range(n):
            b = i * lay.block
            pc = r[b + lay.pc]
            nres = sum(not isinstance(op, Write) for op in ops[i][:pc])
            toco = TocoState(tuple(r[b:b + n]), tuple(r[b + lay.total:b + lay.total + n]),
                             tuple(msg(g) for g in range(lay.messages) if r[b + lay.pending + g]),
                             r[b + lay.sent])
            reg = RegState(pc, r[b + lay.waiting] == 1,
                           tuple(values[r[b + lay.copies + k]] for k in range(lay.registers)),
                           tuple(values[r[b + lay.result0 + k]] for k in range(nres)))
            if self.monitor is not None:
                log: tuple[tuple[int, int, int], ...] = ()
            else:
                log = tuple((e & 1, int(self.msg_sender[e >> 1]), int(self.msg_seq[e >> 1]))
                            for e in r[b + lay.log0:b + lay.log0 + r[b + lay.nlog]])
            procs.append(ProcState(toco, reg, log))
        chans = []
        for idx in range(n * n):
            base = lay.channels + idx * (1 + lay.capacity)
            src = idx // n
            c = []
            for e in r[base + 1:base + 1 + r[base]]:
                if e & 1:
                    c.append((CATCH_UP, e >> 1))
                else:
                    c.append((TOCOBC, msg(self._off[src] + (e >> 1))))
            chans.append(tuple(c))
        if self.monitor is None:
            return GlobalState(tuple(procs), tuple(chans))
        M, mb = lay.messages, lay.monitor
        delivered = (r[i * lay.block + lay.nlog] for i in range(n))
        monitor = self.monitor.unflat((*delivered, *r[mb:mb + 2 * M + 2]))
        return self._monitored(tuple(procs), tuple(chans), monitor)

    # ---- the compiled functions --------------------------------------------------------------
    def expand(self, states: np.ndarray) -> KernelBatch:
        """Expand a batch of rows (``states[k, width]``, see :class:`KernelBatch`).  The
        children, parents, steps and keys are views of buffers the next call reuses."""
        states = np.ascontiguousarray(states, dtype=STATE_DTYPE)
        k = states.shape[0]
        cap = k * (2 * self.n + self.n * self.n)
        if self._out is None or self._out[1].shape[0] < cap:
            self._out = (np.zeros(k, dtype=np.int8), np.empty((cap, self.width), dtype=STATE_DTYPE),
                         np.empty(cap, dtype=np.int64), np.empty(cap, dtype=np.int64),
                         np.empty(cap, dtype=np.uint64))
        status, children, parent, step, keys = self._out
        status = np.zeros(k, dtype=np.int8)
        m = expand_batch(states, status, children, parent, step, keys, *self._tables)
        return KernelBatch(status, children[:m], parent[:m], step[:m], keys[:m])

    def fingerprints(self, states: np.ndarray) -> np.ndarray:
        """The 64-bit fingerprints of rows (the visited set's keys), with numpy (a few rows
        at a time need no compiled code loaded): :func:`~fisheye.impl.row_kernel.row_fingerprints`."""
        return row_fingerprints(np.ascontiguousarray(states, dtype=STATE_DTYPE))


# ---- compiled code ---------------------------------------------------------------------------

@njit(cache=True, inline="always")
def _key(opposite: int, n: int, tot: int, j: int) -> int:
    """``<tot, j>`` as one integer in p_i's timestamp order (ties: higher index first,
    or plain lexicographic for the ``opposite-tie-break`` mutant's p_0)."""
    if opposite:
        return tot * n + j
    return tot * n + (n - 1 - j)


@njit(cache=True, inline="always")
def _popcount(v: int) -> int:
    """The number of bits set in a non-negative 64-bit integer (SWAR)."""
    x = np.uint64(v)
    x = x - ((x >> np.uint64(1)) & np.uint64(0x5555555555555555))
    x = (x & np.uint64(0x3333333333333333)) + ((x >> np.uint64(2)) & np.uint64(0x3333333333333333))
    x = (x + (x >> np.uint64(4))) & np.uint64(0x0F0F0F0F0F0F0F0F)
    return np.int64((x * np.uint64(0x0101010101010101)) >> np.uint64(56))


@njit(cache=True, inline="always")
def _select(s, i, cfg, msg_sender, nbmask, opposite):
    """Line 26: the message p_i delivers next (its number g), or -1 (lines 20-24 wait)."""
    n, M, P, MT0 = cfg[C_N], cfg[C_M], cfg[C_P], cfg[C_MT0]
    b = i * P
    pend = b + 2 * n + 3 + cfg[C_R] + cfg[C_RES]
    opp = opposite[i]
    best = -1
    best_key = 0
    for g in range(M):
        if s[pend + g] == 0:
            continue
        mb = MT0 + g * (n + 1)
        ok = True
        for x in range(n):                                  # line 21: C
            if s[mb + x] > s[b + x]:
                ok = False
                break
        if not ok:
            continue
        j = msg_sender[g]
        mk = _key(opp, n, s[mb + n], j)
        nb = nbmask[j]
        if cfg[C_T1]:                                       # line 23: T1
            for k in range(n):
                if (nb >> k) & 1 and _key(opp, n, s[b + n + k], k) <= mk:
                    ok = False
                    break
            if not ok:
                continue
        if cfg[C_T2]:                                       # line 25: T2
            for o in range(M):
                if s[pend + o] and (nb >> msg_sender[o]) & 1:
                    if _key(opp, n, s[MT0 + o * (n + 1) + n], msg_sender[o]) <= mk:
                        ok = False
                        break
            if not ok:
                continue
        if best < 0 or mk < best_key:                       # line 26: argmin
            best, best_key = g, mk
    return best


@njit(cache=True, inline="always")
def _op_enabled(s, i, cfg, nops, op_kind, op_reg, op_val):
    n, P = cfg[C_N], cfg[C_P]
    b = i * P
    pc = s[b + 2 * n + 1]
    if s[b + 2 * n + 2] or pc >= nops[i]:
        return False
    kind = op_kind[i, pc]
    if kind == OP_AWAIT or (kind == OP_READ and cfg[C_COND] and op_val[i, pc] != NO_EXPECT):
        return s[b + 2 * n + 3 + op_reg[i, pc]] == op_val[i, pc]
    return True


@njit(cache=True, inline="always")
def _enabled(s, cfg, msg_sender, nops, op_kind, op_reg, op_val, nbmask, opposite):
    """The enabled transitions as a bit mask: ``op(i) = i``, ``deliver(i) = n+i``,
    ``recv(i <- j) = 2n + i*n + j`` (the numbering of ProtocolPor)."""
    n, _P, CH0, CAP = cfg[C_N], cfg[C_P], cfg[C_CH0], cfg[C_CAP]
    e = np.int64(0)
    for i in range(n):
        if _op_enabled(s, i, cfg, nops, op_kind, op_reg, op_val):
            e |= np.int64(1) << i
        if _select(s, i, cfg, msg_sender, nbmask, opposite) >= 0:
            e |= np.int64(1) << (n + i)
        for j in range(n):
            if s[CH0 + (j * n + i) * (1 + CAP)] > 0:
                e |= np.int64(1) << (2 * n + i * n + j)
    return e


@njit(cache=True, inline="always")
def _push(s, c, e, cfg):
    base = cfg[C_CH0] + c * (1 + cfg[C_CAP])
    s[base + 1 + s[base]] = e
    s[base] += 1


@njit(cache=True, inline="always")
def _log(s, i, b, e, cfg, monitor_masks):
    """p_i's event ``e`` (``2*g + kind``): appended to its log, or folded into the
    broadcast monitor (:class:`fisheye.impl.broadcast_monitor.MonitorSpec`, ``on_broadcast``
    and ``on_deliver``; the reference)."""
    n = cfg[C_N]
    nl = b + 2 * n + 3 + cfg[C_R] + cfg[C_RES] + cfg[C_M]
    mon = cfg[C_MON]
    if mon < 0:
        s[nl + 1 + s[nl]] = e
        s[nl] += 1
        return
    M = cfg[C_M]
    g = e >> 1
    d = np.int64(s[nl])
    bc = np.int64(s[mon])
    if (e & 1) == 0:                                        # broadcast: past(g)
        own = monitor_masks[M + i]
        base = (bc & own) | (d & ~own)
        past = base
        for a in range(M):
            if (base >> a) & 1:
                past |= s[mon + 1 + a]
        s[mon] = bc | (1 << g)
        s[mon + 1 + g] = past
        _monitor_canonical(s, cfg)
        return
    viol = np.int64(s[mon + 1 + 2 * M])
    if not (bc >> g) & 1:
        viol |= 1                                           # validity
    else:
        bg = np.int64(s[mon + 1 + M + g])
        new = monitor_masks[g] & ~d & ~bg
        if new:
            s[mon + 1 + M + g] = bg | new
            for x in range(M):
                if (new >> x) & 1 and (s[mon + 1 + M + x] >> g) & 1:
                    viol |= 4                               # G-delivery order
    if (d >> g) & 1:
        viol |= 2                                           # integrity
    if np.int64(s[mon + 1 + g]) & ~d:
        viol |= 8                                           # causal order
    s[mon + 1 + 2 * M] = viol
    s[nl] = d | (1 << g)
    _monitor_canonical(s, cfg)


@njit(cache=True, inline="always")
def _monitor_canonical(s, cfg):
    """The monitor's bits no later judgement reads, cleared
    (:meth:`fisheye.impl.broadcast_monitor.MonitorSpec.canonical`, the reference)."""
    n, M, P, mon = cfg[C_N], cfg[C_M], cfg[C_P], cfg[C_MON]
    nl = 2 * n + 3 + cfg[C_R] + cfg[C_RES] + M
    a = np.int64(-1)
    for p in range(n):
        a &= np.int64(s[p * P + nl])
    viol = np.int64(s[mon + 1 + 2 * M])
    for x in range(M):
        if viol & 8:
            s[mon + 1 + x] = 0
        else:
            s[mon + 1 + x] = np.int64(s[mon + 1 + x]) & ~a
        if viol & 4 or (a >> x) & 1:
            s[mon + 1 + M + x] = 0
        else:
            s[mon + 1 + M + x] = np.int64(s[mon + 1 + M + x]) & ~a


@njit(cache=True, inline="always")
def _apply_raw(s, t, cfg, msg_sender, msg_reg, msg_val, off, op_kind, op_reg, op_val, op_waits, op_slot,
               nbmask, opposite, monitor_masks):
    """The raw step ``t`` on row ``s`` in place (Algorithm 1 lines 1-17 and 27-29,
    Algorithm 2 lines 1-12)."""
    n, _M, P, MT0, CH0, CAP = cfg[C_N], cfg[C_M], cfg[C_P], cfg[C_MT0], cfg[C_CH0], cfg[C_CAP]
    cop = 2 * n + 3
    pend = cop + cfg[C_R] + cfg[C_RES]
    if t < n:                                               # op(i)
        i = t
        b = i * P
        pc = s[b + 2 * n + 1]
        kind = op_kind[i, pc]
        s[b + 2 * n + 1] = pc + 1
        if kind != OP_WRITE:                                # Algorithm 2 lines 6-7, or an await
            s[b + cop + cfg[C_R] + op_slot[i, pc]] = s[b + cop + op_reg[i, pc]]
            s[b + 2 * n + 2] = 0
            return
        s[b + 2 * n + 2] = op_waits[i, pc]                  # Algorithm 2 lines 2-4
        q = s[b + 2 * n]
        g = off[i] + q
        s[b + n + i] += 1                                   # line 2
        mb = MT0 + g * (n + 1)
        for x in range(n):                                  # line 3
            s[mb + x] = s[b + x]
        if cfg[C_CORRECTED]:
            s[mb + i] = q
        s[mb + n] = s[b + n + i]
        s[b + pend + g] = 1                                 # line 4
        if not cfg[C_CORRECTED]:
            s[b + i] += 1                                   # line 5
        s[b + 2 * n] = q + 1
        _log(s, i, b, 2 * g, cfg, monitor_masks)
        for k in range(n):
            if k != i:
                _push(s, i * n + k, 2 * q, cfg)
        return
    if t < 2 * n:                                           # deliver(i): lines 26-29, Alg. 2 9-12
        i = t - n
        b = i * P
        g = _select(s, i, cfg, msg_sender, nbmask, opposite)
        s[b + pend + g] = 0
        j0 = msg_sender[g]
        if j0 != i or cfg[C_CORRECTED]:
            s[b + j0] += 1
        s[b + cop + msg_reg[g]] = msg_val[g]
        if j0 == i:
            s[b + 2 * n + 2] = 0
        _log(s, i, b, 2 * g + 1, cfg, monitor_masks)
        _drop_unused(s, g, cfg, msg_sender, off)
        return
    i = (t - 2 * n) // n                                    # recv(i <- src)
    src = (t - 2 * n) % n
    b = i * P
    base = CH0 + (src * n + i) * (1 + CAP)
    ln = s[base]
    e = s[base + 1]
    for x in range(1, ln):
        s[base + x] = s[base + x + 1]
    s[base + ln] = 0
    s[base] = ln - 1
    if e & 1:                                               # lines 15-17
        s[b + n + src] = e >> 1
        return
    g = off[src] + (e >> 1)                                 # lines 7-14
    tot = s[MT0 + g * (n + 1) + n]
    s[b + pend + g] = 1
    s[b + n + src] = tot
    if s[b + n + i] <= tot:
        s[b + n + i] = tot + 1
        if cfg[C_CATCH_UP]:
            for k in range(n):
                if k != i:
                    _push(s, i * n + k, 2 * (tot + 1) + 1, cfg)


@njit(cache=True, inline="always")
def _drop_unused(s, g, cfg, msg_sender, off):
    """Zero message g's timestamp once no copy of it is left (the row stays canonical)."""
    n, P, CH0, CAP = cfg[C_N], cfg[C_P], cfg[C_CH0], cfg[C_CAP]
    pend = 2 * n + 3 + cfg[C_R] + cfg[C_RES]
    for i in range(n):
        if s[i * P + pend + g]:
            return
    src = msg_sender[g]
    e = 2 * (g - off[src])
    for d in range(n):
        base = CH0 + (src * n + d) * (1 + CAP)
        for x in range(s[base]):
            if s[base + 1 + x] == e:
                return
    mb = cfg[C_MT0] + g * (n + 1)
    for x in range(n + 1):
        s[mb + x] = 0


@njit(cache=True, inline="always")
def _done_masks(s, cfg, off, W, last_w, msg_sender, allcnt):
    """fin (bit k: p_k invoked all its writes) and, per p_i, the processes all of whose
    messages p_i delivered (DeadClockSystem._done_counts)."""
    n, _M, P = cfg[C_N], cfg[C_M], cfg[C_P]
    pend = 2 * n + 3 + cfg[C_R] + cfg[C_RES]
    fin = np.int64(0)
    for k in range(n):
        if s[k * P + 2 * n + 1] > last_w[k]:
            fin |= np.int64(1) << k
    for i in range(n):
        b = i * P
        own = s[b + 2 * n]
        for g in range(off[i], off[i] + W[i]):
            own -= s[b + pend + g]
        a = np.int64(0)
        for j in range(n):
            c = own if j == i else s[b + j]
            if c >= W[j]:
                a |= np.int64(1) << j
        allcnt[i] = a
    return fin


@njit(cache=True, inline="always")
def _dead_rows(s, cfg, off, W, last_w, msg_sender, nbmask, dead, dv, allcnt):
    """dv[i]: bit k when p_i's view of p_k is dead (DeadClockSystem._views_of)."""
    n = cfg[C_N]
    fin = _done_masks(s, cfg, off, W, last_w, msg_sender, allcnt)
    for i in range(n):
        done = fin & allcnt[i]
        r = np.int64(0)
        for k in range(n):
            if k != i and (dead[k] or (nbmask[k] & ~done) == 0):
                r |= np.int64(1) << k
        dv[i] = r
    return fin


@njit(cache=True, inline="always")
def _canon(s, cfg, msg_sender, off, W, last_w, nbmask, dead, opposite, dv, sat, allcnt):
    """The quotient map h in place: dead views to 0, saturated ones to SATURATED, the
    CATCH_UP messages feeding a quiet view dropped (DeadClockSystem.canon)."""
    n, M, P, MT0, CH0, CAP = cfg[C_N], cfg[C_M], cfg[C_P], cfg[C_MT0], cfg[C_CH0], cfg[C_CAP]
    pend = 2 * n + 3 + cfg[C_R] + cfg[C_RES]
    fin = _dead_rows(s, cfg, off, W, last_w, msg_sender, nbmask, dead, dv, allcnt)
    sat[:] = 0
    for i in range(n):
        b = i * P
        opp = opposite[i]
        for k in range(n):
            if dead[k] or (nbmask[k] & ~fin) != 0 or k == i or (dv[i] >> k) & 1:
                continue
            kv = _key(opp, n, s[b + n + k], k)
            nb = nbmask[k]
            quiet = True
            for g in range(M):
                if s[b + pend + g] and (nb >> msg_sender[g]) & 1:
                    if _key(opp, n, s[MT0 + g * (n + 1) + n], msg_sender[g]) >= kv:
                        quiet = False
                        break
            if quiet:
                for j in range(n):
                    if j == i or not (nb >> j) & 1:
                        continue
                    base = CH0 + (j * n + i) * (1 + CAP)
                    for x in range(s[base]):
                        e = s[base + 1 + x]
                        if e & 1 == 0:
                            tot = s[MT0 + (off[j] + (e >> 1)) * (n + 1) + n]
                            if _key(opp, n, tot, j) >= kv:
                                quiet = False
                                break
                    if not quiet:
                        break
            if quiet:
                sat[i] |= np.int64(1) << k
    for i in range(n):
        b = i * P
        for k in range(n):
            if (dv[i] >> k) & 1:
                s[b + n + k] = 0
            elif (sat[i] >> k) & 1:
                s[b + n + k] = SATURATED
    for src in range(n):
        for dst in range(n):
            if src == dst or not (((dv[dst] | sat[dst]) >> src) & 1):
                continue
            base = CH0 + (src * n + dst) * (1 + CAP)
            ln = s[base]
            w = 0
            for x in range(ln):
                e = s[base + 1 + x]
                if e & 1 == 0:
                    s[base + 1 + w] = e
                    w += 1
            for x in range(w, ln):
                s[base + 1 + x] = 0
            s[base] = w


@njit(cache=True, inline="always")
def _reads_undelivered(s, i, cfg, msg_sender, msg_reg, off, W, read_regs_from):
    n, P = cfg[C_N], cfg[C_P]
    b = i * P
    regs = read_regs_from[i, s[b + 2 * n + 1]]
    if regs == 0:
        return False
    pend = 2 * n + 3 + cfg[C_R] + cfg[C_RES]
    for g in range(off[i], off[i] + W[i]):
        if s[b + pend + g] and (regs >> msg_reg[g]) & 1:
            return True
    for j in range(n):
        if j == i:
            continue
        for q in range(s[b + j], W[j]):
            if (regs >> msg_reg[off[j] + q]) & 1:
                return True
    return False


@njit(cache=True, inline="always")
def _c_nonempty(s, i, cfg):
    """Whether C (line 21) is non-empty at p_i: a pending message whose causal
    timestamp is at most causal_i."""
    n, P, MT0 = cfg[C_N], cfg[C_P], cfg[C_MT0]
    b = i * P
    pend = b + 2 * n + 3 + cfg[C_R] + cfg[C_RES]
    for g in range(cfg[C_M]):
        if s[pend + g]:
            ok = True
            mb = MT0 + g * (n + 1)
            for x in range(n):
                if s[mb + x] > s[b + x]:
                    ok = False
                    break
            if ok:
                return True
    return False


@njit(cache=True, inline="always")
def _receipts_at(i, n, mt, mc, dv, chlen):
    """The receipts at p_i that a delivery at p_i may depend on (ProtocolPor._receipts_at)."""
    one = np.int64(1)
    r = np.int64(0)
    for j in range(n):
        if j != i and (mt[j * n + i] or (mc[j] and not (dv[i] >> j) & 1) or chlen[j * n + i] > 0):
            r |= one << (2 * n + i * n + j)
    return r

@njit(cache=True, inline="always")
def _edges_of(t, en, s, cfg, msg_sender, msg_reg, off, W, nops, read_regs_from, rem, chlen, mt, mc, dv):
    """ProtocolPor.por_dependents of an enabled transition, por_enablers of a disabled
    one, as a bit mask."""
    n, P = cfg[C_N], cfg[C_P]
    one = np.int64(1)
    enabled = (en >> t) & 1
    r = np.int64(0)
    if t < n:
        i = t
        if enabled:
            if rem[i]:
                r = one << (n + i)
                for j in range(n):
                    if mt[j * n + i]:
                        r |= one << (2 * n + i * n + j)
            elif _reads_undelivered(s, i, cfg, msg_sender, msg_reg, off, W, read_regs_from):
                r = one << (n + i)
        elif s[i * P + 2 * n + 1] < nops[i]:
            r = one << (n + i)
        return r
    if t < 2 * n:
        i = t - n
        if not enabled:
            if not _c_nonempty(s, i, cfg):
                if rem[i]:
                    r = one << i
                for j in range(n):
                    if mt[j * n + i]:
                        r |= one << (2 * n + i * n + j)
                return r
        return (one << i) | _receipts_at(i, n, mt, mc, dv, chlen)
    i = (t - 2 * n) // n
    j = (t - 2 * n) % n
    if enabled:
        r = one << (n + i)
        if mt[j * n + i]:
            if rem[i]:
                r |= one << i
            for k in range(n):
                if k != j and k != i and mt[k * n + i]:
                    r |= one << (2 * n + i * n + k)
        return r
    if rem[j]:
        r = one << j
    if mc[j] and not (dv[i] >> j) & 1:
        for k in range(n):
            if k != j and mt[k * n + j]:
                r |= one << (2 * n + j * n + k)
    return r



@njit(cache=True, inline="always")
def _stubborn(s, en, cfg, msg_sender, msg_reg, off, W, nops, last_w, read_regs_from, nbmask, dead,
              rem, chlen, mt, mc, dv, allcnt, edges, known, closure, closed, memo_keys, memo_vals, memo_used,
              memo_count):
    """The enabled members of the smallest stubborn set generated by one enabled seed
    (reduction.stubborn_mask on ProtocolPor's relations), memoised on a summary of the
    state that the relations depend on entirely (ProtocolPor.por_key): the enabled set;
    per process whether a write remains, whether its program ended, whether a read to
    come reads a register an undelivered message writes, whether C (line 21) is
    non-empty; the quiet views; per channel empty, CATCH_UPs only, or a TOCOBC."""
    n, P, CH0, CAP = cfg[C_N], cfg[C_P], cfg[C_CH0], cfg[C_CAP]
    T = 2 * n + n * n
    one = np.int64(1)
    for i in range(n):
        rem[i] = s[i * P + 2 * n + 1] <= last_w[i]
    mt[:] = False                                           # mt[j*n+i]: j -> i may carry a TOCOBC
    for j in range(n):
        for i in range(n):
            base = CH0 + (j * n + i) * (1 + CAP)
            chlen[j * n + i] = s[base]
            if j == i:
                continue
            if rem[j]:
                mt[j * n + i] = True
                continue
            for x in range(s[base]):
                if s[base + 1 + x] & 1 == 0:
                    mt[j * n + i] = True
                    break
    mc[:] = False
    if cfg[C_CATCH_UP]:
        for j in range(n):
            if not dead[j]:
                for k in range(n):
                    if mt[k * n + j]:
                        mc[j] = True
                        break
    _dead_rows(s, cfg, off, W, last_w, msg_sender, nbmask, dead, dv, allcnt)
    for i in range(n):                                      # saturated views, read off the image
        for k in range(n):
            if k != i and s[i * P + n + k] == SATURATED:
                dv[i] |= one << k
    known[:] = False
    closed[:] = False
    cap = memo_used.shape[0]
    slot = -1
    k1 = np.int64(0)
    k2 = np.int64(0)
    if cap > 1:
        for i in range(n):
            b = i * P
            bits = np.int64(1) if rem[i] else np.int64(0)
            if s[b + 2 * n + 1] >= nops[i]:
                bits |= 2
            if _reads_undelivered(s, i, cfg, msg_sender, msg_reg, off, W, read_regs_from):
                bits |= 4
            if _c_nonempty(s, i, cfg):
                bits |= 8
            k1 |= bits << (4 * i)
            k1 |= dv[i] << (4 * n + n * i)
        for c in range(n * n):
            if chlen[c] > 0:
                kind = np.int64(1)
                base = CH0 + c * (1 + CAP)
                for x in range(chlen[c]):
                    if s[base + 1 + x] & 1 == 0:
                        kind = np.int64(2)
                        break
                k2 |= kind << (2 * c)
        h = np.uint64(en) * np.uint64(0x9E3779B97F4A7C15)
        h ^= np.uint64(k1) * np.uint64(0xC2B2AE3D27D4EB4F)
        h ^= np.uint64(k2) * np.uint64(0x165667B19E3779F9)
        h ^= h >> np.uint64(31)
        slot = np.int64(h & np.uint64(cap - 1))
        while memo_used[slot]:
            if memo_keys[slot, 0] == en and memo_keys[slot, 1] == k1 and memo_keys[slot, 2] == k2:
                return memo_vals[slot]
            slot = (slot + 1) & (cap - 1)
        if memo_count[0] >= cap // 2:
            memo_used[:] = False
            memo_count[0] = 0
            slot = np.int64(h & np.uint64(cap - 1))

    # Seeds in increasing order; a seed's closure stops growing as soon as it holds as
    # many enabled transitions as the best so far (it can no longer win: ties go to the
    # smaller seed); a finished closure is closed under the edges, so another seed that
    # reaches that seed takes it whole.
    best = np.int64(0)
    best_count = T + 1
    for seed in range(T):
        if not (en >> seed) & 1:
            continue
        reach = one << seed
        done = np.int64(0)
        beaten = False
        while reach != done:
            todo = reach & ~done
            for t in range(T):
                if (todo >> t) & 1:
                    if closed[t]:
                        reach |= closure[t]
                        done |= closure[t]
                        continue
                    if not known[t]:
                        edges[t] = _edges_of(t, en, s, cfg, msg_sender, msg_reg, off, W, nops, read_regs_from,
                                             rem, chlen, mt, mc, dv)
                        known[t] = True
                    reach |= edges[t]
            done |= todo
            if _popcount(reach & en) >= best_count:
                beaten = True
                break
        if beaten:
            continue
        closure[seed] = reach
        closed[seed] = True
        best, best_count = reach & en, _popcount(reach & en)
        if best_count == 1:
            break
    if slot >= 0:
        memo_used[slot] = True
        memo_keys[slot, 0], memo_keys[slot, 1], memo_keys[slot, 2] = en, k1, k2
        memo_vals[slot] = best
        memo_count[0] += 1
    return best


@njit(cache=True, inline="always")
def _matches(s, cfg, off, W, msg_reg, msg_val, nops, op_kind, op_val, op_slot, cond_pc, cond_reg, cond_val):
    """Whether the run may still match the figure (ProtocolSystem.matches_expected):
    with conditioned reads, no conditioning read still to run is doomed; else every
    executed read with a figure's value returned it."""
    n, P = cfg[C_N], cfg[C_P]
    cop = 2 * n + 3
    pend = cop + cfg[C_R] + cfg[C_RES]
    for i in range(n):
        b = i * P
        pc = s[b + 2 * n + 1]
        if not cfg[C_COND]:
            for p in range(pc):
                if op_kind[i, p] == OP_READ and op_val[i, p] != NO_EXPECT:
                    if s[b + cop + cfg[C_R] + op_slot[i, p]] != op_val[i, p]:
                        return False
            continue
        for c in range(cond_pc.shape[1]):
            cp = cond_pc[i, c]
            if cp < 0:
                break
            if cp < pc:
                continue
            v = cond_val[i, c]
            if s[b + cop + cond_reg[i, c]] == v:
                continue
            found = False
            for j in range(n):
                if j == i:
                    start = s[b + 2 * n]
                    for g in range(off[i], off[i] + W[i]):
                        start -= s[b + pend + g]
                else:
                    start = s[b + j]
                for q in range(start, W[j]):
                    g = off[j] + q
                    if msg_reg[g] == cond_reg[i, c] and msg_val[g] == v:
                        found = True
                        break
                if found:
                    break
            if not found:
                return False
    return True


@njit(cache=True)
def expand_batch(states, status, children, parent, step, keys, cfg, msg_sender, msg_reg, msg_val, off, W,
                 nops, op_kind, op_reg, op_val, op_waits, op_slot, read_regs_from, cond_pc, cond_reg,
                 cond_val, last_w, nbmask, dead, opposite, monitor_masks, memo_keys, memo_vals, memo_used,
                 memo_count):
    """Expand every row of ``states`` (see ProtocolKernel.expand); returns the number of
    children written.  ``memo_*``: the stubborn sets' memo (an open-addressing table of
    a power-of-two size kept across calls; size 1: no memo)."""
    n = cfg[C_N]
    T = 2 * n + n * n
    m = 0
    rem = np.zeros(n, dtype=np.bool_)
    chlen = np.zeros(n * n, dtype=np.int64)
    mt = np.zeros(n * n, dtype=np.bool_)
    mc = np.zeros(n, dtype=np.bool_)
    dv = np.zeros(n, dtype=np.int64)
    sat = np.zeros(n, dtype=np.int64)
    allcnt = np.zeros(n, dtype=np.int64)
    edges = np.zeros(T, dtype=np.int64)
    known = np.zeros(T, dtype=np.bool_)
    closure = np.zeros(T, dtype=np.int64)
    closed = np.zeros(T, dtype=np.bool_)
    for k in range(states.shape[0]):
        s = states[k]
        if cfg[C_PRUNE] and not _matches(s, cfg, off, W, msg_reg, msg_val, nops, op_kind, op_val, op_slot,
                                         cond_pc, cond_reg, cond_val):
            status[k] = PRUNED
            continue
        en = _enabled(s, cfg, msg_sender, nops, op_kind, op_reg, op_val, nbmask, opposite)
        if en == 0:
            status[k] = NO_STEP
            continue
        status[k] = INNER
        sw = s.view(np.uint64)
        if _popcount(en) > 1:
            en = _stubborn(s, en, cfg, msg_sender, msg_reg, off, W, nops, last_w, read_regs_from, nbmask,
                           dead, rem, chlen, mt, mc, dv, allcnt, edges, known, closure, closed, memo_keys,
                           memo_vals, memo_used, memo_count)
        idx = 0
        for t in range(T):
            if not (en >> t) & 1:
                continue
            c = children[m]
            cw = c.view(np.uint64)
            for x in range(sw.shape[0]):
                cw[x] = sw[x]
            _apply_raw(c, t, cfg, msg_sender, msg_reg, msg_val, off, op_kind, op_reg, op_val, op_waits,
                       op_slot, nbmask, opposite, monitor_masks)
            _canon(c, cfg, msg_sender, off, W, last_w, nbmask, dead, opposite, dv, sat, allcnt)
            parent[m] = k
            step[m] = idx
            keys[m] = row_fingerprint(c)
            idx += 1
            m += 1
    return m
