"""``fisheye check --timeout`` covers the whole check of a file: its reading, the
engines' searches (their linear passes over the history included) and the validation of
a consistent verdict's witness by the spec.  Running out is exit 3 (unknown), never a
consistent verdict given late."""

from __future__ import annotations

import json
import random
import resource
import subprocess
import sys
import time
from pathlib import Path

import pytest

from fisheye.checker.cli.main import main
from fisheye.checker.engines import check
from fisheye.checker.result import Verdict
from fisheye.spec.history import parse_history

FISHEYE = Path(sys.executable).parent / "fisheye"
SLACK = 4.0
"""Seconds a command may take beyond its --timeout: the interpreter's start-up, and the
longest step that does not look at the deadline (a compiled closure of the history)."""


def serial_history(operations: int, processes: int = 8, registers: int = 20, seed: int = 1) -> dict:
    """A random run of one shared memory (fresh values): consistent under every model."""
    rng = random.Random(seed)
    procs = [f"p{i}" for i in range(processes)]
    memory = dict.fromkeys(range(registers), 0)
    history: dict[str, list] = {p: [] for p in procs}
    for k in range(operations):
        p, x = rng.choice(procs), rng.randrange(registers)
        if rng.random() < 0.5:
            memory[x] = k + 1
            history[p].append(["w", f"R{x}", k + 1])
        else:
            history[p].append(["r", f"R{x}", memory[x]])
    return {"processes": procs, "graph": [], "history": history}


def test_the_timeout_counts_the_reading_of_the_file(tmp_path, monkeypatch, capsys):
    """A file whose reading outlasts --timeout is unknown: the engines do not get a fresh
    budget after it (they would find this history consistent at once)."""
    from fisheye.checker.cli import check_batch

    path = tmp_path / "h.json"
    path.write_text(json.dumps(serial_history(40)), encoding="utf-8")
    real_load = check_batch.load

    def slow_load(*args, **kwargs):
        time.sleep(0.6)
        return real_load(*args, **kwargs)

    monkeypatch.setattr(check_batch, "load", slow_load)
    assert main(["check", str(path), "--model", "cc", "--timeout", "0.5"]) == 3
    out = capsys.readouterr().out
    assert "unknown under cc" in out and "while the file was read" in out
    assert main(["check", str(path), "--model", "cc", "--timeout", "30"]) == 0


def test_a_reading_that_outlasts_the_timeout_is_cut_at_the_limit(tmp_path, monkeypatch, capsys):
    """The reading itself is interrupted when --timeout passes (the parsers look at no
    clock): a file that would take 5 s to read under a 0.4 s limit answers unknown within a
    second, in a single check and in a batch (whose other files are still checked)."""
    from fisheye.checker.cli import check_batch

    path = tmp_path / "h.json"
    path.write_text(json.dumps(serial_history(40)), encoding="utf-8")
    other = tmp_path / "other.json"
    other.write_text(json.dumps(serial_history(30, seed=2)), encoding="utf-8")
    real_load = check_batch.load

    def slow_load(file, *args, **kwargs):
        if file == str(path):
            for _ in range(100):   # a Python loop, as the parsers are
                time.sleep(0.05)
        return real_load(file, *args, **kwargs)

    monkeypatch.setattr(check_batch, "load", slow_load)
    start = time.monotonic()
    assert main(["check", str(path), "--model", "cc", "--timeout", "0.4"]) == 3
    assert time.monotonic() - start < 2.0
    out = capsys.readouterr().out
    assert "unknown under cc" in out and "while the file was read" in out
    start = time.monotonic()
    assert main(["check", str(path), str(other), "--model", "cc", "--timeout", "0.4", "--json"]) == 3
    assert time.monotonic() - start < 3.0
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines() if line.startswith("{")]
    verdicts = {row.get("file"): row.get("verdict") for row in rows}
    assert verdicts[str(path)] == "unknown" and verdicts[str(other)] == "consistent", rows
    assert "operations" not in next(row for row in rows if row.get("file") == str(path))


def test_a_witness_whose_validation_outlasts_the_timeout_is_not_a_pass(monkeypatch):
    """The engine finds a witness in time, but its validation by the spec (clause by
    clause, process by process) passes the deadline: unknown, without the witness."""
    from fisheye.spec import validate

    history = parse_history(serial_history(60, processes=4))
    real = validate.legality_problems

    def slow_legality(*args, **kwargs):
        time.sleep(0.3)
        return real(*args, **kwargs)

    monkeypatch.setattr(validate, "legality_problems", slow_legality)
    late = check(history, "fisheye", timeout=0.5)
    assert late.verdict is Verdict.UNKNOWN and late.witness is None
    assert "validated" in late.message
    assert check(history, "fisheye", timeout=30).verdict is Verdict.CONSISTENT


@pytest.mark.parametrize("model, timeout", [("sc", 2.0), ("fisheye", 3.0), ("fisheye-2014", 4.0)])
def test_the_timeout_holds_on_a_large_history(tmp_path, model, timeout):
    """200,000 operations (about 6-20 CPU seconds to check and validate in full): the
    command returns within --timeout plus a few seconds, unknown or consistent."""
    path = tmp_path / "big.json"
    path.write_text(json.dumps(serial_history(200_000)), encoding="utf-8")
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.monotonic()
    proc = subprocess.run([str(FISHEYE), "check", str(path), "--model", model, "--timeout", str(timeout)],
                          capture_output=True, text=True, timeout=300)
    seconds = time.monotonic() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    assert proc.returncode in (0, 3), proc.stderr
    assert "Traceback" not in proc.stderr
    # The deadline is on the wall clock, so the CPU spent before it passes is at most the
    # limit, whatever the load; what comes after it is work that ignores the deadline.  The
    # CPU bound is the sharp one (a loaded machine stretches the wall time, not the CPU
    # time); the wall bound catches a command that waits instead of working.
    assert cpu <= timeout + SLACK, (cpu, seconds, proc.stdout)
    assert seconds <= 3 * (timeout + SLACK), (cpu, seconds, proc.stdout)
