"""The registry of systems (checker/systems.py) and the system contract
(impl/api.py): the built-in systems keep it and rebuild from their identity; what a
factory gets wrong is named."""

from __future__ import annotations

import pytest

from fisheye.checker.systems import make, resolve
from fisheye.impl.api import (
    ChecksBroadcast,
    ConditionedRuns,
    HasChannels,
    HasInfeasible,
    HasOutcomes,
    MessagePassing,
    Network,
    PorModel,
    Step,
    System,
    SystemInfo,
    SystemRequest,
    step_sends,
)
from fisheye.spec.graph import ProximityGraph


@pytest.mark.parametrize("name, request_", [
    ("toco", SystemRequest("fig6")),
    ("toco", SystemRequest("paris-berlin-newyork", "complete", variant="published", mutant="no-t2")),
    ("toco", SystemRequest("p0: write(X,1); p1: a=read(X)", "p0:p1")),
    ("toco", SystemRequest("fig6", level="abstract")),
    ("lcb", SystemRequest("lcb3", crashes=1)),
    ("lcb", SystemRequest("p: write(X,1); q: a=read(X); r: write(X,2)",
                          options=(("urb_delivery", "lazy"),))),
])
def test_builtin_systems_keep_the_contract_and_rebuild_from_their_identity(name, request_):
    s = make(name, request_)
    assert isinstance(s, System)
    assert s.info.algorithm == name
    again = make(name, s.info.request())
    assert again.info == s.info
    assert again.initial() == s.initial()


def test_capabilities_are_typed():
    toco = make("toco", SystemRequest("fig6"))
    assert isinstance(toco, HasOutcomes) and isinstance(toco, ConditionedRuns)
    assert isinstance(toco, MessagePassing) and isinstance(toco, ChecksBroadcast)
    assert not isinstance(toco, HasInfeasible) and not isinstance(toco, PorModel)
    abstract = make("toco", SystemRequest("fig6", level="abstract"))
    assert isinstance(abstract, HasInfeasible) and isinstance(abstract, PorModel)
    assert not isinstance(abstract, MessagePassing)
    lcb = make("lcb", SystemRequest("lcb3", crashes=1))
    assert isinstance(lcb, HasChannels)
    assert not isinstance(lcb, MessagePassing)    # crashes break the locality lemma


def test_step_sends_and_in_transit():
    s = make("toco", SystemRequest("paris-berlin-newyork", "complete"))
    st = s.initial()
    after = s.apply(st, Step("op", "paris"))
    sent = step_sends(s, st, after)
    assert set(sent) == {("paris", "berlin"), ("paris", "new-york")}
    assert all(m[0][0] == "TOCOBC" for m in sent.values())
    assert s.in_transit(after) == sent
    recv = s.apply(after, Step("recv", "berlin", "paris"))
    # berlin's clock catches up: a CATCH_UP to each other process
    assert {ch: [m[0] for m in ms] for ch, ms in step_sends(s, after, recv).items()} == {
        ("berlin", "paris"): ["CATCH_UP"], ("berlin", "new-york"): ["CATCH_UP"]}


def test_properties_have_expectations():
    s = make("toco", SystemRequest("fig6"))
    props = {p.name: p for p in s.properties()}
    assert props["fisheye"].kind == "model" and props["fisheye"].check is None
    assert props["complete run"].expectation == "sometimes"
    assert props["deadlock"].expectation == "always"
    assert {"validity", "integrity", "G-delivery order", "causal order", "termination"} <= set(props)
    lcb = make("lcb", SystemRequest("lcb3"))
    assert [p.name for p in lcb.properties()][:5] == [
        "LCURB1 (validity)", "LCURB2 (no duplication)", "LCURB3 (no creation)",
        "LCURB4 (uniform agreement)", "LCURB5 (causal delivery)"]


def test_factory_errors_are_named():
    with pytest.raises(ValueError, match="unknown system 'nope'"):
        resolve("nope")
    with pytest.raises(ValueError, match="cannot import"):
        resolve("no_such_module_here:make")
    with pytest.raises(ValueError, match="has no"):
        resolve("fisheye.impl.api:no_such_factory")
    with pytest.raises(ValueError, match="not callable"):
        resolve("fisheye.checker.systems:ENTRY_POINT_GROUP")
    with pytest.raises(ValueError, match="does not provide the system contract"):
        make("tests.test_systems:not_a_system", SystemRequest())
    with pytest.raises(ValueError, match="must record the name"):
        make("tests.test_systems:misnamed", SystemRequest("fig6"))
    with pytest.raises(ValueError, match="no option"):
        make("toco", SystemRequest("fig6", options=(("speed", 1),)))
    with pytest.raises(ValueError, match="crashes"):
        make("toco", SystemRequest("fig6", crashes=1))


