"""Deliberately broken user systems (tests/user_systems.py) through ``fisheye explore``:
each breaks one promise of the system contract, and the command says so with the exact
exit status (1 violation, 2 bad input, 4 system error) and never prints a pass."""

from __future__ import annotations

import json
import shlex
from pathlib import Path

import pytest
import user_systems  # tests/ is on the path (no package): the systems of --system user_systems:NAME

from fisheye.checker.cli import main
from fisheye.impl.api import Network, Step, SystemRequest, replay

HERE = Path(__file__).parent
DEKKER = "p0: write(X,1), read(Y); p1: write(Y,1), read(X)"
PASS_WORDS = ("clean", "no violation")


@pytest.fixture(autouse=True)
def importable(monkeypatch):
    monkeypatch.syspath_prepend(str(HERE))


def explore(capsys, system, *argv):
    code = main(["explore", *argv, "--system", f"user_systems:{system}", "--quiet"])
    out, err = capsys.readouterr()
    return code, out, err


def no_pass(out):
    assert not any(w in out for w in PASS_WORDS), out


def test_the_honest_store_passes_and_fails_where_it_should(capsys):
    code, out, _ = explore(capsys, "eager", DEKKER, "--model", "cc", "--network", "unordered",
                           "--graph", "p0:p1")
    assert code == 0 and "every complete run is clean" in out
    code, out, _ = explore(capsys, "eager", DEKKER, "--model", "sc")
    assert code == 1
    no_pass(out)


def test_the_printed_command_reproduces_the_violation_on_the_same_system(capsys, tmp_path):
    code, out, _ = explore(capsys, "eager", DEKKER, "--model", "sc", "--network", "unordered")
    assert code == 1
    printed = out.strip().splitlines()[-1].strip()
    argv = shlex.split(printed)
    assert argv[:2] == ["fisheye", "explore"] and argv[-1] == "DIR"
    assert "--system" in argv and argv[argv.index("--system") + 1] == "user_systems:eager"
    assert argv[argv.index("--network") + 1] == "unordered"
    argv[-1] = str(tmp_path / "found")
    assert main([*argv[1:], "--quiet"]) == 1
    capsys.readouterr()
    saved = json.loads(next((tmp_path / "found").iterdir()).read_text())
    assert saved["search"].startswith(printed.removesuffix(" --save DIR"))


@pytest.mark.parametrize("system, argv, words", [
    ("fifo_only", ["--network", "unordered"], "unordered channels, but its network is fifo"),
    ("no_graph", ["--graph", "p0:p1"], "the graph complete, but it runs with empty"),
    ("unjudgeable", [], "property 'checked by nobody' of kind protocol has no check"),
])
def test_a_system_that_does_not_keep_the_request_is_bad_input(capsys, system, argv, words):
    code, out, err = explore(capsys, system, DEKKER, "--model", "cc", *argv)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and words in err and "Traceback" not in err


def test_a_blocked_process_is_a_deadlock_not_a_finished_run(capsys):
    code, out, _ = explore(capsys, "eager", "p0: await X==5, a=read(Y); p1: write(X,1)", "--json")
    assert code == 1
    rep = json.loads(out)
    assert rep["terminal_states"] == 0 and rep["deadlocks"] >= 1
    assert [v["violates"] for v in rep["violations"]] == ["deadlock"]
    assert {p["name"]: p["status"] for p in rep["properties"]}["complete run"] == "never held"


@pytest.mark.parametrize("system, program, words", [
    ("same_names", "p0: write(X,1), write(X,2); p1: read(X)",
     "have the same message_name ('W', 'X'): ('W', 'X', 1, 'p0', 1) and ('W', 'X', 2, 'p0', 2)"),
    ("raising", DEKKER, "ZeroDivisionError: division by zero in on_receive (while taking the step recv"),
    ("unhashable", DEKKER, "TypeError: cannot encode a dict (while encoding the state it reaches"),
])
def test_a_failing_system_is_a_system_error_with_the_schedule_that_triggers_it(capsys, system, program,
                                                                               words):
    code, out, err = explore(capsys, system, program, "--network", "unordered")
    assert code == 4 and out == ""
    assert err.count("\n") == 1 and words in err and "Traceback" not in err
    steps = err.split("schedule that triggers it (", 1)[1].split("): ", 1)[1]
    schedule = [Step.from_json(s) for s in json.loads(steps)]
    actor = {"same_names": user_systems.SameNames, "raising": user_systems.Raising,
             "unhashable": user_systems.Unhashable}[system]
    s = user_systems.build(SystemRequest(program, network=Network.UNORDERED, system=system), actor)
    before = replay(s, schedule[:-1])           # the prefix replays...
    if system == "unhashable":                  # ...and the last step reaches the unencodable state
        assert isinstance(s.apply(before, schedule[-1]).procs[1].store, dict)
    else:                                       # ...and the last step fails
        with pytest.raises(Exception, match="division by zero|same message_name"):
            s.apply(before, schedule[-1])


