"""A Hypothesis ``RuleBasedStateMachine`` over a system: each rule takes one enabled
step, and the system's properties are checked along the run (the safety properties of
a broadcast, section 4.1 of the paper, after every step; at the end of the run, when
no step is enabled, every property, the model included, by the explorer's judge).  A
run Hypothesis stops early is finished by the first enabled step at each state, so
that every example is judged as a whole run.  Hypothesis searches runs at random and
shrinks a failing one; the failure is a :class:`~fisheye.testing.VerificationFailure`
explained as ``fisheye explain`` explains its counterexample file.

Subclass it, give the system, and let pytest collect its ``TestCase``::

    class LwwRuns(SystemMachine):
        def make_system(self):
            return lww.make(SystemRequest("causal", system="lww:make"))

    TestLwwRuns = LwwRuns.TestCase
"""

from __future__ import annotations

import shlex
from typing import Any

from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, rule

from fisheye.checker.judge import Judge, model_checker
from fisheye.impl.api import ChecksBroadcast, Step, System

from .failure import VerificationFailure, save_dir, slug

SEARCH = "a Hypothesis state machine (fisheye.testing.SystemMachine)"


class SystemMachine(RuleBasedStateMachine):
    """Drives :meth:`make_system`'s system one enabled step per rule (see the module)."""

    max_finishing_steps = 10_000
    """Steps :meth:`teardown` may take to finish a run Hypothesis stopped."""

    def make_system(self) -> System[Any]:
        """The system to drive (a fresh one per run); subclasses override it."""
        raise NotImplementedError("a SystemMachine subclass defines make_system()")

    def __init__(self) -> None:
        super().__init__()
        self.system = self.make_system()
        self.judge = Judge.of(self.system)
        self.state = self.system.initial()
        self.steps: list[Step] = []
        self.judged = False
        """The run was judged at its end, or failed: nothing is left to check."""

    @rule(data=st.data())
    def take_a_step(self, data: st.DataObject) -> None:
        """One enabled step, chosen by Hypothesis (shrinking prefers the first ones);
        none once the run has ended."""
        enabled = self.system.enabled(self.state)
        if not enabled:
            return
        step = enabled[data.draw(st.integers(0, len(enabled) - 1), label="step")]
        self.state = self.system.apply(self.state, step)
        self.steps.append(step)

    @invariant()
    def properties_hold(self) -> None:
        """The broadcast safety properties after every step; at the end of the run,
        every property by the explorer's judge (:class:`fisheye.checker.judge.Judge`)."""
        end = not self.system.enabled(self.state)
        complete = self.system.is_final(self.state)
        if isinstance(self.system, ChecksBroadcast):
            found = self.system.broadcast_violations(self.state, complete=complete if end else False)
            if found:
                self._fail(found[0].prop, str(found[0]))
        if end:
            self._judge_the_end(complete)

    def teardown(self) -> None:
        """A run Hypothesis stopped early is finished by the first enabled step at each
        state (at most :attr:`max_finishing_steps`), then judged: every example is a
        whole run.  A run that failed already is left as it is."""
        if self.judged:
            return
        for _ in range(self.max_finishing_steps):
            enabled = self.system.enabled(self.state)
            if not enabled:
                break
            self.state = self.system.apply(self.state, enabled[0])
            self.steps.append(enabled[0])
        else:
            raise VerificationFailure(f"the run did not end within {self.max_finishing_steps} more steps")
        self.properties_hold()

    def _judge_the_end(self, complete: bool) -> None:
        if self.judged:
            return
        self.judged = True
        judgement = self.judge(self.state, complete, model_checker())
        if judgement.failed:
            self._fail(judgement.failed[0].prop, judgement.failed[0].reason)
        if judgement.undecided:
            raise VerificationFailure(f"a run of {len(self.steps)} steps: no engine decided "
                                      f"{', '.join(judgement.undecided)} (unknown is never a pass)")

    def _fail(self, violates: str, why: str) -> None:
        """Write the run as a counterexample file and fail with its explanation."""
        import fisheye
        from fisheye.checker import counterexample as cxm

        self.judged = True          # one failure per run: teardown does not finish it
        steps = tuple(self.steps)
        cx = cxm.from_run(self.system, steps, violates, search=SEARCH, explain=False)
        path = save_dir() / f"run--{slug(violates)}.json"
        cx.save(path)

        def message() -> str:
            try:
                text = fisheye.explain(cx).text()
            except Exception as e:  # noqa: BLE001 -- the explanation is a courtesy; the failure stands
                text = f"(no explanation: {e})"
            return (f"a run of {len(steps)} steps violates {violates}: {why}\n\n{text}\n\n"
                    f"Replay: fisheye explain {shlex.quote(str(path))}")
        raise VerificationFailure(message, [path])
