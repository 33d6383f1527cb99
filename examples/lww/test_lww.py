"""The last-writer-wins example through fisheye's public tools: the explorer, the
checks, counterexample files, replay and explain (run by CI with the rest of the suite).

The counts are pinned like Stateright's: a change in them is a change in the protocol,
the network or the explorer, to be understood before the numbers are updated."""

from __future__ import annotations

import json

import pytest
from lww import SCENARIOS, make

from fisheye.checker import counterexample as cxm
from fisheye.checker.cli import main
from fisheye.checker.explore import run
from fisheye.checker.systems import context
from fisheye.checker.systems import make as make_system
from fisheye.impl.api import MessagePassing, Network, ReplayError, Step, System, SystemRequest, replay

NAME = "lww:make"


def explore(scenario: str, model: str, **kw) -> dict:
    ctx = context(NAME, SystemRequest(scenario, **kw))
    return run(ctx, model=model)


def test_the_factory_keeps_the_contract():
    s = make_system(NAME, SystemRequest("dekker"))
    assert isinstance(s, System) and isinstance(s, MessagePassing)
    assert s.info.algorithm == NAME and s.info.scenario == "dekker"
    assert [p.name for p in s.properties()] == ["sc", "convergence", "stale read", "deadlock", "complete run"]
    with pytest.raises(ValueError, match="unknown lww scenario"):
        make_system(NAME, SystemRequest("nope"))
    with pytest.raises(ValueError, match="no variant"):
        make_system(NAME, SystemRequest("dekker", variant="published"))


def test_a_write_sends_one_update_to_every_other_process():
    s = make(SystemRequest("causal", system=NAME))
    st = s.initial()
    after = s.apply(st, Step("op", "p"))
    assert s.in_transit(after) == {("p", "q"): (("UPDATE", "X", 1, 1),), ("p", "r"): (("UPDATE", "X", 1, 1),)}
    with pytest.raises(ReplayError):
        replay(s, [Step("recv", "q", "p")])          # nothing in transit yet


def test_dekker_violates_sc_but_not_cc():
    rep = explore("dekker", "sc")
    assert (rep["complete"], rep["states"], rep["terminal_states"], rep["histories"]) == (True, 38, 8, 4)
    assert [v["violates"] for v in rep["violations"]] == ["sc"]
    # the shortest run: both write, both read 0 before any update arrives
    h = rep["violations"][0]["history"]["history"]
    assert h["p"] == [["w", "X", 1], ["r", "Y", 0]] and h["q"] == [["w", "Y", 1], ["r", "X", 0]]
    status = {p["name"]: p["status"] for p in rep["properties"]}
    assert status == {"sc": "violated", "convergence": "held", "stale read": "held", "deadlock": "held",
                      "complete run": "held"}
    assert explore("dekker", "cc")["violations_total"] == 0


def test_causal_violates_cc():
    rep = explore("causal", "cc")
    assert (rep["states"], rep["terminal_states"], rep["histories"]) == (220, 16, 8)
    v = rep["violations"][0]
    assert v["violates"] == "cc"
    assert v["history"]["history"]["q"] == [["r", "X", 1], ["w", "Y", 1]]
    assert v["history"]["history"]["r"] == [["r", "Y", 1], ["r", "X", 0]]


def test_unordered_channels_reach_the_same_histories():
    fifo, unordered = explore("causal", "cc"), explore("causal", "cc", network=Network.UNORDERED)
    assert unordered["histories"] == fifo["histories"]
    assert unordered["violations_total"] == fifo["violations_total"]


def test_a_sometimes_property_that_never_holds_fails_the_run(capsys):
    rep = explore("race", "sc")
    assert (rep["states"], rep["terminal_states"], rep["histories"], rep["violations_total"]) == (35, 6, 3, 0)
    assert {p["name"]: p["status"] for p in rep["properties"]}["stale read"] == "never held"
    assert main(["explore", "race", "--system", NAME, "--model", "sc", "--quiet"]) == 1


def test_the_command_line_runs_the_protocol(capsys):
    assert main(["explore", "dekker", "--system", NAME, "--model", "sc", "--quiet", "--json"]) == 1
    rep = json.loads(capsys.readouterr().out)
    assert rep["algorithm"] == NAME and rep["states"] == 38
    assert main(["explore", "dekker", "--system", NAME, "--model", "cc", "--quiet"]) == 0
    assert main(["explore", "dekker", "--system", "lww:nope", "--quiet"]) == 2
    assert "lww has no nope" in capsys.readouterr().err


def test_counterexample_file_replays_and_explains(tmp_path, capsys):
    rep = explore("causal", "cc")
    schedule = [Step.from_json(s) for s in rep["violations"][0]["schedule"]]
    system = make_system(NAME, SystemRequest("causal"))
    cx = cxm.from_run(system, schedule, "cc", search="explore")
    path = tmp_path / "lww-causal-cc.json"
    cx.save(path)
    back = cxm.load(path)
    assert back.algorithm == NAME and back.scenario == "causal"
    assert cxm.replay(back).ok
    assert main(["explain", str(path)]) == 0
    out = capsys.readouterr().out
    assert "a case ending in S_r" in out and "Replay script" in out


def test_every_scenario_converges():
    for name in SCENARIOS:
        rep = explore(name, "sc")
        assert rep["complete"]
        assert {p["name"]: p["status"] for p in rep["properties"]}["convergence"] == "held"


def test_an_entry_point_names_the_factory(monkeypatch, capsys):
    from importlib.metadata import EntryPoint

    import fisheye.checker.systems as systems

    eps = [EntryPoint(name="lww", value="lww:make", group=systems.ENTRY_POINT_GROUP)]
    monkeypatch.setattr(systems, "entry_points",
                        lambda group: eps if group == systems.ENTRY_POINT_GROUP else [])
    s = make_system("lww", SystemRequest("dekker"))
    assert s.info.algorithm == "lww"
    assert main(["explore", "dekker", "--system", "lww", "--model", "sc", "--quiet"]) == 1


@pytest.mark.spark
def test_spark_explores_the_protocol_like_the_local_search(capsys):
    assert main(["explore", "causal", "--system", NAME, "--model", "cc", "--quiet", "--json", "--spark",
                 "--master", "local[2]"]) == 1
    remote = json.loads(capsys.readouterr().out)
    local = explore("causal", "cc")
    assert remote["engine"] == "spark"
    for key in ("states", "terminal_states", "histories", "violations_total", "properties"):
        assert remote[key] == local[key], key
