"""``fisheye simulate`` (docs/contract.md, "Command line") and the factory's inputs."""

from __future__ import annotations

import json
from pathlib import Path

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
    assert {v["violates"] for v in out["violations"]} == {"G-delivery order"}


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
    (["simulate", "fig6", "--mutant", "bogus"], "unknown mutant 'bogus'"),
    (["simulate", "fig6", "--system", "nope"], "unknown system 'nope'"),
    (["simulate", "--replay", "x.json", "--system", "lcb"], "--system does not apply with --replay"),
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


def test_replay_of_every_shipped_counterexample(capsys):
    """Each shipped counterexample replays as is: exit 1, the recorded violation reproduced."""
    import glob

    files = sorted(glob.glob("counterexamples/*.json"))
    assert files
    for f in files:
        code = main(["simulate", "--replay", f, "--json"])
        out = json.loads(capsys.readouterr().out)
        assert code == 1 and out["reproduced"] is True and out["replayed"] == f, f


@pytest.mark.parametrize("argv,fragment", [
    (["--replay", "counterexamples/mutant-no-t1--fisheye.json", "--seed", "3"], "--seed does not apply"),
    (["fig6", "--replay", "counterexamples/mutant-no-t1--fisheye.json"], "takes no SCENARIO"),
    (["--replay", "tests/data/nope.json"], "nope.json"),
    ([], "needs a SCENARIO"),
    (["p: write(X,1); q: read(X)", "--graph", "paper"], "no paper graph"),
    (["p: write(X,1); p: a=read(X)"], "appears twice"),
    (["p: write(X,one); q: a=read(X)"], "not an integer"),
    (["p: writ(X,1)"], "is not write(X,v)"),
    (["fig6", "--runs", "0"], "--runs 0"),
    (["--replay", "counterexamples/mutant-no-t1--fisheye.json", "--save", "d"], "--save does not apply"),
    (["fig6", "--chooser", "greedy"], "invalid choice"),
])
def test_simulate_bad_input_exit_2(capsys, argv, fragment):
    code = main(["simulate", *argv])
    out, err = capsys.readouterr()
    assert code == 2 and out == "" and err.count("\n") == 1 and fragment in err


def test_replay_rejects_a_plain_history(capsys, tmp_path):
    f = tmp_path / "h.json"
    f.write_text(json.dumps({"history": {"p": [["w", "X", 1]]}}))
    code = main(["simulate", "--replay", str(f)])
    assert code == 2 and "not a counterexample file" in capsys.readouterr().err


def test_simulate_and_explore_share_violation_keys(capsys):
    prog = "p0: write(X,1), read(X); p1: write(X,2), read(X)"
    main(["simulate", prog, "--graph", "p0:p1", "--network", "unordered", "--seed", "1", "--json"])
    sim = json.loads(capsys.readouterr().out)
    main(["explore", prog, "--graph", "p0:p1", "--network", "unordered", "--json", "--quiet"])
    exp = json.loads(capsys.readouterr().out)
    shared = {"scenario", "graph", "level", "algorithm", "variant", "network"}
    assert shared <= set(sim) and shared <= set(exp)
    assert {k: sim[k] for k in shared} == {k: exp[k] for k in shared}
    assert sim["mutant"] is exp.get("mutant") is None     # explore names a mutant only when one runs
    assert exp["violations"]
    for v in sim["violations"] + exp["violations"]:
        assert {"violates", "kind"} <= set(v)


LWW = Path(__file__).parent.parent / "examples" / "lww"


@pytest.fixture
def in_lww(monkeypatch):
    """The current directory examples/lww, from which ``lww:make`` is importable (as the
    command is run in docs/your-protocol.md)."""
    monkeypatch.chdir(LWW)


