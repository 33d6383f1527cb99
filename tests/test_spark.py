"""The Spark engine: its admission and level step against the local engine (no Spark),
identical reports on Spark and in the hybrid driver/Spark mode, an injected task failure
retried by Spark with the result unchanged, Parquet output readable with Spark SQL,
budgets, the ``--spark`` command line, quiet by default.  (The real standalone cluster:
``tests/test_spark_cluster.py``.)

One SparkSession for the whole module (``local[2,4]``: two cores, a task may fail up
to four times), UI disabled, driver on localhost.  ``--dist loadfile`` keeps this file
on one pytest worker, so Spark starts once.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from kernel_configurations import SEARCHES

from fisheye.checker.explore import make_context
from fisheye.checker.explore.codec import collision_probability
from fisheye.checker.explore.engine import explore as local_explore
from fisheye.checker.explore.expand import Context
from fisheye.checker.explore.report import ReportBuilder
from fisheye.checker.explore.store import FingerprintSet
from fisheye.checker.spark import bfs
from fisheye.checker.spark import explore as spark_explore
from fisheye.checker.spark.bfs import admit
from fisheye.impl.api import Step, replay
from fisheye.impl.programs import random_edges, random_program

pytestmark = pytest.mark.spark

SAME = ("scenario", "graph", "level", "complete", "states", "terminal_states", "histories", "deadlocks",
        "pruned", "transitions", "max_depth", "outcomes", "violations_total", "reduction", "model")


@pytest.fixture(scope="module")
def spark() -> Iterator[Any]:
    from pyspark import cloudpickle

    from fisheye.checker.spark.session import get_session

    # This module's helpers (the flaky context) travel to the executors by value.
    cloudpickle.register_pickle_by_value(sys.modules[__name__])
    session = get_session("local[2,4]", shuffle_partitions=2)
    yield session
    session.stop()


def both(ctx_factory: Any, spark: Any, *, partitions: int = 2, level: str = "protocol",
         driver_width: int = 0, **kwargs: Any) -> tuple[dict, ReportBuilder, dict, ReportBuilder]:
    lctx, sctx = ctx_factory(), ctx_factory()
    lb, sb = ReportBuilder(lctx, level), ReportBuilder(sctx, level, engine="spark")
    local = local_explore(lctx, lb, kernel=kwargs.get("kernel", "auto"))
    remote = spark_explore(sctx, sb, partitions=partitions, spark=spark, driver_width=driver_width, **kwargs)
    return local, lb, remote, sb


def every_exchange(ctx_factory: Any, spark: Any, **kwargs: Any) -> list[tuple[dict, ReportBuilder, dict,
                                                                              ReportBuilder]]:
    """:func:`both`, once with the files exchange and once with Spark's shuffle; each run
    says which exchange it used."""
    runs = [both(ctx_factory, spark, exchange=exchange, **kwargs) for exchange in ("files", "shuffle")]
    assert [r[2]["spark"]["exchange"] for r in runs] == ["files", "shuffle"]
    return runs


def violations(report: dict) -> list[tuple]:
    return sorted((v["violates"], v["kind"], json.dumps(v["history"], sort_keys=True), v["length"], v["runs"])
                  for v in report["violations"])


def assert_identical(local: dict, lb: ReportBuilder, remote: dict, sb: ReportBuilder) -> None:
    assert remote["engine"] == "spark" and local["engine"] == "local"
    for key in SAME:
        assert remote[key] == local[key], key
    assert sb._histories == lb._histories
    assert violations(remote) == violations(local)
    assert remote["spark"]["fingerprint_bits"] == 64
    assert remote["spark"]["collision_probability"] == collision_probability(remote["states"])


# ---- admission and one level, in process (no Spark) -----------------------------------------

def test_admit_keeps_new_fingerprints_once_with_their_least_path() -> None:
    visited = FingerprintSet()
    visited.merge([9, 5])
    fps = np.array([9, 7, 3, 7, 3, 7], dtype=np.uint64)
    paths = np.array([(0, 5), (2, 1), (4, 0), (1, 0), (3, 9), (1, 1)], dtype=bfs.PATH_DTYPE)
    chosen = admit(visited, fps, paths)
    assert visited.keys().tolist() == [3, 5, 7, 9]                    # sorted, merged
    assert [int(fps[i]) for i in chosen] == [3, 7]                  # fingerprint order, 9 seen
    assert [tuple(paths[i]) for i in chosen] == [(3, 9), (1, 0)]    # the least path
    assert not len(admit(visited, fps, paths)) and len(visited) == 4   # nothing new the second time


def test_admit_picks_the_least_path_of_each_new_fingerprint() -> None:
    """Against the definition (least tuple per fingerprint), on many duplicates and on path
    lengths across the 4-step words the comparison packs them into."""
    rng = np.random.default_rng(7)
    for length in (0, 1, 3, 4, 5, 9):
        visited = FingerprintSet()
        visited.merge(range(0, 40, 3))
        fps = rng.integers(0, 40, 500).astype(np.uint64)
        paths = rng.integers(0, 4, (500, length)).astype(bfs.PATH_DTYPE)
        least: dict[int, tuple[int, ...]] = {}
        for f, p in zip(fps.tolist(), map(tuple, paths.tolist()), strict=True):
            if f % 3 and (f not in least or p < least[f]):
                least[f] = p
        chosen = admit(visited, fps, paths)
        assert {int(fps[i]): tuple(paths[i].tolist()) for i in chosen} == least
        assert fps[chosen].tolist() == sorted(least)


def test_rows_taken_from_parts_are_those_of_their_concatenation() -> None:
    """The gather that builds a batch from the blocks of successors (kernel rows, or
    encoded states) without concatenating them first."""
    rng = np.random.default_rng(5)
    def blobs(k: int) -> np.ndarray:
        return bfs._objects([bytes(rng.integers(0, 9, int(rng.integers(0, 4)))) for _ in range(k)])

    for make in (lambda k: rng.integers(-9, 9, (k, 3)).astype(np.int16), blobs):
        parts = [make(k) for k in (4, 0, 7, 1)]
        whole = np.concatenate(parts)
        bounds = np.cumsum([0] + [len(p) for p in parts])
        for idx in (np.arange(len(whole)), np.array([0, 3, 4, 10, 11]), np.array([5]), np.zeros(0, np.intp)):
            got = bfs._take(parts, bounds, idx)
            assert got.dtype == whole.dtype and got.tolist() == whole[idx].tolist()


@pytest.mark.parametrize("kernel", ["compiled", "python"])
def test_the_least_path_wins_within_and_across_batches(kernel: str) -> None:
    """Every state of a level arrives three times, with random paths, spread over two
    batches: the children the shard sends on extend only the least path of each state."""
    ctx = make_context(SMALL, "p0:p1")
    _fp, first = bfs.initial_batch(ctx, kernel)
    c = [0] * bfs.N_COUNTERS
    out = [p for _d, p in bfs.step(ctx, 0, 1, [(0, first)], c, kernel=kernel) if p[0] == bfs.BATCH]
    _, fps, states, _paths = out[0]
    assert len(fps) > 1
    rng = np.random.default_rng(3)
    idx = rng.permutation(np.tile(np.arange(len(fps)), 3))
    paths = rng.integers(0, 30, (len(idx), 5)).astype(bfs.PATH_DTYPE)
    least: dict[int, tuple[int, ...]] = {}
    for i, p in zip(idx.tolist(), map(tuple, paths.tolist()), strict=True):
        least[i] = min(least.get(i, p), p)
    half = len(idx) // 2
    batches = [(0, (bfs.BATCH, fps[sel], states[sel], paths[part]))
               for sel, part in ((idx[:half], slice(0, half)), (idx[half:], slice(half, None)))]
    children = [p for _d, p in bfs.step(ctx, 0, 1, batches, c, kernel=kernel) if p[0] == bfs.BATCH]
    prefixes = {tuple(r) for b in children for r in b[3][:, :-1].tolist()}
    assert prefixes and prefixes <= set(least.values())
    assert len(prefixes) > 1


@pytest.mark.parametrize("shards", [1, 3])
def test_levels_in_the_driver_give_the_local_report(shards: int) -> None:
    """The level step run in process (``driver_width`` above every width: Spark only
    checks the histories) builds the local engine's report, for any number of shards."""

    lctx, sctx = make_context(PUBLISHED, "p0:p1", variant="published"), make_context(
        PUBLISHED, "p0:p1", variant="published")
    local = local_explore(lctx, ReportBuilder(lctx, "protocol"))
    counters: list[int] = []
    levels: list[Any] = []

    class NoSpark:          # the search never touches Spark when every level is narrow
        def __getattr__(self, name: str) -> Any:
            counters.append(name)
            return lambda *a, **k: None

    run = bfs.run(NoSpark(), sctx, partitions=shards, driver_width=10 ** 9, progress=levels.append)
    assert (run.states, run.transitions, run.max_depth, run.complete) == (
        local["states"], local["transitions"], local["max_depth"], True)
    assert all(lv.where == "driver" for lv in levels)
    # one level per depth, plus possibly a last one that admits nothing (its candidates
    # were all seen by their owners)
    assert len(levels) == run.max_depth + 1 + (levels[-1].frontier == 0)
    assert counters == ["parallelize"]                      # the terminal groups, for the checks