def not_a_system(request: SystemRequest) -> object:
    return object()


def misnamed(request: SystemRequest) -> System:
    s = make("toco", request)
    s.info = SystemInfo("other", s.info.scenario, s.info.network, s.info.graph)  # type: ignore[misc]
    return s


def test_graph_of_the_localized_broadcast_is_its_mutual_locality():
    with pytest.raises(ValueError, match="mutual locality"):
        make("lcb", SystemRequest("lcb3", graph=ProximityGraph.complete(("p", "q", "r"))))


def test_an_entry_point_names_a_factory(monkeypatch, capsys):
    """An installed package's entry point of the group fisheye.systems (here the lww
    example's factory) is a system name for the registry and the command line."""
    from importlib.metadata import EntryPoint
    from pathlib import Path

    import fisheye.checker.systems as systems
    from fisheye.checker.cli import main

    monkeypatch.syspath_prepend(str(Path(__file__).resolve().parent.parent / "examples" / "lww"))
    eps = [EntryPoint(name="lww", value="lww:make", group=systems.ENTRY_POINT_GROUP)]
    monkeypatch.setattr(systems, "entry_points",
                        lambda group: eps if group == systems.ENTRY_POINT_GROUP else [])
    assert make("lww", SystemRequest("dekker")).info.algorithm == "lww"
    assert "lww" in systems.entry_point_names()
    assert main(["explore", "dekker", "--system", "lww", "--model", "sc", "--quiet"]) == 1
    with pytest.raises(ValueError, match="unknown system 'nope'.*lww"):
        resolve("nope")


def test_the_latency_baseline_is_the_registrys_lcb_running_the_plan():
    from fisheye.checker.latency.systems import build_system
    from fisheye.checker.latency.workload import PlannedOp

    plan = {"p": [PlannedOp("w", "X", 1, 0.0)], "q": [PlannedOp("r", "X", None, 1.0)]}
    s = build_system("lcb", ProximityGraph.complete(("p", "q")), plan)
    assert s.info.algorithm == "lcb" and s.info.scenario_name is None
    assert s.info.program == "p: write(X,1); q: read(X)"
    assert dict(s.info.options)["urb_delivery"] == "lazy"
    assert make("lcb", s.info.request()).info == s.info


@pytest.mark.parametrize("name, request_", [
    ("toco", SystemRequest("fig6")),
    ("toco", SystemRequest("paris-berlin-newyork", "complete", variant="published", mutant="no-t2",
                           network=Network.UNORDERED)),
    ("toco", SystemRequest("p0: write(X,1); p1: a=read(X)", "p0:p1")),
    ("toco", SystemRequest("fig6", level="abstract")),
    ("lcb", SystemRequest("lcb3", crashes=1)),
    ("tests.user_systems:eager", SystemRequest("p0: write(X,1); p1: read(X)", "p0:p1",
                                               network=Network.UNORDERED)),
])
def test_the_command_written_from_the_record_rebuilds_the_same_system(name, request_, capsys):
    import json

    from fisheye.checker.cli.main import main
    from fisheye.checker.systems import command_options

    record = make(name, request_).info
    argv = command_options(record)
    assert argv[argv.index("--system") + 1] == name
    code = main(["explore", *argv, "--model", "none", "--max-states", "20", "--quiet", "--json"])
    assert code in (0, 3)
    report = json.loads(capsys.readouterr().out)
    described = record.describe()
    for key in ("algorithm", "level", "variant", "mutant", "network"):
        assert report.get(key) == described[key], key     # the report omits no mutant
    assert report["graph"] == described["graph"]


def test_a_system_records_the_request_that_rebuilds_it_and_the_former_fields_still_build_it():
    program = "p0: write(X,1); p1: a=read(X)"
    s = make("toco", SystemRequest(program, "p0:p1"))
    assert isinstance(s.info, SystemRequest) and s.info.system == "toco"
    assert (s.info.scenario, s.info.program, s.info.scenario_name) == (program, program, None)
    shown = s.info.describe()                    # what reports and files show: unchanged keys
    assert shown["scenario"] is None and shown["program"] == program and shown["algorithm"] == "toco"
    assert shown["graph"] == [["p0", "p1"]]
    former = SystemInfo("toco", None, s.info.network, s.graph, variant=s.info.variant, program=program)
    assert former == s.info
    named = make("toco", SystemRequest("fig6")).info
    assert (named.scenario_name, named.program) == ("fig6", None)
