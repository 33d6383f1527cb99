"""The compiled kernel against the Python reference: distinct states per CPU second of the
whole command (``fisheye explore ... --kernel compiled|python``, start-up included), the
two run back to back on the same workload, their ratio, and whether the two reports agree.
One command:

    .venv/bin/python bench/bench_kernel.py             # pbn complete, fig6 paper (+ its full run)
    .venv/bin/python bench/bench_kernel.py --quick     # paris-berlin-newyork only
    .venv/bin/python bench/bench_kernel.py --fig6-complete   # also fig6 on the complete graph (compiled)

Each run is a fresh ``fisheye`` process; its CPU time is the child's user + system time
(``resource.getrusage(RUSAGE_CHILDREN)``), its peak memory the maximum RSS the report
gives (``peak_memory_bytes``).  The
Python path on fig6 (millions of states at a few thousand per second) runs under a state
budget, and the compiled path under the same budget for the ratio, then alone to the end.
The load average is printed before and after: on a shared machine every figure is slower.
Targets: 150,000 states per CPU second on fig6 (paper graph, 3.33 M states in under 22 CPU
s), 100,000 on paris-berlin-newyork on the complete graph.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import subprocess
import sys
import time

VOLATILE = {"seconds", "states_per_second", "cpu_seconds", "peak_memory_bytes", "kernel", "visited_bytes"}


def fisheye() -> str:
    exe = os.path.join(os.path.dirname(sys.executable), "fisheye")
    return exe if os.path.exists(exe) else "fisheye"


def run(scenario: str, graph: str, kernel: str, max_states: int | None) -> dict:
    args = [fisheye(), "explore", scenario, "--graph", graph, "--kernel", kernel, "--json", "--quiet",
            "--model", "none"]
    if max_states is not None:
        args += ["--max-states", str(max_states)]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    out = subprocess.run(args, capture_output=True, text=True)
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if out.returncode not in (0, 1, 3):
        raise SystemExit(f"{' '.join(args)}: exit {out.returncode}: {out.stderr.strip()}")
    rep = json.loads(out.stdout)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return {"report": rep, "cpu": cpu, "wall": wall, "rss_mib": rep["peak_memory_bytes"] / 2**20}


def line(label: str, r: dict) -> str:
    rep = r["report"]
    return (f"  {label:9s} {rep['states']:>11,} states  {r['cpu']:8.2f} CPU s  {r['wall']:8.2f} wall s  "
            f"{rep['states'] / r['cpu']:>9,.0f} states/CPU s  peak {r['rss_mib']:,.0f} MiB"
            f"{'' if rep['complete'] else '  (cut: ' + str(rep.get('stopped')) + ')'}")


def compare(scenario: str, graph: str, max_states: int | None) -> None:
    print(f"{scenario} --graph {graph}" + (f" --max-states {max_states:,}" if max_states else ""))
    c = run(scenario, graph, "compiled", max_states)
    p = run(scenario, graph, "python", max_states)
    print(line("compiled", c))
    print(line("python", p))
    same = {k: v for k, v in c["report"].items() if k not in VOLATILE} == \
        {k: v for k, v in p["report"].items() if k not in VOLATILE}
    ratio = (c["report"]["states"] / c["cpu"]) / (p["report"]["states"] / p["cpu"])
    print(f"  ratio {ratio:.1f}x states/CPU s; reports identical: {same}")


def alone(scenario: str, graph: str) -> None:
    print(f"{scenario} --graph {graph} (compiled, to the end)")
    print(line("compiled", run(scenario, graph, "compiled", None)))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="paris-berlin-newyork only")
    ap.add_argument("--fig6-budget", type=int, default=300_000,
                    help="states of fig6 explored by both paths for the ratio (default 300,000)")
    ap.add_argument("--fig6-complete", action="store_true", help="also fig6 on the complete graph, compiled")
    a = ap.parse_args()
    print(f"{platform.node()} {platform.machine()} {os.cpu_count()} CPUs, "
          f"python {platform.python_version()}; load average {os.getloadavg()}")
    run("paris-berlin-newyork", "paper", "compiled", 10)      # compile (or load the cache) first
    compare("paris-berlin-newyork", "paper", None)
    compare("paris-berlin-newyork", "complete", None)
    if not a.quick:
        compare("fig6", "paper", a.fig6_budget)
        alone("fig6", "paper")
        if a.fig6_complete:
            alone("fig6", "complete")
    print(f"load average after: {os.getloadavg()}")


if __name__ == "__main__":
    main()
