"""A deadline that long computations look at as they go: running out of time raises
:class:`OutOfTime`, which the caller answers with *unknown* (never a verdict)."""

from __future__ import annotations

import time
from dataclasses import dataclass


class OutOfTime(Exception):
    """The deadline passed before the computation ended."""


@dataclass(frozen=True)
class Deadline:
    """``at``: a :func:`time.monotonic` instant, or ``None`` for no deadline."""

    at: float | None = None

    @staticmethod
    def after(timeout: float | None) -> Deadline:
        return Deadline(None if timeout is None else time.monotonic() + timeout)

    def left(self) -> float | None:
        return None if self.at is None else self.at - time.monotonic()

    def passed(self) -> bool:
        return self.at is not None and time.monotonic() > self.at

    def check(self) -> None:
        """Raise :class:`OutOfTime` once the deadline has passed."""
        if self.passed():
            raise OutOfTime
