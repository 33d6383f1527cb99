"""Benchmark of the Spark engine against the single-process engine (docs/spark.md has the
cost model, docs/benchmarks.md the results).

One command, run on an idle machine, prints every figure of the Spark targets:

    .venv/bin/python bench/bench_spark.py                 # fig6, paper graph, depth <= 28: everything
    .venv/bin/python bench/bench_spark.py --quick         # a 30-second workload, no cluster
    .venv/bin/python bench/bench_spark.py --quick --cluster
    .venv/bin/python bench/bench_spark.py "PROGRAM" --graph complete --json out.json

``--exchange shuffle`` runs every Spark measurement through Spark's shuffle instead (the
exchange before the file exchange existed); each line printed names the exchange that ran.

In order, each in a fresh Python process where Spark starts (so that start-up and CPU are
measured alone):

1. *start-up*: wall time to a usable SparkSession on ``local[2]`` and to the end of a first
   one-task job (the JVM flags of :mod:`fisheye.checker.spark.session`);
2. *local*: the single-process engine on the workload (wall and CPU time);
3. *spark local[2]*: the Spark engine, default settings (hybrid: narrow levels in the
   driver; the file exchange in a temporary directory), wall time and the CPU time of the
   whole process tree (driver, JVM, Python workers, from /proc); the report must equal the
   local one;
4. *marginal CPU per state*: the Spark engine with every level on Spark
   (``driver_width=0``), minus its fixed cost per level, per state, against the local
   engine's CPU per state;
5. *fixed cost per level*: a chain (one state per level) with every level on Spark;
6. *cluster* (unless ``--no-cluster``): ``scripts/spark-cluster.sh`` with one 1-core worker,
   then two, the same workload on each (wall time, identical report), the file exchange
   in a directory the workers share (``--exchange-dir``, default a temporary directory);
7. the *64-core estimate* ``T = L o + S c / 64`` from the measured ``o`` and ``c``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
# The default workload: Figure 6 at the protocol level on its paper graph, bounded at a depth
# that takes over 5 minutes on one core (a bounded search: every engine gives the same report).
DEFAULT = ("fig6", "paper", 28)
QUICK = ("p0: write(X,1), read(Y); p1: write(Y,1), read(X); p2: write(X,2), read(Y)", "complete", None)
SAME = ("complete", "states", "terminal_states", "histories", "deadlocks", "pruned", "transitions",
        "max_depth", "outcomes", "violations_total")


def machine() -> dict[str, Any]:
    cpu = platform.processor() or ""
    try:
        with open("/proc/cpuinfo") as f:
            cpu = next((ln.split(":", 1)[1].strip() for ln in f if ln.startswith("model name")), cpu)
    except OSError:
        pass
    return {"cpu": cpu, "cores": os.cpu_count(), "python": platform.python_version(),
            "load_average": [round(x, 2) for x in os.getloadavg()]}


def tree_cpu(pid: int) -> float:
    """CPU seconds (user + system, with reaped children) of ``pid`` and its live
    descendants, from /proc (Linux)."""
    tick = os.sysconf("SC_CLK_TCK")
    total, stack, seen = 0.0, [pid], set()
    while stack:
        p = stack.pop()
        if p in seen:
            continue
        seen.add(p)
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


# ---- the measurements, each run in its own process ------------------------------------------

def _ctx(args: argparse.Namespace) -> Any:
    from fisheye.checker.explore import make_context
    from fisheye.checker.systems import parse_options

    return make_context(args.workload, args.graph, level=args.level, variant=args.variant,
                        options=parse_options(args.option))


def _bound(args: argparse.Namespace) -> dict[str, Any]:
    return {} if args.max_depth is None else {"max_depth": args.max_depth}


def _builder(ctx: Any, args: argparse.Namespace, engine: str) -> Any:
    from fisheye.checker.explore.report import ReportBuilder

    return ReportBuilder(ctx, args.level, engine=engine, model=None if args.model == "none" else args.model)


def measure_local(args: argparse.Namespace) -> dict[str, Any]:
    from fisheye.checker.explore.engine import explore

    ctx = _ctx(args)
    t, cpu = time.perf_counter(), time.process_time()
    rep = explore(ctx, _builder(ctx, args, "local"), **_bound(args))
    return {"seconds": time.perf_counter() - t, "cpu_seconds": time.process_time() - cpu,
            "kernel": rep.get("kernel"), "report": {k: rep[k] for k in SAME}}


def _spark_cpu(spark: Any) -> float:
    return time.process_time() + tree_cpu(spark.sparkContext._gateway.proc.pid)


def measure_startup(args: argparse.Namespace) -> dict[str, Any]:
    from fisheye.checker.spark.session import DRIVER_JAVA_FLAGS, get_session

    t = time.perf_counter()
    spark = get_session(args.master)
    session = time.perf_counter() - t
    spark.sparkContext.parallelize([0], 1).count()
    first = time.perf_counter() - t
    cpu = _spark_cpu(spark)
    spark.stop()
    return {"session_seconds": session, "first_job_seconds": first, "cpu_seconds": cpu,
            "driver_java_flags": DRIVER_JAVA_FLAGS}


def measure_spark(args: argparse.Namespace) -> dict[str, Any]:
    from fisheye.checker.spark import explore
    from fisheye.checker.spark.session import get_session

    spark = get_session(args.master, checkpoint_dir=args.checkpoint)
    spark.sparkContext.parallelize(range(4), 4).count()          # executors up, workers warm
    cluster = not args.master.startswith("local")
    out: dict[str, Any] = {"master": args.master, "cores": spark.sparkContext.defaultParallelism}
    exchange = {"exchange": args.exchange,
                "exchange_dir": args.exchange_dir if args.exchange == "files" else None}
    runs = [("hybrid", {})] if args.driver_width is None else [("run", {"driver_width": args.driver_width})]
    if args.chain:
        runs = [("chain", {"driver_width": 0})]
    for label, kw in runs:
        ctx = _ctx(args)
        levels: list[Any] = []
        cpu0 = None if cluster else _spark_cpu(spark)
        wcpu0 = tree_cpu_of_workers(args) if cluster else 0.0
        t = time.perf_counter()
        rep = explore(ctx, _builder(ctx, args, "spark"), spark=spark, progress=levels.append, **kw,
                      **exchange, **_bound(args))
        secs = time.perf_counter() - t
        cpu = None if cpu0 is None else _spark_cpu(spark) - cpu0
        if cluster:
            cpu = time.process_time() + tree_cpu_of_workers(args) - wcpu0   # approx: driver + workers
        on_spark = [b.seconds - a.seconds for a, b in zip(levels, levels[1:], strict=False)
                    if b.where == "spark"]
        out[label] = {"seconds": secs, "cpu_seconds": cpu, "levels": len(levels), "kernel": rep.get("kernel"),
                      "exchange": rep["spark"]["exchange"],
                      "levels_on_spark": sum(1 for lv in levels if lv.where == "spark"),
                      "median_spark_level_seconds": statistics.median(on_spark) if on_spark else None,
                      "report": {k: rep[k] for k in SAME}}
    spark.stop()
    return out


def tree_cpu_of_workers(args: argparse.Namespace) -> float:
    state = Path(os.environ.get("FISHEYE_SPARK_CLUSTER", ROOT / ".spark-cluster"))
    return sum(tree_cpu(int(p.read_text())) for p in state.glob("worker-*.pid"))


def child(args: argparse.Namespace, what: str, *extra: str) -> dict[str, Any]:
    """Run one measurement in a fresh interpreter; returns its JSON."""
    cmd = [sys.executable, __file__, args.workload, "--graph", args.graph, "--level", args.level,
           "--model", args.model, "--measure", what, "--exchange", args.exchange, *extra]
    if args.exchange_dir is not None:
        cmd += ["--exchange-dir", args.exchange_dir]
    if args.variant is not None:
        cmd += ["--variant", args.variant]
    for opt in args.option or ():
        cmd += ["--option", opt]
    if args.max_depth is not None and "--chain" not in extra:
        cmd += ["--max-depth", str(args.max_depth)]
    r = subprocess.run(cmd, capture_output=True, text=True, env={**os.environ, "PYTHONHASHSEED": "0"})
    if r.returncode != 0:
        raise SystemExit(f"{what} failed:\n{r.stderr[-3000:]}")
    return json.loads(r.stdout.strip().splitlines()[-1])


def cluster_script(*args: str, env: dict[str, str]) -> str:
    r = subprocess.run(["bash", str(ROOT / "scripts" / "spark-cluster.sh"), *args], capture_output=True,
                       text=True, env=env)
    if r.returncode != 0:
        raise SystemExit(f"spark-cluster.sh {' '.join(args)} failed: {r.stderr[-2000:]}")
    return r.stdout.strip()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("workload", nargs="?", default=None, help="a scenario or program (default: see --quick)")
    ap.add_argument("--graph", default=None)
    ap.add_argument("--max-depth", type=int, default=None, metavar="D",
                    help="bound the workload at depth D (default: 28 for the default workload)")
    ap.add_argument("--level", default="protocol")
    ap.add_argument("--variant", default=None, help="the system's variant (e.g. published, corrected)")
    ap.add_argument("--option", action="append", default=None, metavar="NAME=VALUE",
                    help="an option of the system (repeatable), as `fisheye explore --option`; "
                    "e.g. monitors=true")
    ap.add_argument("--model", default="none", help="model the histories are checked against (default none: "
                    "the search alone is measured)")
    ap.add_argument("--quick", action="store_true", help="a 30-second workload, no cluster")
    ap.add_argument("--no-cluster", action="store_true")
    ap.add_argument("--cluster", action="store_true", help="with --quick: the cluster runs too")
    ap.add_argument("--speedup-only", action="store_true",
                    help="only the wall-time comparisons on the workload (one process, local[2], the "
                    "cluster); start-up, fixed and marginal costs come from a --quick run")
    ap.add_argument("--chain-levels", type=int, default=40)
    ap.add_argument("--cluster-cores", type=int, default=64)
    ap.add_argument("--json", default=None, metavar="FILE")
    ap.add_argument("--exchange", default="files", choices=("files", "shuffle"),
                    help="how the Spark levels move their states (default files)")
    ap.add_argument("--exchange-dir", default=None, metavar="DIR",
                    help="the files exchange's directory (default: a temporary directory; on the cluster, "
                    "one the bench creates)")
    # internal: one measurement in this process
    ap.add_argument("--measure", default=None, help=argparse.SUPPRESS)
    ap.add_argument("--master", default="local[2]", help=argparse.SUPPRESS)
    ap.add_argument("--driver-width", type=int, default=None, help=argparse.SUPPRESS)
    ap.add_argument("--checkpoint", default=None, help=argparse.SUPPRESS)
    ap.add_argument("--chain", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    default = QUICK if args.quick else DEFAULT
    if args.workload is None:
        args.workload, args.graph = default[0], args.graph or default[1]
        if args.max_depth is None:
            args.max_depth = default[2]
    args.graph = args.graph or "paper"
    if args.measure:
        fn = {"local": measure_local, "startup": measure_startup, "spark": measure_spark}[args.measure]
        print(json.dumps(fn(args)))
        return 0

    def say(msg: str) -> None:
        print(msg, file=sys.stderr, flush=True)

    out: dict[str, Any] = {"workload": {"program": args.workload, "graph": args.graph, "level": args.level,
                                        "variant": args.variant, "options": args.option or [],
                                        "model": args.model, "max_depth": args.max_depth},
                           "machine_start": machine()}
    say(f"workload: {args.workload!r} on graph {args.graph}, depth bound {args.max_depth}; "
        f"load {out['machine_start']['load_average']}")
    out["startup"] = child(args, "startup")
    say(f"start-up: session {out['startup']['session_seconds']:.1f} s, first job "
        f"{out['startup']['first_job_seconds']:.1f} s")
    out["local"] = local = child(args, "local")
    say(f"local: {local['report']['states']:,} states in {local['seconds']:.1f} s "
        f"({local['cpu_seconds']:.1f} CPU-s), {local['kernel']} kernel")
    sp = child(args, "spark")
    out["spark_local2"] = sp["hybrid"]
    h = sp["hybrid"]
    h["identical"] = h["report"] == local["report"]
    h["speedup"] = local["seconds"] / h["seconds"]
    say(f"spark local[2] (hybrid, {h['exchange']} exchange): {h['seconds']:.1f} s "
        f"({h['cpu_seconds']:.1f} CPU-s), {h['levels_on_spark']}/{h['levels']} levels on Spark, "
        f"speed-up {h['speedup']:.2f}, "
        f"identical {h['identical']}")
    targets: dict[str, bool] = {}
    if args.speedup_only:
        every = None
    else:
        every = child(args, "spark", "--driver-width", "0")["run"]
    if every is not None:
        every["identical"] = every["report"] == local["report"]
        out["spark_every_level"] = every
        chain = "p0: " + ", ".join(f"write(X,{i})" for i in range(1, args.chain_levels + 1))
        chain_args = argparse.Namespace(**{**vars(args), "workload": chain, "graph": "empty", "option": None})
        ch = child(chain_args, "spark", "--chain")
        ch = ch["chain"]
        o_wall = ch["seconds"] / ch["levels"]
        o_cpu = ch["cpu_seconds"] / ch["levels"]
        out["fixed_cost_per_level"] = {"seconds": o_wall, "cpu_seconds": o_cpu, "levels": ch["levels"]}
        states = local["report"]["states"]
        c_spark = (every["cpu_seconds"] - every["levels"] * o_cpu) / states
        c_local = local["cpu_seconds"] / states
        out["marginal_cpu_per_state"] = {"spark": c_spark, "local": c_local, "ratio": c_spark / c_local}
        say(f"fixed cost per level: {o_wall:.3f} s, {o_cpu:.3f} CPU-s; marginal CPU per state: Spark "
            f"{c_spark * 1e6:.0f} us, local {c_local * 1e6:.0f} us, ratio {c_spark / c_local:.2f}")
    if not args.no_cluster and (args.cluster or not args.quick):
        env = {**os.environ, "FISHEYE_SPARK_CLUSTER": str(ROOT / ".spark-cluster-bench"),
               "PYTHON": sys.executable}
        cl: dict[str, Any] = {}
        for workers in (1, 2):
            url = cluster_script("start", "--workers", str(workers), env=env)
            try:
                os.environ["FISHEYE_SPARK_CLUSTER"] = env["FISHEYE_SPARK_CLUSTER"]
                with tempfile.TemporaryDirectory(prefix="bench-spark-", dir=args.exchange_dir) as shared:
                    r = child(argparse.Namespace(**{**vars(args), "exchange_dir": shared}), "spark",
                              "--master", url)["hybrid"]
            finally:
                cluster_script("stop", env=env)
            r["identical"] = r["report"] == local["report"]
            cl[f"{workers}_worker"] = r
            say(f"cluster, {workers} worker(s) of 1 core ({r['exchange']} exchange): {r['seconds']:.1f} s, "
                f"identical {r['identical']}")
        cl["speedup_2_over_1"] = cl["1_worker"]["seconds"] / cl["2_worker"]["seconds"]
        out["cluster"] = cl
    states = local["report"]["states"]
    targets["local[2] at least 1.5 x faster than one process"] = h["speedup"] >= 1.5
    targets["identical reports"] = h["identical"] and (every is None or every["identical"])
    if every is not None:
        k = args.cluster_cores
        levels = local["report"]["max_depth"] + 1
        out["estimate"] = {"cores": k, "levels": levels, "states": states,
                           "seconds": levels * o_wall + states * c_spark / k,
                           "local_seconds": local["seconds"],
                           "assumes": "the fixed cost per level and the CPU per state measured here, every "
                                      "level on Spark; network transfer of the shuffle not included"}
        targets["start-up at most 8 s"] = out["startup"]["first_job_seconds"] <= 8.0
        targets["fixed cost per level at most 0.15 CPU-s"] = o_cpu <= 0.15
        targets["marginal CPU per state at most 1.3 x local"] = c_spark / c_local <= 1.3
    if "cluster" in out:
        targets["cluster: 2 workers at least 1.7 x faster than 1"] = out["cluster"]["speedup_2_over_1"] >= 1.7
        targets["identical reports"] = targets["identical reports"] and all(
            out["cluster"][k]["identical"] for k in ("1_worker", "2_worker"))
    if local["seconds"] < 300:
        say(f"note: the workload took {local['seconds']:.0f} s on one core "
            "(the speed-up target asks for 5 min)")
    out["targets"] = targets
    for name, ok in targets.items():
        say(f"{'met    ' if ok else 'NOT met'}  {name}")
    out["machine_end"] = machine()
    for key in ("spark_local2", "spark_every_level"):
        if key in out:
            out[key].pop("report", None)
    if "cluster" in out:
        for key in ("1_worker", "2_worker"):
            out["cluster"][key].pop("report", None)
    out["local"].pop("report", None)
    text = json.dumps(out, indent=2)
    print(text)
    if args.json:
        Path(args.json).write_text(text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
