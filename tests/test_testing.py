"""fisheye.testing on the built-in algorithms: the assertions, the state machine, the
strategies, and the pytest plugin seen from a user's pytest run (a subprocess on a
deliberately failing test file)."""

from __future__ import annotations

import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis.stateful import run_state_machine_as_test

import fisheye
from fisheye.checker.systems import make
from fisheye.impl.api import SystemRequest
from fisheye.testing import SystemMachine, VerificationFailure, assert_consistent, assert_explores_clean
from fisheye.testing.strategies import programs, schedules

ROOT = Path(__file__).resolve().parent.parent
FIG4 = ROOT / "examples" / "fig4.json"
PROGRAM = "p0: write(X,1), read(Y), read(X); p1: ; p2: await X==1, write(X,3), write(Y,5)"
"""A program on which the published Algorithm 1 breaks causal order (graph p0:p1)."""


def test_assert_consistent_passes_and_fails_with_the_explanation(tmp_path):
    assert assert_consistent(FIG4, "cc").verdict is fisheye.Verdict.CONSISTENT
    with pytest.raises(VerificationFailure) as failed:
        assert_consistent(FIG4, "fisheye")
    message, [path] = str(failed.value), failed.value.files
    assert fisheye.explain(FIG4, "fisheye").text() in message
    assert f"Replay: fisheye explain {path} --model fisheye" in message
    assert fisheye.check(path, "fisheye").verdict is fisheye.Verdict.VIOLATION   # the file replays
    with pytest.raises(VerificationFailure, match=r"unknown \(never a pass\): building the Z3") as unknown:
        assert_consistent(FIG4, "fisheye", graph="empty", engine="z3", timeout=1e-9)
    [path] = unknown.value.files
    assert unknown.value.replays == (f"fisheye check {path} --model fisheye",)
    assert str(unknown.value).endswith(f"Replay: fisheye check {path} --model fisheye")


def test_assert_explores_clean_on_algorithm_2():
    rep = assert_explores_clean("toco", PROGRAM, model="cc", graph="p0:p1")
    assert rep.ok and rep["histories"] > 1
    with pytest.raises(VerificationFailure) as failed:
        assert_explores_clean("toco", PROGRAM, model="cc", graph="p0:p1", variant="published")
    message = str(failed.value)
    assert "the first violates causal order" in message and "Replay script:" in message
    assert len(failed.value.files) == 3 and f"Replay: fisheye explain {failed.value.files[0]}" in message
    with pytest.raises(VerificationFailure, match="unknown"):
        assert_explores_clean("toco", PROGRAM, model="cc", graph="p0:p1", max_states=3)


class PublishedAlgorithm1(SystemMachine):
    """Algorithm 2 over the published Algorithm 1: random runs break causal order."""

    def make_system(self):
        return make("toco", SystemRequest(PROGRAM, graph="p0:p1", variant="published"))


class CorrectedAlgorithm1(SystemMachine):
    """Algorithm 2 over the corrected Algorithm 1: every run keeps every property."""

    def make_system(self):
        return make("toco", SystemRequest(PROGRAM, graph="p0:p1"))


TestCorrectedAlgorithm1 = CorrectedAlgorithm1.TestCase
TestCorrectedAlgorithm1.settings = settings(max_examples=15, stateful_step_count=10, deadline=None)


@pytest.mark.slow
def test_the_state_machine_finds_the_published_algorithms_violation():
    with pytest.raises(VerificationFailure, match="violates causal order") as failed:
        run_state_machine_as_test(PublishedAlgorithm1, settings=settings(
            max_examples=100, stateful_step_count=12, deadline=None, database=None, derandomize=True))
    assert "Replay: fisheye explain" in str(failed.value)
    [path] = failed.value.files
    assert fisheye.explain(path).reproduced      # the file replays the shrunk run


