"""A deadline that long computations look at as they go: running out of time raises
:class:`OutOfTime`, which the caller answers with *unknown* (never a verdict)."""

from __future__ import annotations

import time
from dataclasses import dataclass


class OutOfTime(RuntimeError):
    """The deadline passed before the computation ended."""


@dataclass(frozen=True)
class Deadline:
    """``at``: a :func:`time.monotonic` instant, or ``None`` for no deadline;
    ``timeout``: the limit in seconds it was made from, for messages."""

    at: float | None = None
    timeout: float | None = None

    @staticmethod
    def after(timeout: float | None) -> Deadline:
        return Deadline(None if timeout is None else time.monotonic() + timeout, timeout)

    def left(self) -> float | None:
        return None if self.at is None else self.at - time.monotonic()

    def passed(self) -> bool:
        return self.at is not None and time.monotonic() > self.at

    def expired(self) -> bool:
        return self.at is not None and time.monotonic() >= self.at

    def check(self) -> None:
        """Raise :class:`OutOfTime` once the deadline has passed."""
        if self.passed():
            raise OutOfTime(self._ran_out())

    def remaining(self) -> float | None:
        """Seconds left (None without a limit); raises :class:`OutOfTime` when none are."""
        if self.at is None:
            return None
        left = self.at - time.monotonic()
        if left <= 0:
            raise OutOfTime(self._ran_out())
        return left

    def _ran_out(self) -> str:
        limit = "" if self.timeout is None else f" ({self.timeout:g} s)"
        return f"the time limit{limit} ran out"
