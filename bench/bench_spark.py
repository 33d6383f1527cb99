"""Benchmark of the Spark engine against the single-process engine (issue 6).

Runs, in one invocation (so that the ratios come from one run on one machine):

1. the local engine (one process, one core) on the workload;
2. the Spark engine on ``--master`` (default ``local[2]``) on the same workload;
3. a *chain* workload (one process writing ``--chain`` times: one state per level) on
   Spark, whose time per level is the engine's fixed overhead per BFS level;

and prints (and with ``--json FILE`` writes) wall times, the speed-up, the overhead per
level, the per-state costs, and a scaling estimate for a 64-core cluster from the
measured per-state cost (``docs/spark.md`` gives the cost model).

    .venv/bin/python bench/bench_spark.py paris-berlin-newyork --graph paper
    .venv/bin/python bench/bench_spark.py "p0: write(X,1), read(Y); ..." --graph empty --json out.json
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import time
from typing import Any

from fisheye.checker.explore import make_context
from fisheye.checker.explore.engine import explore as local_explore
from fisheye.checker.explore.report import ReportBuilder
from fisheye.checker.spark import explore as spark_explore
from fisheye.checker.spark.session import get_session


def machine() -> dict[str, Any]:
    cpu = platform.processor() or ""
    try:
        with open("/proc/cpuinfo") as f:
            cpu = next((ln.split(":", 1)[1].strip() for ln in f if ln.startswith("model name")), cpu)
    except OSError:
        pass
    return {"cpu": cpu, "cores": os.cpu_count(), "python": platform.python_version(),
            "load_average": os.getloadavg()}


def _tree_cpu(pid: int) -> float:
    """CPU seconds (user + system, with reaped children) of process ``pid`` and its live
    descendants, from /proc (Linux): the JVM, the PySpark daemon and its Python workers."""
    tick = os.sysconf("SC_CLK_TCK")
    total, stack = 0.0, [pid]
    while stack:
        p = stack.pop()
        try:
            with open(f"/proc/{p}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            total += sum(int(x) for x in fields[11:15]) / tick   # utime stime cutime cstime
            for task in os.listdir(f"/proc/{p}/task"):
                with open(f"/proc/{p}/task/{task}/children") as f:
                    stack.extend(int(c) for c in f.read().split())
        except (OSError, ValueError):
            continue
    return total


def spark_cpu(spark: Any) -> float | None:
    """CPU seconds used so far by this driver and the Spark JVM tree (local masters)."""
    proc = getattr(spark.sparkContext._gateway, "proc", None)
    if proc is None or not os.path.exists("/proc"):
        return None
    return time.process_time() + _tree_cpu(proc.pid)


def level_times(report: dict[str, Any], levels: list[Any]) -> list[float]:
    return [b.seconds - a.seconds for a, b in zip(levels, levels[1:], strict=False)]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("scenario")
    ap.add_argument("--graph", default="paper")
    ap.add_argument("--level", default="protocol")
    ap.add_argument("--master", default="local[2]")
    ap.add_argument("--partitions", type=int, default=None)
    ap.add_argument("--chain", type=int, default=30, help="levels of the overhead workload")
    ap.add_argument("--cluster-cores", type=int, default=64)
    ap.add_argument("--skip-local", action="store_true", help="Spark only (the local time is then unknown)")
    ap.add_argument("--json", default=None, metavar="FILE")
    args = ap.parse_args(argv)
    out: dict[str, Any] = {"workload": {"scenario": args.scenario, "graph": args.graph, "level": args.level},
                           "machine_start": machine()}

    def ctx() -> Any:
        return make_context(args.scenario, args.graph, level=args.level)

    if not args.skip_local:
        c = ctx()
        t, cpu = time.perf_counter(), time.process_time()
        local = local_explore(c, ReportBuilder(c, args.level))
        out["local"] = {"seconds": time.perf_counter() - t, "cpu_seconds": time.process_time() - cpu,
                        "states": local["states"],
                        "transitions": local["transitions"], "levels": local["max_depth"] + 1,
                        "complete": local["complete"]}
        print(f"local: {local['states']:,} states in {out['local']['seconds']:.1f} s", file=sys.stderr)

    t = time.perf_counter()
    spark = get_session(args.master)
    out["spark_startup_seconds"] = time.perf_counter() - t
    cores = spark.sparkContext.defaultParallelism

    levels: list[Any] = []
    c = ctx()
    cpu0 = spark_cpu(spark)
    t = time.perf_counter()
    remote = spark_explore(c, ReportBuilder(c, args.level), spark=spark, partitions=args.partitions,
                           progress=levels.append)
    secs = time.perf_counter() - t
    cpu1 = spark_cpu(spark)
    out["spark"] = {"master": args.master, "cores": cores, "partitions": remote["spark"]["partitions"],
                    "seconds": secs, "search_seconds": levels[-1].seconds, "states": remote["states"],
                    "levels": len(levels), "complete": remote["complete"],
                    "cpu_seconds": None if cpu0 is None or cpu1 is None else cpu1 - cpu0}
    print(f"spark: {remote['states']:,} states in {secs:.1f} s", file=sys.stderr)
    if "local" in out:
        same = all(remote[k] == local[k] for k in ("states", "terminal_states", "histories", "outcomes",
                                                   "violations_total", "transitions"))
        out["identical_to_local"] = same
        out["speedup"] = out["local"]["seconds"] / secs
        if out["spark"]["cpu_seconds"]:
            # Work ratio, independent of how loaded the machine is: CPU seconds of the whole
            # Spark tree (JVM, daemon, workers, driver) per CPU second of the local engine.
            ratio = out["spark"]["cpu_seconds"] / out["local"]["cpu_seconds"]
            out["cpu_ratio"] = ratio
            out["speedup_ceiling_idle"] = cores / ratio

    # Overhead per level: a chain (one state per level).
    chain = "p0: " + ", ".join(f"write(X,{i})" for i in range(1, args.chain + 1))
    cc = make_context(chain, "empty")
    chain_levels: list[Any] = []
    spark_explore(cc, ReportBuilder(cc, "protocol", model=None), spark=spark, partitions=args.partitions,
                  progress=chain_levels.append)
    per_level = statistics.median(level_times({}, chain_levels))
    out["overhead_per_level_seconds"] = per_level
    n_levels, states = out["spark"]["levels"], out["spark"]["states"]
    work = max(out["spark"]["search_seconds"] - n_levels * per_level, 0.0)
    per_state_spark = work * cores / states                     # core-seconds per state on Spark
    out["per_state_seconds"] = {"spark_core": per_state_spark}
    if "local" in out:
        out["per_state_seconds"]["local"] = out["local"]["seconds"] / out["local"]["states"]
    k = args.cluster_cores
    out["estimate"] = {"cores": k, "seconds": n_levels * per_level + states * per_state_spark / k,
                       "assumes": "same overhead per level and per-state cost as measured here; "
                                  "shuffle over a network not included"}
    out["machine_end"] = machine()
    text = json.dumps(out, indent=2)
    print(text)
    if args.json:
        with open(args.json, "w") as f:
            f.write(text + "\n")
    spark.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
