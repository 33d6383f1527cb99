"""``fisheye check FILES --spark``: a corpus of history files checked on Spark.

Each file is one task, and the tasks are handed out largest file first, so that the
longest checks start early and the last ones to finish are short (the longest-processing-
time rule).  A task runs the batch's own check of one file
(:func:`fisheye.checker.cli.check.batch_row`): the same import, model, engine and budget,
bad input as that file's row.  The driver receives one row per file -- never a history --
and prints them in the batch's order, with the batch's summary and exit status
(:class:`fisheye.checker.cli.check.BatchReport`), so that the output is the batch's.

The executors read the files themselves: on a cluster every executor must reach the paths
(a shared file system); a relative path is taken from the driver's working directory.
PySpark is imported only here, and this module only when ``--spark`` is given.
"""

from __future__ import annotations

import argparse
import json
import os
from typing import Any

from fisheye.checker.errors import UsageError
from fisheye.checker.formats import STDIN

APP_NAME = "fisheye-check"


def largest_first(files: list[str]) -> list[int]:
    """The indices of ``files``, largest file first (ties in name order); a file that
    cannot be measured counts as empty (its task reports why it cannot be read)."""
    def size(path: str) -> int:
        try:
            return os.path.getsize(path)
        except OSError:
            return 0

    sizes = [size(f) for f in files]
    return sorted(range(len(files)), key=lambda i: (-sizes[i], i))


def check_files(spark: Any, args: argparse.Namespace, files: list[str]) -> list[Any]:
    """The :class:`~fisheye.checker.cli.check.BatchRow` of every file, in the order of
    ``files``, each checked in a task of its own on ``spark``."""
    options = argparse.Namespace(**{k: v for k, v in vars(args).items() if k != "func"})
    cwd = os.getcwd()
    order = largest_first(files)
    tasks = spark.sparkContext.parallelize([(i, files[i]) for i in order], max(1, len(files)))
    rows = dict(tasks.map(lambda task: (task[0], _check_one(options, cwd, task[1]))).collect())
    return [rows[i] for i in range(len(files))]


def _check_one(options: argparse.Namespace, cwd: str, path: str) -> Any:
    """One file's row, on an executor (relative paths from the driver's directory)."""
    from fisheye.checker.cli.check import BAD_INPUT, BatchRow, batch_row

    if os.path.isabs(path):
        return batch_row(options, path)
    here = os.getcwd()
    try:
        os.chdir(cwd)
    except OSError:
        error = f"the driver's directory {cwd} is not reachable from this executor"
        return BatchRow(path, BAD_INPUT, f"{path}: bad input: {error}",
                        json.dumps({"file": path, "error": error, "exit": 2}), error)
    try:
        return batch_row(options, path)
    finally:
        os.chdir(here)


def run_corpus(args: argparse.Namespace, files: list[str]) -> int:
    """``check --spark``: the rows of every file on Spark, reported as a batch."""
    from fisheye.checker.cli.check import BatchReport

    from .session import start_session

    if STDIN in files:
        raise UsageError("--spark checks files: - (standard input) cannot be one of them")
    if args.progress:
        raise UsageError("--progress applies to the files checked in this process, not to --spark")
    report = BatchReport(args, len(files))
    spark = start_session(args.master, app_name=APP_NAME)
    for row in check_files(spark, args, files):
        report.add(row)
    return report.finish()
