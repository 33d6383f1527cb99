"""Benchmarks of the localized causal broadcast's searches (fisheye.checker.lcb_search,
on the explorer's engine): distinct states and CPU seconds per search.  Run by hand:

    .venv/bin/python bench/bench_lcb_searches.py            # lcb3 F=2, lcb4 fates F=0, lcb-mem3
    .venv/bin/python bench/bench_lcb_searches.py --heavy    # also lcb4 fates F=1 (minutes)

The load average is printed first (other work on the machine slows every figure down);
CPU time (``time.process_time``) is the better measure on a shared machine.
"""

from __future__ import annotations

import argparse
import os
import time
from collections.abc import Callable
from typing import Any

from fisheye.checker.lcb_search import explore, explore_fates, explore_memory
from fisheye.impl.lcb import make_lcb_system


def measure(name: str, fn: Callable[[], Any], states: Callable[[Any], int]) -> None:
    cpu, wall = time.process_time(), time.perf_counter()
    res = fn()
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    n = states(res)
    rate = n / cpu if cpu else 0.0
    print(f"{name:28} {n:>9,} states  {cpu:8.2f} CPU-s  {wall:8.2f} s  {rate:>9,.0f} states/CPU-s")


def main() -> None:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--heavy", action="store_true", help="also lcb4 with at most one crash (crash fates)")
    args = ap.parse_args()
    print(f"load average {os.getloadavg()}")
    measure("lcb3 F=2 (full search)", lambda: explore(make_lcb_system("lcb3", crashes=2)), lambda r: r.states)
    measure("lcb3 F=2 (crash fates)", lambda: explore_fates("lcb3", 2), lambda r: r.states)
    measure("lcb4 F=0 (crash fates)", lambda: explore_fates("lcb4", 0), lambda r: r.states)
    measure("lcb-mem3 cc (memory)", lambda: explore_memory(make_lcb_system("lcb-mem3", crashes=0), ("cc",)),
            lambda r: r.states)
    if args.heavy:
        measure("lcb4 F=1 (crash fates)", lambda: explore_fates("lcb4", 1), lambda r: r.states)


if __name__ == "__main__":
    main()