@settings(max_examples=10, deadline=None)
@given(programs(max_processes=3, max_ops=2).filter(lambda p: sum(map(len, p.ops)) <= 4))
def test_random_programs_keep_causal_consistency_on_algorithm_2(program):
    # at most four operations: the searches fit the budget (three processes writing four
    # times, 'p0: write(X,1), write(X,2); p1: write(X,3); p2: write(X,4)', take 50,459
    # states; six operations can take millions, and a cut search is never a pass)
    assert_explores_clean("toco", str(program), model="cc", graph="empty", max_states=200_000)


@settings(max_examples=10, deadline=None)
@given(data=__import__("hypothesis").strategies.data())
def test_schedules_are_runs_of_the_system(data):
    system = make("toco", SystemRequest(PROGRAM, graph="p0:p1"))
    run = data.draw(schedules(system))
    state = fisheye.replay(system, run)
    assert not system.enabled(state)      # a schedule runs until no step is enabled


FAILING_SUITE = '''
import fisheye
from fisheye.testing import assert_consistent, assert_explores_clean

def test_fig4_is_fisheye_consistent():
    assert_consistent(fisheye.load({fig4!r}), "fisheye")

def test_the_published_algorithm_1_is_causal():
    assert_explores_clean("toco", {program!r}, model="cc", graph="p0:p1", variant="published")
'''


def test_a_failing_check_shows_the_explanation_and_the_replay_command_in_pytest(tmp_path):
    (tmp_path / "test_user.py").write_text(textwrap.dedent(FAILING_SUITE.format(fig4=str(FIG4),
                                                                                program=PROGRAM)))
    saved = tmp_path / "found"
    run = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--fisheye-dir",
                          str(saved), "--junitxml", "junit.xml", "test_user.py"],
                         cwd=tmp_path, capture_output=True, text=True)
    out = run.stdout
    assert run.returncode == 1 and "2 failed" in out, out + run.stderr
    assert "VerificationFailure: the history violates fisheye" in out
    assert "Minimal core: 4 of 9 operations." in out and "a contradiction" in out
    [path] = saved.joinpath("test_user.py--test_fig4_is_fisheye_consistent").glob("*.json")
    assert f"Replay: fisheye explain {path} --model fisheye" in out
    assert "fisheye counterexamples" in out and f"replay: fisheye explain {path} --model fisheye" in out
    # the exploration: the run's explanation, its replay script, one file per violation
    files = sorted(saved.joinpath("test_user.py--test_the_published_algorithm_1_is_causal").glob("*.json"))
    assert len(files) == 3 and "The run violates causal order" in out and "Replay script:" in out
    assert all(f"replay: fisheye explain {f}" in out for f in files)
    junit = (tmp_path / "junit.xml").read_text()
    assert junit.count('name="fisheye_counterexample"') == 4 and str(path) in junit


class LocalizedBroadcastWithTwoCrashes(SystemMachine):
    """The published localized causal broadcast, three processes, two crashes."""

    def make_system(self):
        return make("lcb", SystemRequest("lcb3", crashes=2))


def test_the_state_machine_shrinks_a_validity_violation_of_the_localized_broadcast():
    with pytest.raises(VerificationFailure, match="violates LCURB1") as failed:
        run_state_machine_as_test(LocalizedBroadcastWithTwoCrashes, settings=settings(
            max_examples=100, stateful_step_count=10, deadline=None, database=None, derandomize=True))
    steps = int(re.match(r"a run of (\d+) steps violates LCURB1", str(failed.value)).group(1))
    assert 3 <= steps <= 5       # shrunk: the shortest is one broadcast and two crashes
    [path] = failed.value.files
    assert fisheye.explain(path).reproduced


def test_the_plugin_pytest_loads_in_every_run_is_light():
    probe = ("import sys, fisheye.testing.plugin; prefixes = ('fisheye.', 'hypothesis', 'z3', 'numba'); "
             "print(sorted(m for m in sys.modules if m.startswith(prefixes)))")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "['fisheye.testing', 'fisheye.testing.failure', 'fisheye.testing.plugin']"
