"""Wall time of whole ``fisheye`` commands on small inputs, as a user runs them: ``fisheye
--help`` and ``fisheye check FILE --model M`` for the paper's figures in examples/ under
every model (and any extra files given, e.g. one of Porcupine's etcd logs, under lin, sc,
cc and fisheye). Each command runs seven times in a fresh process; the median and the
slowest are printed with the command's exit status. Run from the repository's root:

    .venv/bin/python bench/bench_startup.py [EXTRA_FILE ...]
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import time

FISHEYE = ".venv/bin/fisheye"
FIGURES = ("examples/fig4.json", "examples/iriw.json", "examples/fig6-x2.json")
MODELS = ("lin", "sc", "cc", "fisheye", "fisheye-2014", "fisheye-lin")
REPEAT = 7


def commands(extra: list[str]) -> list[list[str]]:
    out = [[FISHEYE, "--help"]]
    out += [[FISHEYE, "check", f, "--model", m] for f in FIGURES for m in MODELS]
    out += [[FISHEYE, "check", f, "--model", m] for f in extra for m in ("lin", "sc", "cc", "fisheye")]
    return out


def main(argv: list[str]) -> None:
    for command in commands(argv):
        times = []
        status = None
        for _ in range(REPEAT):
            start = time.perf_counter()
            status = subprocess.run(command, capture_output=True).returncode
            times.append(time.perf_counter() - start)
        print(f"{statistics.median(times):.3f} s (slowest {max(times):.3f}) exit {status}  "
              f"{' '.join(command[1:])}", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
