"""The SparkSession used by the Spark explorer (issue 6).

``local[*]`` by default: Spark runs embedded in this Python process's JVM, no server to
start, only Java 17.  Any master URL (``spark://host:7077``, ``yarn``, ``k8s://...``,
``local[2,4]``) is passed through unchanged.  Under ``spark-submit`` the master chosen there
is kept.  For a local master the driver is bound to the loopback interface and the web UI
is disabled; shuffles use few partitions (the exploration sets its own partition count
explicitly, see :mod:`fisheye.checker.spark.bfs`).
"""

from __future__ import annotations

import os
import re
import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover
    from pyspark.sql import SparkSession

DEFAULT_MASTER = "local[*]"
APP_NAME = "fisheye-explore"


_MASTER = re.compile(r"local(\[(\*|\d+)(,\d+)?\])?|local-cluster\[\d+,\d+,\d+\]|yarn"
                     r"|(spark|k8s|mesos)://\S+")


def valid_master(master: str) -> bool:
    """Whether ``master`` has the form of a Spark master URL (checked before starting a
    JVM, so that a typo is one line on stderr, not a Java stack trace)."""
    return _MASTER.fullmatch(master) is not None


def is_local(master: str) -> bool:
    return master == "local" or master.startswith("local[")


def get_session(master: str | None = None, *, shuffle_partitions: int = 4,
                app_name: str = APP_NAME) -> SparkSession:
    """The active session if there is one (tests share one), else a new one.

    ``master`` None means: the master of ``spark-submit`` if we run under it
    (``spark.master`` already in the launcher's configuration), else ``local[*]``.
    """
    from pyspark import SparkConf
    from pyspark.sql import SparkSession

    active = SparkSession.getActiveSession()
    if active is not None and (master is None or active.sparkContext.master == master):
        return active
    if active is not None:  # a different master was asked for: one SparkContext per JVM
        active.stop()
    from pyspark import SparkContext

    # Start (or join, under spark-submit) the JVM gateway first: only then does SparkConf
    # see the launcher's settings, spark.master among them.
    SparkContext._ensure_initialized()
    launcher_master = SparkConf().get("spark.master", None)
    chosen = master or launcher_master or DEFAULT_MASTER
    # Python workers must run this interpreter (the one that can import fisheye);
    # on a cluster, PYSPARK_PYTHON / spark.pyspark.python set by the user win.
    if is_local(chosen):
        os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
        os.environ.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)
    builder = (SparkSession.builder.appName(app_name).master(chosen)
               .config("spark.ui.enabled", "false")
               .config("spark.ui.showConsoleProgress", "false")
               .config("spark.sql.shuffle.partitions", str(shuffle_partitions))
               .config("spark.python.worker.reuse", "true"))
    if is_local(chosen):
        # One machine: shuffle files need no compression (it only costs CPU here).
        builder = (builder.config("spark.driver.host", "127.0.0.1")
                   .config("spark.driver.bindAddress", "127.0.0.1")
                   .config("spark.shuffle.compress", "false"))
    session = builder.getOrCreate()
    session.sparkContext.setLogLevel("ERROR")
    return session
