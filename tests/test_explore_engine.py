"""The local search's storage: fingerprints or exact states give the same report; a
frontier spilled to disk changes nothing; a budget of N states reports at most N; a run
killed mid-way (SIGKILL) and resumed from its checkpoint gives the report of an
uninterrupted run; Ctrl-C gives a partial report marked incomplete."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import pytest

from fisheye.checker.explore import make_context, run
from fisheye.impl.api import Step, replay

# keys that depend on time, memory or storage, not on what was explored
VOLATILE = {"seconds", "states_per_second", "cpu_seconds", "peak_memory_bytes", "visited_bytes",
            "fingerprints", "exact_states", "resumed", "kernel"}


def same(a: dict, b: dict) -> tuple[dict, dict]:
    def keep(r: dict) -> dict:
        return {k: v for k, v in r.items() if k not in VOLATILE}
    return keep(a), keep(b)


@pytest.mark.parametrize("scenario,graph,mutant", [
    ("paris-berlin-newyork", "paper", None),
    ("p0: write(X,1), read(X); p1: write(X,2), read(X)", "p0:p1", "opposite-tie-break"),
    ("p0: write(X,1), read(X); p1: write(X,2), read(X)", "p0:p1", "no-catch-up"),
])
def test_fingerprints_and_exact_states_give_the_same_report(scenario, graph, mutant):
    fp = run(make_context(scenario, graph, mutant=mutant))
    ex = run(make_context(scenario, graph, mutant=mutant), exact=True)
    a, b = same(fp, ex)
    assert a == b
    assert fp["complete"] and fp["fingerprints"]["bits"] == 64
    assert 0 < fp["fingerprints"]["collision_probability"] < 1e-9
    assert ex["fingerprints"] is None and ex["exact_states"]
    assert fp["visited_bytes"] == 8 * fp["states"]
    if mutant:
        assert fp["violations"], "the mutant must show violations (schedules rebuilt from the log)"
        system = make_context(scenario, graph, mutant=mutant, reduction="none").system
        for v in fp["violations"]:
            replay(system, [Step.from_json(s) for s in v["schedule"]])


def test_a_frontier_spilled_to_disk_changes_nothing():
    base = run(make_context("paris-berlin-newyork", "complete"), max_states=20000)
    tiny = run(make_context("paris-berlin-newyork", "complete"), max_states=20000, memory=1)
    assert same(base, tiny)[0] == same(base, tiny)[1]


@pytest.mark.parametrize("n", [1, 2, 7, 100, 1000])
def test_a_state_budget_is_never_exceeded(n):
    r = run(make_context("fig6", "paper"), max_states=n)
    assert r["states"] == n and not r["complete"]
    assert "max-states" in r["stopped"]


def _cli(*args: str) -> list[str]:
    return [sys.executable, "-m", "fisheye.checker.cli", "explore", *args]


ARGS = ("paris-berlin-newyork", "--graph", "paper", "--json", "--quiet")


def _wait_for_checkpoint(proc: subprocess.Popen, d: str, depth: int) -> None:
    meta = os.path.join(d, "checkpoint", "meta.json")
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:
        assert proc.poll() is None, "the run ended before it could be interrupted"
        try:
            with open(meta) as f:
                if json.load(f)["depth"] >= depth:
                    return
        except (OSError, ValueError):
            pass
        time.sleep(0.05)
    raise AssertionError("no checkpoint appeared")


def test_a_killed_run_resumes_from_its_checkpoint_with_the_same_report(tmp_path):
    d = str(tmp_path / "ck")
    proc = subprocess.Popen(_cli(*ARGS, "--checkpoint", d, "--checkpoint-every", "0"),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    _wait_for_checkpoint(proc, d, 10)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    with open(os.path.join(d, "checkpoint", "meta.json")) as f:
        saved = json.load(f)
    out = subprocess.run(_cli(*ARGS, "--resume", d), capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    resumed = json.loads(out.stdout)
    whole = run(make_context("paris-berlin-newyork", "paper"))
    assert resumed["resumed"] and resumed["complete"]
    assert 0 < saved["states"] < whole["states"]
    a, b = same(resumed, whole)
    assert a == b


def test_resuming_another_exploration_is_refused(tmp_path):
    d = str(tmp_path / "ck")
    subprocess.run(_cli(*ARGS, "--checkpoint", d, "--checkpoint-every", "0", "--max-states", "3000"),
                   capture_output=True, check=False)
    out = subprocess.run(_cli("fig6", "--json", "--quiet", "--resume", d), capture_output=True, text=True)
    assert out.returncode == 2 and "another exploration" in out.stderr
    assert "Traceback" not in out.stderr


def _interruptible() -> None:
    """In the child: Ctrl-C back to its default.  A child inherits an ignored SIGINT
    (pytest-xdist's workers ignore it), and Python then never raises KeyboardInterrupt."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def test_ctrl_c_gives_the_partial_report_marked_incomplete(tmp_path):
    # fig6 on the paper graph (millions of states): it cannot end on its own between the
    # checkpoint seen and the signal, however loaded the machine
    d = str(tmp_path / "ck")
    proc = subprocess.Popen(_cli("fig6", "--graph", "paper", "--json", "--quiet", "--checkpoint", d,
                                 "--checkpoint-every", "0"),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=_interruptible)
    _wait_for_checkpoint(proc, d, 6)
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=120)
    r = json.loads(out)
    assert proc.returncode == 3, err
    assert not r["complete"] and "interrupted" in r["stopped"]
    assert r["states"] > 1
