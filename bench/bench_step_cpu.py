"""CPU time of the protocol level's step function: the explorer on paris-berlin-newyork
with the complete graph (``fisheye explore paris-berlin-newyork --graph complete``, no
model check), and a raw loop of ``enabled`` + ``apply`` over every state it reaches.

    .venv/bin/python bench/bench_step_cpu.py [REPEAT]

Prints CPU seconds (time.process_time), best of REPEAT (default 3)."""

from __future__ import annotations

import sys
import time

from fisheye.checker.explore import make_context, run
from fisheye.impl.system import make_system


def explore_once() -> tuple[float, int]:
    ctx = make_context("paris-berlin-newyork", "complete")
    t = time.process_time()
    rep = run(ctx, model=None)
    return time.process_time() - t, rep["states"]


def steps_once() -> tuple[float, int]:
    system = make_system("paris-berlin-newyork", "complete")
    seen = {system.initial()}
    frontier = list(seen)
    t = time.process_time()
    n = 0
    while frontier:
        nxt = []
        for s in frontier:
            for step in system.enabled(s):
                u = system.apply(s, step)
                n += 1
                if u not in seen:
                    seen.add(u)
                    nxt.append(u)
        frontier = nxt
    return time.process_time() - t, n


def main() -> None:
    repeat = int(sys.argv[1]) if len(sys.argv) > 1 else 3
    ex = min(explore_once() for _ in range(repeat))
    print(f"explore paris-berlin-newyork --graph complete (no model check): {ex[0]:.2f} CPU s, "
          f"{ex[1]:,} states")
    st = min(steps_once() for _ in range(repeat))
    print(f"raw enabled+apply over every reachable state (no reduction): {st[0]:.2f} CPU s, "
          f"{st[1]:,} transitions")


if __name__ == "__main__":
    main()
