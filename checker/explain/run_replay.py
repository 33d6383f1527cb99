"""A counterexample whose run breaks a property of its system (a broadcast property of
section 4.1, deadlock freedom, a protocol's own property), replayed: whether the replay
reproduces the violation, what it shows in words (with the definitions of the notations
it uses), and the delivery logs."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from fisheye.checker import counterexample as cxm

from .run import definitions_used, event_text
from .system_text import system_text


@dataclass(frozen=True)
class RunReplay:
    """A replayed run that breaks a property of its system: whether the replay
    reproduced the violation (``reproduced``; ``message`` says what it showed), the
    verdict line ``head`` and the ``lines`` under it, the delivery logs one line of
    events per process (``logs``; ``delivery_logs`` as data, docs/contract.md), and
    whether the replay reached a state whose run can be drawn (``drawable``)."""

    reproduced: bool
    head: str
    lines: tuple[str, ...]
    logs: Mapping[str, tuple[str, ...]]
    message: str = ""
    delivery_logs: Mapping[str, Any] | None = None
    drawable: bool = False


def replay_run(cx: cxm.Counterexample) -> RunReplay:
    """Replay ``cx``'s run on its rebuilt system (``ValueError`` when the system cannot
    be rebuilt)."""
    res = cxm.replay(cx)
    logs = cxm.logs_json(cx.system(), res.state) if res.state is not None else cx.delivery_logs
    lines = [f"Replayed: {res.message}." if res.ok else f"NOT reproduced: {res.message}."]
    if cx.details and cx.details != res.message:
        lines.append(f"Recorded: {cx.details}")
    lines += definitions_used(lines)
    return RunReplay(res.ok, f"The run {what_it_breaks(cx)} ({system_text(cx)}).", tuple(lines),
                     {p: tuple(event_text(e) for e in log) for p, log in logs.items()},
                     res.message, logs, res.state is not None)


def what_it_breaks(cx: cxm.Counterexample) -> str:
    """``deadlocks`` or ``violates P``, for the titles."""
    return "deadlocks" if cx.violates == cxm.DEADLOCK else f"violates {cx.violates}"
