"""Benchmark of ``lin`` (and ``fisheye-lin``) on Jepsen-like register histories.

The histories imitate a Jepsen ``independent`` register test: ``--threads`` client
threads each run operations on random keys (reads 50 %, writes 30 %, cas 20 %), values
drawn from 0-4 as Jepsen's register workload does (so values repeat), each operation
taking effect at a random point of its interval.  A cas whose old value does not
match fails and is left out (``:fail``).  With probability ``--crash`` an operation
times out (``:info``): a write or cas that may or may not have taken effect, left
running forever (``maybe``, no completion), after which the thread goes on as a new
process; a read that times out is left out.  The variant ``bad`` corrupts one late
read to another value of 0-4 (often, not always, non-linearizable: the verdict is
printed); ``absent`` makes it read 5, a value never written (always a violation).

Measured: the whole check through the facade (engine + witness validation), wall and
CPU time (``time.process_time``), peak memory of the process.

Usage: ``.venv/bin/python bench/bench_lin.py [--ops 10000] [--keys 10] [--seeds 3]``.
Prints one JSON line per run and a summary of medians.
"""

from __future__ import annotations

import argparse
import json
import random
import resource
import statistics
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from fisheye.checker.engines import check  # noqa: E402
from fisheye.spec.history import History  # noqa: E402


def jepsen_like(seed: int, ops: int, keys: int, threads: int, crash: float, bad: str = "") -> History:
    rnd = random.Random(seed)
    clock = [rnd.uniform(0, 1) for _ in range(threads)]
    names = [f"t{i}" for i in range(threads)]
    incarnation = [0] * threads
    events = []  # (point, thread-process, op dict)
    for _ in range(ops):
        t = min(range(threads), key=clock.__getitem__)
        inv = clock[t]
        dur = rnd.expovariate(1 / 5.0)
        comp = inv + dur
        kind = rnd.choices(("r", "w", "cas"), (5, 3, 2))[0]
        crashed = rnd.random() < crash
        proc = f"{names[t]}.{incarnation[t]}"
        point = rnd.uniform(inv, comp if not crashed else comp + 50)
        events.append((point, {"process": proc, "kind": kind, "register": f"k{rnd.randrange(keys)}",
                               "invoke": round(inv, 6), "complete": None if crashed else round(comp, 6),
                               "maybe": crashed, "value": rnd.randrange(5), "old": rnd.randrange(5)}))
        if crashed:
            incarnation[t] += 1
        clock[t] = comp + rnd.expovariate(1 / 1.0)
    memory: dict[str, int] = {}
    kept = []
    for _, op in sorted(events, key=lambda e: e[0]):
        cur = memory.get(op["register"], 0)
        if op["kind"] == "r":
            if op["maybe"]:
                continue  # a read that timed out: unknown value, left out
            op["value"] = cur
        elif op["kind"] == "cas":
            took = not op["maybe"] or rnd.random() < 0.5
            if not op["maybe"]:
                if rnd.random() < 0.5:
                    op["old"] = cur
                if op["old"] != cur:
                    continue  # :fail
            elif took:
                op["old"] = cur
            if took and op["old"] == cur:
                memory[op["register"]] = op["value"]
        else:
            if not op["maybe"] or rnd.random() < 0.5:
                memory[op["register"]] = op["value"]
        kept.append(op)
    if bad:
        reads = [op for op in kept if op["kind"] == "r"]
        victim = reads[int(len(reads) * 0.9)]
        victim["value"] = (victim["value"] + 1) % 5 if bad == "bad" else 5
    data: dict[str, list] = {}
    for op in sorted(kept, key=lambda o: o["invoke"]):
        body = [op["old"], op["value"]] if op["kind"] == "cas" else op["value"]
        ext: dict = {"t": [op["invoke"], op["complete"]]}
        if op["maybe"]:
            ext["maybe"] = True
        data.setdefault(op["process"], []).append([op["kind"], op["register"], body, ext])
    return History.build(data)


VARIANTS = ("good", "bad", "absent")


def run(h: History, model: str, graph: str) -> dict:
    from fisheye.spec.graph import ProximityGraph

    g = ProximityGraph.empty(h.processes)  # lin orders every pair itself; fisheye-lin: see --models
    w0, c0 = time.perf_counter(), time.process_time()
    r = check(h, model, g)
    return {"verdict": r.verdict.value, "wall_s": round(time.perf_counter() - w0, 3),
            "cpu_s": round(time.process_time() - c0, 3), "stats": dict(r.stats)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ops", type=int, default=10_000)
    ap.add_argument("--keys", type=int, default=10)
    ap.add_argument("--threads", type=int, default=10)
    ap.add_argument("--crash", type=float, default=0.02)
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--models", default="lin", help="comma-separated: lin, fisheye-lin (complete graph)")
    args = ap.parse_args()
    rows = []
    for variant in VARIANTS:
        for seed in range(args.seeds):
            bad = "" if variant == "good" else variant
            h = jepsen_like(seed, args.ops, args.keys, args.threads, args.crash, bad)
            for model in args.models.split(","):
                out = run(h, model, "complete")
                row = {"model": model, "variant": variant, "seed": seed, "operations": len(h.ops),
                       "processes": len(h.processes), **out}
                rows.append(row)
                print(json.dumps(row), flush=True)
    print(f"peak memory {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MiB")
    for model in args.models.split(","):
        for variant in VARIANTS:
            sel = [r for r in rows if r["model"] == model and r["variant"] == variant]
            print(f"{model:12} {variant:5} median wall {statistics.median(r['wall_s'] for r in sel):.2f} s, "
                  f"cpu {statistics.median(r['cpu_s'] for r in sel):.2f} s, verdicts "
                  f"{sorted({r['verdict'] for r in sel})}")


if __name__ == "__main__":
    main()
