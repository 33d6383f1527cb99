"""The transition model of the protocol level for stubborn sets (FIFO channels): which
variables of Algorithms 1 and 2 each transition reads and writes, as the dependency and
necessary-enabling relations (docs/por.md, section 3.2), over the dead-clock quotient of
:mod:`fisheye.impl.dead_clock`."""

from __future__ import annotations

from typing import Any

from fisheye.impl.api import Step
from fisheye.impl.dead_clock import memo_by_identity
from fisheye.impl.toco import TOCOBC


class ProtocolPor:
    """The transition model of the protocol level for stubborn sets (FIFO channels),
    mixed into :class:`DeadClockSystem`.  Transitions: ``op(i) = i``, ``deliver(i) = n+i``,
    ``recv(i <- j) = 2n + i*n + j``; the dependency and necessary-enabling relations
    are derived from which variables of Algorithms 1 and 2 each transition reads and
    writes (docs/por.md, "protocol level")."""

    def _por_init(self, raw: Any) -> None:
        from fisheye.impl.programs import Write

        n = self.n
        ops = raw.program.ops
        self._last_write = tuple(
            max((pc for pc, op in enumerate(o) if isinstance(op, Write)), default=-1) for o in ops)
        self._catch_up = getattr(raw._cfgs[0], "catch_up", True) if n else True
        # registers written by p_j's writes, in order; registers read by p_i from pc on
        self._write_regs = tuple(tuple(op.register for op in o if isinstance(op, Write)) for o in ops)
        self._read_regs_from = tuple(
            tuple(frozenset(op.register for op in o[pc:] if not isinstance(op, Write))
                  for pc in range(len(o) + 1)) for o in ops)
        self._op_steps = tuple(Step("op", p) for p in self.processes)
        self._dlv_steps = tuple(Step("deliver", p) for p in self.processes)
        self._rcv_steps = tuple(tuple(Step("recv", p, q) for q in self.processes) for p in self.processes)
        self._tid = {}
        for i in range(n):
            self._tid[self._op_steps[i]] = i
            self._tid[self._dlv_steps[i]] = n + i
            for j in range(n):
                self._tid[self._rcv_steps[i][j]] = 2 * n + i * n + j

    def _facts(self, state: Any) -> tuple[Any, ...]:
        """(remaining write per process, may_tocobc[j][i] "channel j->i may carry a
        TOCOBC now or later", may_cu[j] "j may still send CATCH_UP", dead views)."""
        from fisheye.impl.toco import TOCOBC

        n = self.n
        procs, chans = state.procs, state.channels
        rem = tuple(procs[i].reg.pc <= self._last_write[i] for i in range(n))
        mt = tuple(tuple(j != i and (rem[j] or any(w[0] == TOCOBC for w in chans[j * n + i]))
                         for i in range(n)) for j in range(n))
        mc = tuple(self._catch_up and not self.dead[j] and any(mt[k][j] for k in range(n))
                   for j in range(n))
        dv, _, sat = self._summary(state, image=True)
        return rem, mt, mc, self._quiet(dv, sat)

    def por_key(self, state: Any, enabled: dict[int, Step]) -> Any:
        """A summary of ``state`` on which :meth:`por_dependents` and :meth:`por_enablers`
        (for every transition) depend entirely, so that a stubborn set computed for one
        state serves every state with the same key: the enabled transitions; per process
        whether a write remains, whether its program has ended, whether a read still to
        run reads a register an undelivered message writes, whether C (line 21) is
        non-empty, the processes all of whose messages it delivered, and whether its
        writes are all invoked (these two give the dead views); per channel whether it
        is empty, holds a TOCOBC, or holds CATCH_UPs only; the saturated views."""
        emask = 0
        for t in enabled:
            emask |= 1 << t
        procs = state.procs
        return (emask, tuple(self._por_proc(i, ps) for i, ps in enumerate(procs)),
                tuple(self._chan_kind(c) if c else 0 for c in state.channels),
                self._summary(state, image=True)[2])

    def _por_proc(self, i: int, ps: Any) -> tuple[Any, ...]:
        return memo_by_identity(self._pp_cache, i, ps, self._por_proc_of)

    def _por_proc_of(self, i: int, ps: Any) -> tuple[Any, ...]:
        toco = ps.toco
        causal = toco.causal
        cne = any(all(a <= b for a, b in zip(m.caus, causal, strict=True)) for m in toco.pending)
        r = (ps.reg.pc >= len(self.raw.program.ops[i]), self._reads_undelivered_ps(i, ps), cne,
             self._done_counts(i, ps))
        return r

    def _chan_kind(self, c: tuple[Any, ...]) -> int:
        return 2 if any(w[0] == TOCOBC for w in c) else 1

    def por_enabled(self, state: Any) -> dict[int, Step]:
        tid = self._tid
        return {tid[s]: s for s in self.raw.enabled(state)}

    def _may_send(self, facts: Any, state: Any, j: int, i: int) -> bool:
        _, mt, mc, dv = facts
        if mt[j][i] or (mc[j] and not dv[i][j]):
            return True
        return bool(state.channels[j * self.n + i])    # a CATCH_UP already in transit

    def por_dependents(self, state: Any, t: int) -> list[int]:
        n = self.n
        facts = self._facts_cached(state)
        rem, mt, _, _ = facts
        if t < n:       # op(i): deliveries at i; receipts of TOCOBC if a write is to come
            i = t
            if rem[i]:
                return [n + i] + [2 * n + i * n + j for j in range(n) if mt[j][i]]
            # only reads and awaits remain: a delivery interferes iff it may still change a
            # copy that one of them reads
            return [n + i] if self._reads_undelivered(state, i) else []
        if t < 2 * n:                               # deliver(i): everything at i that changes pending/total
            i = t - n
            return [i] + self._receipts_at(facts, state, i)
        i, j = divmod(t - 2 * n, n)                 # recv(i <- j)
        out = [n + i]
        if mt[j][i]:
            if rem[i]:
                out.append(i)
            out += [2 * n + i * n + k for k in range(n) if k != j and k != i and mt[k][i]]
        return out

    def por_enablers(self, state: Any, t: int) -> list[int]:
        n = self.n
        facts = self._facts_cached(state)
        rem, mt, mc, dv = facts
        if t < n:
            i = t
            if state.procs[i].reg.pc >= len(self.raw.program.ops[i]):
                return []
            return [n + i]                          # waiting for its own write, or an await
        if t < 2 * n:
            i = t - n
            toco = state.procs[i].toco
            causal = toco.causal
            if not any(all(a <= b for a, b in zip(m.caus, causal, strict=True)) for m in toco.pending):
                # C (line 21) is empty and only a new message can fill it: causal_i changes
                # only by a delivery at p_i (or, published, by p_i's own broadcast)
                return ([i] if rem[i] else []) + [2 * n + i * n + j for j in range(n) if mt[j][i]]
            return [i] + self._receipts_at(facts, state, i)
        i, j = divmod(t - 2 * n, n)                 # empty channel j -> i: j's sending transitions
        out = [j] if rem[j] else []
        if mc[j] and not dv[i][j]:
            out += [2 * n + j * n + k for k in range(n) if k != j and mt[k][j]]
        return out

    def _reads_undelivered(self, state: Any, i: int) -> bool:
        return self._reads_undelivered_ps(i, state.procs[i])

    def _reads_undelivered_ps(self, i: int, ps: Any) -> bool:
        """Whether a read or await still to run at p_i reads a register that a message
        p_i has not delivered yet writes (messages of a sender are delivered in sequence
        order: C, line 21, so p_j's undelivered ones are those from ``causal_i[j]`` on)."""
        regs = self._read_regs_from[i][ps.reg.pc]
        if not regs:
            return False
        causal = ps.toco.causal
        for j in range(self.n):
            if j == i:
                if any(m.sender == i and m.payload[0] in regs for m in ps.toco.pending):
                    return True
                continue
            for r in self._write_regs[j][causal[j]:]:
                if r in regs:
                    return True
        return False

    def _receipts_at(self, facts: Any, state: Any, i: int) -> list[int]:
        n = self.n
        return [2 * n + i * n + j for j in range(n) if j != i and self._may_send(facts, state, j, i)]

    def _facts_cached(self, state: Any) -> Any:
        c = self._fcache
        if c[0] is not state:
            c[0], c[1] = state, self._facts(state)
        return c[1]
