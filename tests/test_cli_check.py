"""``fisheye check`` and ``fisheye table1`` as the contract says (sections 1 and 3):
exit statuses, --graph, --json with witnesses, and every bad input of section 1."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

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
