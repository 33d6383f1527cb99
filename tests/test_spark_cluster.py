"""The Spark engine on a real standalone cluster (``scripts/spark-cluster.sh``: a master and
two 1-core workers on 127.0.0.1, separate JVMs and Python workers): the local engine's
report, through Spark's shuffle and through files in a shared directory; the same
report when one worker is killed (SIGKILL) in the middle of a run (the
levels are read back from the reliable checkpoint directory); executors that take their
settings from the job, not from the driver's environment; ``stop`` ends only the
processes ``start`` recorded.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from fisheye.checker.explore import make_context
from fisheye.checker.explore.engine import explore as local_explore
from fisheye.checker.explore.report import ReportBuilder
from fisheye.checker.spark import explore as spark_explore

pytestmark = pytest.mark.spark

SCRIPT = Path(__file__).resolve().parent.parent / "scripts" / "spark-cluster.sh"
PUBLISHED = "p0: write(X,1); p1: a=read(X); p2: write(X,2)"     # causal-order violations
SAME = ("states", "terminal_states", "histories", "deadlocks", "pruned", "transitions", "max_depth",
        "outcomes", "violations_total", "complete")


def cluster(state: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "FISHEYE_SPARK_CLUSTER": str(state), "PYTHON": sys.executable}
    return subprocess.run(["bash", str(SCRIPT), *args], capture_output=True, text=True, env=env, timeout=300)


@pytest.fixture(scope="module")
def started(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    state = tmp_path_factory.mktemp("cluster")
    r = cluster(state, "start")
    assert r.returncode == 0, r.stderr
    url = r.stdout.strip()
    pids = {p.stem: int(p.read_text()) for p in state.glob("*.pid")}
    try:
        yield {"state": state, "url": url, "pids": pids, "status": cluster(state, "status")}
    finally:
        from pyspark.sql import SparkSession

        active = SparkSession.getActiveSession()
        if active is not None:
            active.stop()
        cluster(state, "stop")


@pytest.fixture(scope="module")
def spark(started: dict[str, Any], tmp_path_factory: pytest.TempPathFactory) -> Any:
    from fisheye.checker.spark.session import get_session

    return get_session(started["url"], checkpoint_dir=str(tmp_path_factory.mktemp("checkpoints")))


def local_report() -> dict[str, Any]:
    ctx = make_context(PUBLISHED, "p0:p1", variant="published")
    return local_explore(ctx, ReportBuilder(ctx, "protocol"))


def executors(spark: Any) -> int:
    """Executors the driver knows (the driver's own block manager excluded)."""
    return spark.sparkContext._jsc.sc().getExecutorMemoryStatus().size() - 1


def children(pid: int) -> list[int]:
    """The descendants of ``pid`` (Linux /proc)."""
    out: list[int] = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        for c in (task / "children").read_text().split():
            out += [int(c), *children(int(c))]
    return out


def test_start_prints_the_master_url_and_status_lists_the_processes(started: dict[str, Any]) -> None:
    assert started["url"].startswith("spark://127.0.0.1:")
    assert set(started["pids"]) == {"master", "worker-1", "worker-2"}
    st = started["status"]
    assert st.returncode == 0 and st.stdout.count(" running") == 3 and started["url"] in st.stdout


def test_cluster_gives_the_local_report_and_executors_use_the_jobs_settings(spark: Any) -> None:
    sc = spark.sparkContext
    assert sc.master.startswith("spark://127.0.0.1:") and sc.defaultParallelism == 2
    # The executors' interpreter and environment come from the job, not from this process:
    # the workers were started with a plain environment, and PYSPARK_PYTHON is unset here.
    assert "PYSPARK_PYTHON" not in os.environ
    seen = sc.parallelize(range(4), 4).map(lambda _: (sys.executable, os.getpid())).collect()
    assert {exe for exe, _ in seen} == {sys.executable}
    assert os.getpid() not in {pid for _, pid in seen}
    ctx = make_context(PUBLISHED, "p0:p1", variant="published")
    remote = spark_explore(ctx, ReportBuilder(ctx, "protocol", engine="spark"), spark=spark, driver_width=0)
    local = local_report()
    assert {k: remote[k] for k in SAME} == {k: local[k] for k in SAME}
    assert remote["violations"] == local["violations"] and local["violations_total"] == 3
    assert remote["spark"]["levels_on_spark"] == remote["spark"]["levels"] > local["max_depth"]
    assert remote["spark"]["exchange"] == "shuffle"         # the default of a cluster


@pytest.mark.parametrize("kernel", ["compiled", "python"])
def test_cluster_with_an_exchange_directory_gives_the_local_report(spark: Any, tmp_path: Path,
                                                                   kernel: str) -> None:
    """``--exchange DIR`` on a one-host cluster: the executors (separate JVMs and Python
    workers) and the driver move every level's states through files in DIR; the directory
    is empty again at the end."""
    ctx = make_context(PUBLISHED, "p0:p1", variant="published")
    seen: list[int] = []

    def look(stat: Any) -> None:
        seen.append(len(list(tmp_path.iterdir())))

    remote = spark_explore(ctx, ReportBuilder(ctx, "protocol", engine="spark"), spark=spark, driver_width=0,
                           exchange_dir=str(tmp_path), kernel=kernel, progress=look)
    local = local_report()
    assert remote["spark"]["exchange"] == "files" and remote["kernel"] == kernel
    assert remote["spark"]["levels_on_spark"] == remote["spark"]["levels"] > local["max_depth"]
    assert {k: remote[k] for k in SAME} == {k: local[k] for k in SAME}
    assert remote["violations"] == local["violations"]
    assert seen and set(seen) == {1} and list(tmp_path.iterdir()) == []


def test_a_corpus_on_the_cluster_gives_the_batch_rows(spark: Any, started: dict[str, Any], run_cli: Any,
                                                      tmp_path: Path, monkeypatch: Any) -> None:
    """``check --spark --master URL``: the files checked on the workers (whose working
    directory is their own: relative paths are the driver's), the batch's output."""
    from fisheye.checker.cli.check_batch import batch_row
    from fisheye.checker.cli.check_spark import check_files
    from fisheye.checker.cli.main import build_parser

    data = Path(__file__).parent / "data"
    (tmp_path / "sub").mkdir()
    for name in ("figure1.json", "figure4-b1.json", "figure4-b3.json"):
        (tmp_path / "sub" / name).write_text((data / name).read_text())
    (tmp_path / "sub" / "spaced.log").write_text((data / "jepsen" / "porcupine-etcd_000.log").read_text()
                                                 .replace("\t", " "))
    (tmp_path / "sub" / "deep.edn").write_text("[" * 1000)
    monkeypatch.chdir(tmp_path)
    files = sorted(str(p.relative_to(tmp_path)) for p in (tmp_path / "sub").iterdir())
    args = build_parser().parse_args(["check", "-", "--model", "sc"])
    rows = check_files(spark, args, files)
    local = [batch_row(args, f) for f in files]
    assert [(r.name, r.outcome, r.line.split("(")[0], r.error) for r in rows] == \
        [(r.name, r.outcome, r.line.split("(")[0], r.error) for r in local]
    assert [r.outcome for r in rows] == ["bad input", "consistent", "violation", "consistent", "consistent"]
    batch = run_cli("check", "sub", "--model", "sc")
    remote = run_cli("check", "sub", "--model", "sc", "--spark", "--master", started["url"])
    assert remote.status == batch.status == 2 and remote.err == batch.err
    assert [line.split("(")[0] for line in remote.out.splitlines()] == \
        [line.split("(")[0] for line in batch.out.splitlines()]


def test_a_worker_killed_mid_run_still_gives_the_identical_report(spark: Any,
                                                                  started: dict[str, Any]) -> None:
    assert executors(spark) == 2
    victim = started["pids"]["worker-1"]
    killed: list[int] = []
    seen: list[int] = []

    def kill_at_level_5(stat: Any) -> None:
        """The worker dies as its machine would: with the executor it launched (an orphaned
        executor only notices its worker's death later, and could finish the run alone)."""
        if stat.level == 5 and not killed:
            for pid in [victim, *children(victim)]:
                os.kill(pid, signal.SIGKILL)
            killed.append(stat.level)
            deadline = time.monotonic() + 120
            while executors(spark) > 1 and time.monotonic() < deadline:   # the loss is noticed
                time.sleep(0.2)
            seen.append(executors(spark))

    ctx = make_context(PUBLISHED, "p0:p1", variant="published")
    remote = spark_explore(ctx, ReportBuilder(ctx, "protocol", engine="spark"), spark=spark, driver_width=0,
                           progress=kill_at_level_5)
    assert killed == [5] and seen == [1]             # the driver lost the executor at level 5
    assert executors(spark) == 1                     # the rest ran on the surviving worker
    local = local_report()
    assert {k: remote[k] for k in SAME} == {k: local[k] for k in SAME}
    assert remote["violations"] == local["violations"]
    st = cluster(started["state"], "status")
    assert st.returncode == 1 and "worker-1 pid" in st.stdout and "not running" in st.stdout


def test_stop_ends_only_the_recorded_processes(tmp_path: Path) -> None:
    """A recorded PID that no longer runs a Spark daemon (PIDs are reused) is left alone."""
    bystander = subprocess.Popen(["sleep", "60"])
    try:
        (tmp_path / "worker-1.pid").write_text(f"{bystander.pid}\n")
        r = cluster(tmp_path, "stop")
        assert r.returncode == 0 and bystander.poll() is None
        assert not (tmp_path / "worker-1.pid").exists()
    finally:
        bystander.kill()
        bystander.wait()


def test_stop_ends_the_cluster(spark: Any, started: dict[str, Any]) -> None:
    spark.stop()
    r = cluster(started["state"], "stop")
    assert r.returncode == 0 and "stopped master" in r.stdout
    for pid in started["pids"].values():
        assert not Path(f"/proc/{pid}").exists() or "Z" in Path(f"/proc/{pid}/stat").read_text().split()[2]
    assert cluster(started["state"], "status").returncode == 1