def test_simulate_runs_a_users_system(capsys, in_lww):
    from fisheye.checker.systems import make
    from fisheye.impl.api import SystemRequest

    assert main(["simulate", "dekker", "--system", "lww:make", "--seed", "5", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["algorithm"] == "lww:make" and out["scenario"] == "dekker" and out["seed"] == 5
    assert out["complete"] is True and out["violations"] == []
    system = make("lww:make", SystemRequest("dekker"))
    state = replay(system, [Step.from_json(s) for s in out["schedule"]])
    assert system.is_final(state) and system.history(state).to_json() == out["history"]
    assert main(["simulate", "dekker", "--system", "lww:make", "--seed", "5", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["schedule"] == out["schedule"]   # seeded
    assert main(["simulate", "--system", "lww:make", "race", "--seed", "1"]) == 0
    text = capsys.readouterr().out
    assert text.startswith("race: the system lww:make") and "no property of the system is violated" in text


@pytest.mark.parametrize("argv, needle", [
    (["simulate", "nope", "--system", "lww:make"], "unknown lww scenario 'nope'"),
    (["simulate", "dekker", "--system", "lww:make", "--mutant", "x"], "lww takes no variant, mutant"),
    (["simulate", "dekker", "--system", "lww:missing"], "lww has no missing"),
])
def test_a_users_system_rejects_what_it_does_not_take(capsys, in_lww, argv, needle):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert needle in err and err.count("\n") == 1 and "Traceback" not in err


def test_replay_of_a_users_counterexample_file(capsys, in_lww, tmp_path):
    """``explore --save`` writes the file of a run of lww:make that violates cc;
    ``simulate --replay`` rebuilds lww:make from it and reproduces the violation."""
    assert main(["explore", "causal", "--system", "lww:make", "--model", "cc", "--quiet",
                 "--save", str(tmp_path)]) == 1
    files = sorted(tmp_path.glob("*.json"))
    assert files
    capsys.readouterr()
    assert main(["simulate", "--replay", str(files[0]), "--json"]) == 1
    out = json.loads(capsys.readouterr().out)
    assert out["algorithm"] == "lww:make" and out["reproduced"] is True and out["violates"] == "cc"


NO_T1 = ["simulate", "paris-berlin-newyork", "--mutant", "no-t1"]


def test_runs_stop_at_the_first_failing_seed_and_save_it_shrunk(capsys, tmp_path):
    """``--runs N`` tries seeds 0, 1, ... and prints the first failing run (seeds 0 and 1
    of this mutant complete with every property, seed 2 does not); ``--save`` writes it
    shrunk for each property it violates: the file replays to the same violation and no
    single step of it can be removed."""
    from fisheye.checker import counterexample as cxm
    from fisheye.checker.shrink import RunChecks, still_violates

    code = main([*NO_T1, "--runs", "10", "--save", str(tmp_path), "--json"])
    out = json.loads(capsys.readouterr().out)
    assert code == 1 and out["seed"] == 2
    for seed in (0, 1):
        assert main([*NO_T1, "--seed", str(seed)]) == 0
    capsys.readouterr()
    names = sorted(v["violates"] for v in out["violations"])
    files = sorted(tmp_path.glob("*.json"))
    assert len(files) == len(names) >= 1 and out["saved"] == [str(f) for f in sorted(files)]
    for f in files:
        cx = cxm.load(f)
        assert cx.violates in names
        assert cx.search.startswith("fisheye simulate paris-berlin-newyork") and "--seed 2" in cx.search
        assert cxm.replay(cx).ok
        system, sched, checks = cx.system(), list(cx.schedule), RunChecks(models=())
        assert len(sched) < len(out["schedule"])
        assert still_violates(system, sched, cx.violates, checks)
        assert not any(still_violates(system, sched[:i] + sched[i + 1:], cx.violates, checks)
                       for i in range(len(sched)))
        assert main(["simulate", "--replay", str(f)]) == 1
        assert "REPRODUCED" in capsys.readouterr().out


def test_runs_that_all_pass_say_so_in_one_line(capsys):
    assert main(["simulate", "paris-berlin-newyork", "--runs", "5", "--seed", "10"]) == 0
    assert capsys.readouterr().out == ("5 random runs (uniform, seeds 10 to 14): every run complete, "
                                       "no deadlock, no property violated\n")
    assert main(["simulate", "paris-berlin-newyork", "--runs", "3", "--chooser", "swarm", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["runs"] == 3 and out["seeds"] == [0, 2] and out["violations"] == []
    assert out["chooser"] == "swarm"


def test_swarm_chooser_is_seeded_and_differs_from_uniform(capsys):
    runs = []
    for chooser, seed in (("swarm", "4"), ("swarm", "4"), ("uniform", "4")):
        main(["simulate", "fig6", "--seed", seed, "--chooser", chooser, "--json"])
        runs.append(json.loads(capsys.readouterr().out)["schedule"])
    assert runs[0] == runs[1] != runs[2]


def test_save_of_a_passing_run_writes_nothing(capsys, tmp_path):
    assert main(["simulate", "fig6", "--save", str(tmp_path / "out")]) == 0
    assert "saved" not in capsys.readouterr().out and not (tmp_path / "out").exists()
