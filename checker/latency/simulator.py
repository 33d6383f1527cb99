"""A discrete-event simulator over a step-API system (:mod:`fisheye.impl.api`).

The simulator does not re-implement any algorithm: it only decides *when* each of the
system's enabled steps happens, and takes them with the system's own ``apply``, so every
simulated run is a run of the algorithm, whose schedule (the list of steps) replays with
:func:`fisheye.impl.api.replay`.

Time model (milliseconds):

* **processes** run one step at a time; every step (an operation's invocation, the
  receipt of a message, one iteration of a background delivery task) keeps its process
  busy for ``processing_ms``; the messages a step sends leave when the step ends;
* **channels** are FIFO: a message sent at ``s`` from ``p`` to ``q`` arrives at
  ``max(s + delay(p, q), arrival of the message sent before it on the same channel)``,
  where ``delay`` is the configured one-way delay plus the seeded jitter; it can be
  received (a ``recv`` step) from its arrival on, once ``q`` is free;
* **operations** are issued at their planned arrival time and invoked (an ``op`` step)
  as soon as the system enables them and the process is free (a write blocks its process
  until it returns, Algorithm 2 line 4);
* a background delivery step (``deliver``) happens as soon as it is enabled and its
  process is free.

At each point the simulator takes the enabled step with the earliest possible time (ties:
the system's own order of ``enabled``), so a run is deterministic for a given plan and
delay function.

A **read** returns when its ``op`` step ends.  A **write** returns when the step that
delivers its own message at its writer ends (Algorithm 2, line 11).  In both systems a
delivery is a ``deliver`` step (the background task of Algorithm 1, lines 18-31; the URB
delivery rule under the localized broadcast).  After such a step the simulator asks the
step API whether the writer's next operation is enabled (it is exactly when the write has
returned: a blocked process has no enabled operation); after the writer's last
operation, having no next one, it counts the writer's own deliveries in its delivery log
(:func:`.adapter.own_deliveries`).  A write that never returned would be missing from the
run's operations, which the tests rule out.  Which
messages a step sent, and which are still in transit, is seen through the system's
channels (:mod:`.adapter`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from fisheye.impl.api import Step

from . import adapter
from .workload import PlannedOp

Delay = Callable[[str, str], float]
"""``delay(src, dst)``: the one-way delay (ms) of the next message from ``src`` to ``dst``."""


class SimulationError(RuntimeError):
    """The system offered a step the time model does not know, or the run stalled."""


@dataclass(frozen=True)
class OpTiming:
    """One operation of a run: ``kind`` ``"w"`` or ``"r"``, the value written or read,
    when it was issued (workload), invoked (its ``op`` step) and returned."""

    process: str
    index: int
    kind: str
    register: str
    value: Any
    issued_ms: float
    invoked_ms: float
    returned_ms: float

    @property
    def latency_ms(self) -> float:
        return self.returned_ms - self.invoked_ms


@dataclass(frozen=True)
class SentMessage:
    src: str
    dst: str
    kind: str
    size: int
    sent_ms: float
    arrival_ms: float


@dataclass(frozen=True)
class SimRun:
    """A simulated run: the schedule and the start time of each step, the operations,
    the messages sent, the final state and whether the run is complete."""

    processes: tuple[str, ...]
    schedule: tuple[Step, ...]
    times: tuple[float, ...]
    ops: tuple[OpTiming, ...]
    messages: tuple[SentMessage, ...]
    end_ms: float
    state: Any
    complete: bool


def wire_size(obj: Any) -> int:
    """The size in bytes of a message in a compact binary encoding (an estimate, the same
    for every algorithm): 8 bytes per number, 1 per boolean or null, 4 plus the UTF-8
    length per string, 4 per sequence, set or map header plus its elements; a dataclass
    or named tuple is its fields."""
    if obj is None or isinstance(obj, bool):
        return 1
    if isinstance(obj, int | float):
        return 8
    if isinstance(obj, str):
        return 4 + len(obj.encode("utf-8"))
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return sum(wire_size(getattr(obj, f.name)) for f in dataclasses.fields(obj))
    if isinstance(obj, tuple) and hasattr(obj, "_fields"):
        return sum(wire_size(v) for v in obj)
    if isinstance(obj, tuple | list | frozenset | set):
        return 4 + sum(wire_size(v) for v in obj)
    if isinstance(obj, dict):
        return 4 + sum(wire_size(k) + wire_size(v) for k, v in obj.items())
    return 4 + len(repr(obj).encode("utf-8"))


def message_kind(msg: Any) -> str:
    """A protocol message's kind: its tag (``("TOCOBC", ...)``) or its type's name."""
    if isinstance(msg, tuple) and msg and isinstance(msg[0], str):
        return msg[0]
    return type(msg).__name__


_ORDER = {"deliver": 0, "recv": 1, "op": 2}


def simulate(system: Any, plan: Mapping[str, Sequence[PlannedOp]], delay: Delay, *,
             processing_ms: float = 0.0, progress: Callable[[float, int], None] | None = None,
             progress_every: int = 5000, max_steps: int = 10_000_000) -> SimRun:
    """Run ``system`` in simulated time; ``plan[p]`` are p's operations, in the order of
    p's program in the system, with their arrival times."""
    procs: tuple[str, ...] = tuple(system.processes)
    channels = adapter.require_channels(system)
    state = system.initial()
    transit = adapter.in_transit(channels, state)
    # mirror[(src, dst)]: (message, arrival) for the messages in transit, in channel order
    mirror: dict[tuple[str, str], list[tuple[Any, float]]] = {}
    busy = dict.fromkeys(procs, 0.0)
    ops_done = dict.fromkeys(procs, 0)
    writes = dict.fromkeys(procs, 0)  # writes invoked so far, per process
    probe: tuple[str, float] | None = None  # a deliver step that may have ended a write
    invoked: dict[tuple[str, int], float] = {}
    returned: dict[tuple[str, int], float] = {}
    waiting: dict[str, list[int]] = {p: [] for p in procs}  # invoked writes not yet returned
    schedule: list[Step] = []
    times: list[float] = []
    sent: list[SentMessage] = []
    now = 0.0
    for _ in range(max_steps):
        steps = system.enabled(state)
        if probe is not None:
            q, t_end = probe
            probe = None
            if any(s.kind == "op" and s.process == q for s in steps):
                returned[(q, waiting[q].pop(0))] = t_end
        if not steps:
            break
        best: tuple[float, int, int] | None = None
        for k, s in enumerate(steps):
            p = s.process
            if s.kind == "op":
                t = max(plan[p][ops_done[p]].arrival_ms, busy[p])
            elif s.kind == "recv":
                chan = mirror.get((s.src, p))
                if s.detail or not chan:
                    raise SimulationError(f"step {s}: the simulator models FIFO channels only")
                t = max(chan[0][1], busy[p])
            elif s.kind == "deliver":
                t = busy[p]
            else:
                raise SimulationError(f"step {s}: the simulator has no timing for {s.kind!r} steps")
            key = (max(t, now), _ORDER[s.kind], k)
            if best is None or key < best:
                best = key
        assert best is not None
        now, _, k = best
        step = steps[k]
        p = step.process
        end = now + processing_ms
        busy[p] = end
        before = state
        state = system.apply(state, step)
        schedule.append(step)
        times.append(now)
        if step.kind == "op":
            j = ops_done[p]
            ops_done[p] = j + 1
            invoked[(p, j)] = now
            if plan[p][j].kind == "w":
                waiting[p].append(j)
                writes[p] += 1
            else:
                returned[(p, j)] = end
        if waiting[p] and step.kind == "deliver":  # deliveries happen in deliver steps only
            if ops_done[p] < len(plan[p]):
                probe = (p, end)  # returned iff p's next operation is now enabled
            else:
                delivered = adapter.own_deliveries(system, state, p)
                while waiting[p] and delivered > writes[p] - len(waiting[p]):
                    returned[(p, waiting[p].pop(0))] = end
        after = adapter.in_transit(channels, state)
        if after != transit:
            sends = adapter.sent_by(channels, before, state)
            for ch in sorted(set(transit) | set(after)):
                if transit.get(ch) != after.get(ch):
                    _reconcile(mirror, ch, after.get(ch, ()), sends.get(ch, ()), end, delay, sent)
            transit = after
        if progress is not None and len(schedule) % progress_every == 0:
            progress(now, len(schedule))
    else:
        raise SimulationError(f"the run did not end within {max_steps} steps")
    complete = bool(system.is_final(state))
    history = system.history(state)
    timings: list[OpTiming] = []
    for p in procs:
        for j, op in enumerate(history.of(p)):
            planned = plan[p][j]
            if (p, j) not in returned:
                continue  # a write still waiting in an incomplete run
            timings.append(OpTiming(p, j, op.kind, op.register, op.value, planned.arrival_ms,
                                    invoked[(p, j)], returned[(p, j)]))
    return SimRun(procs, tuple(schedule), tuple(times), tuple(timings), tuple(sent),
                  max([now + processing_ms, *returned.values()]) if schedule else 0.0, state, complete)


