"""A sound domain reduction for the protocol level: dead clock views and the CATCH_UP
messages that only feed them.

In Algorithm 1, ``total_i[k]`` (k != i) is read at one place only: T1 (line 23), for the
messages of a sender p_j with p_k in N_G(p_j).  When p_k has no neighbour in G (or the
``no-t1`` mutant drops T1), no process ever reads its view of p_k's clock: the variable
is *dead*.  The receipt of ``CATCH_UP(last_date_k, k)`` (lines 15-17) writes only that
variable, so when p_k is isolated its CATCH_UP messages have no effect at all, and their
receipts only multiply interleavings.

:class:`DeadClockSystem` wraps a :class:`fisheye.impl.system.TocoSystem` and quotients
its states by: ``total_i[k] := 0`` for every dead k != i, and CATCH_UP messages of dead
senders removed from the channels (FIFO order of the other messages kept).  The
quotient map h is a stuttering bisimulation (docs/por.md): a receipt of a dead CATCH_UP
maps to no step, every other step commutes with h, and a state's enabled steps other than
those receipts, their effects, ``is_final`` after the dead messages are drained, the
history, the outcomes and the delivery logs depend only on h(state).  Hence the wrapped
system has exactly the raw system's terminal states up to h, the same complete
histories, outcomes, deadlocks and property violations.

Schedules of the wrapped system omit the receipts of dead CATCH_UP messages;
:meth:`DeadClockSystem.lift` puts them back, so that every reported schedule replays on
the raw system (:func:`fisheye.impl.api.replay`).
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import compress
from typing import Any

from fisheye.impl.api import Step
from fisheye.impl.toco import CATCH_UP, TOCOBC, wire_id

_CACHE = 1 << 18        # entries of an identity-keyed memo before it is cleared
SATURATED = 255         # the value of a saturated view: above every clock value explored


def memo_by_identity(cache: dict[tuple[int, int], tuple[Any, Any]], i: int, ps: Any, fn: Any) -> Any:
    """``fn(i, ps)`` memoised on (index, object identity): a summary of one process's local
    state depends on its index too, and one decoded object may stand at two indices."""
    key = (i, id(ps))
    e = cache.get(key)
    if e is not None and e[0] is ps:
        return e[1]
    r = fn(i, ps)
    if len(cache) >= _CACHE:
        cache.clear()
    cache[key] = (ps, r)
    return r


class DeadClockSystem:
    """The raw protocol system seen through the quotient map (see module doc)."""

    def __init__(self, raw: Any):
        self.raw = raw
        self.processes = raw.processes
        self.program = raw.program
        self.graph = raw.graph
        self.network = raw.network
        self.info = raw.info
        self.read_names = raw.read_names
        self.level = "protocol"
        n = self.n = len(self.processes)
        use_t1 = getattr(raw._cfgs[0], "use_t1", True) if n else True
        nb = raw._cfgs[0].neighbours if n else ()
        self.dead = tuple((not use_t1) or not nb[k] for k in range(n))
        self._nbrs = nb
        # per process p_k, its neighbours as a bit mask; per set of processes done with
        # their writes, the views that may be saturated (see _sat_row)
        self._nbmask = tuple(sum(1 << j for j in nb[k]) for k in range(n))
        self._sat_cands_memo: dict[int, tuple[int, ...]] = {}
        self._dv_memo: dict[tuple[int, int], tuple[bool, ...]] = {}
        self._dc_cache: dict[int, tuple[Any, tuple[bool, int]]] = {}
        self._sm_cache: dict[tuple[int, int], tuple[Any, int]] = {}
        self._dv_last: list[Any] = [None, None, None, None]
        self._pindex = {p: i for i, p in enumerate(self.processes)}
        # channels as (index, source, destination), source != destination: all of them,
        # those out of p_i, those into p_i
        self._pairs = tuple((s * n + d, s, d) for s in range(n) for d in range(n) if s != d)
        self._out_of = tuple(tuple(e for e in self._pairs if e[1] == i) for i in range(n))
        self._into = tuple(tuple(e for e in self._pairs if e[2] == i) for i in range(n))
        from fisheye.impl.programs import Write

        ops = raw.program.ops
        self._writes = tuple(sum(isinstance(op, Write) for op in o) for o in ops)
        # saturated views need views that only grow: FIFO channels (see dead_views)
        self._fifo = raw.network.value == "fifo"
        self._keys = tuple(cfg.key for cfg in raw._cfgs)
        self._last_w = tuple(max((pc for pc, op in enumerate(o) if isinstance(op, Write)), default=-1)
                             for o in ops)

    # ---- quotient map ------------------------------------------------------------------
    def dead_views(self, state: Any) -> tuple[tuple[bool, ...], ...]:
        """``d[i][k]``: p_i's view ``total_i[k]`` (k != i) is *quiet*: its exact value no
        longer matters, so it is quotiented and the CATCH_UP messages feeding it dropped.

        * *Dead* (set to 0): never read again.  Statically when p_k has no neighbour (or
          T1 is dropped); dynamically once every neighbour p_j of p_k has broadcast all
          its messages and p_i has delivered them all, since T1 (line 23) reads
          ``total_i[k]`` only for pending messages of such p_j, and no such message can
          be pending at p_i any more.
        * *Saturated* (set to :data:`SATURATED`; FIFO channels only): every neighbour
          p_j of p_k has broadcast all its messages and each of them p_i has not
          delivered yet carries a timestamp below ``<total_i[k], k>``.  T1's conjunct
          for p_k then holds for every message it will ever test, and stays so: no new
          message of a p_j, and the view only grows (p_k's clock values reach p_i in
          FIFO order and strictly increase, Lemma 2), so any larger value, the
          sentinel included, gives the same deliveries.

        Dead rows come from a per-process summary (:meth:`_done_counts`), memoised per
        row; saturation from the views and the messages in transit (:meth:`_sat_row`)."""
        dv, _sums, sat = self._summary(state)
        return self._quiet(dv, sat)

    def _summary(self, state: Any, *, image: bool = False) -> tuple[Any, Any, tuple[int, ...]]:
        """(dead rows, per-process summaries, saturated views as one bit mask per row)
        of ``state``, kept for the state last asked about (its successors reuse them).

        ``image``: ``state`` is a state of the quotient (an image of :meth:`canon`, as
        every state :meth:`initial` and :meth:`apply` hand out), whose saturated views
        carry :data:`SATURATED`: they are read off instead of recomputed.  Exact: a
        saturated view stays saturated (see :meth:`dead_views`), and :meth:`canon`
        changes no value :meth:`_sat_row` reads for the other views."""
        last = self._dv_last
        if last[0] is state:
            return last[1], last[2], last[3]
        sums = [self._done_counts(k, ps) for k, ps in enumerate(state.procs)]
        dv = self._views_of(sums)
        if image:
            sat = tuple(self._sat_marks(i, ps) for i, ps in enumerate(state.procs))
        else:
            fin = self._fin(sums)
            sat = tuple(self._sat_row(state, i, fin, dv[i]) for i in range(self.n))
        last[0], last[1], last[2], last[3] = state, dv, sums, sat
        return dv, sums, sat

    def _sat_marks(self, i: int, ps: Any) -> int:
        """The views of p_i that hold :data:`SATURATED` (bit k for ``total_i[k]``)."""
        return memo_by_identity(self._sm_cache, i, ps, self._sat_marks_of)

    @staticmethod
    def _sat_marks_of(i: int, ps: Any) -> int:
        m = 0
        for k, v in enumerate(ps.toco.total):
            if v == SATURATED and k != i:
                m |= 1 << k
        return m

    @staticmethod
    def _fin(sums: Sequence[tuple[bool, int]]) -> int:
        fin = 0
        for j, (f, _) in enumerate(sums):
            if f:
                fin |= 1 << j
        return fin

    @staticmethod
    def _quiet(dv: Any, sat: tuple[int, ...]) -> Any:
        if not any(sat):
            return dv
        return tuple(tuple(d or bool((m >> k) & 1) for k, d in enumerate(row))
                     for row, m in zip(dv, sat, strict=True))

    def _sat_cands(self, fin: int) -> tuple[int, ...]:
        """The processes p_k, T1 not dropped for them, all of whose neighbours are in
        ``fin`` (have broadcast all their messages): the only views that may be saturated."""
        c = self._sat_cands_memo.get(fin)
        if c is None:
            nbm, dead = self._nbmask, self.dead
            c = self._sat_cands_memo[fin] = tuple(
                k for k in range(self.n) if not dead[k] and not (nbm[k] & ~fin))
        return c

    def _sat_row(self, state: Any, i: int, fin: int, drow: Sequence[bool]) -> int:
        """The views of p_i that are saturated (bit k for ``total_i[k]``), dead ones aside."""
        if not self._fifo:
            return 0
        cands = self._sat_cands(fin)
        if not cands:
            return 0
        n, nbrs = self.n, self._nbrs
        ps = state.procs[i]
        toco = ps.toco
        total, key, chans = toco.total, self._keys[i], state.channels
        out = 0
        for k in cands:
            if k == i or drow[k]:
                continue
            js = nbrs[k]
            v = total[k]
            if v > SATURATED:
                raise ValueError(f"clock value {v} above {SATURATED}: saturated views need a larger sentinel")
            kv = key(v, k)
            if any(m.sender in js and key(m.tot, m.sender) >= kv for m in toco.pending):
                continue
            if any(w[0] == TOCOBC and key(w[1].tot, j) >= kv
                   for j in js if j != i for w in chans[j * n + i]):
                continue
            out |= 1 << k
        return out

    def _views_of(self, sums: Sequence[tuple[bool, int]]) -> tuple[tuple[bool, ...], ...]:
        """The dead views from the per-process summaries of :meth:`_done_counts`."""
        fin = self._fin(sums)
        memo = self._dv_memo
        out = []
        for i, (_, allcnt) in enumerate(sums):
            key = (i, fin & allcnt)
            row = memo.get(key)
            if row is None:
                done = fin & allcnt
                row = memo[key] = tuple(
                    k != i and (self.dead[k] or all((done >> j) & 1 for j in self._nbrs[k]))
                    for k in range(self.n))
            out.append(row)
        return tuple(out)

    def _done_counts(self, i: int, ps: Any) -> tuple[bool, int]:
        """Of p_i's local state alone: whether p_i has invoked all its writes, and the
        set (bit mask) of processes p_j all of whose messages p_i has delivered
        (``causal_i[j]``, line 29; for j = i, its own messages no longer pending)."""
        return memo_by_identity(self._dc_cache, i, ps, self._done_counts_of)

    def _done_counts_of(self, i: int, ps: Any) -> tuple[bool, int]:
        t = ps.toco
        c = t.causal
        own = t.sent - sum(1 for m in t.pending if m.sender == i)
        W = self._writes
        allcnt = 0
        for j in range(self.n):
            if (own if j == i else c[j]) >= W[j]:
                allcnt |= 1 << j
        return (ps.reg.pc > self._last_w[i], allcnt)

    def canon(self, state: Any, dv: Any = None, procs_at: Any = None, chans_at: Any = None,
              sat: tuple[int, ...] | None = None) -> Any:
        """The quotient map h: dead views set to 0, saturated ones to
        :data:`SATURATED`, CATCH_UP messages feeding a quiet view removed from their
        channel (the other messages keep their FIFO order).

        ``dv``, ``sat``: the state's dead views and saturated ones if known;
        ``procs_at`` / ``chans_at``: the only processes and channels (as ``(index,
        source, destination)``) that may need it, when the state is a successor of a
        quotiented state (see :meth:`apply`)."""
        n = self.n
        if dv is None or sat is None:
            dv, _, sat = self._summary(state)
        procs = state.procs
        newp = None
        for i in range(n) if procs_at is None else procs_at:
            ps = procs[i]
            tot = ps.toco.total
            di, si = dv[i], sat[i]
            if any(compress(tot, di)) or (si and any(tot[k] != SATURATED for k in range(n) if (si >> k) & 1)):
                tot = tuple(0 if di[k] else SATURATED if (si >> k) & 1 else v for k, v in enumerate(tot))
                if newp is None:
                    newp = list(procs)
                newp[i] = ps._replace(toco=ps.toco._replace(total=tot))
        chans = state.channels
        ch = None
        for idx, src, dst in self._pairs if chans_at is None else chans_at:
            c = chans[idx]
            if c and (dv[dst][src] or (sat[dst] >> src) & 1) and any(w[0] == CATCH_UP for w in c):
                if ch is None:
                    ch = list(chans)
                ch[idx] = tuple(w for w in c if w[0] != CATCH_UP)
        if newp is None and ch is None:
            return state
        return state._replace(procs=procs if newp is None else tuple(newp),
                              channels=chans if ch is None else tuple(ch))

    # ---- the step API --------------------------------------------------------------------
    def initial(self) -> Any:
        return self.canon(self.raw.initial())

    def enabled(self, state: Any) -> list[Step]:
        return self.raw.enabled(state)

    def apply(self, state: Any, step: Step) -> Any:
        """h(raw step) from a quotiented state, touching only what the step can change:
        a receipt at p_i changes no dead view (its pending message is another process's,
        p_i's counters and program counter stay) but may saturate a view of p_i (a view
        grew, a message moved into pending_i), so ``total_i``, the channels out of p_i
        (new CATCH_UPs) and into p_i may need the quotient; a delivery at p_i changes only
        row i of the views (p_i's counters, pending_i), so only ``total_i`` and the
        channels into p_i; an operation may end a process's writes: everything is
        recomputed.  The dead views come from the per-process summaries, the parent's
        kept for its other successors and only p_i's recomputed for the child."""
        child = self.raw.apply(state, step)
        i = self._pindex[step.process]
        dvp, sums, satp = self._summary(state, image=True)
        kind = step.kind
        if kind == "recv":
            sat = satp[:i] + (self._sat_row(child, i, self._fin(sums), dvp[i]),) + satp[i + 1:]
            return self.canon(child, dvp, (i,), self._out_of[i] + self._into[i], sat)
        csums = list(sums)
        csums[i] = self._done_counts(i, child.procs[i])
        dv = self._views_of(csums)
        fin = self._fin(csums)
        if kind == "deliver":
            sat = satp[:i] + (self._sat_row(child, i, fin, dv[i]),) + satp[i + 1:]
            return self.canon(child, dv, (i,), self._into[i], sat)
        sat = tuple(self._sat_row(child, k, fin, dv[k]) for k in range(self.n))
        return self.canon(child, dv, None, None, sat)

    def is_final(self, state: Any) -> bool:
        return self.raw.is_final(state)

    def history(self, state: Any) -> Any:
        return self.raw.history(state)

    def delivery_logs(self, state: Any) -> Any:
        return self.raw.delivery_logs(state)

    def broadcast_violations(self, state: Any, *, complete: bool | None = None) -> Any:
        return self.raw.broadcast_violations(state, complete=complete)

    def outcome(self, state: Any) -> Any:
        return self.raw.outcome(state)

    def matches_expected(self, state: Any) -> bool:
        return self.raw.matches_expected(state)

    def blocked_by_condition(self, state: Any) -> bool:
        return self.raw.blocked_by_condition(state)

    def describe(self) -> dict[str, Any]:
        return self.raw.describe()

    def properties(self) -> Any:
        return self.raw.properties()

    # ---- schedules -------------------------------------------------------------------------
    def lift(self, schedule: Sequence[Step]) -> list[Step]:
        """The raw schedule: the same steps, with the receipts of dead CATCH_UP messages
        put back where a receipt needs them out of the way, and at the end."""
        raw, n = self.raw, self.n
        idx = raw._index
        state = raw.initial()
        out: list[Step] = []

        def drain(src: int, dst: int) -> None:
            nonlocal state
            while True:
                c = state.channels[src * n + dst]
                if not c or c[0][0] != CATCH_UP or not self.dead_views(state)[dst][src]:
                    return
                s = Step("recv", self.processes[dst], self.processes[src])
                state = raw.apply(state, s)
                out.append(s)

        for step in schedule:
            if step.kind == "recv" and step.src is not None and raw.network.value == "fifo":
                drain(idx[step.src], idx[step.process])
            state = raw.apply(state, step)
            out.append(step)
        fifo = raw.network.value == "fifo"
        for src in range(n):
            for dst in range(n):
                if src == dst or not self.dead_views(state)[dst][src]:
                    continue
                if fifo:
                    drain(src, dst)
                    continue
                for w in state.channels[src * n + dst]:
                    if w[0] == CATCH_UP:
                        s = Step("recv", self.processes[dst], self.processes[src], wire_id(w))
                        state = raw.apply(state, s)
                        out.append(s)
        return out
