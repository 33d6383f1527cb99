"""A verification suite for the last-writer-wins protocol, written as a protocol author
would write one for their own: it imports only ``fisheye`` and ``fisheye.testing``
(run by CI with the rest of the suite; copy it next to your protocol and adapt).

* ``assert_explores_clean``: every schedule explored, every history checked against
  the model, every property judged; a failure prints the explanation of
  ``fisheye explain`` and the command that replays the counterexample file it wrote;
* ``SystemMachine``: Hypothesis drives the protocol one step at a time and checks its
  properties along the run;
* the counts are pinned like Stateright's: a change in them is a change in the
  protocol, the network or the explorer, to be understood before they are updated;
* the compiled kernel (``lww_kernel.py``) is the actor's transition system: state by
  state (``assert_kernel_matches``) and report by report."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest
from hypothesis import settings
from hypothesis.stateful import run_state_machine_as_test
from lww import SCENARIOS, make

import fisheye
from fisheye.testing import SystemMachine, VerificationFailure, assert_explores_clean, assert_kernel_matches

NAME = "lww:make"
"""The system's name: the factory ``make`` of the module ``lww`` (this directory)."""


def explore(scenario: str, model: str, **options) -> fisheye.Report:
    return fisheye.explore(NAME, scenario, model=model, **options)


def system(scenario: str, **request) -> fisheye.System:
    return make(fisheye.SystemRequest(scenario, system=NAME, **request))


def test_the_factory_keeps_the_contract():
    s = make(fisheye.SystemRequest("dekker", system=NAME))
    assert s.info.algorithm == NAME and s.info.scenario == "dekker"
    assert [p.name for p in s.properties()] == ["sc", "convergence", "stale read", "deadlock", "complete run"]
    with pytest.raises(ValueError, match="unknown lww scenario"):
        explore("nope", "sc")
    with pytest.raises(ValueError, match="no variant"):
        explore("dekker", "sc", variant="published")


def test_a_write_sends_one_update_to_every_other_process():
    s = make(fisheye.SystemRequest("causal", system=NAME))
    after = s.apply(s.initial(), fisheye.Step("op", "p"))
    assert s.in_transit(after) == {("p", "q"): (("UPDATE", "X", 1, 1),), ("p", "r"): (("UPDATE", "X", 1, 1),)}
    with pytest.raises(ValueError, match="not enabled|nothing"):
        fisheye.replay(s, [fisheye.Step("recv", "q", "p")])          # nothing in transit yet


def test_dekker_is_causally_consistent():
    rep = assert_explores_clean(NAME, "dekker", model="cc")
    assert (rep["states"], rep["terminal_states"], rep["histories"]) == (38, 8, 4)


def test_dekker_violates_sc_and_the_failure_explains_it():
    rep = explore("dekker", "sc")
    assert rep.status is fisheye.Verdict.VIOLATION
    assert (rep["complete"], rep["states"], rep["terminal_states"], rep["histories"]) == (True, 38, 8, 4)
    assert [v.violates for v in rep.violations] == ["sc"]
    # the shortest run: both write, both read 0 before any update arrives
    h = rep.violations[0].history.to_json()["history"]
    assert h["p"] == [["w", "X", 1], ["r", "Y", 0]] and h["q"] == [["w", "Y", 1], ["r", "X", 0]]
    assert rep.properties == {"sc": "violated", "convergence": "held", "stale read": "held",
                              "deadlock": "held", "complete run": "held"}
    with pytest.raises(VerificationFailure) as failed:
        assert_explores_clean(NAME, "dekker", model="sc")
    message = str(failed.value)
    assert "a case ending in" in message and "Replay script" in message
    assert f"Replay: fisheye explain {failed.value.files[0]}" in message


def test_causal_violates_cc():
    rep = explore("causal", "cc")
    assert (rep["states"], rep["terminal_states"], rep["histories"]) == (220, 16, 8)
    v = rep.violations[0]
    assert v.violates == "cc"
    assert v.history.to_json()["history"]["q"] == [["r", "X", 1], ["w", "Y", 1]]
    assert v.history.to_json()["history"]["r"] == [["r", "Y", 1], ["r", "X", 0]]


def test_unordered_channels_reach_the_same_histories():
    fifo, unordered = explore("causal", "cc"), explore("causal", "cc", network="unordered")
    assert unordered["histories"] == fifo["histories"]
    assert unordered["violations_total"] == fifo["violations_total"]


def test_a_sometimes_property_that_never_holds_fails_the_run():
    rep = explore("race", "sc")
    assert (rep["states"], rep["terminal_states"], rep["histories"], rep["violations_total"]) == (35, 6, 3, 0)
    assert rep.properties["stale read"] == "never held"
    assert rep.status is fisheye.Verdict.VIOLATION and not rep.ok
    with pytest.raises(VerificationFailure, match="never held"):
        assert_explores_clean(NAME, "race", model="sc")


def test_every_scenario_converges():
    for name in SCENARIOS:
        rep = explore(name, "sc")
        assert rep["complete"] and rep.properties["convergence"] == "held"


