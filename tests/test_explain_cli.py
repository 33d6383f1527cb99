"""``fisheye explain`` on the command line (docs/contract.md, "Command line"): exit statuses, the
``--json`` data, the text, the terminal diagram and a well-formed ``--svg``."""

from __future__ import annotations

import io
import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from fisheye.checker.cli import main
from fisheye.checker.result import Verdict
from fisheye.spec import paper
from fisheye.spec.models import Model

SVG = "{http://www.w3.org/2000/svg}"


@pytest.fixture
def fig4(tmp_path: Path) -> tuple[Path, Path]:
    b1, b2 = tmp_path / "fig4-b1.json", tmp_path / "fig4-b2.json"
    b1.write_text(json.dumps(paper.figure4(1).to_json()))
    b2.write_text(json.dumps(paper.figure4(2).to_json()))
    return b1, b2


def test_violation_is_explained_in_text_with_a_diagram(fig4, capsys):
    assert main(["explain", str(fig4[0]), "--model", "fisheye"]) == 0
    out = capsys.readouterr().out
    assert "Let:\n  A = w(X,1) at paris (1st operation of paris)" in out
    assert "paris and berlin are neighbours in G, so either A <* C or C <* A" in out
    assert out.count("a contradiction!") == 2
    assert "Space-time diagram of the core and its context (6 of 9 operations)" in out
    assert "proximity graph: paris:berlin" in out and "legend:" in out
    assert "contradiction (a case ending in S_berlin): A <* C < A" in out
    assert "not drawn: 1 process(es)" in out


