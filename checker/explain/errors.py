"""How an explanation stops short: :class:`ExplainError` when there is nothing to explain
(the history is consistent, or a check was unknown), and :class:`OutOfTime` when its time
limit passes, raised through a :class:`Deadline` by the checks of the minimal core and by
the prover's case analysis."""

from __future__ import annotations

import time
from dataclasses import dataclass

from ..result import Verdict


class ExplainError(RuntimeError):
    """No explanation: the history is consistent, or a check was unknown."""

    def __init__(self, message: str, verdict: Verdict):
        super().__init__(message)
        self.verdict = verdict


class OutOfTime(RuntimeError):
    """The explanation's deadline passed."""


@dataclass(frozen=True)
class Deadline:
    """A time limit of ``timeout`` seconds from its creation (none when ``timeout`` is
    None), on the monotonic clock."""

    timeout: float | None
    at: float | None

    @classmethod
    def after(cls, timeout: float | None) -> Deadline:
        return cls(timeout, None if timeout is None else time.monotonic() + timeout)

    def expired(self) -> bool:
        return self.at is not None and time.monotonic() >= self.at

    def remaining(self) -> float | None:
        """Seconds left (None without a limit); raises :class:`OutOfTime` when none are."""
        if self.at is None:
            return None
        left = self.at - time.monotonic()
        if left <= 0:
            raise OutOfTime(f"the time limit ({self.timeout:g} s) ran out")
        return left
