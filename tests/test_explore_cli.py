"""``fisheye explore`` (contract sections 3 and 4): report keys, exit statuses, budgets,
bad input."""

from __future__ import annotations

import json

import pytest

from fisheye.checker.cli import main

CONTRACT_KEYS = {"scenario", "graph", "engine", "level", "complete", "states", "terminal_states",
                 "histories", "outcomes", "violations", "seconds"}


def run_cli(capsys, *argv):
    code = main(["explore", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_json_report_has_the_contract_keys(capsys):
    code, out, _ = run_cli(capsys, "paris-berlin-newyork", "--level", "abstract", "--json", "--quiet")
    assert code == 0
    rep = json.loads(out)
    assert CONTRACT_KEYS <= set(rep)
    assert rep["scenario"] == "paris-berlin-newyork" and rep["engine"] == "local"
    assert rep["level"] == "abstract" and rep["complete"] is True
    assert rep["graph"] == [["paris", "berlin"]]
    assert rep["outcomes"]["reads"] == ["a", "b"]
    assert [2, 1] not in rep["outcomes"]["values"] and [2, 2] in rep["outcomes"]["values"]
    assert (rep["states"], rep["terminal_states"], rep["histories"]) == (1650, 148, 8)
    assert rep["violations"] == []


def test_full_counts_beside_reduced(capsys):
    code, out, _ = run_cli(capsys, "paris-berlin-newyork", "--level", "abstract", "--graph", "empty",
                           "--full", "--json", "--quiet", "--model", "cc")
    assert code == 0
    rep = json.loads(out)
    assert rep["full"]["states"] == 25829 and rep["states"] == 1508
    assert rep["full"]["terminal_states"] == rep["terminal_states"] == 132
    assert rep["full"]["outcomes_equal"] is True and rep["reduction_factor"] == round(25829 / 1508, 2)
    assert [2, 1] in rep["outcomes"]["values"]


def test_text_report_and_table1_row(capsys):
    code, out, _ = run_cli(capsys, "fig6", "--level", "abstract", "--graph", "complete", "--model", "sc",
                           "--quiet")
    assert code == 0
    assert "outcomes of x, y: (3, 5)\n" in out and "complete:" in out


def test_budget_cut_short_exit_3(capsys):
    code, out, _ = run_cli(capsys, "fig6", "--max-states", "500", "--json", "--quiet")
    assert code == 3
    rep = json.loads(out)
    assert rep["complete"] is False and "max-states" in rep["stopped"] and rep["level"] == "protocol"


def test_violation_exit_1_with_replayable_schedule(capsys):
    code, out, _ = run_cli(capsys, "p0: write(X,1), read(X); p1: write(X,2), read(X)", "--graph", "p0:p1",
                           "--mutant", "opposite-tie-break", "--json", "--quiet")
    assert code == 1
    rep = json.loads(out)
    v = rep["violations"][0]
    assert v["violates"] == "G-delivery order" and v["schedule"] and v["history"]["graph"] == [["p0", "p1"]]
    from fisheye.impl.api import Step, replay
    from fisheye.impl.system import make_system

    raw = make_system("p0: write(X,1), read(X); p1: write(X,2), read(X)", "p0:p1",
                      mutant="opposite-tie-break")
    end = replay(raw, [Step.from_json(s) for s in v["schedule"]])
    assert "G-delivery order" in {b.prop for b in raw.broadcast_violations(end)}


@pytest.mark.parametrize("argv,fragment", [
    (["nowhere"], "unknown scenario"),
    (["fig6", "--graph", "p:zz"], "zz"),
    (["fig6", "--level", "middle"], "level"),
    (["fig6", "--max-states", "0"], "--max-states"),
    (["fig6", "--crashes", "1"], "lcb"),
    (["fig6", "--master", "local[2]"], "--spark"),
])
def test_bad_input_exit_2_one_line(capsys, argv, fragment):
    code, out, err = run_cli(capsys, *argv)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and fragment in err and "Traceback" not in err


def test_lcb_scenario_without_algorithm_lcb_says_what_to_add(capsys):
    code, out, err = run_cli(capsys, "lcb3")
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and "--algorithm lcb" in err and "Traceback" not in err
    code, _, err = run_cli(capsys, "nosuch")
    assert code == 2 and "paris-berlin-newyork" in err and "lcb3" in err
