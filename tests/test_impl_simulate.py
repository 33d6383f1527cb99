"""``fisheye simulate`` (contract section 3) and the factory's inputs."""

from __future__ import annotations

import json

import pytest

from fisheye.checker.cli import main
from fisheye.impl.api import Step, replay
from fisheye.impl.programs import SCENARIO_NAMES, parse_program
from fisheye.impl.system import make_system
from fisheye.spec.history import parse_history


@pytest.mark.parametrize("scenario", SCENARIO_NAMES)
@pytest.mark.parametrize("graph", ["paper", "empty", "complete"])
@pytest.mark.parametrize("network", ["fifo", "unordered"])
def test_simulate_json_replays(capsys, scenario, graph, network):
    code = main(["simulate", scenario, "--graph", graph, "--network", network, "--seed", "7", "--json"])
    out = json.loads(capsys.readouterr().out)
    assert {"scenario", "graph", "seed", "schedule", "history"} <= set(out)
    assert out["scenario"] == scenario and out["seed"] == 7
    assert code == (0 if out["complete"] and not out["violations"] else 1)
    if network == "fifo":  # the papers' assumption: every run completes, properties hold
        assert code == 0 and out["complete"] is True
    history = parse_history(out["history"])
    system = make_system(scenario, graph, network=network)
    assert [list(e) for e in history.edges] == system.graph.to_json() == out["graph"]
    state = replay(system, [Step.from_json(s) for s in out["schedule"]])
    assert system.is_final(state) is out["complete"]
    assert system.history(state).to_json() == out["history"]
    assert out["outcome"] == system.outcome(state)


def test_simulate_is_deterministic_per_seed(capsys):
    runs = []
    for seed in ("1", "1", "2"):
        main(["simulate", "fig6", "--seed", seed, "--json"])
        runs.append(json.loads(capsys.readouterr().out)["schedule"])
    assert runs[0] == runs[1] != runs[2]


def test_simulate_text_output(capsys):
    assert main(["simulate", "paris-berlin-newyork", "--seed", "3"]) == 0
    out = capsys.readouterr().out
    assert "graph paris:berlin" in out and "outcome: a = " in out and "termination hold" in out


def test_unordered_channels_break_g_delivery_order(capsys):
    """Lemma 2 and Theorem 5 rely on FIFO channels; seed 2 of fig6 shows it."""
    assert main(["simulate", "fig6", "--network", "unordered", "--seed", "2", "--json"]) == 1
    out = json.loads(capsys.readouterr().out)
    assert out["complete"] is True
    assert {v["property"] for v in out["violations"]} == {"G-delivery order"}


def test_simulate_reports_deadlock(capsys):
    # without CATCH_UP messages, a writer whose neighbour stays silent waits forever
    code = main(["simulate", "p: write(X,1); q: ", "--graph", "p:q", "--mutant", "no-catch-up", "--json"])
    out = json.loads(capsys.readouterr().out)
    assert code == 1 and out["deadlock"] is True and out["complete"] is False


def test_simulate_published_variant_flag(capsys):
    assert main(["simulate", "fig6", "--variant", "published", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["variant"] == "published"


@pytest.mark.parametrize("argv, needle", [
    (["simulate", "nowhere"], "unknown scenario 'nowhere'"),
    (["simulate", "fig6", "--graph", "p:zz"], 'unknown process "zz"'),
    (["simulate", "fig6", "--network", "carrier-pigeon"], "invalid choice"),
    (["simulate", "fig6", "--mutant", "bogus"], "invalid choice"),
])
def test_simulate_bad_input_one_line_exit_2(capsys, argv, needle):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert needle in err and err.count("\n") == 1 and "Traceback" not in err


def test_parse_program_text_form():
    prog = parse_program("p0: write(X,1), a=read(Y); p1: await X==1, read(X)->1")
    assert prog.processes == ("p0", "p1")
    assert [str(o) for o in prog.ops[0]] == ["write(X,1)", "a=read(Y)"]
    assert [str(o) for o in prog.ops[1]] == ["await X==1", "read(X)->1"]
    assert prog.read_names == ("a",)


def test_program_text_round_trip():
    """Counterexample files store programs in text form: str() and parse_program agree."""
    import random

    from fisheye.impl.programs import SCENARIOS, random_program

    for sc in SCENARIOS.values():
        assert parse_program(str(sc.program)) == sc.program
    rng = random.Random(3)
    programs = [random_program(rng, 4) for _ in range(100)]
    assert all(parse_program(str(p)) == p for p in programs)
    assert any(not ops for p in programs for ops in p.ops)  # empty processes round-trip too
