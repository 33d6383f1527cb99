"""A schedule as a person replays it: each step in words (``op p``, ``recv p <- q``,
``deliver p <- q#0``, ``crash p``) and the whole schedule as numbered steps, the replay
script that ``fisheye explain`` prints under a counterexample's run."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from fisheye.impl.api import Step


def step_text(step: Any) -> str:
    """A step of a schedule: ``op p`` (p's next operation), ``recv p <- q`` (a message from
    q's channel), ``deliver p`` (one delivery round), ``deliver p <- q#0`` (q's first
    broadcast delivered at p, at the abstract level), ``crash p``."""
    s = f"{step.kind} {step.process}"
    if step.src is not None:
        s += f" <- {step.src}"
    if not step.detail:
        return s
    if step.src is not None and len(step.detail) == 1 and isinstance(step.detail[0], int):
        return s + f"#{step.detail[0]}"
    return s + " (" + ", ".join(str(d) for d in step.detail) + ")"


def replay_script(schedule: Sequence[Step]) -> tuple[str, ...]:
    """The schedule as numbered steps (``  1. op p``), one a line."""
    return tuple(f"{i + 1:3}. {step_text(step)}" for i, step in enumerate(schedule))
