"""The compiled kernel of the last-writer-wins store (``lww.py``, which stays the
reference): the same transition system over rows of integers, expanded a batch at a
time by one numba function, with the explorer's process-level reduction.

A state is one row of ``int16``.  Per process ``i`` (a block of ``block`` integers):
the Lamport clock, the program counter, per register ``x`` (in sorted order) the
replica as ``(value, clock, writer + 1)`` (``(0, 0, 0)``: the initial value, no entry in
``Replica.store``), then the values the reads returned (``reads_i``, as many as the
reads before ``pc``).  Values are indices into ``values`` (index 0: the initial 0).
Then per channel ``src * n + dst``: its length and its messages in FIFO order, each as
``(u, clock)``: ``UPDATE(X, v, clock)`` where ``(X, v) = updates[u]``, the register
and value of a write of the program.  The row is canonical: two states are equal iff
their rows are.  (``int16`` holds clocks and counts up to 32,767 writes.)

Run it: ``fisheye explore causal --system lww:make --model cc`` uses it (the report says
``compiled kernel``); ``--kernel python`` runs ``lww.py``'s actor.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from lww import LastWriterWins, Replica
from numba import njit

from fisheye import (
    ActorSystem,
    GlobalState,
    KernelStatus,
    RowKernel,
    persistent_processes,
    row_fingerprint,
    row_width,
)

INNER, NO_STEP = KernelStatus.INNER, KernelStatus.NO_STEP
OP_READ, OP_WRITE = 0, 1


class LwwKernel(RowKernel):
    """The kernel of one lww system (FIFO channels); ``reduce``: apply the process-level
    reduction (the explorer's ``process``), else explore every enabled step (``none``)."""

    dtype = np.int16

    def __init__(self, system: ActorSystem[Replica], *, reduce: bool):
        actor: LastWriterWins = system.actor
        self.system = system
        ps = self.processes = system.processes
        n = self.n = len(ps)
        programs = [actor.programs[p] for p in ps]
        self.registers = sorted({op[1] for prog in programs for op in prog})
        reg = {x: r for r, x in enumerate(self.registers)}
        self.values: list[Any] = [0]
        vindex = self._vindex = {(int, 0): 0}
        self.updates: list[tuple[str, Any]] = []      # the (register, value) an UPDATE carries
        uindex: dict[tuple[str, tuple[type, Any]], int] = {}
        maxops = max((len(p) for p in programs), default=0)
        nops = np.array([len(p) for p in programs], dtype=np.int64)
        op_kind = np.zeros((n, maxops), dtype=np.int64)
        op_reg = np.zeros((n, maxops), dtype=np.int64)
        op_slot = np.zeros((n, maxops), dtype=np.int64)      # a read: its slot; a write: its update
        for i, prog in enumerate(programs):
            reads = 0
            for k, op in enumerate(prog):
                op_reg[i, k] = reg[op[1]]
                if op[0] == "r":
                    op_kind[i, k], op_slot[i, k] = OP_READ, reads
                    reads += 1
                    continue
                x, v = op[1], op[2]
                if (type(v), v) not in vindex:
                    vindex[(type(v), v)] = len(self.values)
                    self.values.append(v)
                u = uindex.setdefault((x, (type(v), v)), len(self.updates))
                if u == len(self.updates):
                    self.updates.append((x, v))
                op_kind[i, k], op_slot[i, k] = OP_WRITE, u
        u_reg = np.array([reg[x] for x, _ in self.updates], dtype=np.int64)
        u_val = np.array([vindex[(type(v), v)] for _, v in self.updates], dtype=np.int64)
        self._uindex = uindex
        self.nreads = max((sum(op[0] == "r" for op in p) for p in programs), default=0)
        self.capacity = max((sum(op[0] == "w" for op in p) for p in programs), default=0)
        self.block = 2 + 3 * len(self.registers) + self.nreads
        self.chan0 = n * self.block
        self.chan_size = 1 + 2 * self.capacity
        self.width = row_width(self.chan0 + n * n * self.chan_size, self.dtype)
        self.fanout = n + n * (n - 1)                  # an op and a receipt per channel, per process
        rank = np.array([sorted(ps).index(p) for p in ps], dtype=np.int64)   # the names' order
        cfg = np.array([n, len(self.registers), self.block, self.chan0, self.chan_size, int(reduce)],
                       dtype=np.int64)
        self._tables = (cfg, nops, op_kind, op_reg, op_slot, u_reg, u_val, rank,
                        np.ones(n * n, dtype=np.bool_))

    # ---- rows and states ---------------------------------------------------------------------
    def encode(self, state: GlobalState) -> np.ndarray:
        row = np.zeros(self.width, dtype=self.dtype)
        reg = {x: r for r, x in enumerate(self.registers)}
        index = {p: i for i, p in enumerate(self.processes)}
        for i, local in enumerate(state.procs):
            b = i * self.block
            row[b], row[b + 1] = local.clock, local.pc
            for x, v, c, j in local.store:
                e = b + 2 + 3 * reg[x]
                row[e:e + 3] = (self._vindex[(type(v), v)], c, index[j] + 1)
            for k, v in enumerate(local.reads):
                row[b + 2 + 3 * len(self.registers) + k] = self._vindex[(type(v), v)]
        for idx, chan in enumerate(state.channels):
            c0 = self.chan0 + idx * self.chan_size
            row[c0] = len(chan)
            for k, (_, x, v, c) in enumerate(chan):
                row[c0 + 1 + 2 * k] = self._uindex[(x, (type(v), v))]
                row[c0 + 2 + 2 * k] = c
        return row

    def decode(self, row: np.ndarray) -> GlobalState:
        r = [int(a) for a in row]
        n, nreg = self.n, len(self.registers)
        procs = []
        for i in range(n):
            b = i * self.block
            store = []
            for k, x in enumerate(self.registers):
                vi, c, w = r[b + 2 + 3 * k:b + 5 + 3 * k]
                if w:
                    store.append((x, self.values[vi], c, self.processes[w - 1]))
            nr = sum(op[0] == "r" for op in self.system.actor.programs[self.processes[i]][:r[b + 1]])
            reads = tuple(self.values[v] for v in r[b + 2 + 3 * nreg:b + 2 + 3 * nreg + nr])
            procs.append(Replica(r[b], tuple(sorted(store)), r[b + 1], reads))
        chans = []
        for idx in range(n * n):
            c0 = self.chan0 + idx * self.chan_size
            msgs = []
            for k in range(r[c0]):
                x, v = self.updates[r[c0 + 1 + 2 * k]]
                msgs.append(("UPDATE", x, v, r[c0 + 2 + 2 * k]))
            chans.append(tuple(msgs))
        return GlobalState(tuple(procs), tuple(chans))

    def expand_rows(self, states, status, children, parent, step, keys) -> int:
        return expand_rows(states, status, children, parent, step, keys, *self._tables)


# ---- compiled code ---------------------------------------------------------------------------

@njit(cache=True)
def expand_rows(states, status, children, parent, step, keys, cfg, nops, op_kind, op_reg, op_slot, u_reg,
                u_val, rank, may_send):
    """Expand every row (see ``RowKernel``): per process in order, its ``op`` step, then
    its receipts from each source in order (``ActorSystem``'s order), those of the
    processes the reduction keeps."""
    n, nreg, block, chan0, csize, reduce = cfg[0], cfg[1], cfg[2], cfg[3], cfg[4], cfg[5]
    counts = np.zeros(n, dtype=np.int64)
    receipt = np.zeros(n * n, dtype=np.bool_)
    m = 0
    for k in range(states.shape[0]):
        s = states[k]
        total = 0
        for i in range(n):
            c = 1 if s[i * block + 1] < nops[i] else 0
            for src in range(n):
                full = s[chan0 + (src * n + i) * csize] > 0
                receipt[src * n + i] = full
                c += 1 if full else 0
            counts[i] = c
            total += c
        if total == 0:
            status[k] = NO_STEP
            continue
        status[k] = INNER
        chosen = persistent_processes(counts, receipt, may_send) if reduce else (np.int64(1) << n) - 1
        idx = 0
        for i in range(n):
            if not (chosen >> i) & 1:
                continue
            if s[i * block + 1] < nops[i]:
                children[m] = s
                _invoke(children[m], i, n, nreg, block, chan0, csize, op_kind, op_reg, op_slot, u_val)
                parent[m], step[m], keys[m] = k, idx, row_fingerprint(children[m])
                idx += 1
                m += 1
            for src in range(n):
                if receipt[src * n + i]:
                    children[m] = s
                    _receive(children[m], i, src, n, block, chan0, csize, u_reg, u_val, rank)
                    parent[m], step[m], keys[m] = k, idx, row_fingerprint(children[m])
                    idx += 1
                    m += 1
    return m


@njit(cache=True, inline="always")
def _invoke(c, i, n, nreg, block, chan0, csize, op_kind, op_reg, op_slot, u_val):
    """``on_invoke``: a read returns the replica; a write ticks the clock, installs the
    value locally and sends ``UPDATE`` to every other process."""
    b = i * block
    pc = c[b + 1]
    e = b + 2 + 3 * op_reg[i, pc]
    c[b + 1] = pc + 1
    if op_kind[i, pc] == OP_READ:
        c[b + 2 + 3 * nreg + op_slot[i, pc]] = c[e]
        return
    u = op_slot[i, pc]
    clock = c[b] + 1
    c[b] = clock
    c[e], c[e + 1], c[e + 2] = u_val[u], clock, i + 1
    for q in range(n):
        if q != i:
            ch = chan0 + (i * n + q) * csize
            ln = c[ch]
            c[ch + 1 + 2 * ln], c[ch + 2 + 2 * ln] = u, clock
            c[ch] = ln + 1


@njit(cache=True, inline="always")
def _receive(c, i, src, n, block, chan0, csize, u_reg, u_val, rank):
    """``on_receive`` of the head of the channel ``src -> i``: ``clock := max``; install
    the value if ``(clock, src)`` is newer than the replica's stamp."""
    ch = chan0 + (src * n + i) * csize
    ln = c[ch]
    u, clock = c[ch + 1], c[ch + 2]
    for x in range(1, 2 * ln - 1):
        c[ch + x] = c[ch + x + 2]
    c[ch + 2 * ln - 1] = 0
    c[ch + 2 * ln] = 0
    c[ch] = ln - 1
    b = i * block
    if clock > c[b]:
        c[b] = clock
    e = b + 2 + 3 * u_reg[u]
    held_c, held_w = c[e + 1], c[e + 2]
    if held_w == 0 or clock > held_c or (clock == held_c and rank[src] > rank[held_w - 1]):
        c[e], c[e + 1], c[e + 2] = u_val[u], clock, src + 1
