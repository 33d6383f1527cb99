"""``fisheye check`` and ``fisheye table1`` as docs/contract.md says ("History files",
"Command line"): exit statuses, --graph, --json with witnesses, and every bad input of a
history file."""

from __future__ import annotations

import io
import json
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from fisheye.checker.cli import check_batch
from fisheye.spec.graph import ProximityGraph
from fisheye.spec.history import load_history
from fisheye.spec.validate import problems
from fisheye.spec.witness import Witness

pytestmark = pytest.mark.z3

FISHEYE = Path(sys.executable).parent / "fisheye"


def test_figure4_b1_fisheye_violation_human_output(run_cli, data_dir):
    r = run_cli("check", data_dir / "figure4-b1.json", "--model", "fisheye", "--engine", "z3")
    assert r.status == 1 and r.err == ""
    first, *rest = r.out.splitlines()
    assert "figure4-b1.json: violation under fisheye (graph paris:berlin, engine z3" in first
    assert any("[edge paris-berlin]" in line for line in rest)


@pytest.mark.parametrize(("graph", "status"), [
    ("file", 1), ("empty", 0), ("complete", 1), ("paris:berlin", 1), ("paris:new-york", 0),
    ("new-york:berlin,paris:new-york", 0), ("berlin:paris", 1),
])
def test_graph_option_on_figure4_b1(run_cli, data_dir, graph, status):
    r = run_cli("check", data_dir / "figure4-b1.json", "--model", "fisheye", "--graph", graph)
    assert r.status == status, r.out + r.err


@pytest.mark.parametrize(("model", "status"), [("sc", 1), ("cc", 0), ("fisheye", 1), ("fisheye-2014", 1)])
def test_figure4_b1_every_model(run_cli, data_dir, model, status):
    assert run_cli("check", data_dir / "figure4-b1.json", "--model", model).status == status


@pytest.mark.parametrize("model", ["sc", "cc", "fisheye", "fisheye-2014"])
def test_json_consistent_verdict_carries_a_witness_the_spec_accepts(run_cli, data_dir, model):
    path = data_dir / "figure4-b3.json"
    r = run_cli("check", path, "--model", model, "--json", "--engine", "z3")
    assert r.status == 0
    obj = r.json()
    assert (obj["verdict"], obj["model"], obj["engine"]) == ("consistent", model, "z3")
    h = load_history(path)
    witness = Witness.from_json(h, obj["witness"])
    assert problems(h, model, ProximityGraph(h.processes, h.edges), witness) == []


def test_json_violation_carries_the_certificate(run_cli, data_dir):
    r = run_cli("check", data_dir / "figure6-x2-y4.json", "--model", "fisheye", "--json")
    assert r.status == 1
    obj = r.json()
    assert obj["verdict"] == "violation" and obj["model"] == "fisheye" and "witness" not in obj
    rules = {c["rule"] for c in obj["certificate"]}
    assert "edge" in rules and rules <= {"po", "rf", "legality", "edge"}
    assert all(isinstance(c["text"], str) and c["ops"] for c in obj["certificate"])


def test_figure6_cc_consistent_and_fisheye_x3(run_cli, data_dir):
    assert run_cli("check", data_dir / "figure6-x2-y4.json", "--model", "cc").status == 0
    assert run_cli("check", data_dir / "figure6-x3-y4.json", "--model", "fisheye").status == 0
    assert run_cli("check", data_dir / "figure6-x3-y4.json", "--model", "sc").status == 1


def test_read_of_an_unwritten_value_is_a_violation(run_cli, write_file):
    path = write_file("ghost.json", {"history": {"a": [["w", "X", 1]], "b": [["r", "X", 9]]}})
    for model in ("sc", "cc", "fisheye", "fisheye-2014"):
        r = run_cli("check", path, "--model", model)
        assert r.status == 1 and r.err == "", model


def test_timeout_gives_unknown_exit_3(run_cli, write_file):
    data = {f"p{i}": [["w", "X", (i * k) % 3] if k % 2 == 0 else ["r", "X", (i + k) % 3] for k in range(8)]
            for i in range(5)}
    path = write_file("hard.json", {"history": data})
    r = run_cli("check", path, "--model", "fisheye", "--graph", "complete", "--engine", "z3",
                "--timeout", "0.001", "--json")
    assert r.status == 3
    obj = r.json()
    assert obj["verdict"] == "unknown" and "witness" not in obj and "0.001 s" in obj["message"]


