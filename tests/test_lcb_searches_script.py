"""The research driver of the localized broadcast's counterexamples
(scripts/research/lcb_searches.py): it writes where it is told, files that replay."""

from __future__ import annotations

import json

import pytest
from research_scripts import load as load_script

from fisheye.checker.counterexample import load, replay
from fisheye.checker.lcb_search import explore
from fisheye.impl.lcb import make_lcb_system
from fisheye.spec import lcurb


def test_the_memory_search_writes_a_replayable_counterexample_under_out(tmp_path, capsys):
    script = load_script("lcb_searches")
    assert script.main(["--out", str(tmp_path / "out"), "lcb-mem3"]) == 0
    summary = json.loads((tmp_path / "out" / "summary" / "urb-lcb-mem3.json").read_text())
    assert summary["found"] == {"cc": "urb-lcb-mem3--cc.json"} and summary["exhaustive_violations"] == 1
    cx = load(tmp_path / "out" / "urb-lcb-mem3--cc.json")
    assert cx.violates == "cc" and cx.algorithm == "lcb" and cx.explanation is not None
    assert replay(cx).ok
    assert "urb-lcb-mem3: 8 histories" in capsys.readouterr().out


def test_an_unknown_search_is_refused(tmp_path, capsys):
    script = load_script("lcb_searches")
    with pytest.raises(SystemExit) as e:
        script.main(["--out", str(tmp_path), "lcb9"])
    assert e.value.code == 2 and "unknown search 'lcb9'" in capsys.readouterr().err
    assert not list(tmp_path.iterdir())


def test_a_search_stops_after_the_level_where_it_found_what_it_wanted():
    system = make_lcb_system("lcb3", crashes=2)
    res = explore(system, until=[lcurb.UNIFORM_AGREEMENT])
    assert not res.complete and res.report["stopped"] == f"found {lcurb.UNIFORM_AGREEMENT}"
    sched, text = res.shortest[lcurb.UNIFORM_AGREEMENT]
    assert len(sched) == 4 and res.report["max_depth"] == 4 and res.states < 6730
    assert text.startswith(f"{lcurb.UNIFORM_AGREEMENT}: ")
