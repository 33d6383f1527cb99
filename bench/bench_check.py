"""Benchmarks of the checkers; results go to docs/benchmarks.md by hand.

Every measurement runs in a fresh subprocess so that its peak memory (``ru_maxrss``) is
its own; wall time and CPU time (``process_time``, robust to a loaded machine) are both
recorded.  Engine time (``fisheye.checker.engines.direct.check``) and the spec's witness
validation time (what the facade adds) are measured separately.

Suites (``--suite``):

* ``size``: random consistent histories of 100 ... 1,000,000 operations (``--sizes``,
  at most ``--max-ops``), 8 processes, 20 registers, distinct values: causal memory
  runs for cc, random serialisations for sc, fisheye and fisheye-2014 (random graph,
  density 0.3), and for fisheye also causal memory runs whose writes are sequenced per
  component of the graph (``histgen.fisheye_history``, kind ``fisheye``); targets:
  every model under 10 s at 100,000 operations, cc and sc under 60 s and 4 GiB at
  1,000,000 (``bench_lin.py --ops 1000000`` for lin);
* ``alg2``: random runs of Algorithm 2 (``fisheye.impl``), 8 processes, 1,000
  operations (``--ops``); seeds 0, 1, ... are checked under sc first and those whose run
  is sc are passed over, until ``--repeat`` runs that are not sc are found; fisheye and
  fisheye-2014 on those (``--alg2-cache DIR`` reuses generated runs); target: median
  under 1 s (1,000 operations), under 10 s (10,000);
* ``jepsen``: the whole command ``fisheye check FILE --model M --graph complete`` (process
  start, loading, the check, the witness's validation), wall time, CPU time and peak RSS of
  the child, on histories shaped like a Jepsen register test of a replicated store
  (``histgen.jepsen_register_history``: 5,000 operations, about 350 processes, 100 keys,
  timed-out writes marked maybe), fresh values (``jepsen``) and five values per key
  (``jepsen5``), and 2,000 operations on 20 keys with three values per key and 5 %
  indeterminate operations (``rep3``); ``jepsen5`` and ``rep3`` carry real time (as
  imported Jepsen histories do), ``jepsen5-untimed`` and ``rep3-untimed`` do not;
  ``jepsen-timed`` is ``jepsen`` with real time (``lin`` and ``fisheye-lin`` run only on
  shapes with real time); targets: under 2 s and 500 MiB (5,000 operations), decided
  under 10 s (``rep3``, ``jepsen5``);
* ``ratio``: direct vs Z3 on 200-operation histories (causal memory runs for cc,
  sequenced per component for fisheye, serialisations for sc), per model, the ratio of
  medians measured in the same run.

Usage: ``.venv/bin/python bench/bench_check.py --suite size --repeat 3 --max-ops 100000``;
``--suite size --repeat 1 --sizes 1000000 --max-ops 1000000 --models cc,sc``;
``--suite alg2 --ops 1000 --repeat 5 --models fisheye,fisheye-2014``;
``--suite jepsen --repeat 3``.
Prints one JSON line per measurement, a summary table of medians, and each target of
the suite judged on the run (``target: ... met`` / ``NOT met``).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
# One OpenBLAS thread, as the command line sets it (checker/cli/main.py): otherwise the
# threads numpy starts at its import spin after each of its calls and this process's CPU
# time, which the engines' figures are, counts them (the direct engine's CPU on a
# 200-operation history read twice its wall time).
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")


def _history(kind: str, model: str, n_ops: int, seed: int, cache: str | None):
    from histgen import alg2_history, cc_history, procs_of, random_graph, sc_history

    from fisheye.spec.graph import ProximityGraph
    from fisheye.spec.history import load_history

    rng = random.Random(seed)
    procs = procs_of(8)
    graph = random_graph(rng, procs, 0.3)
    if kind == "alg2":
        if cache:
            f = Path(cache) / f"alg2_{n_ops}_{seed}.json"
            if f.exists():
                h = load_history(f)
                return h, ProximityGraph(h.processes, h.edges)
        h = alg2_history(rng, 8, n_ops, 20, graph)
        if cache:
            Path(cache).mkdir(parents=True, exist_ok=True)
            (Path(cache) / f"alg2_{n_ops}_{seed}.json").write_text(json.dumps(h.to_json()))
        return h, graph
    if kind == "cc" or (kind == "ratio" and model == "cc"):
        return cc_history(rng, 8, n_ops, 20), graph
    if kind == "fisheye" or (kind == "ratio" and model == "fisheye"):
        return cc_history(rng, 8, n_ops, 20, graph=graph), graph
    return sc_history(rng, 8, n_ops, 20), graph


def one(kind: str, model: str, n_ops: int, seed: int, engine: str, cache: str | None,
        timeout: float) -> dict[str, Any]:
    """One measurement (run in a subprocess)."""
    from fisheye.spec import validate

    h, g = _history(kind, model, n_ops, seed, cache)
    rss0 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    if engine == "direct":
        # the compiled kernels load with numba (about 0.4 s, once per process): an import,
        # excluded like the others (the jepsen suite's whole-command times include it)
        import fisheye.checker.engines.closure_kernel  # noqa: F401
        from fisheye.checker.engines.direct import check
    else:
        from fisheye.checker.engines.z3engine import check
    t, cpu = time.perf_counter(), time.process_time()  # imports excluded
    res = check(h, model, g, timeout=timeout)
    engine_s = time.perf_counter() - t
    engine_cpu = time.process_time() - cpu
    val_s = None
    if res.witness is not None:
        t = time.perf_counter()
        bad = validate.problems(h, model, g, res.witness)
        val_s = time.perf_counter() - t
        if bad:
            raise SystemExit(f"witness rejected: {bad[0]}")
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return {"kind": kind, "model": model, "ops": len(h.ops), "seed": seed, "engine": engine,
            "verdict": res.verdict.value, "engine_s": round(engine_s, 4),
            "engine_cpu_s": round(engine_cpu, 4),
            "validate_s": None if val_s is None else round(val_s, 4),
            "nodes": res.stats.get("nodes"), "peak_rss_mib": round(rss / 1024, 1),
            "history_rss_mib": round(rss0 / 1024, 1), "message": res.message}


JEPSEN_SHAPES = {
    "jepsen": {"n_ops": 5000, "values": None},
    "jepsen-timed": {"n_ops": 5000, "values": None, "timed": True},
    "jepsen5": {"n_ops": 5000, "values": 5, "timed": True},
    "rep3": {"n_ops": 2000, "values": 3, "n_keys": 20, "p_info": 0.05, "timed": True},
    "jepsen5-untimed": {"n_ops": 5000, "values": 5},
    "rep3-untimed": {"n_ops": 2000, "values": 3, "n_keys": 20, "p_info": 0.05},
}


TIMED_MODELS = ("lin", "fisheye-lin")


def run_cli(shape: str, model: str, seed: int, timeout: float, tmp: Path) -> dict[str, Any]:
    """The whole command on a generated file, in a child process."""
    f = tmp / f"{shape}_{seed}.json"
    if not f.exists():
        # generated in a child of its own: a child forked from a large parent would count
        # the parent's memory in its peak (Linux keeps the high-water mark across exec)
        subprocess.run([sys.executable, __file__, "--gen", shape, str(seed), str(f)], check=True)
    obj = json.loads(f.read_text())
    n_ops = sum(len(v) for v in obj["history"].values())
    exe = Path(sys.executable).with_name("fisheye")
    cmd = [str(exe), "check", str(f), "--model", model, "--graph", "complete", "--json",
           "--timeout", str(timeout)]
    t = time.perf_counter()
    with open(tmp / "out", "w+") as so, open(tmp / "err", "w+") as se:
        child = subprocess.Popen(cmd, stdout=so, stderr=se)
        killer = threading.Timer(timeout + 60, child.kill)
        killer.start()
        _, status, usage = os.wait4(child.pid, 0)  # this child's own CPU time and peak RSS
        killer.cancel()
        child.returncode = os.waitstatus_to_exitcode(status)
        wall = time.perf_counter() - t
        so.seek(0)
        se.seek(0)
        out = subprocess.CompletedProcess(cmd, child.returncode, so.read(), se.read())
    cpu = usage.ru_utime + usage.ru_stime
    try:
        res = json.loads(out.stdout)
    except json.JSONDecodeError:
        return {"kind": shape, "model": model, "ops": n_ops, "seed": seed, "engine": "auto",
                "error": out.stderr.strip().splitlines()[-1:] or ["?"]}
    return {"kind": shape, "model": model, "ops": n_ops, "seed": seed, "engine": res.get("engine"),
            "processes": len(obj["history"]), "verdict": res["verdict"], "engine_s": round(wall, 3),
            "engine_cpu_s": round(cpu, 3), "validate_s": None, "reported_s": res.get("seconds"),
            "nodes": (res.get("stats") or {}).get("nodes"), "peak_rss_mib": round(usage.ru_maxrss / 1024, 1),
            "message": res.get("message", "")[:200]}


def run_sub(kind: str, model: str, n_ops: int, seed: int, engine: str, cache: str | None,
            timeout: float) -> dict[str, Any]:
    cmd = [sys.executable, __file__, "--one", kind, model, str(n_ops), str(seed), engine,
           "--timeout", str(timeout)] + (["--alg2-cache", cache] if cache else [])
    out = subprocess.run(cmd, capture_output=True, text=True)
    if out.returncode:
        return {"kind": kind, "model": model, "ops": n_ops, "seed": seed, "engine": engine,
                "error": out.stderr.strip().splitlines()[-1:] or ["?"]}
    return json.loads(out.stdout)


def targets(suite: str, rows: list[dict[str, Any]], n_ops: int) -> list[str]:
    """The speed and memory targets of the suite (module docstring), each judged on this
    run: met / NOT met."""
    out: list[str] = []

    def ok(flag: bool) -> str:
        return "met" if flag else "NOT met"

    good = [r for r in rows if "error" not in r]
    if suite == "size":
        for size, limit, rss_limit in ((100_000, 10.0, None), (1_000_000, 60.0, 4096.0)):
            for model in dict.fromkeys(r["model"] for r in good if r["ops"] == size):
                rs = [r for r in good if r["ops"] == size and r["model"] == model]
                decided = all(r["verdict"] != "unknown" for r in rs)
                cpu = max(r["engine_cpu_s"] + (r["validate_s"] or 0) for r in rs)
                rss = max(r["peak_rss_mib"] for r in rs)
                small = rss_limit is None or rss < rss_limit
                memory = "" if rss_limit is None else f" and {rss_limit / 1024:g} GiB (peak {rss:.0f} MiB)"
                out.append(f"target: {model}, {size:,} operations, every run decided, engine and "
                           f"validation under {limit:g} CPU s{memory}: slowest {cpu:.2f} s, decided "
                           f"{decided}: {ok(decided and cpu < limit and small)}")
    elif suite == "alg2":
        limit = 1.0 if n_ops <= 1000 else 10.0
        not_sc = {r["seed"] for r in good if r["model"] == "sc" and r["verdict"] == "violation"}
        for model in ("fisheye", "fisheye-2014"):
            rs = [r for r in good if r["model"] == model and r["seed"] in not_sc]
            if not rs:
                continue
            cpu = [r["engine_cpu_s"] if r["verdict"] != "unknown" else float("inf") for r in rs]
            wall = [r["engine_s"] if r["verdict"] != "unknown" else float("inf") for r in rs]
            med = statistics.median(cpu)
            out.append(f"target: {model}, Algorithm 2 runs that are not sc, {n_ops} operations, median of "
                       f"{len(rs)} seeds ({sorted(not_sc)}) under {limit:g} s: median CPU {med:.2f} s, wall "
                       f"{statistics.median(wall):.2f} s, slowest CPU {max(cpu):.2f} s (unknown counts as "
                       f"infinite): {ok(med < limit)}")
    elif suite == "jepsen":
        for shape in dict.fromkeys(r["kind"] for r in good):
            rs = [r for r in good if r["kind"] == shape]
            decided = all(r["verdict"] != "unknown" for r in rs)
            wall = max(r["engine_s"] for r in rs)
            rss = max(r["peak_rss_mib"] for r in rs)
            models = ",".join(dict.fromkeys(r["model"] for r in rs))
            if shape in ("jepsen", "jepsen-timed"):
                out.append(f"target: {shape} ({models}), every run decided, under 2 s wall and 500 MiB: "
                           f"slowest {wall:.2f} s, peak {rss:.0f} MiB, decided {decided}: "
                           f"{ok(decided and wall < 2 and rss < 500)}")
            else:
                out.append(f"target: {shape} ({models}), every run decided in under 10 s: slowest "
                           f"{wall:.2f} s, decided {decided}: {ok(decided and wall < 10)}")
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--suite", choices=("size", "alg2", "jepsen", "ratio"), default="size")
    ap.add_argument("--ops", type=int, default=1000, help="operations of the alg2 suite")
    ap.add_argument("--shapes", default="jepsen,jepsen-timed,jepsen5,jepsen5-untimed,rep3,rep3-untimed",
                    help="shapes of the jepsen suite")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--max-ops", type=int, default=100_000)
    ap.add_argument("--sizes", default="100,1000,10000,100000,1000000",
                    help="operations of the size suite (those up to --max-ops)")
    ap.add_argument("--models", default=None,
                    help="default: cc,sc,fisheye,fisheye-2014 (alg2: sc too; jepsen: lin, fisheye-lin too)")
    ap.add_argument("--timeout", type=float, default=300.0)
    ap.add_argument("--alg2-cache", default=None)
    ap.add_argument("--one", nargs=5, metavar=("KIND", "MODEL", "OPS", "SEED", "ENGINE"))
    ap.add_argument("--gen", nargs=3, metavar=("SHAPE", "SEED", "FILE"), help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.gen:
        from histgen import jepsen_register_history

        shape, seed, path = args.gen
        h = jepsen_register_history(random.Random(int(seed)), **JEPSEN_SHAPES[shape])
        Path(path).write_text(json.dumps(h.to_json()))
        return 0
    if args.one:
        kind, model, n_ops, seed, engine = args.one
        print(json.dumps(one(kind, model, int(n_ops), int(seed), engine, args.alg2_cache, args.timeout)))
        return 0
    default = {"alg2": "sc,fisheye,fisheye-2014", "jepsen": "cc,sc,fisheye,fisheye-2014,lin,fisheye-lin"}
    models = (args.models or default.get(args.suite, "cc,sc,fisheye,fisheye-2014")).split(",")
    rows: list[dict[str, Any]] = []
    print(json.dumps({"machine": os.uname().nodename, "cpus": os.cpu_count(),
                      "load": os.getloadavg()}), flush=True)
    if args.suite == "size":
        sizes = [s for s in map(int, args.sizes.split(",")) if s <= args.max_ops]
        for model in models:
            for n in sizes:
                # fisheye also on causal memory runs whose writes are sequenced per component
                # of the graph (consistent, mostly not sc: not decided by a serialisation)
                kinds = {"cc": ("cc",), "fisheye": ("sc", "fisheye")}.get(model, ("sc",))
                for kind in kinds:
                    for seed in range(args.repeat):
                        r = run_sub(kind, model, n, seed, "direct", None, args.timeout)
                        print(json.dumps(r), flush=True)
                        rows.append(r)
    elif args.suite == "alg2":
        # the targets are about runs that are not sc: seeds whose run sc accepts (or
        # cannot decide) are reported and passed over, until --repeat seeds are found
        found, seed = 0, 0
        while found < args.repeat and seed < 20 * args.repeat:
            sc = run_sub("alg2", "sc", args.ops, seed, "direct", args.alg2_cache, args.timeout)
            print(json.dumps(sc), flush=True)
            rows.append(sc)
            if sc.get("verdict") == "violation":
                found += 1
                for model in models:
                    if model != "sc":
                        r = run_sub("alg2", model, args.ops, seed, "direct", args.alg2_cache, args.timeout)
                        print(json.dumps(r), flush=True)
                        rows.append(r)
            seed += 1
    elif args.suite == "jepsen":
        import tempfile

        with tempfile.TemporaryDirectory() as tmp:
            for shape in args.shapes.split(","):
                for seed in range(args.repeat):
                    for model in models:
                        if model in TIMED_MODELS and not JEPSEN_SHAPES[shape].get("timed"):
                            continue  # lin and fisheye-lin are defined on histories with real time
                        r = run_cli(shape, model, seed, args.timeout, Path(tmp))
                        print(json.dumps(r), flush=True)
                        rows.append(r)
    else:
        for model in models:
            for seed in range(args.repeat):
                for engine in ("direct", "z3"):
                    r = run_sub("ratio", model, 200, seed, engine, None, args.timeout)
                    print(json.dumps(r), flush=True)
                    rows.append(r)
    # summary: medians
    groups: dict[tuple, list[dict[str, Any]]] = {}
    for r in rows:
        if "error" not in r:
            groups.setdefault((r["kind"], r["model"], r["ops"] // 10 * 10, r["engine"]), []).append(r)
    print("kind model ops engine runs median_engine_s median_engine_cpu_s median_validate_s "
          "max_rss_mib verdicts")
    for key, rs in groups.items():
        vals = [r["validate_s"] for r in rs if r["validate_s"] is not None]
        print(*key, len(rs), round(statistics.median(r["engine_s"] for r in rs), 3),
              round(statistics.median(r.get("engine_cpu_s", r["engine_s"]) for r in rs), 3),
              round(statistics.median(vals), 3) if vals else "-", max(r["peak_rss_mib"] for r in rs),
              ",".join(sorted({r["verdict"] for r in rs})))
    if args.suite == "alg2":  # per seed: the target is judged per run
        print("seed model verdict engine_cpu_s engine_s nodes peak_rss_mib")
        for r in rows:
            if "error" not in r:
                print(r["seed"], r["model"], r["verdict"], r["engine_cpu_s"], r["engine_s"], r["nodes"],
                      r["peak_rss_mib"], r["message"][:80])
    for line in targets(args.suite, rows, args.ops):
        print(line)
    print(json.dumps({"load_at_end": os.getloadavg()}), flush=True)
    if args.suite == "ratio":
        for model in models:
            d = groups.get(("ratio", model, 200, "direct"))
            z = groups.get(("ratio", model, 200, "z3"))
            if d and z:
                md = statistics.median(r["engine_cpu_s"] for r in d)
                mz = statistics.median(r["engine_cpu_s"] for r in z)
                print(f"ratio {model} (CPU time): z3 median {mz:.3f} s / direct median {md:.4f} s "
                      f"= {mz / md:.0f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