BAD_FILES = [
    ("file not JSON", "{\"history\": {", "is not JSON"),
    ("history not a map", {"history": [["w", "X", 1]]}, '"history" must be a map'),
    ("history values not lists", {"history": {"a": 3}}, "must be a list of operations"),
    ("op not a 3-element list", {"history": {"a": [["w", "X"]]}}, "[kind, register, value]"),
    ("unknown kind", {"history": {"a": [["inc", "X", 1]]}}, "unknown kind"),
    ("cas without [old, new]", {"history": {"a": [["cas", "X", 1]]}}, "a cas carries [old, new]"),
    ("register not a string", {"history": {"a": [["w", ["X"], 1]]}}, "a register is a string"),
    ("value not a scalar", {"history": {"a": [["w", "X", {"v": 1}]]}}, "a value is an integer or a string"),
    ("edge not a pair", {"graph": [["a", "b", "c"]], "history": {"a": [], "b": [], "c": []}}, "not a pair"),
    ("unknown process in graph", {"graph": [["a", "mars"]], "history": {"a": []}}, 'unknown process "mars"'),
    ("self-loop", {"graph": [["a", "a"]], "history": {"a": [["w", "X", 1]]}}, "self-loop"),
]


@pytest.mark.parametrize(("case", "content", "needle"), BAD_FILES, ids=[b[0] for b in BAD_FILES])
def test_bad_input_exit_2_one_line_naming_the_file(run_cli, write_file, case, content, needle):
    path = write_file("bad-input.json", content)
    r = run_cli("check", path, "--model", "cc")
    assert r.status == 2 and r.out == ""
    lines = r.err.splitlines()
    assert len(lines) == 1 and "bad-input.json" in lines[0] and needle in lines[0]
    assert "Traceback" not in r.err


@pytest.mark.parametrize(("args", "needle"), [
    (["--model", "cc", "--graph", "paris:mars"], 'unknown process "mars"'),
    (["--model", "cc", "--graph", "paris-berlin"], "not of the form p:q"),
    (["--model", "cc", "--graph", "paris:paris"], "self-loop"),
    (["--model", "linearizability"], "invalid choice"),
    ([], "--model"),
    (["--model", "cc", "--engine", "magic"], "invalid choice"),
    (["--model", "cc", "--timeout", "-1"], "--timeout"),
])
def test_bad_options_exit_2_one_line(run_cli, data_dir, args, needle):
    r = run_cli("check", data_dir / "figure4-b1.json", *args)
    assert r.status == 2 and r.out == ""
    assert len(r.err.splitlines()) == 1 and needle in r.err


def test_missing_file_exit_2(run_cli, tmp_path):
    r = run_cli("check", tmp_path / "nowhere.json", "--model", "sc")
    assert r.status == 2 and "nowhere.json" in r.err and len(r.err.splitlines()) == 1


def test_table1_command_reproduces_the_table(run_cli):
    r = run_cli("table1", "--json")
    assert r.status == 0
    obj = r.json()
    assert obj["reproduced"] is True
    rows = {row["model"]: (row["x"], row["y"]) for row in obj["rows"]}
    assert rows == {"sc": ([3], [5]), "cc": ([2, 3], [4, 5]), "fisheye": ([3], [4, 5]),
                    "fisheye-2014": ([3], [4, 5])}
    human = run_cli("table1")
    assert human.status == 0 and "Table 1 reproduced." in human.out


def test_console_script_end_to_end(data_dir, tmp_path):
    ok = subprocess.run([str(FISHEYE), "check", str(data_dir / "figure4-b2.json"), "--model", "fisheye",
                         "--json"], capture_output=True, text=True, timeout=120)
    assert ok.returncode == 0 and ok.stdout.startswith('{"verdict": "consistent", "model": "fisheye"')
    bad = tmp_path / "bad.json"
    bad.write_text("[", encoding="utf-8")
    err = subprocess.run([str(FISHEYE), "check", str(bad), "--model", "sc"], capture_output=True, text=True,
                         timeout=120)
    assert err.returncode == 2 and err.stdout == ""
    assert len(err.stderr.splitlines()) == 1 and "bad.json" in err.stderr and "Traceback" not in err.stderr


# ---- input side: standard input, counterexample files, simulate --json output -------------

def test_standard_input(run_cli, data_dir, monkeypatch):
    monkeypatch.setattr("sys.stdin", io.StringIO((data_dir / "figure4-b1.json").read_text()))
    r = run_cli("check", "-", "--model", "sc", "--json")
    assert r.status == 1 and r.json()["verdict"] == "violation"
    assert r.json()["input"] == {"format": "json"}