@pytest.mark.parametrize("kernel", ["compiled", "python"])
def test_batches_are_bounded_and_the_report_unchanged(monkeypatch: pytest.MonkeyPatch, kernel: str) -> None:
    """A shard writes a destination's successors in batches of at most ``BATCH_STATES``
    (a record is one byte array in an executor's heap); split or not, the search is the
    local engine's."""
    lctx = make_context(PUBLISHED, "p0:p1", variant="published")
    local = local_explore(lctx, ReportBuilder(lctx, "protocol"), kernel=kernel)
    monkeypatch.setattr(bfs, "BATCH_STATES", 3)
    sizes: list[int] = []
    step = bfs.step

    def counted(*a: Any, **k: Any) -> Any:
        for dst, payload in step(*a, **k):
            if payload[0] == bfs.BATCH:
                sizes.append(len(payload[1]))
            yield dst, payload

    monkeypatch.setattr(bfs, "step", counted)

    class NoSpark:
        def parallelize(self, *a: Any) -> None:
            return None

    run = bfs.run(NoSpark(), make_context(PUBLISHED, "p0:p1", variant="published"), partitions=2,
                  driver_width=10 ** 9, kernel=kernel)
    assert (run.states, run.transitions, run.max_depth, run.complete) == (
        local["states"], local["transitions"], local["max_depth"], True)
    assert max(sizes) == 3 and sizes.count(3) > 10


