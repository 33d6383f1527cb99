"""Import speed of Jepsen histories: synthetic register histories in EDN and plain-text log
form (350 processes, 100 keys as jepsen.independent tuples, 5 % indeterminate and 10 %
failed operations), read and translated into the contract's history object, then parsed.

Usage: ``.venv/bin/python bench/bench_formats.py [--ops 5000 10000 50000] [--repeat 3]``.
Prints one JSON line per measurement (CPU seconds by ``process_time``, wall seconds) and
the load average.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import tempfile
import time
from pathlib import Path

from fisheye.checker.formats import load


def events(n_ops: int, seed: int = 0) -> list[tuple[int, str, str, str]]:
    """A plausible Jepsen history: ``n_ops`` operations, at most 350 concurrent processes."""
    rng = random.Random(seed)
    out: list[tuple[int, str, str, str]] = []
    pending: dict[int, tuple[str, str]] = {}
    next_process = 0
    free = list(range(350))
    started = 0
    while started < n_ops or pending:
        if started < n_ops and free and (not pending or rng.random() < 0.5):
            p = free.pop(rng.randrange(len(free)))
            key = rng.randrange(100)
            f = rng.choice(["read", "write", "cas"])
            v = {"read": f"[{key} nil]", "write": f"[{key} {rng.randrange(5)}]",
                 "cas": f"[{key} [{rng.randrange(5)} {rng.randrange(5)}]]"}[f]
            pending[p] = (f, v)
            out.append((p, "invoke", f, v))
            started += 1
            continue
        p = rng.choice(list(pending))
        f, v = pending.pop(p)
        r = rng.random()
        t = "info" if r < 0.05 else "fail" if r < 0.15 and f != "read" else "ok"
        if f == "read" and t == "ok":
            v = v.replace("nil", str(rng.randrange(5)))
        out.append((p, t, f, v))
        if t == "info":
            next_process += 1
            free.append(350 + next_process)
        else:
            free.append(p)
    return out


def edn(evs: list[tuple[int, str, str, str]]) -> str:
    return "\n".join(f"{{:process {p}, :type :{t}, :f :{f}, :value {v}}}" for p, t, f, v in evs)


def log(evs: list[tuple[int, str, str, str]]) -> str:
    return "\n".join(f"INFO  jepsen.util - {p}\t:{t}\t:{f}\t{v}" for p, t, f, v in evs) + "\n"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--ops", type=int, nargs="+", default=[5000, 10000, 50000])
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as d:
        for n in args.ops:
            evs = events(n)
            for name, text in (("h.edn", edn(evs)), ("h.log", log(evs))):
                path = Path(d) / name
                path.write_text(text)
                cpu, wall = [], []
                for _ in range(args.repeat):
                    c0, w0 = time.process_time(), time.perf_counter()
                    history, imp = load(str(path))
                    cpu.append(time.process_time() - c0)
                    wall.append(time.perf_counter() - w0)
                print(json.dumps({"format": imp.format, "operations": n, "events": len(evs),
                                  "imported": len(history.ops),
                                  "cpu_s": round(statistics.median(cpu), 3),
                                  "wall_s": round(statistics.median(wall), 3),
                                  "loadavg": os.getloadavg()[0]}), flush=True)


if __name__ == "__main__":
    main()