def test_standard_input_bad_input_names_stdin(run_cli, monkeypatch):
    monkeypatch.setattr("sys.stdin", io.StringIO('{"history": {"a": [["w", "X"]]}}'))
    r = run_cli("check", "-", "--model", "sc")
    assert r.status == 2 and r.out == ""
    assert r.err.startswith("fisheye: <stdin>: ") and len(r.err.splitlines()) == 1


def test_counterexample_file_checks_its_history(run_cli):
    path = Path(__file__).parent.parent / "counterexamples" / "alg2-published-4p--fisheye-2014.json"
    obj = json.loads(path.read_text())
    r = run_cli("check", path, "--model", obj["violates"], "--json")
    assert r.status == 1 and r.json()["input"] == {"format": "json", "container": "counterexample"}
    assert r.json()["graph"] == obj["history"]["graph"]


def test_simulate_json_output_is_checked(run_cli, write_file):
    sim = run_cli("simulate", "paris-berlin-newyork", "--seed", "3", "--json")
    assert sim.status == 0
    path = write_file("run.json", sim.out)
    r = run_cli("check", path, "--model", "fisheye", "--json")
    assert r.status == 0 and r.json()["input"]["container"] == "simulate"
    assert r.json()["operations"] == sum(len(v) for v in sim.json()["history"]["history"].values())


def test_a_wrapper_that_is_no_known_file_is_rejected(run_cli, write_file):
    path = write_file("w.json", {"history": {"history": {"a": [["w", "X", 1]]}}})
    r = run_cli("check", path, "--model", "sc")
    assert r.status == 2 and "neither a counterexample file" in r.err


def test_nil_read_on_a_json_history_is_a_usage_error(run_cli, data_dir):
    r = run_cli("check", data_dir / "figure4-b1.json", "--model", "sc", "--nil-read", "any")
    assert r.status == 2 and "--nil-read applies only to Jepsen histories" in r.err


# ---- batch mode ------------------------------------------------------------------------------

def batch_dir(tmp_path: Path, data_dir: Path) -> Path:
    d = tmp_path / "batch"
    (d / "sub").mkdir(parents=True)
    (d / "a-consistent.json").write_text((data_dir / "figure4-b3.json").read_text())
    (d / "sub" / "b-violation.json").write_text((data_dir / "figure4-b1.json").read_text())
    (d / "notes.txt").write_text("not a history")
    (d / ".hidden.json").write_text("[")
    return d


def test_directory_one_line_per_file_summary_and_worst_status(run_cli, tmp_path, data_dir):
    d = batch_dir(tmp_path, data_dir)
    r = run_cli("check", d, "--model", "sc")
    lines = r.out.splitlines()
    assert r.status == 1 and r.err == ""
    assert lines[0].startswith(f"{d / 'a-consistent.json'}: consistent under sc")
    assert lines[1].startswith(f"{d / 'sub' / 'b-violation.json'}: violation under sc")
    assert re.fullmatch(r"2 files: 1 consistent, 1 violation, 0 unknown, 0 bad input \(\d+\.\d+ s\)",
                        lines[2])
    assert len(lines) == 3


def test_batch_bad_input_is_the_worst_and_each_file_still_reported(run_cli, tmp_path, data_dir):
    d = batch_dir(tmp_path, data_dir)
    bad = d / "c-bad.json"
    bad.write_text('{"history": {"a": [["w", "X"]]}}')
    r = run_cli("check", d, "--model", "sc", "--json")
    assert r.status == 2
    rows = [json.loads(line) for line in r.out.splitlines()]
    assert [row.get("verdict") for row in rows[:3]] == ["consistent", None, "violation"]
    assert [row["exit"] for row in rows[:3]] == [0, 2, 1]
    assert rows[1]["file"] == str(bad) and "operation 0 of process" in rows[1]["error"]
    assert rows[3]["summary"] == {"files": 3, "consistent": 1, "violation": 1, "unknown": 0,
                                  "bad_input": 1}
    assert rows[3]["exit"] == 2
    assert r.err.splitlines() == [f"fisheye: {bad}: {rows[1]['error']}"]


