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
from typing import Any

from fisheye.impl.api import Step
from fisheye.impl.network import wire_id
from fisheye.impl.toco import CATCH_UP


class DeadClockSystem:
    """The raw protocol system seen through the quotient map (see module doc)."""

    def __init__(self, raw: Any):
        self.raw = raw
        self.processes = raw.processes
        self.program = raw.program
        self.graph = raw.graph
        self.network = raw.network
        self.level = "protocol"
        n = self.n = len(self.processes)
        use_t1 = getattr(raw._cfgs[0], "use_t1", True) if n else True
        nb = raw._cfgs[0].neighbours if n else ()
        self.dead = tuple((not use_t1) or not nb[k] for k in range(n))
        self.any_dead = any(self.dead)

    # ---- quotient map ------------------------------------------------------------------
    def canon(self, state: Any, only: int | None = None) -> Any:
        if not self.any_dead:
            return state
        n, dead = self.n, self.dead
        procs = state.procs
        newp = []
        changed = False
        for i, ps in enumerate(procs):
            if only is not None and i != only:
                newp.append(ps)
                continue
            tot = ps.toco.total
            if any(dead[k] and k != i and tot[k] for k in range(n)):
                tot = tuple(0 if (dead[k] and k != i) else v for k, v in enumerate(tot))
                ps = ps._replace(toco=ps.toco._replace(total=tot))
                changed = True
            newp.append(ps)
        chans = state.channels
        senders = range(n) if only is None else (only,)
        ch = None
        for s in senders:
            if not dead[s]:
                continue
            for d in range(n):
                c = chans[s * n + d]
                if c and any(w[0] == CATCH_UP for w in c):
                    if ch is None:
                        ch = list(chans)
                    ch[s * n + d] = tuple(w for w in c if w[0] != CATCH_UP)
        if ch is not None:
            chans = tuple(ch)
            changed = True
        if not changed:
            return state
        return type(state)(tuple(newp), chans)

    # ---- the step API --------------------------------------------------------------------
    def initial(self) -> Any:
        return self.canon(self.raw.initial())

    def enabled(self, state: Any) -> list[Step]:
        return self.raw.enabled(state)

    def apply(self, state: Any, step: Step) -> Any:
        i = self.raw._index[step.process]
        return self.canon(self.raw.apply(state, step), only=i)

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

    def describe(self) -> dict[str, Any]:
        return self.raw.describe()

    # ---- schedules -------------------------------------------------------------------------
    def lift(self, schedule: Sequence[Step]) -> list[Step]:
        """The raw schedule: the same steps, with the receipts of dead CATCH_UP messages
        put back where a receipt needs them out of the way, and at the end."""
        if not self.any_dead:
            return list(schedule)
        raw, n = self.raw, self.n
        idx = raw._index
        state = raw.initial()
        out: list[Step] = []

        def drain(src: int, dst: int) -> None:
            nonlocal state
            while True:
                c = state.channels[src * n + dst]
                if not c or c[0][0] != CATCH_UP or not self.dead[src]:
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
                if src == dst or not self.dead[src]:
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
