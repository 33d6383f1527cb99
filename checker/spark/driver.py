"""The Spark engine's driver: session, search, distributed history checks, report.

What reaches the driver: a few counters per shard and level, then one item per *group*
of terminal states (same kind, history, outcome and broadcast violations) -- the
result, never the state space.  Each distinct complete history is checked against the
model once, on an executor; the verdicts are handed to the shared
:class:`~fisheye.checker.explore.report.ReportBuilder`, which then builds exactly the
report the local engine builds.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from typing import Any

from fisheye.checker.explore.expand import FINAL, Context, fingerprint, schedule_of_path
from fisheye.checker.explore.kernel import kernel_name, select_kernel
from fisheye.checker.explore.report import ReportBuilder
from fisheye.checker.result import Verdict
from fisheye.spec.graph import ProximityGraph
from fisheye.spec.models import Model

from . import bfs
from .bfs import FINGERPRINT_BITS, Group, LevelStat, SparkRun
from .files import FileExchange
from .session import is_local, start_session

Item = tuple[int, Any, tuple[int, ...], Verdict | None]   # (count, record, path, verdict)


def _check_histories(model: Model | None, graph: ProximityGraph, engine: str, timeout: float | None,
                     items: Iterable[tuple[int, list[Group]]]) -> Iterator[Item]:
    """One check per distinct history (all groups sharing it arrive together)."""
    from fisheye.checker.engines import check

    for _key, groups in items:
        final = next((g for g in groups if g[1].kind == FINAL), None)
        verdict = None
        if final is not None and model is not None:
            verdict = check(final[1].history, model, graph, engine=engine, timeout=timeout).verdict
        for count, rec, path in groups:
            yield count, rec, path, verdict if rec.kind == FINAL else None


def level_printer(stream: Any = None, label: str = "spark") -> Callable[[LevelStat], None]:
    """Progress on stderr: one line, rewritten in place each level (level, width, states,
    states/s over the search so far, where the level ran), ended when the search ends."""
    out = stream if stream is not None else sys.stderr

    def show(stat: LevelStat) -> None:
        rate = stat.states / stat.seconds if stat.seconds > 0 else 0.0
        out.write(f"\r{label}: level {stat.level}  width {stat.frontier:,}  states {stat.states:,}  "
                  f"{rate:,.0f} states/s  ({stat.where})   ")
        out.flush()

    return show


@contextmanager
def open_exchange(sc: Any, ctx: Context, n: int, kernel: str, exchange: str,
                  directory: str | None) -> Iterator[bfs.Exchange]:
    """The exchange of a run (:func:`explore`'s ``exchange``), closed when the run ends,
    normally or not."""
    if exchange not in ("auto", "files", "shuffle"):
        raise ValueError(f"unknown exchange {exchange!r} (expected auto, files or shuffle)")
    if exchange == "shuffle" and directory is not None:
        raise ValueError("an exchange directory is for the files exchange, not the shuffle")
    files = exchange == "files" or (exchange == "auto" and (directory is not None or is_local(sc.master)))
    levels: bfs.Exchange = (FileExchange(sc, ctx, n, kernel, directory) if files
                            else bfs.ShuffleExchange(sc, ctx, n, kernel))
    try:
        yield levels
    finally:
        levels.close()


def explore(ctx: Context, builder: ReportBuilder, *, master: str | None = None,
            partitions: int | None = None, max_states: int | None = None, max_depth: int | None = None,
            timeout: float | None = None,
            progress: Callable[[LevelStat], None] | bool | None = None, parquet: str | None = None,
            spark: Any = None, verbose: bool = False, checkpoint: str | None = None,
            driver_width: int = bfs.DRIVER_WIDTH, kernel: str = "auto", exchange: str = "auto",
            exchange_dir: str | None = None) -> dict[str, Any]:
    """Explore ``ctx`` on Spark and return the report (docs/contract.md, "Exploration report").

    ``master``: a Spark master URL (None: ``spark-submit``'s, else ``local[*]``);
    ``partitions``: shards of the state space (default: one per core of the cluster);
    ``progress``: True for the progress line on stderr, or a callback per level;
    ``parquet``: also write the table of terminal groups there (:mod:`.output`);
    ``verbose``: Spark's own log on stderr; ``checkpoint``: a reliable checkpoint
    directory (every executor must reach it; the search then survives a lost executor);
    ``driver_width``: levels with fewer candidate states run in the driver; ``kernel``:
    ``auto``, ``compiled`` or ``python`` (:func:`fisheye.checker.explore.kernel.select_kernel`),
    what the workers run; ``exchange``: how the levels on Spark move their states --
    ``files`` (:mod:`.files`: through a directory of its own, created in ``exchange_dir``,
    which the driver and every executor must reach, default the temporary directory),
    ``shuffle`` (Spark's shuffle, through the JVM), or ``auto``: files for a ``local``
    master or when ``exchange_dir`` is given, else the shuffle."""
    kname = kernel_name(select_kernel(ctx, kernel))
    if spark is None:
        spark = start_session(master, verbose=verbose, checkpoint_dir=checkpoint)
    elif checkpoint is not None:
        spark.sparkContext.setCheckpointDir(checkpoint)
    sc = spark.sparkContext
    n = partitions or sc.defaultParallelism
    printer = level_printer() if progress is True else (progress or None)
    with open_exchange(sc, ctx, n, kname, exchange, exchange_dir) as levels:
        run: SparkRun = bfs.run(sc, ctx, partitions=n, max_states=max_states, max_depth=max_depth,
                                timeout=timeout, driver_width=driver_width, progress=printer, kernel=kname,
                                exchange=levels)
        if progress is True:
            sys.stderr.write("\n")
        return _finish(spark, ctx, builder, run, n, parquet, kname)


def _finish(spark: Any, ctx: Context, builder: ReportBuilder, run: SparkRun, n: int, parquet: str | None,
            kname: str) -> dict[str, Any]:
    """The distributed history checks, the Parquet table and the report of ``run``."""
    sc = spark.sparkContext
    graph = builder.model_graph or builder.graph
    model, engine, ctimeout = builder.model, builder.check_engine, builder.check_timeout
    items_rdd = (run.groups.map(lambda g: (fingerprint(g[1].history_key), [g]))
                 .reduceByKey(lambda a, b: a + b, n)
                 .mapPartitions(lambda it: _check_histories(model, graph, engine, ctimeout, it)))
    from pyspark import StorageLevel

    items_rdd.persist(StorageLevel.MEMORY_AND_DISK)
    items: list[Item] = sorted(items_rdd.collect(), key=lambda it: (len(it[2]), it[2]))
    parquet_rows = None
    if parquet:
        from .output import write_parquet

        parquet_rows = write_parquet(spark, ctx, model.value if model else None, items_rdd, parquet)
    items_rdd.unpersist()
    return build_report(ctx, builder, run, items, master=sc.master, parquet=parquet,
                        parquet_rows=parquet_rows, kernel=kname)


def build_report(ctx: Context, builder: ReportBuilder, run: SparkRun, items: list[Item], *,
                 master: str, parquet: str | None, parquet_rows: int | None,
                 kernel: str = "python") -> dict[str, Any]:
    builder.engine = "spark"
    for _count, rec, _path, verdict in items:
        if verdict is not None:     # checked on an executor, once per distinct history
            builder.seed_verdict(rec.history_key, verdict)
    builder.add_pruned(run.pruned)
    for count, rec, path, _verdict in items:
        def schedule(path: tuple[int, ...] = path) -> list[Any]:
            return schedule_of_path(ctx, path)
        for _ in range(count):
            builder.add_terminal(rec, len(path), schedule)
    per_level = [b.seconds - a.seconds for a, b in zip(run.levels, run.levels[1:], strict=False)]
    extra: dict[str, Any] = {"kernel": kernel, "spark": {
        "master": master,
        "partitions": run.partitions,
        "exchange": run.exchange,
        "levels": len(run.levels),
        "levels_on_spark": sum(1 for lv in run.levels if lv.where == "spark"),
        "fingerprint_bits": FINGERPRINT_BITS,
        "collision_probability": run.collision_probability,
        "median_level_seconds": round(sorted(per_level)[len(per_level) // 2], 3) if per_level else 0.0,
        "parquet": parquet,
        "parquet_rows": parquet_rows,
    }}
    return builder.build(complete=run.complete, states=run.states, transitions=run.transitions,
                         max_depth=run.max_depth, seconds=run.seconds, stopped=run.stopped, extra=extra)
