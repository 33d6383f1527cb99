"""Localized causal uniform reliable broadcast: LCURB1–LCURB5 as executable checks.

Source: S. Volodin's *Localized causal broadcast* note (locality is per process and
need not be symmetric).

A *run* is given by one delivery log per process: the process's ``broadcast`` and
``deliver`` events in the order it performed them, plus the set of processes that
crashed and whether the run is *complete* (it ended: no step of anybody is enabled).
A message is identified by its sender and content, ``(s, m)``; a process never
broadcasts the same content twice (:func:`make_run` refuses such logs).

The properties, as the document states them:

* LCURB1 (validity): if a correct process p broadcasts m, then p eventually delivers m.
* LCURB2 (no duplication): no message is delivered more than once.
* LCURB3 (no creation): if a process delivers m with sender s, then m was previously
  broadcast by s.
* LCURB4 (uniform agreement): if m is delivered by some process (correct or faulty),
  then m is eventually delivered by every correct process.
* LCURB5 (causal delivery): if m1 → m2 ("m1 potentially caused m2"), no process delivers
  m2 unless it has already delivered m1.

"Potentially caused", m1 → m2, is the smallest relation such that

1. some process p broadcasts m1 before it broadcasts m2;
2. some process p delivers m1 *from p' ∈ locality(p)* and subsequently broadcasts m2
   (the locality clause: a delivery from outside p's locality creates no dependency);
3. m1 → m and m → m2 for some m (transitivity).

Localities are per process and need not be symmetric (``locality[p]`` is the set of
processes whose messages p's later broadcasts depend on).

"Eventually" (LCURB1, LCURB4) can only be judged at the end of a complete run, and only
for correct processes: those checks are skipped when ``complete`` is false.  "Previously"
(LCURB3) needs real time, which per-process logs do not carry: :func:`check` asks that s
broadcast m somewhere in its log; checking the safety properties at *every* state of a
run (:func:`check_safety`, as ``tests/test_lcb_explore.py`` does) turns this into "before".
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

Message = tuple[str, Any]
"""``(sender, content)``."""

Event = tuple[Any, ...]
"""``("broadcast", m)`` or ``("deliver", sender, m)``."""

VALIDITY = "LCURB1 (validity)"
NO_DUPLICATION = "LCURB2 (no duplication)"
NO_CREATION = "LCURB3 (no creation)"
UNIFORM_AGREEMENT = "LCURB4 (uniform agreement)"
CAUSAL_DELIVERY = "LCURB5 (causal delivery)"
PROPERTIES = (VALIDITY, NO_DUPLICATION, NO_CREATION, UNIFORM_AGREEMENT, CAUSAL_DELIVERY)

_MAX_PER_PROPERTY = 5


def broadcast_event(m: Any) -> Event:
    return ("broadcast", m)


def deliver_event(sender: str, m: Any) -> Event:
    return ("deliver", sender, m)


@dataclass(frozen=True)
class Violation:
    """One violated property (its name, as in :data:`PROPERTIES`) and why."""

    property: str
    message: str

    @property
    def prop(self) -> str:
        """The property's name (the explorer's and the counterexample writer's key)."""
        return self.property

    def to_json(self) -> dict[str, str]:
        return {"property": self.property, "message": self.message}

    def __str__(self) -> str:
        return f"{self.property}: {self.message}"


@dataclass(frozen=True)
class BroadcastRun:
    processes: tuple[str, ...]
    locality: Mapping[str, frozenset[str]]
    logs: Mapping[str, tuple[Event, ...]]
    crashed: frozenset[str] = frozenset()
    complete: bool = True

    @property
    def correct(self) -> tuple[str, ...]:
        return tuple(p for p in self.processes if p not in self.crashed)

    def broadcasts(self, p: str) -> tuple[Message, ...]:
        return tuple((p, e[1]) for e in self.logs.get(p, ()) if e[0] == "broadcast")

    def deliveries(self, p: str) -> tuple[Message, ...]:
        return tuple((e[1], e[2]) for e in self.logs.get(p, ()) if e[0] == "deliver")


def make_run(processes: Iterable[str], locality: Mapping[str, Iterable[str]],
             logs: Mapping[str, Iterable[Event]], crashed: Iterable[str] = (),
             complete: bool = True) -> BroadcastRun:
    """Build a run, validating its shape (a ``ValueError`` names the first problem)."""
    procs = tuple(processes)
    known = set(procs)
    loc = {p: frozenset(locality.get(p, ())) for p in procs}
    for p, qs in loc.items():
        if not qs <= known:
            raise ValueError(f"locality of {p} names unknown processes {sorted(qs - known)}")
    out: dict[str, tuple[Event, ...]] = {}
    for p in procs:
        events = tuple(tuple(e) for e in logs.get(p, ()))
        seen: set[Any] = set()
        for e in events:
            if e[0] == "broadcast" and len(e) == 2:
                if e[1] in seen:
                    raise ValueError(f"{p} broadcasts {e[1]!r} twice")
                seen.add(e[1])
            elif not (e[0] == "deliver" and len(e) == 3):
                raise ValueError(f"bad event {e!r} in the log of {p}")
        out[p] = events
    unknown = set(logs) - known
    if unknown:
        raise ValueError(f"logs of unknown processes {sorted(unknown)}")
    bad_crash = set(crashed) - known
    if bad_crash:
        raise ValueError(f"crash of unknown processes {sorted(bad_crash)}")
    return BroadcastRun(procs, loc, out, frozenset(crashed), complete)


