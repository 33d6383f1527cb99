"""A user system's compiled kernel against its Python form: ``examples/lww`` (the guide's
protocol, ``lww_kernel.py`` against the actor of ``lww.py``) on the scenario ``crossed``
(four processes, 206,078 states), the whole command ``fisheye explore crossed --system
lww:make --model cc --kernel compiled|python`` run back to back from ``examples/lww``.
One command:

    .venv/bin/python bench/bench_user_kernel.py           # both paths, compiled code cached
    .venv/bin/python bench/bench_user_kernel.py --cold    # first drop lww_kernel's numba cache

Prints, per path, the distinct states, the CPU time of the whole command (the child's user
+ system time, start-up included), the exploration's own CPU time (the report's
``cpu_seconds``), states per CPU second of both, the ratio, and whether the two reports
agree (times aside).  ``--cold``: the compiled run then includes numba's compilation of
the kernel (cached for the next runs).  The load average is printed before and after.
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
from pathlib import Path

LWW = Path(__file__).resolve().parent.parent / "examples" / "lww"
VOLATILE = {"seconds", "states_per_second", "cpu_seconds", "peak_memory_bytes", "kernel"}


def explore(kernel: str, scenario: str) -> dict:
    exe = Path(sys.executable).with_name("fisheye")
    args = [str(exe) if exe.exists() else "fisheye", "explore", scenario, "--system", "lww:make",
            "--model", "cc", "--kernel", kernel, "--json", "--quiet"]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    out = subprocess.run(args, capture_output=True, text=True, cwd=LWW)
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if out.returncode not in (0, 1):
        raise SystemExit(f"{' '.join(args)}: exit {out.returncode}: {out.stderr.strip()}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return {"report": json.loads(out.stdout), "cpu": cpu, "wall": wall}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--scenario", default="crossed")
    ap.add_argument("--cold", action="store_true", help="drop lww_kernel's numba cache first")
    args = ap.parse_args()
    if args.cold:
        for f in (LWW / "__pycache__").glob("lww_kernel.*.nb[ic]"):
            f.unlink()
    print(f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores; "
          f"load before {os.getloadavg()[0]:.2f}")
    runs = {k: explore(k, args.scenario) for k in ("compiled", "python")}
    for k, r in runs.items():
        rep = r["report"]
        print(f"  {k:8s} {rep['states']:>9,} states command {r['cpu']:6.2f} CPU s ({r['wall']:.2f} wall s), "
              f"{rep['states'] / r['cpu']:>9,.0f} states/CPU s; exploration {rep['cpu_seconds']:6.2f} CPU s, "
              f"{rep['states'] / max(rep['cpu_seconds'], 1e-9):>9,.0f} states/CPU s")
    c, p = runs["compiled"], runs["python"]
    print(f"  ratio python/compiled: command {p['cpu'] / c['cpu']:.1f}x, exploration "
          f"{p['report']['cpu_seconds'] / c['report']['cpu_seconds']:.1f}x")
    same = {k: v for k, v in c["report"].items() if k not in VOLATILE} == \
        {k: v for k, v in p["report"].items() if k not in VOLATILE}
    print(f"  reports agree: {same}; load after {os.getloadavg()[0]:.2f}")
    if not same:
        raise SystemExit(1)


if __name__ == "__main__":
    main()
