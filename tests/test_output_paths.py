"""An output path that cannot be written is bad usage found before the work: exit status 2,
one line on stderr naming the option and the path, nothing on stdout, nothing written --
for every command that writes a file (check --output, convert -o, explain --svg and
--html, latency --plot, explore --save)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from fisheye.checker.cli.outputs import require_writable

ROOT = Path(__file__).resolve().parent.parent


def commands(data: Path) -> list[tuple[str, list[str]]]:
    """(option, command line before the path) of every command that writes a file."""
    fig = str(data / "figure4-b1.json")
    return [
        ("--output", ["check", fig, str(data / "figure1.json"), "--model", "sc", "--output"]),
        ("--output", ["check", str(data / "jepsen"), "--model", "lin", "--spark", "--output"]),
        ("--output", ["convert", str(data / "jepsen" / "porcupine-etcd_000.log"), "--to", "json", "-o"]),
        ("--svg", ["explain", fig, "--model", "sc", "--svg"]),
        ("--html", ["explain", fig, "--model", "sc", "--html"]),
        ("--plot", ["latency", str(ROOT / "examples" / "latency" / "one-process-per-region.json"), "--plot"]),
    ]


def unwritable(tmp_path: Path) -> list[tuple[str, str]]:
    """(path, what the message says) for paths that cannot be written."""
    (tmp_path / "a-file").write_text("x")
    return [(str(tmp_path / "missing" / "out"), "does not exist"),
            (str(tmp_path), "is a directory"),
            (str(tmp_path / "a-file" / "out"), "is not a directory")]


@pytest.mark.parametrize("which", range(6))
def test_unwritable_output_is_exit_2_before_the_work(run_cli, tmp_path, data_dir, which):
    option, argv = commands(data_dir)[which]
    for path, why in unwritable(tmp_path):
        before = sorted(tmp_path.rglob("*"))
        r = run_cli(*argv, path)
        assert r.status == 2 and r.out == "", (argv, path)
        assert r.err.startswith(f"fisheye: {option} {path}: ") and why in r.err
        assert len(r.err.splitlines()) == 1
        assert sorted(tmp_path.rglob("*")) == before


def test_explore_save_under_a_file_is_exit_2_before_the_work(run_cli, tmp_path):
    (tmp_path / "a-file").write_text("x")
    r = run_cli("explore", "fig6", "--save", tmp_path / "a-file" / "out")
    assert r.status == 2 and r.out == "" and len(r.err.splitlines()) == 1
    assert r.err.startswith(f"fisheye: --save {tmp_path / 'a-file' / 'out'}: ")


def test_a_writable_path_new_or_existing_passes(tmp_path):
    require_writable(str(tmp_path / "new.json"), "--output")
    (tmp_path / "old.json").write_text("x")
    require_writable(str(tmp_path / "old.json"), "--output")
    require_writable("relative-name.json", "--output")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["old.json"]


def test_check_output_makes_one_file_a_batch_and_writes_its_json_lines(run_cli, tmp_path, data_dir):
    out = tmp_path / "results.jsonl"
    r = run_cli("check", data_dir / "figure4-b1.json", "--model", "sc", "--output", out)
    assert r.status == 1 and r.out.splitlines()[-1].startswith("1 files: 0 consistent, 1 violation")
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert rows[0]["verdict"] == "violation" and rows[0]["file"] == str(data_dir / "figure4-b1.json")
    assert rows[1]["summary"]["violation"] == 1 and rows[1]["exit"] == 1 and len(rows) == 2
