"""The G-fisheye (SC,CC)-broadcast specification (section 4.1 of the 2015 text), as
checks on delivery logs.

A *delivery log* is, per process, the sequence of its ``broadcast`` and ``deliver``
events, in the order they happened at that process.  A message is named by its sender
and the sender's sequence number (``MsgId``).

Properties (names as in the paper, used as ``violates`` in counterexample files):

* ``validity``: a delivered message was toco-broadcast by some process;
* ``integrity``: a message is toco-delivered at most once per process;
* ``G-delivery order``: for every edge (p, q) of G, every message m_p of p and m_q of q:
  if a process delivers m_p before m_q, no process delivers m_q before m_p;
* ``causal order``: if m1 ~>M m2, no process delivers m2 before m1, where ~>M is the
  transitive closure of (a) same sender, m1 broadcast first and (b) m1 delivered by a
  process before that process broadcast m2;
* ``termination``: every broadcast message is delivered by every process (meaningful
  at the end of a complete run only).

"x delivered before y" is read on prefixes of runs: the process delivered x at a point
where it had not delivered y.  A log prefix that violates a safety property (the first
four) so reads, and every extension of it violates it too, so the checks may be run on
any state of an exploration.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal, NamedTuple

from .graph import ProximityGraph

BROADCAST = "broadcast"
DELIVER = "deliver"

VALIDITY = "validity"
INTEGRITY = "integrity"
G_DELIVERY_ORDER = "G-delivery order"
CAUSAL_ORDER = "causal order"
TERMINATION = "termination"
PROPERTIES: tuple[str, ...] = (VALIDITY, INTEGRITY, G_DELIVERY_ORDER, CAUSAL_ORDER, TERMINATION)
SAFETY: tuple[str, ...] = PROPERTIES[:4]


class MsgId(NamedTuple):
    sender: str
    seq: int

    def __str__(self) -> str:
        return f"{self.sender}#{self.seq}"


class Event(NamedTuple):
    kind: Literal["broadcast", "deliver"]
    msg: MsgId


Logs = Mapping[str, Sequence[Event]]


@dataclass(frozen=True)
class BroadcastViolation:
    """One violated property, with the message(s) and process(es) involved."""

    prop: str
    text: str
    msgs: tuple[MsgId, ...] = ()
    processes: tuple[str, ...] = ()

    def __str__(self) -> str:
        return f"{self.prop}: {self.text}"


def _positions(log: Sequence[Event]) -> dict[MsgId, int]:
    """Position of the (first) delivery of each message in one log."""
    pos: dict[MsgId, int] = {}
    for k, e in enumerate(log):
        if e.kind == DELIVER and e.msg not in pos:
            pos[e.msg] = k
    return pos


def _before(pos: Mapping[MsgId, int], x: MsgId, y: MsgId) -> bool:
    """The process delivered x at a point where it had not delivered y."""
    return x in pos and (y not in pos or pos[x] < pos[y])


def broadcasts(logs: Logs) -> list[MsgId]:
    return [e.msg for log in logs.values() for e in log if e.kind == BROADCAST]


def validity(logs: Logs) -> list[BroadcastViolation]:
    sent = {(p, e.msg) for p, log in logs.items() for e in log if e.kind == BROADCAST}
    out = []
    for p, log in logs.items():
        for e in log:
            if e.kind == DELIVER and (e.msg.sender, e.msg) not in sent:
                out.append(BroadcastViolation(VALIDITY, f"{p} delivered {e.msg}, which {e.msg.sender} "
                                              "never broadcast", (e.msg,), (p,)))
    return out


def integrity(logs: Logs) -> list[BroadcastViolation]:
    out = []
    for p, log in logs.items():
        seen: set[MsgId] = set()
        for e in log:
            if e.kind == DELIVER:
                if e.msg in seen:
                    out.append(BroadcastViolation(INTEGRITY, f"{p} delivered {e.msg} twice", (e.msg,), (p,)))
                seen.add(e.msg)
    return out


def g_delivery_order(logs: Logs, graph: ProximityGraph) -> list[BroadcastViolation]:
    out = []
    pos = {p: _positions(log) for p, log in logs.items()}
    by_sender: dict[str, list[MsgId]] = {}
    for m in broadcasts(logs):
        by_sender.setdefault(m.sender, []).append(m)
    for a, b in graph.edges:
        for ma in by_sender.get(a, ()):
            for mb in by_sender.get(b, ()):
                ab = [p for p in logs if _before(pos[p], ma, mb)]
                ba = [p for p in logs if _before(pos[p], mb, ma)]
                if ab and ba:
                    out.append(BroadcastViolation(
                        G_DELIVERY_ORDER,
                        f"{ab[0]} delivered {ma} before {mb} but {ba[0]} delivered {mb} before {ma} "
                        f"({a} and {b} are neighbours)", (ma, mb), (ab[0], ba[0])))
    return out


def causal_base_cases(logs: Logs) -> Iterator[tuple[MsgId, MsgId, str, bool]]:
    """The base cases of ~>M (section 4.1) in the delivery ``logs``, as ``(a, b, p, own)``:
    p broadcast a before b (``own``), or p delivered a, another's message, before it
    broadcast b."""
    for p, log in logs.items():
        delivered: list[MsgId] = []
        own: list[MsgId] = []
        for e in log:
            if e.kind == DELIVER:
                delivered.append(e.msg)
            elif e.msg.sender == p:
                for a in own:
                    yield a, e.msg, p, True
                for a in delivered:
                    if a.sender != p:   # p's own delivered messages were broadcast before
                        yield a, e.msg, p, False
                own.append(e.msg)


def causal_pairs(logs: Logs) -> set[tuple[MsgId, MsgId]]:
    """The relation ~>M (section 4.1), transitively closed, as a set of pairs."""
    succ: dict[MsgId, set[MsgId]] = {}
    for a, b, _p, _own in causal_base_cases(logs):
        succ.setdefault(a, set()).add(b)
    closure: set[tuple[MsgId, MsgId]] = set()
    for m in list(succ):
        stack, seen = list(succ[m]), set()
        while stack:
            x = stack.pop()
            if x in seen:
                continue
            seen.add(x)
            stack.extend(succ.get(x, ()))
        closure.update((m, x) for x in seen)
    return closure


def causal_order(logs: Logs) -> list[BroadcastViolation]:
    out = []
    pairs = causal_pairs(logs)
    pos = {p: _positions(log) for p, log in logs.items()}
    for m1, m2 in sorted(pairs):
        for p in logs:
            if _before(pos[p], m2, m1):
                out.append(BroadcastViolation(
                    CAUSAL_ORDER, f"{m1} ~>M {m2} but {p} delivered {m2} before {m1}", (m1, m2), (p,)))
    return out


def termination(logs: Logs) -> list[BroadcastViolation]:
    out = []
    for m in broadcasts(logs):
        for p, log in logs.items():
            if not any(e.kind == DELIVER and e.msg == m for e in log):
                out.append(BroadcastViolation(TERMINATION, f"{p} never delivered {m}", (m,), (p,)))
    return out


def check(logs: Logs, graph: ProximityGraph, *, complete: bool = True,
          properties: Iterable[str] = PROPERTIES) -> list[BroadcastViolation]:
    """Every violation of the selected properties; ``termination`` only when the run
    is ``complete`` (it says nothing about a prefix)."""
    props = set(properties)
    out: list[BroadcastViolation] = []
    if VALIDITY in props:
        out += validity(logs)
    if INTEGRITY in props:
        out += integrity(logs)
    if G_DELIVERY_ORDER in props:
        out += g_delivery_order(logs, graph)
    if CAUSAL_ORDER in props:
        out += causal_order(logs)
    if complete and TERMINATION in props:
        out += termination(logs)
    return out
