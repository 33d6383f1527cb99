"""Online monitors for the section 4.1 properties of the broadcast: a small state, folded
one event at a time, that is exactly what the judgement of every extension of a run needs
(docs/por.md, section 4.4).

The events of a run are fed in the order they happen: ``broadcast(g)`` (message ``g``
toco-broadcast by its sender) and ``deliver(p, g)`` (p toco-delivers ``g``).  Messages
are numbered ``0..M-1`` (:class:`MonitorSpec`); every set is a bit mask over them.

:class:`MonitorState` holds
  * ``delivered[p]``: D[p], the messages p delivered;
  * ``broadcast``: B, the messages broadcast;
  * ``past[g]``: the causal past of g, {m : m ~>M g}, fixed when g is broadcast: the
    union over a in (its sender's earlier broadcasts and the other processes' messages
    it delivered) of {a} | past(a) (the base cases of ~>M into g are those a, section 4.1);
  * ``before[g]``: for the messages m of G-neighbours of g's sender, whether some
    process delivered g at a point where it had not delivered m;
  * ``violated``: the safety properties violated so far (sticky: a violated prefix
    violates every extension), as bits in the order of :data:`SAFETY`.

Judgements, at each delivery ``deliver(p, g)``: validity (g in B), integrity (g not in
D[p]), causal order (past(g) subset of D[p]: else p delivers g before some m ~>M g),
G-delivery order (the new bits ``before[g][m]``, each violated when ``before[m][g]``
holds too); at the end of a complete run, termination (B subset of every D[p]).  These are
the definitions of :mod:`fisheye.spec.broadcast` on every run in which no message is
delivered before it is broadcast (every run of a system whose deliveries take messages
that were sent).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from fisheye.spec import broadcast as bspec
from fisheye.spec.graph import ProximityGraph

SAFETY = bspec.SAFETY                  # validity, integrity, G-delivery order, causal order
VALIDITY_BIT, INTEGRITY_BIT, G_ORDER_BIT, CAUSAL_BIT = (1 << k for k in range(4))


@dataclass(frozen=True, slots=True)
class MonitorState:
    """The monitor's state (see module doc); bit masks over the messages."""

    delivered: tuple[int, ...]
    broadcast: int
    past: tuple[int, ...]
    before: tuple[int, ...]
    violated: int

    def flat(self) -> tuple[int, ...]:
        """The state as integers: D[0..n-1], B, past[0..M-1], before[0..M-1], violated."""
        return (*self.delivered, self.broadcast, *self.past, *self.before, self.violated)


