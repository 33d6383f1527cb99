"""``fisheye check DIR --spark``: a corpus of history files checked on Spark (``local[2]``),
packed into tasks largest first, with the batch's rows, lines, summary and exit status,
bad files reported one line each while the others are still checked; ``--output`` writes
the JSON lines; the options that do not apply are usage errors."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from fisheye.checker.cli.check_spark import check_files, file_size, pack
from fisheye.checker.cli.main import build_parser

pytestmark = pytest.mark.spark

MASTER = "local[2]"
JEPSEN = Path(__file__).parent / "data" / "jepsen"


def corpus(tmp_path: Path, data_dir: Path) -> Path:
    """Consistent and violating histories, Jepsen logs (tabs and spaces) and bad input."""
    d = tmp_path / "corpus"
    (d / "sub").mkdir(parents=True)
    (d / "a-consistent.json").write_text((data_dir / "figure4-b3.json").read_text())
    (d / "sub" / "b-violation.json").write_text((data_dir / "figure4-b1.json").read_text())
    (d / "c-etcd.log").write_text((JEPSEN / "porcupine-etcd_002.log").read_text())
    (d / "d-etcd-spaced.log").write_text((JEPSEN / "porcupine-etcd_000.log").read_text().replace("\t", " "))
    (d / "e-bad.json").write_text("[")
    (d / "f-deep.edn").write_text("[" * 500 + "]" * 500)
    (d / "g-cas.json").write_text(json.dumps({"history": {"p": [["cas", "X", [0, 1]]]}}))
    return d


def timeless(record: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in record.items() if k != "seconds"}


def test_files_packed_largest_first_into_the_least_loaded_task(tmp_path):
    assert pack([3, 10, 3, 7, 0], 2) == [[1, 2], [3, 0, 4]]     # 13 and 10 bytes
    assert pack([3, 10, 3, 7, 0], 3) == [[1], [3], [0, 2, 4]]
    assert pack([5, 5, 5], 8) == [[0], [1], [2]]            # never an empty task
    assert pack([], 4) == []
    sizes = [(i * 7919) % 1000 for i in range(2000)]
    tasks = pack(sizes, 32)
    assert sorted(i for t in tasks for i in t) == list(range(2000))
    loads = [sum(sizes[i] for i in t) for t in tasks]
    assert len(tasks) == 32 and max(loads) - min(loads) <= max(sizes)
    assert all(sizes[t[k]] >= sizes[t[k + 1]] for t in tasks for k in range(len(t) - 1))
    (tmp_path / "a").write_text("xyz")
    assert (file_size(str(tmp_path / "a")), file_size(str(tmp_path / "missing"))) == (3, 0)


def test_spark_gives_the_batch_rows_summary_and_exit_status(run_cli, tmp_path, data_dir):
    d = corpus(tmp_path, data_dir)
    batch = run_cli("check", d, "--model", "sc", "--json", "--output", tmp_path / "batch.jsonl")
    spark = run_cli("check", d, "--model", "sc", "--json", "--spark", "--master", MASTER,
                    "--output", tmp_path / "spark.jsonl")
    assert batch.status == spark.status == 2
    rows = [json.loads(line) for line in spark.out.splitlines()]
    assert [timeless(r) for r in rows[:-1]] == [timeless(json.loads(r)) for r in batch.out.splitlines()[:-1]]
    assert [r.get("verdict", "bad input") for r in rows[:-1]] == [
        "consistent", "consistent", "consistent", "bad input", "bad input", "consistent", "violation"]
    assert rows[-1]["summary"] == {"files": 7, "consistent": 4, "violation": 1, "unknown": 0, "bad_input": 2}
    assert rows[-1]["exit"] == 2
    assert spark.err == batch.err and len(spark.err.splitlines()) == 2
    assert "nested more than 100 levels deep" in spark.err
    written = (tmp_path / "spark.jsonl").read_text().splitlines()
    assert [json.loads(w) for w in written] == rows


def test_spark_text_output_is_the_batch_s(run_cli, tmp_path, data_dir):
    d = corpus(tmp_path, data_dir)
    (d / "e-bad.json").unlink()
    (d / "f-deep.edn").unlink()
    (d / "g-cas.json").unlink()
    batch = run_cli("check", d, "--model", "lin")
    spark = run_cli("check", d, "--model", "lin", "--spark", "--master", MASTER)

    def lines(out: str) -> list[str]:
        return [re.sub(r"\d+\.\d+ s\)", "S s)", line) for line in out.splitlines()]

    assert batch.status == spark.status == 2     # the sc-only figures have no real time
    assert lines(spark.out) == lines(batch.out) and spark.err == batch.err
    assert lines(spark.out)[-1] == "4 files: 1 consistent, 1 violation, 0 unknown, 2 bad input (S s)"


def test_a_quoted_pattern_names_the_files_it_matches(run_cli, tmp_path, data_dir, monkeypatch):
    d = corpus(tmp_path, data_dir)
    monkeypatch.chdir(d)
    r = run_cli("check", "**/*.log", "--model", "lin", "--spark", "--master", MASTER)
    assert r.status == 1 and r.err == ""
    assert [line.split(":")[0] for line in r.out.splitlines()[:2]] == ["c-etcd.log", "d-etcd-spaced.log"]
    assert run_cli("check", "nothing/*.log", "--model", "lin").err.startswith(
        "fisheye: nothing/*.log: the pattern matches no file")


def test_rows_come_back_in_the_order_given(tmp_path, data_dir):
    from fisheye.checker.spark.session import get_session

    d = corpus(tmp_path, data_dir)
    files = sorted(str(p) for p in d.rglob("*.json"))
    args = build_parser().parse_args(["check", "-", "--model", "cc"])
    rows = check_files(get_session(MASTER), args, files)
    assert [r.name for r in rows] == files
    assert [r.outcome for r in rows] == ["consistent", "bad input", "bad input", "consistent"]


@pytest.mark.parametrize(("args", "message"), [
    (["--master", "local[2]"], "--master applies to --spark"),
    (["--spark", "--progress"], "--progress applies to the files checked in this process"),
    (["--spark", "--master", "local[two]"], "--master: 'local[two]' is not a Spark master URL"),
])
def test_options_that_do_not_apply_are_usage_errors(run_cli, data_dir, args, message):
    r = run_cli("check", data_dir / "figure1.json", "--model", "cc", *args)
    assert r.status == 2 and r.out == "" and r.err.startswith(f"fisheye: {message}")
    assert len(r.err.splitlines()) == 1


def test_standard_input_is_not_a_corpus_file(run_cli, data_dir):
    r = run_cli("check", "-", data_dir / "figure1.json", "--model", "cc", "--spark", "--master", MASTER)
    assert r.status == 2 and r.err.startswith("fisheye: --spark checks files: - (standard input)")


def test_a_usage_error_on_an_executor_is_one_line_and_nothing_written(run_cli, tmp_path, data_dir,
                                                                     monkeypatch):
    from fisheye.checker.cli import check_batch as check_cli
    from fisheye.checker.cli import check_spark as corpus_module

    def no_engine(*args: Any, **kwargs: Any) -> None:
        raise ModuleNotFoundError("No module named 'z3'")

    monkeypatch.setattr(check_cli, "check", no_engine)
    options = build_parser().parse_args(["check", "-", "--model", "cc", "--engine", "z3"])
    failure = corpus_module._check_one(options, str(tmp_path), str(data_dir / "figure1.json"))
    assert failure == corpus_module.UsageFailure("engine 'z3' is not available (No module named 'z3')")
    monkeypatch.setattr(corpus_module, "check_files", lambda *a: [failure])
    out = tmp_path / "results.jsonl"
    r = run_cli("check", data_dir / "figure1.json", "--model", "cc", "--spark", "--master", MASTER,
                "--output", out)
    assert r.status == 2 and r.out == "" and r.err == f"fisheye: {failure.message}\n"
    assert not out.exists()
