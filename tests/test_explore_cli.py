"""``fisheye explore`` (docs/contract.md: "Command line", "Exploration report"): report
keys, exit statuses, budgets, bad input."""

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
    assert "outcomes of x, y: (3, 5)\n" in out and "every schedule explored:" in out
    for jargon in ("toco-spec", "reduction:", "stubborn", "1 histories", "(deadlock)", "paris-berlin"):
        assert jargon not in out
    assert "graph p:q, p:r" in out


def test_budget_cut_short_exit_3(capsys):
    code, out, _ = run_cli(capsys, "fig6", "--max-states", "500", "--json", "--quiet")
    assert code == 3
    rep = json.loads(out)
    assert rep["complete"] is False and "max-states" in rep["stopped"] and rep["level"] == "protocol"


def test_depth_bound_cut_short_exit_3(capsys):
    code, out, _ = run_cli(capsys, "fig6", "--max-depth", "6", "--json", "--quiet")
    assert code == 3
    rep = json.loads(out)
    assert rep["complete"] is False and rep["stopped"] == "depth bound (6) reached" and rep["max_depth"] == 6


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
    (["fig6", "--max-depth", "-1"], "--max-depth"),
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
    assert err.count("\n") == 1 and "add --system lcb" in err and "Traceback" not in err
    code, _, err = run_cli(capsys, "nosuch")
    assert code == 2 and "paris-berlin-newyork" in err and "lcb3" in err


# ---- options that do not apply are errors; the --help example works ---------------------------

@pytest.mark.parametrize("argv,fragment", [
    (["fig6", "--level", "abstract", "--mutant", "no-t1"], "--mutant does not apply"),
    (["fig6", "--level", "abstract", "--network", "unordered"], "--network does not apply"),
    (["fig6", "--level", "abstract", "--variant", "published"], "--variant does not apply"),
    (["fig6", "--crashes", "0"], "--crashes does not apply"),
    (["lcb3", "--algorithm", "lcb", "--variant", "published"], "--variant does not apply"),
    (["lcb3", "--algorithm", "lcb", "--level", "abstract"], "does not apply"),
    (["fig6", "--model", "none", "--model-graph", "empty"], "--model-graph does not apply"),
    (["p0: write(X,1); p1: read(X)", "--no-prune"], "--no-prune does not apply"),
    (["p0: write(X,1); p1: read(X)", "--graph", "paper"], "no paper graph"),
    (["p: write(X,1); p: a=read(X)"], "appears twice"),
])
def test_options_that_do_not_apply_are_errors(capsys, argv, fragment):
    code, out, err = run_cli(capsys, *argv, "--quiet")
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and fragment in err and "Traceback" not in err


def test_help_example_program_runs_on_the_empty_graph(capsys):
    from fisheye.checker.cli.main import build_parser

    helptext = build_parser()._subparsers._group_actions[0].choices["explore"].format_help()
    assert "'p0: write(X,1); p1: a=read(X)'" in helptext and "default graph is empty" in helptext
    assert "issue" not in helptext and "contract section" not in helptext
    code, out, _ = run_cli(capsys, "p0: write(X,1); p1: a=read(X)", "--json", "--quiet")
    rep = json.loads(out)
    assert code == 0 and rep["graph"] == [] and rep["complete"] is True
    assert rep["outcomes"]["values"] == [[0], [1]]


def test_cut_short_never_says_no_violation(capsys):
    code, out, _ = run_cli(capsys, "fig6", "--max-states", "100", "--quiet")
    assert code == 3
    assert "no violation" not in out and "NOT a pass" in out and "CUT SHORT" in out


# ---- every violation actionable ------------------------------------------------------------------

PROGRAM = "p0: write(X,1), read(X); p1: write(X,2), read(X)"


def test_save_writes_one_replayable_file_per_violation(capsys, tmp_path):
    from fisheye.checker import counterexample as cxm
    from fisheye.checker.cli import main as cli_main

    code, out, _ = run_cli(capsys, PROGRAM, "--graph", "p0:p1", "--mutant", "opposite-tie-break",
                           "--quiet", "--save", str(tmp_path))
    assert code == 1
    files = sorted(tmp_path.glob("*.json"))
    code_j, out_j, _ = run_cli(capsys, PROGRAM, "--graph", "p0:p1", "--mutant", "opposite-tie-break",
                               "--quiet", "--json")
    rep = json.loads(out_j)
    assert len(files) == rep["violations_total"] == len(rep["violations"]) >= 2
    # the text report: each violation once, with its history and the command to explain it
    for f in files:
        assert out.count(f"fisheye explain {f}") == 1
    assert out.count("history:") == len(files)
    for v in rep["violations"]:
        assert f"the shortest with {len(v['schedule'])} steps" in out
    kinds = set()
    for f in files:
        cx = cxm.load(f)
        assert cx.algorithm == "toco" and cx.mutant == "opposite-tie-break" and cx.program
        assert cxm.replay(cx).ok
        kinds.add(cx.violates)
        assert cli_main(["explain", str(f)]) == 0
        assert cli_main(["simulate", "--replay", str(f)]) == 1
        capsys.readouterr()
    assert kinds == {"G-delivery order", "fisheye"}


def test_save_at_the_abstract_level_replays(capsys, tmp_path):
    from fisheye.checker import counterexample as cxm

    code, _, _ = run_cli(capsys, PROGRAM, "--graph", "empty", "--level", "abstract", "--model", "sc",
                         "--quiet", "--save", str(tmp_path))
    assert code == 1
    files = sorted(tmp_path.glob("*.json"))
    assert files
    for f in files:
        cx = cxm.load(f)
        assert cx.algorithm == "toco" and cx.level == "abstract" and cx.variant is None
        assert cxm.replay(cx).ok


def test_save_into_a_file_is_bad_usage(capsys, tmp_path):
    f = tmp_path / "x"
    f.write_text("")
    code, out, err = run_cli(capsys, "fig6", "--save", str(f), "--quiet")
    assert code == 2 and "not a directory" in err


def test_save_explain_replay_a_users_system(capsys, tmp_path, monkeypatch):
    """A protocol defined outside the package (examples/lww): its violations are saved,
    explained and replayed as those of the paper's algorithms."""
    from pathlib import Path

    from fisheye.checker.cli import main as cli_main

    monkeypatch.chdir(Path(__file__).parent.parent / "examples" / "lww")
    out_dir = tmp_path / "found"
    code, out, _ = run_cli(capsys, "dekker", "--system", "lww:make", "--model", "sc", "--quiet",
                           "--save", str(out_dir))
    assert code == 1 and "the system lww:make" in out
    files = sorted(out_dir.glob("*.json"))
    assert files and out.count("explain it: fisheye explain") == len(files)
    for f in files:
        assert cli_main(["explain", str(f), "--quiet"]) == 0
        assert cli_main(["simulate", "--replay", str(f)]) == 1
        text = capsys.readouterr().out
        assert "REPRODUCED" in text and "a contradiction!" in text


@pytest.mark.parametrize(("size", "message"), [
    ("lots", "fisheye: --memory: 'lots' is not a size (e.g. 4G, 512M)"),
    ("0", "fisheye: --memory must be positive"),
])
def test_a_bad_memory_size_is_one_line_and_exit_2(capsys, size, message):
    code, out, err = run_cli(capsys, "paris-berlin-newyork", "--memory", size)
    assert (code, out, err.strip()) == (2, "", message)
