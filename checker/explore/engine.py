"""The local exhaustive search: a level-synchronous breadth-first search over the reduced
state graph of :func:`fisheye.checker.explore.expand.successors`, deduplicating exact
states (a state's parent link is kept so that the schedule of any violation can be
rebuilt; breadth-first order makes it a shortest one among the schedules explored).

Budgets: ``max_states`` (distinct states) and ``timeout`` (seconds); a run cut short
reports ``complete: false`` and claims nothing about the states it did not visit.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from typing import Any, TextIO

from fisheye.impl.api import Step

from .expand import INNER, PRUNED, Context, classify, is_pruned, terminal_record
from .report import ReportBuilder


class Progress:
    """A live progress line on stderr (states, states/s, depth, frontier), shown once a
    run has lasted ``after`` seconds, refreshed every ``every`` seconds."""

    def __init__(self, stream: TextIO | None = None, after: float = 3.0, every: float = 1.0,
                 label: str = "explore"):
        self.stream = stream if stream is not None else sys.stderr
        self.after, self.every, self.label = after, every, label
        self.start = time.perf_counter()
        self.last = self.start
        self.shown = False

    def update(self, states: int, depth: int, frontier: int, force: bool = False) -> None:
        now = time.perf_counter()
        if not force and (now - self.start < self.after or now - self.last < self.every):
            return
        self.last = now
        el = now - self.start
        rate = states / el if el > 0 else 0.0
        end = "\n" if force else "\r"
        if force and not self.shown:
            return
        self.shown = True
        self.stream.write(f"{self.label}: {states:,} states  {rate:,.0f} states/s  depth {depth}  "
                          f"frontier {frontier:,}  {el:.1f}s   {end}")
        self.stream.flush()


def explore(ctx: Context, builder: ReportBuilder, *, max_states: int | None = None,
            timeout: float | None = None, progress: Progress | None = None,
            on_level: Callable[[int, int], None] | None = None,
            on_terminal: Callable[[Any, str], None] | None = None) -> dict[str, Any]:
    """Explore every state reachable in the reduced graph; return the report.
    ``on_terminal(state, kind)`` sees every distinct terminal state (tests)."""
    system = ctx.system
    start = time.perf_counter()
    init = system.initial()
    parent: dict[Any, tuple[Any, Step] | None] = {init: None}
    frontier = [init]
    depth = 0
    transitions = 0
    stopped: str | None = None
    successors_of = ctx.steps
    apply = system.apply
    count = 0

    def schedule_of(state: Any) -> Callable[[], list[Step]]:
        def build() -> list[Step]:
            out: list[Step] = []
            s = state
            while True:
                link = parent[s]
                if link is None:
                    break
                s, step = link
                out.append(step)
            out.reverse()
            return out
        return build

    while frontier and stopped is None:
        nxt: list[Any] = []
        for state in frontier:
            if is_pruned(ctx, state):
                builder.add_pruned()
                continue
            steps = successors_of(state)
            if not steps:
                kind = classify(ctx, state, 0)
                if kind not in (INNER, PRUNED):
                    if on_terminal is not None:
                        on_terminal(state, kind)
                    builder.add_terminal(terminal_record(ctx, state, kind), depth, schedule_of(state))
                continue
            for step in steps:
                t = apply(state, step)
                transitions += 1
                if t not in parent:
                    parent[t] = (state, step)
                    nxt.append(t)
            count += 1
            if count & 1023 == 0:
                if progress is not None:
                    progress.update(len(parent), depth, len(frontier) + len(nxt))
                if max_states is not None and len(parent) >= max_states:
                    stopped = f"max-states budget ({max_states:,}) reached"
                    break
                if timeout is not None and time.perf_counter() - start >= timeout:
                    stopped = f"timeout ({timeout:g} s) reached"
                    break
        if stopped is None and max_states is not None and len(parent) > max_states:
            stopped = f"max-states budget ({max_states:,}) reached"
        if on_level is not None:
            on_level(depth, len(parent))
        frontier = nxt
        if frontier:
            depth += 1
    if progress is not None:
        progress.update(len(parent), depth, len(frontier), force=True)
    seconds = time.perf_counter() - start
    return builder.build(complete=stopped is None, states=len(parent), transitions=transitions,
                         max_depth=depth, seconds=seconds, stopped=stopped)