def _reconcile(mirror: dict[tuple[str, str], list[tuple[Any, float]]], ch: tuple[str, str],
               now_in: tuple[Any, ...], new: tuple[Any, ...], send_ms: float, delay: Delay,
               sent: list[SentMessage]) -> None:
    """Channel ``ch`` now holds ``now_in``, whose last ``len(new)`` messages the step sent
    (FIFO: appended at the end).  The others were there before and keep their arrival
    times (the step may have received or dropped some); each new message arrives after
    its delay, never before the message ahead of it."""
    src, dst = ch
    old = mirror.get(ch, [])
    out: list[tuple[Any, float]] = []
    i = 0
    for msg in now_in[:len(now_in) - len(new)]:
        while i < len(old) and old[i][0] != msg:
            i += 1
        if i == len(old):
            raise SimulationError(f"channel {src}->{dst}: a message appeared that the step did not send")
        out.append(old[i])
        i += 1
    if tuple(now_in[len(now_in) - len(new):]) != tuple(new):
        raise SimulationError(f"channel {src}->{dst}: the step's messages are not at the end (not FIFO)")
    for msg in new:
        arrival = send_ms + delay(src, dst)
        if out:
            arrival = max(arrival, out[-1][1])
        out.append((msg, arrival))
        sent.append(SentMessage(src, dst, message_kind(msg), wire_size(msg), send_ms, arrival))
    if out:
        mirror[ch] = out
    else:
        mirror.pop(ch, None)