# ---- the "potentially caused" relation -------------------------------------------------

def direct_causes(run: BroadcastRun) -> set[tuple[Message, Message]]:
    """Clauses 1 and 2: pairs ``(m1, m2)`` with m1 broadcast by p before m2, or m1
    delivered by p from a process of ``locality(p)`` before p broadcasts m2."""
    pairs: set[tuple[Message, Message]] = set()
    for p in run.processes:
        before: list[Message] = []
        for e in run.logs.get(p, ()):
            if e[0] == "broadcast":
                m2 = (p, e[1])
                pairs.update((m1, m2) for m1 in before)
                before.append(m2)
            elif e[1] in run.locality[p]:
                before.append((e[1], e[2]))
    return pairs


def potentially_caused(run: BroadcastRun) -> dict[Message, frozenset[Message]]:
    """m2 ↦ {m1 | m1 → m2}: the transitive closure of :func:`direct_causes` (clause 3)."""
    preds: dict[Message, set[Message]] = {}
    for m1, m2 in direct_causes(run):
        preds.setdefault(m2, set()).add(m1)
    closed: dict[Message, frozenset[Message]] = {}
    for m in preds:  # a search per message: logs are small, and a cycle cannot fool it
        seen: set[Message] = set()
        stack = list(preds[m])
        while stack:
            d = stack.pop()
            if d not in seen:
                seen.add(d)
                stack.extend(preds.get(d, ()))
        closed[m] = frozenset(seen)
    return {m: c for m, c in closed.items() if c}


# ---- the properties ----------------------------------------------------------------------

def _fmt(m: Message) -> str:
    return f"{m[1]!r} from {m[0]}"


def no_duplication(run: BroadcastRun) -> list[Violation]:
    out = []
    for p in run.processes:
        seen: set[Message] = set()
        for m in run.deliveries(p):
            if m in seen:
                out.append(Violation(NO_DUPLICATION, f"{p} delivers {_fmt(m)} twice"))
            seen.add(m)
    return out[:_MAX_PER_PROPERTY]


def no_creation(run: BroadcastRun) -> list[Violation]:
    out = []
    sent = {p: set(run.broadcasts(p)) for p in run.processes}
    for p in run.processes:
        for m in run.deliveries(p):
            if m[0] not in sent or m not in sent[m[0]]:
                out.append(Violation(NO_CREATION, f"{p} delivers {_fmt(m)}, which {m[0]} never broadcast"))
    return out[:_MAX_PER_PROPERTY]


def causal_delivery(run: BroadcastRun) -> list[Violation]:
    caused = potentially_caused(run)
    out = []
    for p in run.processes:
        done: set[Message] = set()
        for m2 in run.deliveries(p):
            for m1 in sorted(caused.get(m2, ()), key=repr):
                if m1 not in done:
                    out.append(Violation(CAUSAL_DELIVERY,
                                         f"{p} delivers {_fmt(m2)} before {_fmt(m1)}, which potentially "
                                         f"caused it"))
            done.add(m2)
    return out[:_MAX_PER_PROPERTY]


def validity(run: BroadcastRun) -> list[Violation]:
    out = []
    for p in run.correct:
        got = set(run.deliveries(p))
        for m in run.broadcasts(p):
            if m not in got:
                out.append(Violation(VALIDITY, f"correct process {p} broadcasts {m[1]!r} but never "
                                               f"delivers it"))
    return out[:_MAX_PER_PROPERTY]


def uniform_agreement(run: BroadcastRun) -> list[Violation]:
    out = []
    delivered: dict[Message, str] = {}
    for p in run.processes:
        for m in run.deliveries(p):
            delivered.setdefault(m, p)
    for q in run.correct:
        got = set(run.deliveries(q))
        for m, p in sorted(delivered.items(), key=repr):
            if m not in got:
                who = "crashed" if p in run.crashed else "correct"
                out.append(Violation(UNIFORM_AGREEMENT,
                                     f"{_fmt(m)} is delivered by {p} ({who}) but never by correct "
                                     f"process {q}"))
    return out[:_MAX_PER_PROPERTY]


def check_safety(run: BroadcastRun) -> list[Violation]:
    """LCURB2, LCURB3 and LCURB5: must hold in every state of every run."""
    return no_duplication(run) + no_creation(run) + causal_delivery(run)


def check(run: BroadcastRun) -> list[Violation]:
    """All five properties; LCURB1 and LCURB4 only when the run is complete."""
    out = check_safety(run)
    if run.complete:
        out = validity(run) + out + uniform_agreement(run)
    order = {name: i for i, name in enumerate(PROPERTIES)}
    return sorted(out, key=lambda v: order[v.property])


def violated(violations: Iterable[Violation]) -> tuple[str, ...]:
    """The names of the violated properties, in the order of :data:`PROPERTIES`."""
    names = {v.property for v in violations}
    return tuple(p for p in PROPERTIES if p in names)