def test_a_user_broadcast_property_is_judged(capsys):
    code, out, _ = explore(capsys, "no_remote_write", DEKKER, "--model", "cc")
    assert code == 1
    assert "broadcast property 'no remote write' violated" in out
    no_pass(out)


def test_a_sometimes_property_that_never_held_is_named_and_no_pass_is_printed(capsys):
    code, out, _ = explore(capsys, "never", DEKKER, "--model", "cc")
    assert code == 1
    assert "property 'impossible' (sometimes) NEVER HELD" in out
    no_pass(out)


def test_a_random_run_cut_by_max_steps_is_not_a_pass(capsys):
    code = main(["simulate", DEKKER, "--system", "user_systems:eager", "--max-steps", "2", "--seed", "1"])
    out, _ = capsys.readouterr()
    assert code == 3 and "CUT SHORT after 2 steps" in out
    no_pass(out)
    assert main(["simulate", DEKKER, "--system", "user_systems:eager", "--seed", "1"]) in (0, 1)
    assert "CUT SHORT" not in capsys.readouterr().out


def test_a_system_that_fails_on_spark_is_a_system_error_too(capsys):
    code, out, err = explore(capsys, "raising", DEKKER, "--spark", "--master", "local[1]")
    assert code == 4 and out == ""
    assert "ZeroDivisionError: division by zero in on_receive" in err and "schedule that triggers it" in err


def test_simulate_reports_a_failing_system_as_a_system_error(capsys):
    code = main(["simulate", DEKKER, "--system", "user_systems:raising", "--seed", "3"])
    out, err = capsys.readouterr()
    assert code == 4 and out == "" and err.count("\n") == 1 and "Traceback" not in err
    assert "ZeroDivisionError: division by zero in on_receive (while taking the step recv" in err
    steps = err.split("schedule that triggers it (", 1)[1].split("): ", 1)[1]
    schedule = [Step.from_json(s) for s in json.loads(steps)]
    s = user_systems.build(SystemRequest(DEKKER, system="raising"), user_systems.Raising)
    with pytest.raises(ZeroDivisionError):
        s.apply(replay(s, schedule[:-1]), schedule[-1])


def test_replaying_a_file_of_a_system_that_now_fails_is_a_system_error(capsys, tmp_path):
    assert explore(capsys, "eager", DEKKER, "--model", "sc", "--save", str(tmp_path))[0] == 1
    saved = next(tmp_path.iterdir())
    cx = json.loads(saved.read_text())
    cx["algorithm"] = "user_systems:raising"          # the same run, on a system that raises
    saved.write_text(json.dumps(cx))
    code = main(["simulate", "--replay", str(saved)])
    out, err = capsys.readouterr()
    assert code == 4 and err.count("\n") == 1 and "division by zero in on_receive" in err
    assert "Traceback" not in err


def test_a_factory_option_is_carried_by_the_printed_command_and_reproduces_the_run(capsys, tmp_path):
    code, out, _ = explore(capsys, "tuned", DEKKER, "--model", "sc", "--option", "label=dekker",
                           "--option", "replicas=2")
    assert code == 1
    printed = out.strip().splitlines()[-1].strip()
    argv = shlex.split(printed)
    assert argv[argv.index("--system") + 1] == "user_systems:tuned"
    assert [argv[i + 1] for i, a in enumerate(argv) if a == "--option"] == ['label="dekker"', "replicas=2"]
    argv[-1] = str(tmp_path / "found")
    assert main([*argv[1:], "--quiet"]) == 1
    capsys.readouterr()
    path = next((tmp_path / "found").iterdir())
    saved = json.loads(path.read_text())
    assert saved["options"] == {"label": "dekker", "replicas": 2}
    assert saved["search"].startswith(printed.removesuffix(" --save DIR"))
    assert main(["simulate", "--replay", str(path)]) == 1  # the file rebuilds the same system
    assert "violates sc" in capsys.readouterr().out


@pytest.mark.parametrize("argv, words", [
    (["--option", "replicas=3"], "replicas=3, but the program has 2 processes"),
    (["--option", "replicas"], "--option 'replicas': give NAME=VALUE"),
    (["--option", "label=a", "--option", "label=b"], "--option label: given twice"),
])
def test_a_bad_factory_option_is_one_line_and_exit_2(capsys, argv, words):
    code, out, err = explore(capsys, "tuned", DEKKER, "--model", "sc", *argv)
    assert code == 2 and out == "" and words in err and len(err.strip().splitlines()) == 1


def test_a_built_in_refuses_a_factory_option(capsys):
    code = main(["explore", "paris-berlin-newyork", "--option", "speed=3", "--quiet"])
    _, err = capsys.readouterr()
    assert code == 2 and "option 'speed'" in err and len(err.strip().splitlines()) == 1


def test_the_python_api_passes_factory_options_and_its_command_carries_them():
    import fisheye

    report = fisheye.explore("user_systems:tuned", DEKKER, model="sc", options={"label": "dekker"})
    assert not report.ok and len(report.violations) == 1
    assert "--option 'label=\"dekker\"'" in report.command and "--option replicas=2" in report.command
