"""A run as a person can look at it: the steps of a schedule replayed on its system, as
events on one lane per process, with the messages between them (``fisheye explain`` of
a protocol-level counterexample; drawn by :mod:`.run_svg`, walked through step by step
in the HTML report).

Each step is one event on its process's lane, marked with what it did there: the
operations it performed (``w(X,1)``, ``r(Y)->2``), the broadcasts and deliveries of the
delivery logs (``b(p0#0)``, ``d(p1#0)``, section 4.1), a crash.  The messages come from
the system's network (the :class:`~fisheye.impl.api.HasChannels` capability: what each
step appended to a channel, :func:`~fisheye.impl.api.step_sends`, and what it took out
of one), each drawn from the step that sent it to the step that received it; without
that capability a run has no arrows.  The steps that break the property are found by
judging every prefix of the run (the first prefix that violates it), and the property's
words are kept beside them; for a model violation, the steps that perform the minimal
core's operations.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from fisheye.impl.api import HasChannels, Step, System, logs_as_json, step_sends
from fisheye.impl.properties import DEADLOCK

from .words import op_text

MAX_STEPS = 300          # steps drawn at most (a longer run is drawn up to there)
MAX_MESSAGE = 40         # characters of a message's text at most

CAUSAL_ORDER_ON_MESSAGES = (
    "m1 ~>M m2 (the causal order on messages, section 4.1): the same process broadcast m1 "
    "before m2, or a process delivered m1 before it broadcast m2, or a chain of these")
DEFINITIONS = {"~>M": CAUSAL_ORDER_ON_MESSAGES}


@dataclass(frozen=True)
class Message:
    """A message from ``src`` to ``dst``, sent by step ``sent`` and received by step
    ``received`` (None: still in transit when the run ends, or ``lost`` by a step that
    drops a crashed sender's message)."""

    src: str
    dst: str
    sent: int
    received: int | None
    lost: bool
    text: str


@dataclass(frozen=True)
class RunStep:
    """Step ``number`` (from 1) of ``process``: ``text`` as the replay script writes it,
    ``marks`` what it did on the lane, ``breaks`` whether it is a step that breaks the
    property (highlighted), ``involved`` whether a mark names a message the property's
    words name."""

    number: int
    process: str
    kind: str
    text: str
    marks: tuple[str, ...]
    breaks: bool
    involved: bool


@dataclass(frozen=True)
class RunTrace:
    processes: tuple[str, ...]
    steps: tuple[RunStep, ...]
    messages: tuple[Message, ...]
    violates: str              # the property or model, or "deadlock"
    words: str                 # the property's words at the breaking step
    definitions: tuple[str, ...]
    total_steps: int           # steps of the schedule (more than drawn when cut)
    waiting: tuple[tuple[str, tuple[str, ...]], ...] = ()   # a deadlock: who never delivers what


    @property
    def breaking(self) -> tuple[int, ...]:
        return tuple(s.number for s in self.steps if s.breaks)


def event_text(event: Any) -> str:
    """``b(p#0)``/``d(p#0)`` for the section 4.1 events ``[kind, sender, seq]``; ``b(m)``,
    ``d(q:m)`` for a localized broadcast's ``[kind, m]`` and ``[kind, sender, m]``."""
    if isinstance(event, list) and event and event[0] in ("broadcast", "deliver"):
        mark = "b" if event[0] == "broadcast" else "d"
        if len(event) == 3 and isinstance(event[2], int):
            return f"{mark}({event[1]}#{event[2]})"
        return f"{mark}({':'.join(str(x) for x in event[1:])})"
    return str(event)


def named_messages(words: str) -> set[str]:
    """The messages the property's words name: ``p1#0`` (section 4.1 identifiers) or a
    quoted payload (``'q1'``)."""
    return set(re.findall(r"[\w.-]+#\d+", words)) | set(re.findall(r"'([^']+)'", words))


def _mentions(mark: str, names: set[str]) -> bool:
    return any(re.search(rf"(?<![\w#.-]){re.escape(n)}(?![\w#.-])", mark) for n in names)


def _message_text(m: Hashable) -> str:
    text = str(m)
    return text if len(text) <= MAX_MESSAGE else text[:MAX_MESSAGE - 1] + "…"


def _new_entries(before: Mapping[str, Sequence[Any]], after: Mapping[str, Sequence[Any]]) -> list[Any]:
    out: list[Any] = []
    for p, log in after.items():
        out += list(log[len(before.get(p, ())):])
    return out


def trace_run(system: System[Any], schedule: Sequence[Step], *, violates: str,
              broken: Callable[[Any], str | None] | None = None,
              core: Mapping[tuple[str, int], str] | None = None, words: str = "",
              describe: Callable[[Step], str] = str) -> RunTrace:
    """Replay ``schedule`` on ``system`` and record its events (see the module docstring).

    ``broken(state)``: the property's words when the run up to ``state`` violates it
    (None otherwise); the first step after which it does is the breaking step.  For a
    model violation, ``core`` names the core's operations by (process, index in process
    order), and the steps that perform them are highlighted, with ``words``.  ``describe``
    writes a step as the replay script does."""
    channels = isinstance(system, HasChannels)
    state = system.initial()
    logs = logs_as_json(system.delivery_logs(state))
    done = {p: 0 for p in system.processes}
    pending: dict[Any, list[tuple[Hashable, int]]] = {}     # channel -> (message, index) in transit
    messages: list[dict[str, Any]] = []
    steps: list[dict[str, Any]] = []
    found = ""
    for number, step in enumerate(schedule[:MAX_STEPS], start=1):
        after = system.apply(state, step)
        if channels:
            sent = step_sends(system, state, after)
            taken = step_sends(system, after, state)     # in transit before the step, not after it
            for ch, gone in taken.items():
                queue = pending.get(ch, [])
                for m in gone:
                    k = next((i for i, (x, _) in enumerate(queue) if x == m), None)
                    if k is None:
                        continue
                    _, index = queue.pop(k)
                    messages[index]["received"] = number
                    messages[index]["lost"] = not ("recv" in step.kind and ch == (step.src, step.process))
            for ch, new in sent.items():
                for m in new:
                    pending.setdefault(ch, []).append((m, len(messages)))
                    messages.append({"src": ch[0], "dst": ch[1], "sent": number, "received": None,
                                     "lost": False, "text": _message_text(m)})
        marks: list[str] = []
        hist = system.history(after)
        breaks = False
        for p in system.processes:
            ops = hist.of(p)
            for op in ops[done[p]:]:
                name = (core or {}).get((p, op.index))
                breaks = breaks or name is not None
                marks.append(f"{name}:{op_text(op)}" if name else op_text(op))
            done[p] = len(ops)
        new_logs = logs_as_json(system.delivery_logs(after))
        marks += [event_text(e) for e in _new_entries(logs, new_logs)]
        if "crash" in step.kind:
            marks.append("crash")
        logs = new_logs
        if broken is not None and not found:
            why = broken(after)
            if why is not None:
                found, breaks = why, True
        steps.append({"number": number, "process": step.process, "kind": step.kind, "text": describe(step),
                      "marks": tuple(marks), "breaks": breaks})
        state = after
    said = found or words
    names = named_messages(said)
    return RunTrace(
        processes=tuple(system.processes),
        steps=tuple(RunStep(**s, involved=any(_mentions(m, names) for m in s["marks"])) for s in steps),
        messages=tuple(Message(**m) for m in messages),
        violates=violates, words=said, definitions=definitions_used(said),
        total_steps=len(schedule), waiting=undelivered(logs) if violates == DEADLOCK else ())


def _message_id(event_text: str) -> str:
    """``p#0`` of ``b(p#0)`` and ``d(p#0)``; ``m`` of ``b(m)`` and ``d(q:m)``."""
    return event_text[2:-1].rsplit(":", 1)[-1]


def undelivered(logs: Mapping[str, Sequence[Any]]) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """For each process of the delivery ``logs`` (JSON form) that has not delivered
    every message broadcast, the messages it has not delivered."""
    texts = {p: [event_text(e) for e in log] for p, log in logs.items()}
    sent = {_message_id(t) for log in texts.values() for t in log if t.startswith("b(")}
    out = []
    for p, log in texts.items():
        missing = sent - {_message_id(t) for t in log if t.startswith("d(")}
        if missing:
            out.append((p, tuple(sorted(missing))))
    return tuple(out)


def definitions_used(*texts: str | Iterable[str]) -> tuple[str, ...]:
    """The definitions of the notations (``~>M``) that ``texts`` use."""
    flat = " ".join(t if isinstance(t, str) else " ".join(t) for t in texts)
    return tuple(d for sym, d in DEFINITIONS.items() if sym in flat)
