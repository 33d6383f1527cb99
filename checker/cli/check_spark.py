"""``fisheye check FILES --spark``: a corpus of history files checked on Spark.

The files are packed into tasks, :data:`TASKS_PER_CORE` per core of the cluster (or one
file per task when there are fewer files): largest file first, each into the task with
the least bytes so far (the longest-processing-time rule), each task checking its files
largest first, the tasks handed out largest first.  So the longest checks start early,
the last ones to finish are short, and Spark's own cost per task (about 20-25 ms of CPU
in local mode, measured: 2,000 one-file tasks cost 40-50 CPU s, more than a fifth of
checking 2,000 histories of 1,000-10,000 operations) is paid a few dozen times, not once
per file.  A task runs the batch's own check of each of its files
(:func:`fisheye.checker.cli.check_batch.batch_row`): the same import, model, engine and budget,
bad input as that file's row.  The driver receives one row per file -- never a history --
and prints them in the batch's order, with the batch's summary and exit status
(:class:`fisheye.checker.cli.check_batch.BatchReport`), so that the output is the batch's.

The executors read the files themselves: on a cluster every executor must reach the paths
(a shared file system); a relative path is taken from the driver's working directory.
PySpark is imported only here, and this module only when ``--spark`` is given.
"""

from __future__ import annotations

import argparse
import heapq
import json
import os
import time
from dataclasses import dataclass
from typing import Any

from fisheye.checker.errors import UsageError
from fisheye.checker.formats import STDIN

from .check_batch import BAD_INPUT, BatchReport, BatchRow, batch_row

APP_NAME = "fisheye-check"
TASKS_PER_CORE = 16
"""Tasks per core of the cluster: enough for the scheduler to even out checks whose time
is not proportional to their file's size, few enough that Spark's cost per task is small."""


def pack(sizes: list[int], tasks: int) -> list[list[int]]:
    """The indices of files of ``sizes`` (bytes) packed into at most ``tasks`` non-empty
    tasks: largest file first (ties in index order), each into the task with the least
    bytes so far (ties: the first task); each task's files largest first, the tasks
    largest first."""
    order = sorted(range(len(sizes)), key=lambda i: (-sizes[i], i))
    bins: list[tuple[int, int, list[int]]] = [(0, k, []) for k in range(min(tasks, len(sizes)))]
    heapq.heapify(bins)
    for i in order:
        load, k, members = heapq.heappop(bins)
        members.append(i)
        heapq.heappush(bins, (load + sizes[i], k, members))
    return [members for _, _, members in sorted(bins, key=lambda b: (-b[0], b[1]))]


def file_size(path: str) -> int:
    """The size of ``path`` in bytes; 0 when it cannot be measured (its task reports why
    it cannot be read)."""
    try:
        return os.path.getsize(path)
    except OSError:
        return 0


def check_files(spark: Any, args: argparse.Namespace, files: list[str]) -> list[Any]:
    """The :class:`~fisheye.checker.cli.check_batch.BatchRow` of every file, in the order of
    ``files``, checked on ``spark`` in tasks packed by :func:`pack`."""
    options = argparse.Namespace(**{k: v for k, v in vars(args).items() if k != "func"})
    cwd = os.getcwd()
    sc = spark.sparkContext
    tasks = pack([file_size(f) for f in files], TASKS_PER_CORE * sc.defaultParallelism)
    work = [[(i, files[i]) for i in task] for task in tasks]
    rdd = sc.parallelize(work, max(1, len(work)))
    rows = dict(rdd.flatMap(lambda task: [(i, _check_one(options, cwd, f)) for i, f in task]).collect())
    return [rows[i] for i in range(len(files))]


@dataclass(frozen=True)
class UsageFailure:
    """What a task returns for a file instead of its row when the command line itself is
    wrong there (an engine the executor lacks, for instance): the driver raises it as the
    batch would have, one line and exit status 2."""

    message: str


def _check_one(options: argparse.Namespace, cwd: str, path: str) -> Any:
    """One file's row, on an executor (relative paths from the driver's directory)."""
    here = os.getcwd()
    if not os.path.isabs(path):
        try:
            os.chdir(cwd)
        except OSError:
            error = f"the driver's directory {cwd} is not reachable from this executor"
            return BatchRow(path, BAD_INPUT, f"{path}: bad input: {error}",
                            json.dumps({"file": path, "error": error, "exit": 2}), error)
    try:
        return batch_row(options, path)
    except UsageError as e:
        return UsageFailure(str(e))
    finally:
        os.chdir(here)


def run_corpus(args: argparse.Namespace, files: list[str]) -> int:
    """``check --spark``: the rows of every file on Spark, reported as a batch."""
    from ..spark.session import start_session

    if STDIN in files:
        raise UsageError("--spark checks files: - (standard input) cannot be one of them")
    if args.progress:
        raise UsageError("--progress applies to the files checked in this process, not to --spark")
    start = time.perf_counter()
    spark = start_session(args.master, app_name=APP_NAME)
    rows = check_files(spark, args, files)
    failure = next((r for r in rows if isinstance(r, UsageFailure)), None)
    if failure is not None:
        raise UsageError(failure.message)
    report = BatchReport(args, len(files), start)
    for row in rows:
        report.add(row)
    return report.finish()
