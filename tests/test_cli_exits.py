"""Honest exit statuses of ``fisheye check`` and ``fisheye explore`` (docs/contract.md,
"Command line"): a standard output closed early by its reader keeps the command's own
status (1 violation, 2 bad input), never 0; ``--timeout`` holds while Z3's encoding is
built; a memory budget ends a check with 3 (unknown), never a traceback."""

from __future__ import annotations

import json
import subprocess
import sys
import time
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


def busy_history(path: Path, operations: int = 320) -> Path:
    """A consistent history of four processes (each writes fresh values and reads what it
    wrote last): cheap for the direct engine, and a large Z3 encoding under
    fisheye-2014 (one orientation per pair of operations of neighbours)."""
    procs = ["p0", "p1", "p2", "p3"]
    history: dict[str, list] = {p: [] for p in procs}
    for k in range(operations // 2):
        p = procs[k % 4]
        history[p] += [["w", "X" if k % 3 else "Y", k + 1], ["r", "X" if k % 3 else "Y", k + 1]]
    path.write_text(json.dumps({"processes": procs, "graph": [["p0", "p1"], ["p1", "p2"]],
                                "history": history}), encoding="utf-8")
    return path


def run_fisheye(*args: str | Path) -> tuple[subprocess.CompletedProcess, float]:
    start = time.monotonic()
    proc = subprocess.run([str(FISHEYE), *map(str, args)], capture_output=True, text=True, timeout=300)
    return proc, time.monotonic() - start


def test_z3_timeout_holds_while_the_encoding_is_built(tmp_path):
    path = busy_history(tmp_path / "busy.json")
    proc, seconds = run_fisheye("check", path, "--model", "fisheye-2014", "--engine", "z3", "--timeout", "2")
    assert proc.returncode == 3, proc.stderr
    assert "unknown under fisheye-2014" in proc.stdout
    assert "building the Z3 encoding used up the time budget of" in proc.stdout
    assert "(--timeout 2 s, of which" in proc.stdout  # the rest went to reading the file
    assert "consistent" not in proc.stdout and proc.stderr == ""
    assert seconds < 2 + 5  # the limit plus start-up on a loaded machine; the encoding alone takes longer


@pytest.mark.parametrize(("engine", "memory", "operations"), [
    ("z3", "100M", 320),      # Z3's encoding outgrows it
    ("direct", "8M", 20000),  # the direct engine's closures do (or, near the edge, reading the file)
    ("direct", "1M", 20000),  # reading the file does
])
def test_a_memory_budget_ends_the_check_with_unknown(tmp_path, engine, memory, operations):
    path = busy_history(tmp_path / "busy.json", operations)
    model = "fisheye-2014" if engine == "z3" else "cc"
    proc, _ = run_fisheye("check", path, "--model", model, "--engine", engine, "--memory", memory)
    assert proc.returncode == 3, proc.stderr
    assert "ran out of memory" in proc.stdout + proc.stderr and "Traceback" not in proc.stderr
    assert f"consistent under {model}" not in proc.stdout and "violation" not in proc.stdout


def test_native_libraries_load_before_the_memory_limit(tmp_path):
    """At 64M, numpy's BLAS library (exit 1) or llvmlite (a traceback) failed to load
    under the limit; they are loaded, and the kernels compiled, before it now."""
    path = busy_history(tmp_path / "busy.json")  # 320 operations: the compiled kernels
    proc, _ = run_fisheye("check", path, "--model", "cc", "--engine", "direct", "--memory", "64M")
    assert proc.returncode == 0 and "consistent under cc" in proc.stdout and proc.stderr == ""


def test_memory_option_is_checked(tmp_path):
    path = busy_history(tmp_path / "busy.json", operations=8)
    proc, _ = run_fisheye("check", path, "--model", "cc", "--memory", "lots")
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.strip() == "fisheye: --memory: 'lots' is not a size (e.g. 4G, 512M)"
    proc, _ = run_fisheye("check", path, "--model", "cc", "--memory", "2G")
    assert proc.returncode == 0 and "consistent under cc" in proc.stdout


def test_a_broken_pipe_that_bypasses_the_guard_is_unknown_never_a_pass(run_cli, monkeypatch):
    from fisheye.checker.cli import check as check_cli

    def writes_past_the_guard(args):
        raise BrokenPipeError(32, "Broken pipe")

    monkeypatch.setattr(check_cli, "run", writes_past_the_guard)
    r = run_cli("check", EXAMPLES / "fig4.json", "--model", "sc")
    assert r.status == 3 and "standard output was closed before the end" in r.err