def test_a_saved_counterexample_replays_on_the_command_line(tmp_path):
    files = explore("causal", "cc").save(tmp_path)
    run = subprocess.run([sys.executable, "-m", "fisheye.checker.cli", "explain", str(files[0]), "--quiet"],
                         capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    assert run.stdout.rstrip("\n") == fisheye.explain(files[0]).text()


@pytest.mark.spark
def test_spark_explores_the_protocol_like_the_local_search():
    local, remote = explore("causal", "cc"), explore("causal", "cc", spark="local[2]")
    assert remote["engine"] == "spark" and remote["kernel"] == local["kernel"] == "compiled"
    for key in ("states", "terminal_states", "histories", "violations_total", "properties"):
        assert remote[key] == local[key], key


class LwwRuns(SystemMachine):
    """Random runs of ``dekker`` under sc: Hypothesis finds a run whose history is not
    sequentially consistent (both processes read 0) and shrinks it."""

    def make_system(self):
        return make(fisheye.SystemRequest("dekker", system=NAME))


class LwwConverges(SystemMachine):
    """Random runs of ``race``, whose model check (sc) and convergence hold in every run."""

    def make_system(self):
        return make(fisheye.SystemRequest("race", system=NAME))


TestLwwConverges = LwwConverges.TestCase
TestLwwConverges.settings = settings(max_examples=30, stateful_step_count=20, deadline=None)


def test_random_runs_find_the_stale_reads_of_dekker():
    with pytest.raises(VerificationFailure, match="violates sc") as failed:
        run_state_machine_as_test(LwwRuns, settings=settings(max_examples=100, stateful_step_count=10,
                                                             deadline=None, database=None, derandomize=True))
    assert "a case ending in" in str(failed.value) and "Replay: fisheye explain" in str(failed.value)


# ---- the compiled kernel against the actor, its reference -----------------------------------

# what depends on time, memory or the path taken, not on what was explored
VOLATILE = {"seconds", "states_per_second", "cpu_seconds", "peak_memory_bytes", "kernel"}


@pytest.mark.parametrize("scenario,reduced,unreduced", [("dekker", 38, 54), ("causal", 220, 247),
                                                         ("race", 35, 49)])
def test_the_kernel_is_the_actor_on_every_reachable_state(scenario, reduced, unreduced):
    """Same successors, in the same order, same terminal states, with the explorer's
    process-level reduction and without."""
    assert assert_kernel_matches(system(scenario)) == reduced
    assert assert_kernel_matches(system(scenario), reduction="none") == unreduced


def test_the_kernel_is_the_actor_along_random_runs_of_crossed():
    """crossed has 206,078 states: compared along random runs."""
    assert assert_kernel_matches(system("crossed"), every_state=False, walks=150, seed=3) > 150 * 20


@pytest.mark.parametrize("scenario,model,options", [
    ("dekker", "sc", {}), ("causal", "cc", {}), ("race", "sc", {}), ("causal", "cc", {"reduction": "none"}),
    ("causal", "cc", {"max_states": 100}), ("crossed", "sc", {"max_states": 3000}),
])
def test_the_compiled_and_python_searches_report_alike(scenario, model, options):
    """Whole reports: states, runs, histories, properties, violations and their schedules."""
    compiled = explore(scenario, model, kernel="compiled", **options)
    python = explore(scenario, model, kernel="python", **options)
    assert (compiled["kernel"], python["kernel"]) == ("compiled", "python")
    assert {k: v for k, v in compiled.data.items() if k not in VOLATILE} == \
        {k: v for k, v in python.data.items() if k not in VOLATILE}
    assert compiled["complete"] is ("max_states" not in options)


def test_crossed_is_causally_consistent_and_explored_at_compiled_speed():
    rep = assert_explores_clean(NAME, "crossed", model="cc")
    assert (rep["states"], rep["terminal_states"], rep["histories"]) == (206078, 552, 64)
    assert rep["kernel"] == "compiled"
    assert rep.properties["stale read"] == "held" and rep.properties["convergence"] == "held"


def test_the_kernel_runs_where_it_applies_and_the_actor_elsewhere():
    assert explore("dekker", "sc")["kernel"] == "compiled"
    assert explore("dekker", "sc", network="unordered")["kernel"] == "python"
    with pytest.raises(ValueError, match="no compiled kernel"):
        explore("dekker", "sc", network="unordered", kernel="compiled")


def test_the_command_line_says_which_path_ran():
    def run(*extra):
        done = subprocess.run([sys.executable, "-m", "fisheye.checker.cli", "explore", "causal", "--system",
                               NAME, "--model", "cc", "--quiet", *extra], capture_output=True, text=True)
        assert done.returncode == 1, done.stderr
        return re.sub(r" in [0-9.]+ s", "", done.stdout).splitlines()   # the time taken aside

    compiled, python = run(), run("--kernel", "python")
    assert compiled[0].endswith("; compiled kernel") and python[0].endswith("; python kernel")
    assert compiled[1:] == python[1:] and "  1 distinct violation:" in compiled
