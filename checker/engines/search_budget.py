"""The budget of the sequential searches (linearizability, Definition of section 2's
real-time order; the Python search and its compiled twin): a bound on configurations
explored and an optional deadline; running out makes the verdict *unknown*."""

from __future__ import annotations

import time
from dataclasses import dataclass, field


class BudgetExhausted(Exception):
    """The search ran out of configurations or time: the verdict is *unknown*."""


@dataclass
class Budget:
    """A bound on configurations explored and an optional deadline."""

    max_states: int = 2_000_000
    timeout: float | None = None
    states: int = 0
    start: float = field(default_factory=time.monotonic)

    def tick(self, n: int = 1) -> None:
        self.states += n
        if self.states > self.max_states:
            raise BudgetExhausted(f"the search budget of {self.max_states} configurations ran out")
        if self.timeout is not None and self.states % 256 == 0 \
                and time.monotonic() - self.start > self.timeout:
            raise BudgetExhausted(f"the timeout of {self.timeout:g} s ran out")

    def left(self) -> int:
        return max(0, self.max_states - self.states)

    def part(self, max_states: int) -> Budget:
        """A budget for a sub-task: at most ``max_states``, the same deadline."""
        return Budget(max_states=max_states, timeout=self.timeout, start=self.start)

    def absorb(self, part: Budget) -> None:
        """Count a sub-task's work here."""
        self.tick(0)
        self.states += part.states
