"""The SparkSession used by the Spark explorer.

``local[*]`` by default: Spark runs embedded in this Python process's JVM, no server to
start, only Java 17.  Any master URL (``spark://host:7077``, ``yarn``, ``k8s://...``,
``local[2,4]``) is passed through unchanged; under ``spark-submit`` the master chosen there
is kept.

Quiet by default: when this process starts the JVM, the JVM's own output (its warnings,
Spark's log) goes to a log file (:func:`log_path`), not to the terminal; ``verbose=True``
leaves it on stderr with Spark's log at INFO.  Every setting the executors need travels
with the job itself (the Python interpreter of the workers, the exploration's options in
the task closures), never through this process's environment, which does not reach the
executors of a cluster.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import sys
import tempfile
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pragma: no cover
    from pyspark.sql import SparkSession

DEFAULT_MASTER = "local[*]"
APP_NAME = "fisheye-explore"
# JVM start-up flags (measured in docs/benchmarks.md): the driver JVM does little compute
# (Python does the exploration), so the client compiler and the serial collector start
# it faster and use less CPU.
DRIVER_JAVA_FLAGS = "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC"

_LOG4J = """\
rootLogger.level = warn
logger.spark.name = org.apache.spark
logger.spark.level = {level}
rootLogger.appenderRef.stderr.ref = console
appender.console.type = Console
appender.console.name = console
appender.console.target = SYSTEM_ERR
appender.console.layout.type = PatternLayout
appender.console.layout.pattern = %d{yy/MM/dd HH:mm:ss} %p %c{1}: %m%n%ex
logger.hadoop.name = org.apache.hadoop
logger.hadoop.level = error
"""

_MASTER = re.compile(r"local(\[(\*|\d+)(,\d+)?\])?|local-cluster\[\d+,\d+,\d+\]|yarn"
                     r"|(spark|k8s|mesos)://\S+")
_log_file: str | None = None


def valid_master(master: str) -> bool:
    """Whether ``master`` has the form of a Spark master URL (checked before starting a
    JVM, so that a typo is one line on stderr, not a Java stack trace)."""
    return _MASTER.fullmatch(master) is not None


def is_local(master: str) -> bool:
    return master == "local" or master.startswith("local[")


def log_path() -> str | None:
    """Where the JVM's output went (None: on stderr, or a JVM we did not start)."""
    return _log_file


def _log4j_file(level: str) -> str:
    """A log4j2 configuration: Spark's messages at ``level`` and above, the others' warnings
    and errors, on the JVM's stderr.  (Spark's own logger gets a level of its own: a shell
    session -- PySpark's driver is one -- hides the messages of the loggers left at the root
    level below WARN.)"""
    text = _LOG4J.replace("{level}", level)
    path = os.path.join(tempfile.gettempdir(), f"fisheye-spark-log4j2-{level}-{os.getuid()}.properties")
    try:
        with open(path, encoding="utf-8") as f:
            if f.read() == text:
                return path
    except OSError:
        pass
    fd, tmp = tempfile.mkstemp(dir=os.path.dirname(path), suffix=".properties")
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(tmp, path)
    return path


def _log_dir(keep: int = 10) -> str:
    """The directory of the JVM logs (this user's, under the temporary directory), pruned
    to the ``keep`` most recent."""
    d = os.path.join(tempfile.gettempdir(), f"fisheye-spark-logs-{os.getuid()}")
    os.makedirs(d, exist_ok=True)
    logs = sorted((os.path.join(d, f) for f in os.listdir(d)), key=os.path.getmtime)
    for old in logs[:-keep] if len(logs) > keep else []:
        try:
            os.remove(old)
        except OSError:
            pass
    return d


def java_executable() -> str | None:
    """The ``java`` Spark's launcher runs: ``$JAVA_HOME/bin/java``, else the one on the
    ``PATH`` (None: none)."""
    home = os.environ.get("JAVA_HOME")
    if home:
        return os.path.join(home, "bin", "java")
    return shutil.which("java")


def class_archive_path() -> str | None:
    """Where the archive of the classes a driver JVM loads lies (the JDK's class data
    sharing, AppCDS; :func:`write_class_archive`): in this Python environment, named by the
    Java runtime (its path, size and time) and the PySpark version it was made with, so
    that another Java or another Spark never finds it.  None: no Java."""
    import pyspark

    java = java_executable()
    if java is None:
        return None
    try:
        real = os.path.realpath(java)
        st = os.stat(real)
    except OSError:
        return None
    key = f"{real}|{st.st_size}|{st.st_mtime_ns}|{pyspark.__version__}|{DRIVER_JAVA_FLAGS}"
    digest = hashlib.sha256(key.encode()).hexdigest()[:16]
    return os.path.join(sys.prefix, "share", "fisheye", f"spark-driver-classes-{digest}.jsa")


def _class_archive_flag() -> str:
    """The flag that maps the class archive (:func:`write_class_archive`) where there is
    one: the JVM then maps the classes it lists instead of loading and verifying them one
    by one, and the Spark session starts in about 1.7 s instead of 3.8."""
    archive = class_archive_path()
    return f"-XX:SharedArchiveFile={archive}" if archive is not None and os.path.isfile(archive) else ""


