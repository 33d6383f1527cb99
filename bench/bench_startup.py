"""Wall and CPU time of whole ``fisheye`` commands on small inputs, as a user runs them:
``fisheye --help``, and ``fisheye check FILE --model M`` for the paper's figures in
examples/ under every model and for one of Porcupine's etcd logs
(``tests/data/jepsen/porcupine-etcd_000.log``) under the models defined on cas operations
(and any extra files given, under those too). Each command runs seven times in a fresh
process; the median and the slowest wall time are printed with the median CPU time of the
process (user + system, robust to a loaded machine) and the exit status; then each target
is judged on the medians (``target: ... met`` / ``NOT met``). Run from the repository's
root:

    .venv/bin/python bench/bench_startup.py [EXTRA_FILE ...]
    .venv/bin/python bench/bench_startup.py --explore

``--explore``: the start-up of ``fisheye explore paris-berlin-newyork --graph complete``
instead, in CPU time (median of five fresh processes): what the interpreter, numpy,
numba and fisheye's modules cost to import, then the whole command cut after one state
(the compiled kernel loaded from numba's cache, the system set up), then the whole run
with its distinct states per CPU second (``--model none`` as ``bench/bench_kernel.py``,
and with the default model, whose judge checks every complete run); target 100,000.

fisheye's modules are byte-compiled first, as ``scripts/bootstrap.sh`` leaves them after
installing (otherwise, with ``PYTHONDONTWRITEBYTECODE`` set, every command would compile
them again). The load average is printed before and after.
"""

from __future__ import annotations

import compileall
import os
import statistics
import subprocess
import sys
import time

FISHEYE = ".venv/bin/fisheye"
FIGURES = ("examples/fig4.json", "examples/iriw.json", "examples/fig6-x2.json")
MODELS = ("lin", "sc", "cc", "fisheye", "fisheye-2014", "fisheye-lin")
LOGS = ("tests/data/jepsen/porcupine-etcd_000.log",)
CAS_MODELS = ("lin", "sc", "fisheye-lin")
"""The models defined on histories with cas operations (Porcupine's etcd logs)."""
REPEAT = 7
HELP_TARGET = 0.1
CHECK_TARGET = 0.15
"""Seconds of wall time, median, on an idle machine."""


def commands(extra: list[str]) -> list[list[str]]:
    out = [[FISHEYE, "--help"]]
    out += [[FISHEYE, "check", f, "--model", m] for f in FIGURES for m in MODELS]
    out += [[FISHEYE, "check", f, "--model", m] for f in (*LOGS, *extra) for m in CAS_MODELS]
    return out


def run(command: list[str]) -> tuple[float, float, int, str]:
    """Wall seconds, CPU seconds (the child's user + system), exit status and standard output."""
    start = time.perf_counter()
    child = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    out = child.stdout.read() if child.stdout is not None else ""
    _, status, usage = os.wait4(child.pid, 0)
    return (time.perf_counter() - start, usage.ru_utime + usage.ru_stime, os.waitstatus_to_exitcode(status),
            out)


EXPLORE = ["explore", "paris-berlin-newyork", "--graph", "complete", "--quiet", "--json"]
STATES_TARGET = 100_000
STAGES = """
import sys, time
marks = [time.process_time()]  # the interpreter's start, site included
import numpy
marks.append(time.process_time())
import numba
marks.append(time.process_time())
import fisheye.checker.cli.explore, fisheye.checker.explore, fisheye.impl.protocol_kernel
marks.append(time.process_time())
print(*(b - a for a, b in zip([0.0, *marks], marks)))
"""
"""CPU seconds of each import, one after the other, in a fresh process."""


def explore_startup() -> None:
    import json

    env = {**os.environ, "OPENBLAS_NUM_THREADS": "1"}  # as the command sets it
    stages = [[float(x) for x in subprocess.run([sys.executable, "-c", STAGES], capture_output=True,
                                                text=True, check=True, env=env).stdout.split()]
              for _ in range(5)]
    names = ("interpreter", "numpy", "numba", "fisheye's explore modules")
    for name, cpu in zip(names, zip(*stages, strict=True), strict=True):
        print(f"  import {name}: CPU {statistics.median(cpu):.3f} s")
    one = [run([FISHEYE, *EXPLORE, "--model", "none", "--max-states", "1"])[1] for _ in range(5)]
    print(f"  whole command cut after one state (imports, kernel loaded, system set up): "
          f"CPU {statistics.median(one):.3f} s")
    for model in ("none", None):
        command = [FISHEYE, *EXPLORE] + (["--model", model] if model else [])
        runs = [run(command) for _ in range(5)]
        states = json.loads(runs[0][3])["states"]
        cpu = statistics.median(r[1] for r in runs)
        rate = states / cpu
        verdict = "met" if rate >= STATES_TARGET else "NOT met"
        print(f"  whole run{' --model none' if model else ' (default model)'}: {states:,} states, "
              f"CPU {cpu:.3f} s, {rate:,.0f} states/CPU s: target {STATES_TARGET:,} {verdict}")


def main(argv: list[str]) -> None:
    for folder in ("spec", "impl", "checker", "fisheye_ns"):
        compileall.compile_dir(folder, quiet=1)
    print(f"load average before: {os.getloadavg()}", flush=True)
    if argv == ["--explore"]:
        explore_startup()
        print(f"load average after: {os.getloadavg()}")
        return
    missed = []
    for command in commands(argv):
        walls, cpus = [], []
        status = None
        for _ in range(REPEAT):
            wall, cpu, status, _ = run(command)
            walls.append(wall)
            cpus.append(cpu)
        wall = statistics.median(walls)
        print(f"{wall:.3f} s (slowest {max(walls):.3f}), CPU {statistics.median(cpus):.3f} s, exit {status}  "
              f"{' '.join(command[1:])}", flush=True)
        target = HELP_TARGET if command[1] == "--help" else CHECK_TARGET
        if wall >= target:
            missed.append(f"{' '.join(command[1:])} ({wall:.3f} s)")
    print(f"load average after: {os.getloadavg()}")
    print(f"target: --help under {HELP_TARGET} s, every small check under {CHECK_TARGET} s (median wall): "
          + ("met" if not missed else "NOT met: " + "; ".join(missed)))


if __name__ == "__main__":
    main(sys.argv[1:])
