"""Benchmarks of the explorer: distinct states per CPU second on one core, reduction
factor, wall time, peak memory and visited-set bytes per state, per scenario, graph and
level; and the fingerprint set alone (bytes per visited state at 10-100 million states).
Run by hand:

    .venv/bin/python bench/bench_explore.py                # everything (long: fig6 protocol)
    .venv/bin/python bench/bench_explore.py --quick        # paris-berlin-newyork only
    .venv/bin/python bench/bench_explore.py --repeat 3 --fig6-timeout 600
    .venv/bin/python bench/bench_explore.py --storage 100000000   # the visited set alone

Targets: at least 30,000 distinct states per CPU second at the protocol level
(paris-berlin-newyork on the complete graph, fig6); 100 million visited states in 4 GiB
(plus the frontier).

Each configuration runs in a fresh child process (one core, its own peak RSS); with
``--repeat N`` the median wall and CPU times of N runs are reported.  On a shared machine
the CPU time of the child (``time.process_time``) is the better measure of the one-core
rate: states per CPU second.  The machine and its load
average are printed first: other work on the machine slows every figure down.  Results go
to ``docs/benchmarks.md`` (section "Explorer") by hand, with the machine and the load.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys

CHILD = r"""
import json, resource, sys, time
from fisheye.checker.explore import make_context, run
sc, graph, level, red, budget = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], float(sys.argv[5])
t = time.perf_counter()
c = time.process_time()
rep = run(make_context(sc, graph, level=level, reduction=red), model=None, timeout=budget)
wall = time.perf_counter() - t
cpu = time.process_time() - c
print(json.dumps({"states": rep["states"], "terminal": rep["terminal_states"], "histories": rep["histories"],
                  "complete": rep["complete"], "depth": rep["max_depth"], "wall": wall, "cpu": cpu,
                  "outcomes": rep["outcomes"]["values"], "pruned": rep["pruned"]["deviating_reads"],
                  "visited_bytes": rep.get("visited_bytes", 0),
                  "rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""


def child(sc: str, graph: str, level: str, red: str, budget: float) -> dict:
    out = subprocess.run([sys.executable, "-c", CHILD, sc, graph, level, red, str(budget)],
                         capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


def measure(sc: str, graph: str, level: str, red: str, budget: float, repeat: int) -> dict:
    runs = [child(sc, graph, level, red, budget) for _ in range(repeat)]
    r = dict(runs[0])
    r["wall"] = statistics.median(x["wall"] for x in runs)
    r["cpu"] = statistics.median(x["cpu"] for x in runs)
    r["rss_mib"] = max(x["rss_mib"] for x in runs)
    return r


STORAGE = r"""
import json, resource, sys, time
import numpy as np
from fisheye.checker.explore.store import FingerprintSet
n, levels = int(sys.argv[1]), 40
rng = np.random.default_rng(1)
vs = FingerprintSet()
t = time.process_time()
per = n // levels
for _ in range(levels):
    keys = rng.integers(0, 2**63, size=per, dtype=np.uint64)
    vs.known(keys[:1000].tolist())
    vs.merge(keys)
cpu = time.process_time() - t
probe = rng.integers(0, 2**63, size=100000, dtype=np.uint64).tolist()
t = time.process_time()
for k in range(0, len(probe), 1000):
    vs.known(probe[k:k + 1000])
look = (time.process_time() - t) / len(probe)
print(json.dumps({"states": len(vs), "bytes": vs.nbytes, "merge_cpu": cpu, "lookup_us": look * 1e6,
                  "rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""


def storage(n: int) -> None:
    out = subprocess.run([sys.executable, "-c", STORAGE, str(n)], capture_output=True, text=True, check=True)
    r = json.loads(out.stdout)
    print(f"fingerprint set: {r['states']:,} states, {r['bytes'] / r['states']:.1f} bytes/state "
          f"({r['bytes'] / 2**30:.2f} GiB), peak RSS {r['rss_mib']:,.0f} MiB, "
          f"40 level merges {r['merge_cpu']:.1f} CPU s, lookup {r['lookup_us']:.2f} us/state (batched)")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="paris-berlin-newyork only")
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--timeout", type=float, default=600.0, help="budget of each run (s)")
    ap.add_argument("--fig6-timeout", type=float, default=600.0, help="budget of fig6 protocol runs (s)")
    ap.add_argument("--full", action="store_true", help="also the unreduced searches (abstract level; at "
                    "the protocol level within --full-timeout)")
    ap.add_argument("--full-timeout", type=float, default=120.0,
                    help="budget of each unreduced protocol-level search (s): it reports its reach")
    ap.add_argument("--storage", type=int, default=None, metavar="N",
                    help="only measure the fingerprint set with N random fingerprints")
    args = ap.parse_args()
    if args.storage:
        print(f"load average {os.getloadavg()[0]:.1f}")
        storage(args.storage)
        return
    print(f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cpus, "
          f"python {platform.python_version()}, load average {os.getloadavg()[0]:.1f}", flush=True)
    configs = [("paris-berlin-newyork", g, lvl) for lvl in ("protocol", "abstract")
               for g in ("empty", "paper", "complete")]
    if not args.quick:
        configs += [("fig6", g, "abstract") for g in ("empty", "paper", "complete")]
        configs += [("fig6", g, "protocol") for g in ("empty", "paper", "complete")]
    print("| scenario | level | graph | reduction | complete | states | final states | histories | wall s "
          "| CPU s | states/CPU s | peak MiB | visited B/state | full states | factor |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for sc, g, lvl in configs:
        budget = args.fig6_timeout if (sc == "fig6" and lvl == "protocol") else args.timeout
        r = measure(sc, g, lvl, "auto", budget, args.repeat)
        full = None
        if args.full and not (sc == "fig6" and lvl == "protocol"):
            full = measure(sc, g, lvl, "none", args.full_timeout if lvl == "protocol" else budget, 1)
        fs = ""
        if full:
            fs = f"{full['states']:,}" + ("" if full["complete"] else f" (cut at {full['wall']:.0f} s)")
        factor = f"{full['states'] / r['states']:.1f}" if full and full["complete"] else ""
        print(f"| {sc} | {lvl} | {g} | auto | {r['complete']} | {r['states']:,} | {r['terminal']:,} | "
              f"{r['histories']} | {r['wall']:.1f} | {r['cpu']:.1f} | "
              f"{r['states'] / max(r['cpu'], 1e-9):,.0f} | "
              f"{r['rss_mib']:.0f} | {r['visited_bytes'] / max(r['states'], 1):.1f} | "
              f"{fs} | {factor} |", flush=True)
    print(f"load average at the end: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