def write_class_archive(path: str | None = None) -> str | None:
    """Write the class archive of :func:`class_archive_path` (or ``path``) unless it is
    there: a driver JVM started with ``-XX:ArchiveClassesAtExit`` runs a small local job
    and stops, then the archive it wrote at its exit is moved into place whole (a partly
    written archive is never found).  Run once after installing (``scripts/bootstrap.sh``);
    returns the path, or None where there is no Java.  Starts a JVM: call it in a process
    of its own, before any Spark session (else no JVM is started and nothing written)."""
    from pyspark import SparkContext

    path = path or class_archive_path()
    if path is None or os.path.isfile(path):
        return path
    os.makedirs(os.path.dirname(path), exist_ok=True)
    partial = f"{path}.{os.getpid()}.partial"
    _start_jvm(False, f"-XX:ArchiveClassesAtExit={partial}")
    session = get_session("local[1]", app_name="fisheye-class-archive")
    session.sparkContext.parallelize(range(8), 2).map(lambda x: x + 1).sum()
    session.stop()
    proc = SparkContext._gateway.proc
    proc.stdin.close()  # the JVM ends when its parent's pipe closes, writing the archive
    proc.wait(timeout=120)
    SparkContext._gateway = None
    if not os.path.isfile(partial):
        return None
    os.replace(partial, path)
    return path


def _start_jvm(verbose: bool, class_flag: str | None = None) -> None:
    """Start the JVM gateway (unless spark-submit started it), quiet unless ``verbose``;
    ``class_flag``: the class archive's flag (default: :func:`_class_archive_flag`)."""
    from pyspark import SparkConf, SparkContext

    global _log_file
    if SparkContext._gateway is not None:
        return
    if "PYSPARK_GATEWAY_PORT" in os.environ:          # under spark-submit: join its JVM
        SparkContext._ensure_initialized()
        return
    from pyspark.java_gateway import launch_gateway

    conf = SparkConf()
    log4j = _log4j_file("info" if verbose else "warn")
    archive = _class_archive_flag() if class_flag is None else class_flag
    flags = f"{DRIVER_JAVA_FLAGS} -Dlog4j2.configurationFile=file:{log4j} {archive}".rstrip()
    popen: dict[str, Any] = {}
    if not verbose:
        fd, _log_file = tempfile.mkstemp(prefix="spark-", suffix=".log", dir=_log_dir())
        popen = {"stdout": fd, "stderr": fd}
    conf.set("spark.driver.extraJavaOptions", flags)
    try:
        gateway = launch_gateway(conf, popen_kwargs=dict(popen))
    finally:
        if popen:
            os.close(popen["stderr"])
    SparkContext._ensure_initialized(gateway=gateway)


def get_session(master: str | None = None, *, shuffle_partitions: int = 4, verbose: bool = False,
                checkpoint_dir: str | None = None, app_name: str = APP_NAME,
                conf: dict[str, str] | None = None) -> SparkSession:
    """The active session if there is one with this master (tests share one), else a new one.

    ``master`` None means: the master of ``spark-submit`` if we run under it, else
    ``local[*]``.  ``checkpoint_dir``: a reliable checkpoint directory (on a cluster, one
    every executor can reach: the search then survives the loss of an executor).
    ``conf``: more Spark settings for the job.
    """
    from pyspark import SparkConf
    from pyspark.sql import SparkSession

    active = SparkSession.getActiveSession()
    if active is not None and (master is None or active.sparkContext.master == master):
        if checkpoint_dir is not None:
            active.sparkContext.setCheckpointDir(checkpoint_dir)
        return active
    if active is not None:  # a different master was asked for: one SparkContext per JVM
        active.stop()
    under_submit = "PYSPARK_GATEWAY_PORT" in os.environ
    _start_jvm(verbose)
    launcher_master = SparkConf().get("spark.master", None) if under_submit else None
    chosen = master or launcher_master or DEFAULT_MASTER
    builder = (SparkSession.builder.appName(app_name).master(chosen)
               .config("spark.ui.enabled", "false")
               .config("spark.ui.showConsoleProgress", "false")
               .config("spark.sql.shuffle.partitions", str(shuffle_partitions))
               .config("spark.python.worker.reuse", "true"))
    user_python = os.environ.get("PYSPARK_PYTHON") or SparkConf().get("spark.pyspark.python", None)
    if is_local(chosen) or chosen.startswith("spark://127.0.0.1:"):
        builder = (builder.config("spark.driver.host", "127.0.0.1")
                   .config("spark.driver.bindAddress", "127.0.0.1"))
    if is_local(chosen):
        # One machine: shuffle files need no compression (it only costs CPU here).
        builder = builder.config("spark.shuffle.compress", "false")
    for k, v in (conf or {}).items():
        builder = builder.config(k, v)
    session = builder.getOrCreate()
    sc = session.sparkContext
    # Executors run this interpreter (the one that can import fisheye) unless the user
    # chose one: the interpreter travels with every task of the job, so it reaches the
    # executors of a cluster too (this process's environment does not).
    sc.pythonExec = user_python or sys.executable
    if not verbose and _log_file is None:    # a JVM we did not start writes on the terminal
        sc.setLogLevel("ERROR")
    if checkpoint_dir is not None:
        sc.setCheckpointDir(checkpoint_dir)
    return session


def start_session(master: str | None, *, verbose: bool = False, checkpoint_dir: str | None = None,
                  app_name: str = APP_NAME) -> SparkSession:
    """:func:`get_session` for a command: a master URL that is not one, a missing PySpark
    or Java, a master that cannot be reached are each one :class:`UsageError` line (exit
    status 2), not a Java stack trace."""
    from fisheye.checker.errors import UsageError

    if master is not None and not valid_master(master):
        raise UsageError(f"--master: {master!r} is not a Spark master URL (local[N], spark://HOST:PORT, "
                         "yarn, k8s://URL)")
    try:
        return get_session(master, verbose=verbose, checkpoint_dir=checkpoint_dir, app_name=app_name)
    except Exception as e:
        first = (str(e).strip().splitlines() or [type(e).__name__])[0]
        raise UsageError(f"cannot start Spark (master {master or DEFAULT_MASTER}): {first}") from None