def test_json_is_the_explanation_data(fig4, capsys):
    assert main(["explain", str(fig4[0]), "--model", "fisheye", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["verdict"] == "violation" and data["model"] == "fisheye"
    assert data["core"] == [["paris", 0], ["paris", 2], ["berlin", 0], ["berlin", 2]]
    assert data["minimal"] is True and data["core_size"] == 4 and data["operations_total"] == 9
    assert set(data["let"]) == {"A", "B", "C", "D"}
    ids = {f["id"] for f in data["facts"]}
    for f in data["facts"]:
        assert set(f["premises"]) <= ids and f["because"]
    assert len(data["proof"]["split"]["cases"]) == 2


def test_graph_option_overrides_the_file(fig4, capsys):
    """Without the edge, Figure 4 b = 1 is fisheye-consistent: nothing to explain."""
    assert main(["explain", str(fig4[0]), "--model", "fisheye", "--graph", "empty"]) == 1
    assert "consistent" in capsys.readouterr().out


def test_consistent_history_exits_1(fig4, capsys):
    assert main(["explain", str(fig4[1]), "--model", "fisheye", "--json"]) == 1
    assert json.loads(capsys.readouterr().out)["verdict"] == "consistent"


def test_unknown_check_exits_3(fig4, capsys, monkeypatch):
    import fisheye.checker.engines as engines
    from fisheye.checker.result import CheckResult

    def unknown(h, model, graph=None, **k):
        return CheckResult(Verdict.UNKNOWN, Model(model), graph, "stub", message="gave up")

    monkeypatch.setattr(engines, "check", unknown)
    assert main(["explain", str(fig4[0]), "--model", "fisheye"]) == 3


@pytest.mark.parametrize("argv,needle", [
    (["explain", "{missing}"], "no such file"),
    (["explain", "{notjson}", "--model", "sc"], "is not JSON"),
    (["explain", "{fig}"], "--model is required"),
    (["explain", "{fig}", "--model", "sc", "--graph", "paris:nowhere"], "unknown process"),
    (["explain", "{fig}", "--model", "nope"], "invalid choice"),
])
def test_bad_input_is_one_line_and_exit_2(fig4, tmp_path, capsys, argv, needle):
    (tmp_path / "bad.json").write_text("{not json")
    paths = {"missing": str(tmp_path / "missing.json"), "notjson": str(tmp_path / "bad.json"),
             "fig": str(fig4[0])}
    assert main([a.format(**paths) for a in argv]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and needle in err and "Traceback" not in err


def test_svg_is_well_formed_with_the_expected_elements(fig4, tmp_path, capsys):
    out = tmp_path / "fig4.svg"
    assert main(["explain", str(fig4[0]), "--model", "fisheye", "--svg", str(out)]) == 0
    root = ET.parse(out).getroot()
    assert root.tag == f"{SVG}svg"

    def cls(name: str) -> list[ET.Element]:
        return [e for e in root.iter() if name in (e.get("class") or "").split()]
    assert len(cls("process")) == 2                       # the processes near the core (not new-york)
    ops = [e for e in cls("op")]
    assert len(ops) == 6                                  # the core and its context, as labelled points
    assert all(g.find(f"{SVG}circle") is not None and g.find(f"{SVG}text") is not None for g in ops)
    core = [g for g in ops if "core" in g.get("class", "")]
    assert sorted(g.find(f"{SVG}text").text for g in core) == [
        "A:w(X,1)", "B:r(X)->2", "C:w(X,2)", "D:r(X)->1"]
    assert len([e for e in cls("rf") if "core" in e.get("class", "")]) == 2
    assert len(cls("cycle")) == 4                         # two 2-edge contradicting cycles
    assert len(cls("graph-edge")) == 1                    # paris:berlin
    assert len(cls("legend")) == 1
    assert int(root.get("width")) <= 4000


def test_property_counterexample_is_explained_from_its_run(tmp_path, capsys):
    import random

    from fisheye.checker import counterexample as cxm
    from fisheye.checker.explore.simulation import SWARM, random_run
    from fisheye.checker.shrink import RunChecks, shrink
    from fisheye.impl.system import make_system

    system = make_system("paris-berlin-newyork", "paper", mutant="no-t1")
    checks = RunChecks((), properties=True, deadlock=False)
    rng = random.Random(0)
    for _ in range(200):
        sched, state = random_run(system, rng, max_steps=2000, chooser=SWARM)
        if "G-delivery order" in checks.violations(system, state):
            break
    else:
        pytest.fail("no G-delivery order violation in 200 runs of the no-t1 mutant")
    small = shrink(system, sched, "G-delivery order", checks)
    assert len(small) < len(sched)
    path = tmp_path / "cx.json"
    cxm.from_run(system, small, "G-delivery order", search="test").save(path)
    assert main(["explain", str(path)]) == 0
    out = capsys.readouterr().out
    assert "The run violates G-delivery order" in out and "Delivery logs" in out
    assert f"{len(small):3}. " in out


JEPSEN = Path(__file__).parent / "data" / "jepsen"


@pytest.mark.parametrize("nil_read", ["initial", "any"])
def test_a_knossos_history_that_is_not_linearizable_is_explained(run_cli, nil_read):
    """Knossos's ``bad/rethink-fail-minimal.edn``: a read of 3 concurrent with a write
    of 4 after a write of 0; nothing writes 3, so the read is the whole core."""
    path = JEPSEN / "knossos-rethink-fail-minimal.edn"
    r = run_cli("explain", path, "--model", "lin", "--nil-read", nil_read, "--json")
    assert r.status == 0, r.err
    out = r.json()
    assert out["verdict"] == "violation" and out["file"] == str(path)
    assert [c["label"] for c in out["core"]] == ["r(x)3@1#0"] and out["no_source"] == "A"
    assert run_cli("check", path, "--model", "lin", "--nil-read", nil_read).status == 1
    text = run_cli("explain", path, "--model", "lin", "--nil-read", nil_read)
    assert text.status == 0 and "reads 3 from x, but no operation writes 3" in text.out


@pytest.mark.parametrize(("model", "said"), [
    ("lin", "no operation writes 3 to x, which starts with no value (nil)"),
    ("cc", "and x starts with no value (nil)")])
def test_a_jepsen_registers_initial_nil_is_said_in_words(run_cli, model, said):
    """A Jepsen register starts at nil, imported as a string sentinel: the explanation
    (the real-time one for lin, the argument for cc) says the register starts with no
    value, and never quotes the sentinel."""
    r = run_cli("explain", JEPSEN / "knossos-rethink-fail-minimal.edn", "--model", model)
    assert r.status == 0, r.err
    assert said in r.out
    assert '"nil"' not in r.out


def test_a_linearizable_knossos_history_has_nothing_to_explain(run_cli):
    r = run_cli("explain", JEPSEN / "knossos-cas-register-bug.edn", "--model", "lin", "--nil-read", "any")
    assert r.status == 1 and "consistent under lin" in r.out


def test_a_jepsen_history_on_standard_input_is_explained(run_cli, monkeypatch):
    text = (JEPSEN / "knossos-immediate-failure.edn").read_text()
    monkeypatch.setattr("sys.stdin", io.StringIO(text))
    r = run_cli("explain", "-", "--model", "lin", "--json")
    assert r.status == 0, r.err
    assert r.json()["file"] == "<stdin>" and [c["label"] for c in r.json()["core"]] == ["r(x)3@1#0"]


def test_a_json_history_on_standard_input_is_explained(run_cli, monkeypatch, fig4):
    monkeypatch.setattr("sys.stdin", io.StringIO(fig4[0].read_text()))
    r = run_cli("explain", "-", "--model", "fisheye", "--json", "--quiet")
    assert r.status == 0 and r.json()["verdict"] == "violation"


@pytest.mark.parametrize("stdin,argv,needle", [
    ("hello there", ["-", "--model", "lin"], "<stdin>: is neither a JSON history"),
    ("({:type :invoke, :f :read}", ["-", "--model", "lin"], "<stdin>: is not EDN"),
    ("", ["{edn}", "--model", "lin", "--format", "jepsen-log"], "bad.edn"),
    ("", ["{fig}", "--model", "lin", "--nil-read", "any"], "--nil-read applies only to Jepsen"),
    ("", ["{fig}", "--model", "lin"], "fig4-b1.json: model lin needs real time"),
    ("", [str(JEPSEN / "porcupine-etcd_000.log"), "--model", "cc"],
     "porcupine-etcd_000.log: model cc is not defined on histories with cas operations"),
])
def test_bad_jepsen_input_is_one_line_naming_the_file(run_cli, monkeypatch, tmp_path, fig4, stdin, argv,
                                                     needle):
    monkeypatch.setattr("sys.stdin", io.StringIO(stdin))
    (tmp_path / "bad.edn").write_text("not a log\n")
    paths = {"edn": str(tmp_path / "bad.edn"), "fig": str(fig4[0])}
    r = run_cli("explain", *[a.format(**paths) for a in argv])
    assert r.status == 2 and r.out == ""
    assert r.err.count("\n") == 1 and needle in r.err and "Traceback" not in r.err
