"""How an explanation stops short: :class:`ExplainError` when there is nothing to explain
(the history is consistent, or a check was unknown), and :class:`OutOfTime` when its time
limit passes, raised through a :class:`Deadline` by the checks of the minimal core and by
the prover's case analysis."""

from __future__ import annotations

from fisheye.spec.deadline import Deadline as Deadline
from fisheye.spec.deadline import OutOfTime as OutOfTime

from ..result import Verdict


class ExplainError(RuntimeError):
    """No explanation: the history is consistent, or a check was unknown."""

    def __init__(self, message: str, verdict: Verdict):
        super().__init__(message)
        self.verdict = verdict


