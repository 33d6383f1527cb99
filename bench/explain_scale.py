"""``fisheye explain`` at scale: a history of thousands of operations, causally
consistent except for one small fisheye violation (the two-writer pattern of an edge),
explained end to end.  Prints the size, the core found, the number of checks and the CPU
time.  Run: ``.venv/bin/python bench/explain_scale.py [OPERATIONS]``."""

from __future__ import annotations

import random
import sys
import time
from typing import Any


def big_history(n_ops: int, *, processes: int = 8, seed: int = 1) -> dict[str, Any]:
    """A sequentially consistent run of ``processes`` processes over a few registers (each
    read returns the latest write of a single global order), then the four operations of
    a fisheye violation on fresh registers between p0 and p1 (an edge)."""
    rng = random.Random(seed)
    procs = [f"p{i}" for i in range(processes)]
    hist: dict[str, list[list[Any]]] = {p: [] for p in procs}
    regs = [f"R{i}" for i in range(6)]
    latest = {r: 0 for r in regs}
    value = 0
    for _ in range(n_ops - 4):
        p = rng.choice(procs)
        r = rng.choice(regs)
        if rng.random() < 0.5:
            value += 1
            latest[r] = value
            hist[p].append(["w", r, value])
        else:
            hist[p].append(["r", r, latest[r]])
    value += 1
    a, b = value, value + 1
    hist["p0"] += [["w", "X", a], ["r", "X", b]]
    hist["p1"] += [["w", "X", b], ["r", "X", a]]
    return {"processes": procs, "graph": [["p0", "p1"]], "history": hist}


def main() -> None:
    from fisheye.checker.engines import check
    from fisheye.checker.explain import explain
    from fisheye.spec.history import parse_history

    n = int(sys.argv[1]) if len(sys.argv) > 1 else 2000
    h = parse_history(big_history(n))
    t0 = time.process_time()
    res = check(h, "fisheye")
    t1 = time.process_time()
    exp = explain(h, "fisheye")
    t2 = time.process_time()
    print(f"{len(h.ops)} operations: check {res.verdict.value} in {t1 - t0:.2f} s CPU; explain: core of "
          f"{len(exp.core.uids)} operations ({'1-minimal' if exp.core.minimal else 'not verified minimal'}) "
          f"after {exp.core.checks} checks, {t2 - t1:.2f} s CPU")


if __name__ == "__main__":
    main()