def test_level_step_is_independent_of_the_processes_cache_history() -> None:
    """On a cluster, a shard's task runs in whichever Python worker is free, each with its
    own copy of the context and of the successor function's caches: the reduced graph
    must not depend on what a process explored before.  Each task here picks one of two
    independently unpickled contexts at random (seeded), and must give the local report."""
    import random as rnd

    from pyspark import cloudpickle


    def ctx() -> Context:
        return make_context(PUBLISHED, "p0:p1", variant="published")

    lctx = ctx()
    local = local_explore(lctx, ReportBuilder(lctx, "protocol", model=None))
    frozen = cloudpickle.dumps(ctx())
    for seed in range(6):
        rng = rnd.Random(seed)
        ctxs = [cloudpickle.loads(frozen) for _ in range(2)]
        fp, first = bfs.initial_batch(ctxs[0])
        records = {fp % 2: [first]}
        transitions = 0
        while True:
            c = [0] * bfs.N_COUNTERS
            nxt: dict[int, list] = {}
            for d in range(2):
                for dst, payload in bfs.step(rng.choice(ctxs), d, 2, ((d, p) for p in records.get(d, ())), c):
                    nxt.setdefault(dst, []).append(payload)
            records, transitions = nxt, transitions + c[bfs.TRANSITIONS]
            if not c[bfs.EMITTED]:
                break
        assert (c[bfs.VISITED], transitions) == (local["states"], local["transitions"]), seed


# ---- identical results ---------------------------------------------------------------------

def test_identical_to_local_on_every_abstract_graph_and_lcb(spark: Any) -> None:
    """Both scenarios, graphs empty, paper and complete, at the abstraction level, and the
    localized causal broadcast's lcb3 with one crash (states that JSON cannot encode:
    the canonical-encoding fingerprint): seven explorations submitted concurrently to
    the shared session (Spark runs several driver threads' jobs at once; each level is
    latency-bound, so they overlap)."""
    configs: list[tuple[str, str, Any]] = [
        (f"{sc}/{g}", "abstract", lambda sc=sc, g=g: make_context(sc, g, level="abstract"))
        for sc in ("paris-berlin-newyork", "fig6") for g in ("empty", "paper", "complete")]
    configs.append(("lcb3/F=1", "protocol", lambda: make_context("lcb3", None, algorithm="lcb", crashes=1)))
    with ThreadPoolExecutor(len(configs)) as pool:
        pairs = list(pool.map(lambda c: every_exchange(c[2], spark, level=c[1]), configs))
    runs = [r for pair in pairs for r in pair]
    for (name, _level, _f), pair in zip(configs, pairs, strict=True):
        for local, lb, remote, sb in pair:
            assert local["complete"] and local["histories"] > 0, name
            assert_identical(local, lb, remote, sb)
    table1 = {name.split("/")[1]: pair[0][2]["outcomes"]["values"]
              for (name, _l, _f), pair in zip(configs, pairs, strict=True) if name.startswith("fig6")}
    assert table1 == {"complete": [[3, 5]], "paper": [[3, 4], [3, 5]],        # Table 1: SC, fisheye,
                      "empty": [[2, 4], [2, 5], [3, 4], [3, 5]]}              # CC rows, on Spark
    assert runs[-1][2]["states"] > 1000                                       # lcb3 with crashes


