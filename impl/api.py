"""The step API: what an explorer needs from a system under test.

A *system* is a closed set of processes running a program over an explicit network.
Its global state is an immutable, hashable value; its behaviour is given by

* ``initial()``: the initial global state;
* ``enabled(state)``: the steps enabled in ``state``, in a deterministic order;
* ``apply(state, step)``: the successor state (a pure function);
* ``is_final(state)``: whether ``state`` is a *complete* run's end (every program has
  finished, every message is delivered everywhere); a state with no enabled step that
  is not final is a deadlock;
* ``history(state)`` and ``delivery_logs(state)``: the recorder (what the run did so
  far, in the contract's history format and as per-process delivery logs).

No threads, no clocks, no randomness inside: a run is its schedule (the list of steps),
and replaying the schedule from ``initial()`` reproduces it exactly.

Steps are frozen dataclasses with a JSON form (``to_json``) so schedules can be stored
and replayed (counterexample files, contract section 5).
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Protocol, TypeVar

from fisheye.spec.history import History


class Network(StrEnum):
    """Network semantics, an explicit named choice.

    ``fifo``: reliable FIFO channels per ordered pair of processes (the papers'
    assumption, section 4.2 "for simplicity, we assume that the channels are FIFO"; the
    default).  ``unordered``: reliable channels that may deliver in any order."""

    FIFO = "fifo"
    UNORDERED = "unordered"


@dataclass(frozen=True, order=True)
class Step:
    """One atomic step of a run.

    ``kind``: ``"op"`` (the process's next program operation: invocation, or the
    return of a waiting write), ``"recv"`` (receipt of a message from channel
    ``src -> process``; ``detail`` identifies which message when channels are
    unordered), ``"deliver"`` (one iteration of a background delivery task),
    ``"crash"`` (the process crashes), or an algorithm-specific kind.
    """

    kind: str
    process: str
    src: str | None = None
    detail: tuple[Any, ...] = ()

    def to_json(self) -> list[Any]:
        out: list[Any] = [self.kind, self.process]
        if self.src is not None or self.detail:
            out.append(self.src)
        if self.detail:
            out.append(_jsonable(self.detail))
        return out

    @staticmethod
    def from_json(obj: Sequence[Any]) -> Step:
        kind, process = obj[0], obj[1]
        src = obj[2] if len(obj) > 2 else None
        detail = _tuplify(obj[3]) if len(obj) > 3 else ()
        return Step(kind, process, src, detail)

    def __str__(self) -> str:
        s = f"{self.kind} {self.process}"
        if self.src is not None:
            s += f" <- {self.src}"
        if self.detail:
            s += f" {self.detail}"
        return s


def _jsonable(x: Any) -> Any:
    if isinstance(x, tuple):
        return [_jsonable(v) for v in x]
    return x


def _tuplify(x: Any) -> Any:
    if isinstance(x, list):
        return tuple(_tuplify(v) for v in x)
    return x


S = TypeVar("S", bound=Hashable)


class System(Protocol[S]):
    processes: tuple[str, ...]

    def initial(self) -> S: ...

    def enabled(self, state: S) -> Sequence[Step]: ...

    def apply(self, state: S, step: Step) -> S: ...

    def is_final(self, state: S) -> bool: ...

    def history(self, state: S) -> History: ...

    def delivery_logs(self, state: S) -> Mapping[str, tuple[Any, ...]]: ...


class ReplayError(ValueError):
    """A schedule step that is not enabled where the schedule puts it."""


def replay(system: System[S], schedule: Sequence[Step]) -> S:
    """Run ``schedule`` from the initial state; every step must be enabled."""
    state = system.initial()
    for i, step in enumerate(schedule):
        if step not in system.enabled(state):
            raise ReplayError(f"step {i} ({step}) is not enabled")
        state = system.apply(state, step)
    return state
