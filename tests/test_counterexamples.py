"""Every stored counterexample (``counterexamples/*.json``, their format in
docs/contract.md) replays: the system is rebuilt from the file, the schedule replayed,
and the same violation occurs; a model violation's explanation is produced, minimal and
verified."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from research_scripts import load

from fisheye.checker import counterexample as cxm
from fisheye.checker.cli import main
from fisheye.checker.explain import explain, verify
from fisheye.checker.shrink import RunChecks, still_violates
from fisheye.spec.graph import ProximityGraph
from fisheye.spec.models import MODEL_NAMES

ROOT = Path(__file__).resolve().parent.parent / "counterexamples"
FILES = sorted(ROOT.glob("*.json"))
SEARCHES = load("counterexample_searches").SEARCHES
CONTRACT_KEYS = {"history", "violates", "algorithm", "variant", "mutant", "network", "schedule"}


def test_the_searches_stored_counterexamples():
    assert FILES, "no counterexample file: run python scripts/research/counterexample_searches.py"
    summaries = sorted((ROOT / "summary").glob("*.json"))
    assert summaries
    found = set()
    for s in summaries:
        data = json.loads(s.read_text())
        if isinstance(data, list):  # another search tool's summary: entries name their files
            found |= {e["file"] for e in data if isinstance(e, dict) and e.get("file")}
            continue
        if not isinstance(data.get("found"), dict):
            continue  # a summary of runs that wrote no file
        assert data["bound"] and data["runs"] > 0
        found |= set(data["found"].values())
        if data["name"] in SEARCHES:
            assert set(data["found"].values()) <= {f.name for f in MINE}
    assert found == {f.name for f in FILES}   # every file comes from a recorded search
    assert "README.md" in {p.name for p in ROOT.iterdir()}


@pytest.mark.parametrize("path", FILES, ids=[f.stem for f in FILES])
def test_counterexample_replays_to_the_same_violation(path):
    obj = json.loads(path.read_text())
    assert CONTRACT_KEYS <= set(obj)
    assert obj["variant"] in ("published", "corrected")
    assert obj["network"] in ("fifo", "unordered")
    cx = cxm.load(path)
    res = cxm.replay(cx)
    assert res.ok, res.message
    if cx.violates in MODEL_NAMES:
        # the explanation stored in the file matches a fresh one, which is minimal and verified
        g = ProximityGraph(cx.history.processes, cx.history.edges)
        exp = explain(cx.history, cx.violates, g)
        assert exp.core.minimal and verify(exp) == []
        stored = obj["explanation"]
        assert stored["core"] == exp.to_json()["core"] and stored["minimal"]
        assert "a contradiction!" in exp.text()
    elif cx.violates == cxm.DEADLOCK:
        assert obj["details"].startswith("no step is enabled")
    else:  # a broadcast property: the replayed run's violation names it
        assert res.message.startswith(f"{cx.violates}: ")


@pytest.mark.parametrize("path", FILES[:3], ids=[f.stem for f in FILES[:3]])
def test_explain_cli_on_a_counterexample(path, capsys):
    assert main(["explain", str(path)]) == 0
    out = capsys.readouterr().out
    assert "Replay script" in out
    assert "  1. " in out


def test_a_tampered_schedule_does_not_replay(tmp_path):
    path = FILES[0]
    obj = json.loads(path.read_text())
    obj["schedule"] = obj["schedule"][:1] + obj["schedule"][:1] * 50
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(obj))
    assert not cxm.replay(cxm.load(bad)).ok


def test_theorem5_of_the_2014_report_fails_for_either_variant():
    """The fisheye-2014 counterexample (IRIW: the two readers are neighbours, the two
    writers are not) replays with Algorithm 1 as published AND corrected, and its
    history satisfies the 2015 definition: the 2014 claim is false, not the algorithm."""
    from dataclasses import replace

    from fisheye.checker.engines import check

    path = ROOT / "alg2-published-4p--fisheye-2014.json"
    cx = cxm.load(path)
    assert len(cx.history.ops) == 6 and cx.history.edges == (("p2", "p3"),)
    for variant in ("published", "corrected"):
        assert cxm.replay(replace(cx, record=replace(cx.record, variant=variant))).ok
    g = ProximityGraph(cx.history.processes, cx.history.edges)
    assert check(cx.history, "fisheye", g).verdict.value == "consistent"
    assert check(cx.history, "fisheye-2014", g).verdict.value == "violation"


MINE = [f for f in FILES if json.loads(f.read_text()).get("search") in SEARCHES]


@pytest.mark.parametrize("path", MINE, ids=[f.stem for f in MINE])
def test_shrunk_schedules_are_1_minimal(path):
    """No single step of a stored schedule can be removed: the shorter schedule either
    does not replay or no longer shows the violation."""
    cx = cxm.load(path)
    system = cx.system()
    mg = ProximityGraph(cx.history.processes, cx.history.edges) if cx.violates in MODEL_NAMES else None
    checks = RunChecks((cx.violates,) if cx.violates in MODEL_NAMES else (), model_graph=mg)
    sched = list(cx.schedule)
    assert still_violates(system, sched, cx.violates, checks)
    for i in range(len(sched)):
        assert not still_violates(system, sched[:i] + sched[i + 1:], cx.violates, checks), i


@pytest.mark.parametrize("path", sorted(Path("counterexamples").glob("*.json")), ids=lambda p: p.name)
def test_every_shipped_counterexample_is_explained_as_is(path, capsys):
    assert main(["explain", str(path), "--quiet"]) == 0
    out = capsys.readouterr().out
    assert "a contradiction!" in out or "Replayed:" in out or "No step-by-step argument" in out


def test_the_search_script_writes_where_it_is_told(tmp_path, monkeypatch):
    """The driver writes under ``--out`` (default: ``counterexamples`` in the current
    directory), never next to its own code."""
    searches = load("counterexample_searches")
    assert searches.main(["--out", str(tmp_path / "given"), "--readme"]) == 0
    assert searches.TABLE_START in (tmp_path / "given" / "README.md").read_text()
    monkeypatch.chdir(tmp_path)
    assert searches.main(["--readme"]) == 0
    assert (tmp_path / "counterexamples" / "README.md").exists()