@pytest.mark.parametrize(("outcomes", "worst"), [
    ([], "consistent"), (["consistent"], "consistent"), (["consistent", "unknown"], "unknown"),
    (["unknown", "violation", "consistent"], "violation"), (["violation", "bad input"], "bad input"),
    (["bad input", "unknown"], "bad input"),
])
def test_worst_outcome_ranks_bad_input_then_violation_then_unknown(outcomes, worst):
    assert check_batch.worst_outcome(outcomes) == worst
    assert check_batch.worst_outcome(Counter(outcomes)) == worst


def test_batch_with_an_unknown_and_no_violation_exits_3(run_cli, write_file, data_dir):
    data = {f"p{i}": [["w", "X", (i * k) % 3] if k % 2 == 0 else ["r", "X", (i + k) % 3] for k in range(8)]
            for i in range(5)}
    hard = write_file("hard.json", {"history": data})
    r = run_cli("check", hard, data_dir / "figure4-b3.json", "--model", "fisheye", "--graph",
                "complete", "--engine", "z3", "--timeout", "0.001")
    assert r.status == 3 and r.out.splitlines()[0].startswith(f"{hard}: unknown under fisheye")
    assert "0 violation" in r.out.splitlines()[-1]


def test_batch_of_consistent_files_exits_0_and_progress_goes_to_stderr(run_cli, data_dir):
    files = [data_dir / "figure4-b2.json", data_dir / "figure4-b3.json"]
    r = run_cli("check", *files, "--model", "sc", "--progress")
    assert r.status == 0 and r.out.splitlines()[-1].startswith("2 files: 2 consistent")
    assert r.err.splitlines() == [f"fisheye: [1/2] {files[0]}", f"fisheye: [2/2] {files[1]}"]


def test_progress_on_one_file_is_a_usage_error(run_cli, data_dir):
    r = run_cli("check", data_dir / "figure4-b1.json", "--model", "sc", "--progress")
    assert r.status == 2 and r.out == "" and "--progress applies to several files" in r.err


def test_empty_directory_and_two_stdins_are_usage_errors(run_cli, tmp_path):
    (tmp_path / "empty").mkdir()
    (tmp_path / "empty" / "readme.txt").write_text("x")
    r = run_cli("check", tmp_path / "empty", "--model", "sc")
    assert r.status == 2 and "holds no history file" in r.err and r.out == ""
    r = run_cli("check", "-", "-", "--model", "sc")
    assert r.status == 2 and "only once" in r.err


def test_batch_through_the_console_script(data_dir, tmp_path):
    d = batch_dir(tmp_path, data_dir)
    out = subprocess.run([str(FISHEYE), "check", str(d), "--model", "cc", "--json"],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0 and "Traceback" not in out.stderr
    assert json.loads(out.stdout.splitlines()[-1])["summary"]["consistent"] == 2


# ---- real Jepsen histories: the verdicts their own checkers publish (tests/data/jepsen) ------

PUBLISHED = [  # (file, --nil-read as the publishing checker reads nil, linearizable?)
    ("knossos-rethink-fail-minimal.edn", "any", False),
    ("knossos-immediate-failure.edn", "any", False),
    ("knossos-cas-register-bug.edn", "any", True),
    ("porcupine-etcd_000.log", "initial", False),
    ("porcupine-etcd_002.log", "initial", True),
    ("porcupine-etcd_003.log", "initial", False),
    ("porcupine-etcd_007.log", "initial", True),
]


@pytest.mark.parametrize(("name", "nil_read", "linearizable"), PUBLISHED, ids=[p[0] for p in PUBLISHED])
def test_lin_agrees_with_the_published_verdicts(run_cli, data_dir, name, nil_read, linearizable):
    r = run_cli("check", data_dir / "jepsen" / name, "--model", "lin", "--nil-read", nil_read, "--json")
    assert r.status == (0 if linearizable else 1), r.out + r.err
    obj = r.json()
    assert obj["verdict"] == ("consistent" if linearizable else "violation")
    assert obj["input"]["format"] in ("jepsen-edn", "jepsen-log")
    assert obj["input"]["import"]["operations"] == obj["operations"]


def test_jepsen_directory_in_one_batch_under_lin(run_cli, data_dir):
    r = run_cli("check", data_dir / "jepsen", "--model", "lin", "--json")
    rows = [json.loads(line) for line in r.out.splitlines()]
    verdicts = {Path(row["file"]).name: row["verdict"] for row in rows[:-1]}
    assert verdicts == {name: "consistent" if lin else "violation" for name, _, lin in PUBLISHED}
    assert rows[-1]["exit"] == 1 == r.status