def _small_random_programs(count: int) -> list[tuple[str, tuple]]:
    """The first ``count`` seeded random 3-process programs whose reduced protocol-level
    space has between 50 and 1500 states (deterministic: fixed seeds)."""
    from fisheye.checker.explore.scenarios import run

    found = []
    for seed in range(100):
        rng = random.Random(seed)
        prog = random_program(rng, 3, max_ops=2)
        edges = random_edges(rng, prog.processes)
        if 50 <= run(make_context(prog, list(edges)), model=None)["states"] <= 1500:
            found.append((str(prog), edges))
        if len(found) == count:
            return found
    raise AssertionError("not enough small random programs")


def test_random_programs_identical_to_local(spark: Any) -> None:
    from fisheye.impl.programs import parse_program

    mixed: list[bool] = []
    for text, edges in _small_random_programs(2):
        def ctx(t: str = text, e: tuple = edges) -> Context:
            return make_context(parse_program(t), list(e))

        for local, lb, remote, sb in every_exchange(ctx, spark, partitions=3, driver_width=8):  # and back
            mixed.append(0 < remote["spark"]["levels_on_spark"] < remote["spark"]["levels"])
            assert local["complete"] and local["terminal_states"] > 0, text
            assert_identical(local, lb, remote, sb)
    assert any(mixed)        # some levels ran in the driver, others on Spark


# ---- an injected task failure, and the Parquet table, on a run with violations ---------------

PUBLISHED = "p0: write(X,1); p1: a=read(X); p2: write(X,2)"


@dataclass
class FlakyContext(Context):
    """Fails the first attempt of the first expansion task of partition 1 (once per run:
    the marker file records it)."""

    marker: str = ""

    def steps(self, state: Any) -> Any:
        from pyspark import TaskContext

        tc = TaskContext.get()
        if (tc is not None and tc.attemptNumber() == 0 and tc.partitionId() == 1
                and not os.path.exists(self.marker)):
            Path(self.marker).write_text(f"stage {tc.stageId()} attempt {tc.attemptNumber()}\n")
            raise RuntimeError("injected task failure")
        return super().steps(state)