@dataclass(frozen=True)
class MonitorSpec:
    """What the monitor knows statically: the processes, the messages (``messages[g]``,
    sender and sequence number), and per message the messages of its sender's
    G-neighbours (``neighbours[g]``, a bit mask: the only pairs G-delivery order
    constrains)."""

    processes: tuple[str, ...]
    messages: tuple[bspec.MsgId, ...]
    sender: tuple[int, ...]
    first: tuple[int, ...]           # per process, the number of its message 0
    own: tuple[int, ...]             # per process, its messages (bit mask)
    neighbours: tuple[int, ...]

    @staticmethod
    def of(processes: Sequence[str], counts: Sequence[int], graph: ProximityGraph) -> MonitorSpec:
        """The spec of ``counts[i]`` messages broadcast by ``processes[i]`` (messages
        numbered sender by sender, in sequence order)."""
        procs = tuple(processes)
        msgs = tuple(bspec.MsgId(p, q) for p, c in zip(procs, counts, strict=True) for q in range(c))
        index = {p: i for i, p in enumerate(procs)}
        sender = tuple(index[m.sender] for m in msgs)
        first = tuple(sum(counts[:i]) for i in range(len(procs)))
        own = tuple(sum(1 << g for g, s in enumerate(sender) if s == i) for i in range(len(procs)))
        nb = tuple(frozenset(index[q] for q in graph.neighbours(p)) for p in procs)
        neighbours = tuple(sum(1 << h for h, t in enumerate(sender) if t in nb[s]) for s in sender)
        return MonitorSpec(procs, msgs, sender, first, own, neighbours)

    @property
    def width(self) -> int:
        """How many integers :meth:`MonitorState.flat` holds."""
        return len(self.processes) + 1 + 2 * len(self.messages) + 1

    def initial(self) -> MonitorState:
        M = len(self.messages)
        return MonitorState((0,) * len(self.processes), 0, (0,) * M, (0,) * M, 0)

    def unflat(self, xs: Sequence[int]) -> MonitorState:
        n, M = len(self.processes), len(self.messages)
        return MonitorState(tuple(xs[:n]), xs[n], tuple(xs[n + 1:n + 1 + M]),
                            tuple(xs[n + 1 + M:n + 1 + 2 * M]), xs[n + 1 + 2 * M])

    # ---- the two events ----------------------------------------------------------------
    def on_broadcast(self, st: MonitorState, g: int) -> MonitorState:
        """Message g broadcast by its sender p: past(g) from p's earlier broadcasts and
        its deliveries of the other processes' messages (the base cases of ~>M)."""
        p = self.sender[g]
        own = self.own[p]
        base = (st.broadcast & own) | (st.delivered[p] & ~own)
        past = base
        for a, pa in enumerate(st.past):
            if (base >> a) & 1:
                past |= pa
        return self.canonical(MonitorState(st.delivered, st.broadcast | (1 << g),
                                           st.past[:g] + (past,) + st.past[g + 1:], st.before, st.violated))

    def on_deliver(self, st: MonitorState, p: int, g: int) -> MonitorState:
        """p delivers message g: the judgements of the safety properties at this point."""
        d, viol, before = st.delivered[p], st.violated, st.before
        if not (st.broadcast >> g) & 1:
            viol |= VALIDITY_BIT
        else:
            new = self.neighbours[g] & ~d & ~before[g]
            if new:
                before = before[:g] + (before[g] | new,) + before[g + 1:]
                if any((new >> m) & 1 and (before[m] >> g) & 1 for m in range(len(before))):
                    viol |= G_ORDER_BIT
        if (d >> g) & 1:
            viol |= INTEGRITY_BIT
        if st.past[g] & ~d:
            viol |= CAUSAL_BIT
        delivered = st.delivered[:p] + (d | (1 << g),) + st.delivered[p + 1:]
        return self.canonical(MonitorState(delivered, st.broadcast, st.past, before, viol))

    @staticmethod
    def canonical(st: MonitorState) -> MonitorState:
        """``st`` without the bits no later judgement reads (docs/por.md, section 4.4).
        With A the messages every process has delivered: the members of A in every
        ``past`` (no process lacks them any more) and in every ``before`` row, and the
        rows ``before[m]`` of m in A (no delivery of m at a point where another message
        is missing can happen any more, so a pair with m is judged already); all of
        ``past`` once causal order is violated, all of ``before`` once G-delivery order
        is (they are read by those judgements only)."""
        a = -1
        for d in st.delivered:
            a &= d
        past, before = st.past, st.before
        if st.violated & CAUSAL_BIT:
            past = (0,) * len(past)
        elif any(x & a for x in past):
            past = tuple(x & ~a for x in past)
        if st.violated & G_ORDER_BIT:
            before = (0,) * len(before)
        elif any(x and ((a >> m) & 1 or x & a) for m, x in enumerate(before)):
            before = tuple(0 if (a >> m) & 1 else x & ~a for m, x in enumerate(before))
        if past == st.past and before == st.before:
            return st
        return MonitorState(st.delivered, st.broadcast, past, before, st.violated)

    # ---- the verdict -------------------------------------------------------------------
    def violated(self, st: MonitorState, *, complete: bool) -> tuple[str, ...]:
        """The properties violated by every run the monitor state stands for (names, in
        the order of :data:`fisheye.spec.broadcast.PROPERTIES`); termination only at the
        end of a complete run."""
        out = [name for k, name in enumerate(SAFETY) if (st.violated >> k) & 1]
        if complete and any(st.broadcast & ~d for d in st.delivered):
            out.append(bspec.TERMINATION)
        return tuple(out)

    def violations(self, st: MonitorState, *, complete: bool) -> list[bspec.BroadcastViolation]:
        """:meth:`violated` as the spec's violations: termination names the process and
        the message; a safety property names none (the monitor keeps no witness: the run's
        schedule replayed with full delivery logs names them)."""
        out = []
        for name in self.violated(st, complete=complete):
            if name != bspec.TERMINATION:
                out.append(bspec.BroadcastViolation(
                    name, "found by the online monitor (replay the run for the messages and processes)"))
                continue
            for p, d in zip(self.processes, st.delivered, strict=True):
                missing = st.broadcast & ~d
                if missing:
                    m = self.messages[(missing & -missing).bit_length() - 1]
                    out.append(bspec.BroadcastViolation(name, f"{p} never delivered {m}", (m,), (p,)))
                    break
        return out

    def fold(self, events: Sequence[tuple[int, int, int]]) -> MonitorState:
        """The monitor state after ``events`` from the start: ``(0, p, g)`` p broadcasts
        g, ``(1, p, g)`` p delivers g."""
        st = self.initial()
        for kind, p, g in events:
            st = self.on_deliver(st, p, g) if kind else self.on_broadcast(st, g)
        return st

    def of_logs(self, logs: Sequence[Sequence[tuple[int, int, int]]]) -> MonitorState:
        """The monitor state of a run from its per-process logs alone (``logs[p]``:
        events ``(kind, sender, seq)``, kind 0 broadcast, 1 deliver): the fold of any
        interleaving in which each log keeps its order and no message is delivered
        before its broadcast (the monitor state is a function of the logs, docs/por.md).
        ``ValueError`` if there is none."""
        first = self.first
        evs = [[(k, p, first[s] + q) for k, s, q in log] for p, log in enumerate(logs)]
        will = {g for log in evs for k, _, g in log if k == 0}
        pos = [0] * len(evs)
        st = self.initial()
        while True:
            for p, log in enumerate(evs):
                if pos[p] < len(log):
                    k, _, g = log[pos[p]]
                    if k == 0 or (st.broadcast >> g) & 1 or g not in will:
                        st = self.on_deliver(st, p, g) if k else self.on_broadcast(st, g)
                        pos[p] += 1
                        break
            else:
                if any(pos[p] < len(log) for p, log in enumerate(evs)):
                    raise ValueError("the logs deliver a message before its broadcast in every order")
                return st
