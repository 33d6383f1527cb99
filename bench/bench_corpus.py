"""A corpus of history files checked in batch mode and on Spark, back to back.

Makes ``--files`` Jepsen-like register histories (``bench_lin.jepsen_like``: 10 keys, 20
client threads, 1 % indeterminate writes; one in five with a corrupted late read) of
``--min-ops`` to ``--max-ops`` operations (uniform, seeded), written as the contract's JSON
in one directory, then runs, one after the other, as a user would:

    fisheye check DIR --model lin --output batch.jsonl
    fisheye check DIR --model lin --spark --master local[2] --output spark.jsonl

and prints one JSON line: wall and CPU seconds of each command (CPU: this process's
children, the Spark JVM and its Python workers included), the ratio batch / Spark, the
outcomes, and whether the two result files agree file by file (verdict, exit status,
operations; timings aside).  CPU seconds of a command: those of the processes it waited
for, or, when larger, the sum over the process tree sampled from /proc every 0.2 s (the
Spark JVM and its workers are not waited for; the sampling misses at most 0.2 s each).
Exit status 1 if the results differ.

Usage (the full corpus; about 2 GB of temporary files):
    .venv/bin/python bench/bench_corpus.py
a quick run:
    .venv/bin/python bench/bench_corpus.py --files 40 --max-ops 3000
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from bench_lin import jepsen_like  # noqa: E402

FISHEYE = Path(sys.executable).with_name("fisheye")
COMPARED = ("file", "verdict", "exit", "operations", "error")


def make_corpus(directory: Path, files: int, min_ops: int, max_ops: int, seed: int) -> int:
    """Write the histories; returns their total number of operations."""
    rnd = random.Random(seed)
    total = 0
    for i in range(files):
        ops = rnd.randint(min_ops, max_ops)
        history = jepsen_like(seed * 100_003 + i, ops, 10, 20, 0.01, "bad" if i % 5 == 4 else "")
        (directory / f"h{i:05d}.json").write_text(json.dumps(history.to_json()))
        total += len(history.ops)
    return total


def tree_cpu(root: int, seen: dict[int, float]) -> None:
    """Record in ``seen`` the CPU seconds so far of ``root`` and of every descendant (the
    Spark JVM and its Python workers are not waited for by the command, so the resource
    usage of children misses them: they are sampled from /proc instead)."""
    parent: dict[int, int] = {}
    cpu: dict[int, float] = {}
    tick = os.sysconf("SC_CLK_TCK")
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2:].split()
        parent[int(entry)] = int(fields[1])
        cpu[int(entry)] = (int(fields[11]) + int(fields[12])) / tick
    for pid in cpu:
        p = pid
        while p not in (0, 1, root) and p in parent:
            p = parent[p]
        if p == root:
            seen[pid] = max(seen.get(pid, 0.0), cpu[pid])


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def timed(cmd: list[str]) -> dict[str, Any]:
    before = children_cpu()
    w0 = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    seen: dict[int, float] = {}
    stop = threading.Event()

    def sample() -> None:
        while not stop.wait(0.2):
            tree_cpu(proc.pid, seen)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    _, err = proc.communicate()
    wall = time.perf_counter() - w0
    stop.set()
    sampler.join()
    cpu = max(children_cpu() - before, sum(seen.values()))
    return {"exit": proc.returncode, "wall_s": round(wall, 2), "cpu_s": round(cpu, 2),
            "stderr_lines": len(err.splitlines())}



def rows(path: Path) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    return [{k: row.get(k) for k in COMPARED} for row in lines[:-1]], lines[-1]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--files", type=int, default=2000)
    ap.add_argument("--min-ops", type=int, default=1000)
    ap.add_argument("--max-ops", type=int, default=10000)
    ap.add_argument("--master", default="local[2]")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--keep", metavar="DIR", default=None, help="make the corpus in DIR and keep it")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        corpus = Path(args.keep) if args.keep else Path(tmp) / "corpus"
        corpus.mkdir(parents=True, exist_ok=True)
        c0 = time.perf_counter()
        operations = make_corpus(corpus, args.files, args.min_ops, args.max_ops, args.seed)
        made = time.perf_counter() - c0
        out = Path(tmp)
        base = [str(FISHEYE), "check", str(corpus), "--model", "lin"]
        load_before = os.getloadavg()
        batch = timed([*base, "--output", str(out / "batch.jsonl")])
        spark = timed([*base, "--spark", "--master", args.master, "--output", str(out / "spark.jsonl")])
        load_after = os.getloadavg()
        batch_rows, batch_summary = rows(out / "batch.jsonl")
        spark_rows, spark_summary = rows(out / "spark.jsonl")
        same = batch_rows == spark_rows and batch_summary["summary"] == spark_summary["summary"] \
            and batch["exit"] == spark["exit"]
        print(json.dumps({
            "files": args.files, "operations": operations, "corpus_made_s": round(made, 1),
            "batch": batch, "spark": {**spark, "master": args.master},
            "wall_ratio_batch_over_spark": round(batch["wall_s"] / spark["wall_s"], 2),
            "outcomes": dict(Counter(r["verdict"] or "bad input" for r in batch_rows)),
            "identical_results": same, "loadavg_before_after": [load_before[0], load_after[0]],
            "cpus": os.cpu_count()}))
        return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