@pytest.fixture(scope="module")
def published_run(spark: Any, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    tmp = tmp_path_factory.mktemp("spark")
    marker, table = tmp / "failed-once", tmp / "runs.parquet"

    def flaky() -> Context:
        ctx = make_context(PUBLISHED, "p0:p1", variant="published")
        return FlakyContext(ctx.system, ctx.reduction, ctx.prune_deviations, ctx.may_send,
                            marker=str(marker))

    lctx = make_context(PUBLISHED, "p0:p1", variant="published")
    lb = ReportBuilder(lctx, "protocol")
    local = local_explore(lctx, lb)
    sctx = flaky()
    sb = ReportBuilder(sctx, "protocol", engine="spark")
    remote = spark_explore(sctx, sb, partitions=2, spark=spark, parquet=str(table))
    return {"local": local, "lb": lb, "remote": remote, "sb": sb, "marker": marker, "table": table,
            "ctx": lctx}


def test_injected_failure_is_retried_and_the_result_unchanged(published_run: dict[str, Any]) -> None:
    assert published_run["marker"].read_text().startswith("stage ")   # the failure did happen
    local = published_run["local"]
    assert local["violations_total"] == 3                               # causal order (published variant)
    assert {v["violates"] for v in local["violations"]} == {"causal order"}
    assert_identical(local, published_run["lb"], published_run["remote"], published_run["sb"])


def test_spark_violations_replay_with_a_shortest_schedule(published_run: dict[str, Any]) -> None:
    system = published_run["ctx"].system
    raw = getattr(system, "raw", system)
    for v in published_run["remote"]["violations"]:
        steps = [Step.from_json(s) for s in v["schedule"]]
        end = replay(raw, steps)
        assert raw.is_final(end)
        assert v["violates"] in {b.prop for b in raw.broadcast_violations(end)}


def test_parquet_table_is_queryable_with_spark_sql(spark: Any, published_run: dict[str, Any]) -> None:
    remote = published_run["remote"]
    assert remote["spark"]["parquet_rows"] >= remote["histories"]
    spark.read.parquet(str(published_run["table"])).createOrReplaceTempView("runs")
    row = spark.sql("SELECT count(DISTINCT history) AS h, sum(runs) AS t FROM runs WHERE kind = 'final'"
                    ).collect()[0]
    assert (row.h, row.t) == (remote["histories"], remote["terminal_states"])
    bad = spark.sql("SELECT count(DISTINCT history) AS n FROM runs "
                    "WHERE array_contains(broadcast, 'causal order')").collect()[0].n
    assert bad == remote["violations_total"]
    query = "SELECT DISTINCT verdict FROM runs WHERE kind = 'final'"
    verdicts = {r.verdict for r in spark.sql(query).collect()}
    assert verdicts <= {"consistent", "violation"} and verdicts


# ---- budgets and the command line ------------------------------------------------------------

@pytest.mark.parametrize("graph,variant", [("empty", "corrected"), ("p0:p1", "published")])
def test_monitors_on_the_compiled_kernel_give_the_local_report(spark: Any, graph: str, variant: str) -> None:
    """Broadcast monitors (``--option monitors=true``, docs/por.md section 4.4) on Spark:
    the workers run the compiled kernel on the monitored rows; the report is the local
    engine's, violations of the broadcast properties included, and the monitors did
    reduce the search (fewer states than with full delivery logs)."""
    def ctx(options: tuple = (("monitors", True),)) -> Context:
        return make_context(PUBLISHED, graph, variant=variant, options=options)

    lctx, sctx = ctx(), ctx()
    lb, sb = ReportBuilder(lctx, "protocol"), ReportBuilder(sctx, "protocol", engine="spark")
    local = local_explore(lctx, lb, kernel="compiled")
    remote = spark_explore(sctx, sb, partitions=2, spark=spark, driver_width=0, kernel="compiled")
    assert local["kernel"] == remote["kernel"] == "compiled"
    assert_identical(local, lb, remote, sb)
    full = local_explore(ctx(()), ReportBuilder(ctx(()), "protocol"), kernel="compiled")
    assert remote["states"] < full["states"]
    assert remote["histories"] == full["histories"]
    assert {v["violates"] for v in remote["violations"]} == {v["violates"] for v in full["violations"]}
    if variant == "published":
        assert remote["violations_total"] > 0


SMALL = "p0: write(X,1), read(X); p1: write(X,2), read(X)"


def test_cli_spark_matches_local(spark: Any, run_cli: Any) -> None:
    local = run_cli("explore", SMALL, "--graph", "empty", "--json", "--quiet")
    remote = run_cli("explore", SMALL, "--graph", "empty", "--json", "--quiet", "--spark",
                     "--partitions", "2")
    assert local.status == remote.status == 0
    lj, rj = local.json(), remote.json()
    assert rj["engine"] == "spark" and rj["spark"]["partitions"] == 2
    for key in SAME:
        assert rj[key] == lj[key], key
    assert rj["states"] == lj["states"] > 0            # (the explorer's tests pin the counts)


def test_budget_cuts_the_run_short_and_says_so(spark: Any, run_cli: Any) -> None:
    r = run_cli("explore", SMALL, "--graph", "empty", "--json", "--spark", "--max-states", "20")
    assert r.status == 3
    rep = r.json()
    assert rep["complete"] is False and "max-states" in rep["stopped"]
    assert rep["states"] >= 20                                          # stopped between levels
    assert "spark: level 0" in r.err                                   # progress on stderr


def test_depth_bound_gives_the_local_report_on_spark_and_in_the_driver(spark: Any) -> None:
    """``max_depth``: the states at that depth are admitted, not expanded, on every engine;
    the bounded run says so and its counts are the local engine's."""

    def ctx() -> Context:
        return make_context("paris-berlin-newyork", "paper")

    lctx = ctx()
    local = local_explore(lctx, ReportBuilder(lctx, "protocol"), max_depth=12)
    assert local["complete"] is False and local["stopped"] == "depth bound (12) reached"
    assert local["max_depth"] == 12 and local["terminal_states"] == 0
    whole = local_explore(ctx(), ReportBuilder(ctx(), "protocol"))
    assert 1 < local["states"] < whole["states"]
    sctx = ctx()
    remote = spark_explore(sctx, ReportBuilder(sctx, "protocol", engine="spark"), partitions=2, spark=spark,
                           driver_width=0, max_depth=12)
    for key in SAME:
        assert remote[key] == local[key], key
    class NoSpark:          # every level narrow: Spark is asked only for the terminal groups' RDD
        def parallelize(self, *a: Any) -> None:
            return None

    run = bfs.run(NoSpark(), ctx(), partitions=3, driver_width=10 ** 9, max_depth=12)
    assert (run.states, run.transitions, run.max_depth, run.complete, run.stopped) == (
        local["states"], local["transitions"], 12, False, "depth bound (12) reached")
    # a bound beyond the deepest state changes nothing
    deep = local_explore(ctx(), ReportBuilder(ctx(), "protocol"), max_depth=whole["max_depth"] + 1)
    assert deep["complete"] is True and deep["states"] == whole["states"]


def test_bad_spark_usage_is_one_line_and_exit_2(run_cli: Any) -> None:
    r = run_cli("explore", SMALL, "--graph", "empty", "--spark", "--master", "bogus://x")
    assert r.status == 2 and r.err.count("\n") == 1 and "not a Spark master URL" in r.err
    r = run_cli("explore", SMALL, "--graph", "empty", "--parquet", "out.parquet")
    assert r.status == 2 and "need --spark" in r.err


def test_quiet_by_default_and_verbose_shows_sparks_log() -> None:
    """A new JVM (a fresh process): quiet, stderr holds the progress line only (no JVM
    warning); with --verbose, Spark's own log."""
    cmd = [sys.executable, "-m", "fisheye.checker.cli", "explore", SMALL, "--graph", "empty", "--spark",
           "--master", "local[1]", "--json"]
    procs = [subprocess.Popen(c, stdout=subprocess.PIPE, stderr=subprocess.PIPE)    # bytes: keep the \r
             for c in (cmd, [*cmd, "--verbose"])]
    (out, err), (vout, verr) = ((o.decode(), e.decode()) for o, e in (p.communicate(timeout=300)
                                                                      for p in procs))
    assert [p.returncode for p in procs] == [0, 0]
    assert json.loads(out)["engine"] == json.loads(vout)["engine"] == "spark"
    lines = [ln for ln in err.split("\n") if ln.strip()]
    assert len(lines) == 1 and "WARN" not in err, err
    assert lines[0].lstrip("\r").startswith("spark: level 0") and "states/s" in lines[0]
    assert "INFO SparkContext" in verr


# ---- the file exchange -------------------------------------------------------------------------

@pytest.mark.parametrize("kernel", ["compiled", "python"])
@pytest.mark.parametrize("scenario,graph,mutant,variant", SEARCHES)
def test_files_and_shuffle_give_the_local_report_on_either_kernel(spark: Any, kernel: str, scenario: str,
                                                                   graph: str, mutant: str | None,
                                                                   variant: str) -> None:
    """The configurations the compiled and the reference searches are compared on
    (tests/test_explore_kernel.py), every level on Spark, through files and through the
    shuffle: the local engine's report, on the kernel asked for."""
    for local, lb, remote, sb in every_exchange(
            lambda: make_context(scenario, graph, mutant=mutant, variant=variant), spark, kernel=kernel):
        assert local["kernel"] == remote["kernel"] == kernel
        assert remote["spark"]["levels_on_spark"] == remote["spark"]["levels"] > 1
        assert local["complete"] and local["states"] > 1
        assert_identical(local, lb, remote, sb)
        if mutant or variant == "published":
            assert remote["violations"]


def exchange_dirs(where: Path) -> list[Path]:
    return sorted(where.glob("fisheye-exchange-*"))


def test_the_default_exchange_of_a_local_master_is_a_temporary_directory_removed_at_the_end(
        spark: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    seen: list[list[str]] = []

    def look(stat: Any) -> None:          # the generations alive between levels
        seen.extend([sorted(p.name for p in d.iterdir()) for d in exchange_dirs(tmp_path)])

    ctx = make_context(PUBLISHED, "p0:p1", variant="published")
    remote = spark_explore(ctx, ReportBuilder(ctx, "protocol", engine="spark"), partitions=2, spark=spark,
                           driver_width=0, progress=look)
    assert remote["spark"]["exchange"] == "files"
    assert seen and all(len(gens) == 1 for gens in seen)     # one generation kept between levels
    assert exchange_dirs(tmp_path) == []


@dataclass
class FailingContext(Context):
    """Fails every expansion on an executor: the level's job fails."""

    def steps(self, state: Any) -> Any:
        from pyspark import TaskContext

        if TaskContext.get() is not None:
            raise RuntimeError("injected failure of every attempt")
        return super().steps(state)


class Interrupted(KeyboardInterrupt):
    pass


@pytest.mark.parametrize("how", ["level fails", "ctrl-c"])
def test_the_exchange_directory_is_removed_after_an_error_or_ctrl_c(spark: Any, tmp_path: Path,
                                                                    how: str) -> None:
    ctx = make_context(PUBLISHED, "p0:p1", variant="published")
    made: list[int] = []

    def interrupt(stat: Any) -> None:
        made.append(len(exchange_dirs(tmp_path)))
        if how == "ctrl-c" and stat.level == 3:
            raise Interrupted()

    if how == "level fails":
        ctx = FailingContext(ctx.system, ctx.reduction, ctx.prune_deviations, ctx.may_send)
    expected: type[BaseException] = Interrupted if how == "ctrl-c" else Exception
    with pytest.raises(expected) as caught:
        spark_explore(ctx, ReportBuilder(ctx, "protocol", engine="spark"), partitions=2, spark=spark,
                      driver_width=0, kernel="python", exchange_dir=str(tmp_path), progress=interrupt)
    assert ("injected failure" in str(caught.value)) == (how == "level fails")
    assert made == ([1] * 4 if how == "ctrl-c" else [])       # (the failure is at level 0)
    assert exchange_dirs(tmp_path) == [] and list(tmp_path.iterdir()) == []


def fail_first_attempt(record: str) -> Any:
    """A hook of the level task (:attr:`FileExchange.on_written`): shard 1 of generation 3
    records the digests of the files it wrote, per attempt, and its first attempt then fails."""
    def hook(gen: int, index: int, paths: list[str]) -> None:
        import hashlib

        from pyspark import TaskContext

        if (gen, index) != (3, 1):
            return
        attempt = TaskContext.get().attemptNumber()
        digests = {os.path.basename(p): hashlib.sha256(Path(p).read_bytes()).hexdigest() for p in paths}
        Path(record, f"attempt-{attempt}.json").write_text(json.dumps(digests))
        if attempt == 0:
            raise RuntimeError("injected failure once the files are in place")
    return hook


@pytest.mark.parametrize("kernel", ["compiled", "python"])
def test_a_retried_task_writes_the_same_files_and_the_report_is_unchanged(
        spark: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, kernel: str) -> None:
    from fisheye.checker.spark.files import FileExchange

    monkeypatch.setattr(FileExchange, "on_written", staticmethod(fail_first_attempt(str(tmp_path))))
    local, lb, remote, sb = both(lambda: make_context(PUBLISHED, "p0:p1", variant="published"), spark,
                                 kernel=kernel, exchange="files")
    assert_identical(local, lb, remote, sb)
    first, second = (json.loads((tmp_path / f"attempt-{a}.json").read_text()) for a in (0, 1))
    assert first == second and "shard-1" in first and any(k.startswith("batch-1-") for k in first)
    assert not (tmp_path / "attempt-2.json").exists()


def test_cli_exchange_dir_runs_files_and_says_so(spark: Any, run_cli: Any, tmp_path: Path) -> None:
    r = run_cli("explore", SMALL, "--graph", "empty", "--json", "--quiet", "--spark", "--partitions", "2",
                "--exchange", str(tmp_path))
    assert r.status == 0 and r.json()["spark"]["exchange"] == "files"
    text = run_cli("explore", SMALL, "--graph", "empty", "--quiet", "--spark", "--exchange", str(tmp_path))
    assert text.status == 0 and "files exchange" in text.out.splitlines()[0]
    assert list(tmp_path.iterdir()) == []


def test_a_bad_exchange_dir_is_one_line_and_exit_2(run_cli: Any, tmp_path: Path) -> None:
    afile = tmp_path / "plain"
    afile.write_text("")
    for bad, why in ((tmp_path / "missing", "no such directory"), (afile, "not a directory")):
        r = run_cli("explore", SMALL, "--graph", "empty", "--spark", "--exchange", str(bad))
        assert r.status == 2 and r.err.count("\n") == 1 and str(bad) in r.err and why in r.err, r.err
        assert not r.out
    r = run_cli("explore", SMALL, "--graph", "empty", "--exchange", str(tmp_path))
    assert r.status == 2 and "need --spark" in r.err


def test_batch_files_round_trip_rows_and_encoded_states(tmp_path: Path) -> None:
    """A batch file holds the arrays it was written from (kernel rows, or encoded states
    of any lengths, the empty one included)."""
    from fisheye.checker.spark import files

    fps = np.array([5, 1, 9], dtype=np.uint64)
    paths = np.array([[0, 2], [1, 1], [3, 0]], dtype=np.uint8)
    blobs = np.empty(3, dtype=object)
    blobs[:] = [b"ab", b"", b"\x00xyz"]
    for states in (np.array([[1, -2], [3, 4], [5, 6]], dtype=np.int8), blobs):
        files.write_batch(str(tmp_path / "b"), (bfs.BATCH, fps, states, paths))
        [(kind, f2, s2, p2)] = files.read_batches(str(tmp_path / "b"))
        assert kind == bfs.BATCH and f2.tolist() == fps.tolist() and p2.tolist() == paths.tolist()
        assert s2.dtype == states.dtype and s2.tolist() == states.tolist()
    assert [p.name for p in tmp_path.iterdir()] == ["b"]        # no temporary file left


class _InProcess:
    """A stand-in for a SparkContext that runs the file exchange's level tasks in this
    process, one shard after the other (what the exchange asks of Spark: a broadcast and
    one job of one task per shard)."""

    def __init__(self) -> None:
        self.jobs = 0

    def broadcast(self, value: Any) -> Any:
        return type("Broadcast", (), {"value": value, "unpersist": lambda self: None})()

    def parallelize(self, items: Any, n: int) -> Any:
        context = self

        class Job:
            def mapPartitionsWithIndex(self, task: Any) -> Any:     # noqa: N802  (Spark's name)
                return type("Result", (), {"collect": lambda _self: [
                    out for k, item in enumerate(items) for out in task(k, iter([item]))]})()

            def reduceByKey(self, *_a: Any) -> Any:                  # noqa: N802  (the groups:
                return type("Groups", (), {"values": lambda _self: None})()   # not checked here)

        context.jobs += 1
        return Job()


@pytest.mark.parametrize("kernel", ["compiled", "python"])
def test_file_batches_of_several_records_give_the_local_report(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path, kernel: str) -> None:
    """Every level through the file exchange (run in process), a destination's successors
    written as records of at most ``BATCH_STATES`` states appended to one file and read
    back record by record, the shards' visited sets written and read split: the local
    engine's search."""
    from fisheye.checker.explore import store
    from fisheye.checker.spark import files

    lctx, sctx = (make_context(PUBLISHED, "p0:p1", variant="published") for _ in range(2))
    local = local_explore(lctx, ReportBuilder(lctx, "protocol"), kernel=kernel)
    monkeypatch.setattr(bfs, "BATCH_STATES", 3)
    monkeypatch.setattr(store, "SPLIT_FROM", 16)             # the shards' files hold split sets
    records: list[int] = []
    read = files.read_batches

    def counted(path: str) -> Iterator[tuple]:
        batches = list(read(path))
        records.append(len(batches))
        assert all(0 < len(b[1]) <= 3 for b in batches)
        return iter(batches)

    monkeypatch.setattr(files, "read_batches", counted)
    sc = _InProcess()
    exchange = files.FileExchange(sc, sctx, 2, kernel, str(tmp_path))
    try:
        run = bfs.run(sc, sctx, partitions=2, driver_width=0, kernel=kernel, exchange=exchange)
    finally:
        exchange.close()
    assert (run.states, run.transitions, run.max_depth, run.complete) == (
        local["states"], local["transitions"], local["max_depth"], True)
    assert sc.jobs > run.max_depth and max(records) > 1       # every level a job; files of many records
    assert os.listdir(tmp_path) == []


def test_a_failed_level_task_leaves_no_temporary_batch_file(tmp_path: Path) -> None:
    from fisheye.checker.spark import files

    batch = (bfs.BATCH, np.array([1], np.uint64), np.zeros((1, 2), np.int16), np.zeros((1, 1), np.uint8))
    out = files._BatchFiles()
    assert out.append(str(tmp_path / "a"), batch) and not out.append(str(tmp_path / "a"), batch)
    assert out.append(str(tmp_path / "b"), batch)           # "a" closed and renamed into place
    out.abort()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a"]
    assert [len(b[1]) for b in files.read_batches(str(tmp_path / "a"))] == [1, 1]


def interrupt_driver_during(generation: int, driver: int) -> Any:
    """A hook of the level task: shard 0 of ``generation`` sends SIGINT to the driver
    (Ctrl-C), then keeps its level's job running long enough to be cancelled."""
    def hook(gen: int, index: int, paths: list[str]) -> None:
        import signal
        import time as t

        if (gen, index) == (generation, 0):
            os.kill(driver, signal.SIGINT)
            t.sleep(4)
    return hook


def test_ctrl_c_during_a_level_cancels_it_and_reports_the_levels_before(
        spark: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture) -> None:
    """Ctrl-C while a level's job runs: the job is cancelled (from a thread of its own, not
    from the signal handler, which would interrupt the JVM call in flight and print a
    traceback), and the search stops with a report of the levels before it, marked
    interrupted, not complete; the exchange directory is removed."""
    from fisheye.checker.explore.engine import INTERRUPTED
    from fisheye.checker.spark.files import FileExchange

    monkeypatch.setattr(FileExchange, "on_written", staticmethod(interrupt_driver_during(4, os.getpid())))
    ctx = make_context(PUBLISHED, "p0:p1", variant="published")
    levels: list[Any] = []
    start = time.perf_counter()
    remote = spark_explore(ctx, ReportBuilder(ctx, "protocol", engine="spark"), partitions=2, spark=spark,
                           driver_width=0, kernel="python", exchange_dir=str(tmp_path),
                           progress=levels.append)
    assert time.perf_counter() - start < 60
    assert remote["complete"] is False and remote["stopped"] == INTERRUPTED
    assert [s.level for s in levels] == [0, 1, 2]       # level 3 (reading generation 4) cancelled
    assert remote["states"] == levels[-1].states
    assert "Traceback" not in capfd.readouterr().err
    assert list(tmp_path.iterdir()) == []
