"""Honest exit statuses of ``fisheye check`` and ``fisheye explore`` (docs/contract.md,
"Command line"): a standard output closed early by its reader keeps the command's own
status (1 violation, 2 bad input), never 0."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

FISHEYE = Path(sys.executable).parent / "fisheye"
EXAMPLES = Path(__file__).parent.parent / "examples"


def run_with_stdout_closed(*args: str | Path, read_lines: int = 0) -> subprocess.CompletedProcess:
    """Run ``fisheye ARGS``, read ``read_lines`` lines of its standard output, then close
    the pipe (as ``| head -N`` does) and wait for its exit status."""
    proc = subprocess.Popen([str(FISHEYE), *map(str, args)], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    assert proc.stdout is not None and proc.stderr is not None
    for _ in range(read_lines):
        proc.stdout.readline()
    proc.stdout.close()
    err = proc.stderr.read()
    proc.wait(timeout=120)
    return subprocess.CompletedProcess(proc.args, proc.returncode, "", err)


def test_violation_piped_into_a_closed_reader_exits_1():
    r = run_with_stdout_closed("check", EXAMPLES / "fig4.json", "--model", "sc")
    assert r.returncode == 1 and "Traceback" not in r.stderr and r.stderr == ""


def test_batch_whose_first_file_is_bad_input_piped_into_head_exits_2(tmp_path):
    (tmp_path / "a-bad.json").write_text("[", encoding="utf-8")
    (tmp_path / "b-fig4.json").write_text((EXAMPLES / "fig4.json").read_text(), encoding="utf-8")
    r = run_with_stdout_closed("check", tmp_path, "--model", "cc", read_lines=1)
    assert r.returncode == 2 and "Traceback" not in r.stderr
    lines = r.stderr.splitlines()
    assert len(lines) == 1 and "a-bad.json: is not JSON" in lines[0]


@pytest.mark.parametrize("read_lines", [0, 1, 3])
def test_explore_quiet_with_violations_piped_into_head_keeps_exit_1(read_lines):
    r = run_with_stdout_closed("explore", "p0: write(X,1), read(X); p1: write(X,2), read(X)",
                               "--graph", "p0:p1", "--mutant", "opposite-tie-break", "--quiet",
                               read_lines=read_lines)
    assert r.returncode == 1 and "Traceback" not in r.stderr
