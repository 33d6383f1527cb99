"""Outputs a user can query: a Parquet table of the terminal states' groups.

One row per distinct (kind, history, outcome, broadcast violations) of the terminal
states: complete runs (``kind = 'final'``) with the verdict of their history under the
run's model, deadlocks, infeasible abstraction-level prefixes.  Columns: ``kind``,
``history`` (contract JSON), ``verdict``, ``model``, ``runs`` (distinct terminal states),
``outcome`` (JSON list of the named reads' values), ``matches`` (every conditioning read
returned the figure's value), ``broadcast`` (violated properties), ``length`` and
``schedule`` (a shortest replayable schedule, JSON).  Read it with Spark SQL::

    spark.read.parquet("out.parquet").createOrReplaceTempView("runs")
    spark.sql("SELECT verdict, count(*) FROM runs WHERE kind = 'final' GROUP BY verdict")
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from typing import Any

from fisheye.checker.explore.expand import Context, replayable, schedule_of_path

COLUMNS = ("kind", "history", "verdict", "model", "runs", "outcome", "matches", "broadcast",
           "length", "schedule")


def rows(ctx: Context, model: str | None, items: Iterable[tuple[Any, ...]]) -> Iterator[tuple[Any, ...]]:
    """Rows of the table from ``(count, record, path, verdict)`` items (on executors); a
    verdict is written as its name (``consistent``, ``violation``, ``unknown``)."""
    for count, rec, path, verdict in items:
        schedule = [s.to_json() for s in replayable(ctx, schedule_of_path(ctx, path))]
        name = None if verdict is None else verdict.value
        yield (rec.kind, json.dumps(rec.history.to_json(), sort_keys=True), name, model, count,
               json.dumps(list(rec.outcome)), rec.matches, list(rec.broadcast), len(path),
               json.dumps(schedule))


def write_parquet(spark: Any, ctx: Context, model: str | None, items_rdd: Any, path: str) -> int:
    """Write the table to ``path`` (overwritten); returns the number of rows."""
    from pyspark.sql.types import (
        ArrayType,
        BooleanType,
        IntegerType,
        LongType,
        StringType,
        StructField,
        StructType,
    )

    schema = StructType([
        StructField("kind", StringType(), False), StructField("history", StringType(), False),
        StructField("verdict", StringType(), True), StructField("model", StringType(), True),
        StructField("runs", LongType(), False), StructField("outcome", StringType(), False),
        StructField("matches", BooleanType(), False),
        StructField("broadcast", ArrayType(StringType()), False),
        StructField("length", IntegerType(), False), StructField("schedule", StringType(), False)])
    df = spark.createDataFrame(items_rdd.mapPartitions(lambda it: rows(ctx, model, it)), schema)
    df.write.mode("overwrite").parquet(path)
    return spark.read.parquet(path).count()
