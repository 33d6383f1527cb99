"""The Z3 engine: verdicts, witnesses checked by the spec's validators, named unsat-core
certificates, the 2014/2015 difference, repeated values, and the time budget."""

from __future__ import annotations

import pytest

from fisheye.checker.engines.z3engine import check
from fisheye.checker.result import Verdict
from fisheye.spec import paper
from fisheye.spec.graph import ProximityGraph
from fisheye.spec.history import History, parse_history
from fisheye.spec.models import Model
from fisheye.spec.validate import problems

pytestmark = pytest.mark.z3

UNTIMED = [m for m in Model if not m.uses_time]
"""The models of this engine (lin and fisheye-lin have their own, z3_realtime)."""

RULES = {"po", "rf", "legality", "edge"}


def file_graph(h: History) -> ProximityGraph:
    return ProximityGraph(h.processes, h.edges)


@pytest.mark.parametrize("model", UNTIMED)
def test_figure4_b2_is_consistent_under_every_model_with_a_valid_witness(model):
    h = paper.figure4(2)
    result = check(h, model, file_graph(h))
    assert result.verdict is Verdict.CONSISTENT and result.engine == "z3"
    assert problems(h, model, file_graph(h), result.witness) == []
    if model is Model.SC:
        assert sorted(result.witness.sequence) == list(range(len(h.ops)))
    else:
        assert set(result.witness.views) == set(h.processes)


def test_witness_has_a_view_for_a_process_without_reads():
    h = History.build({"a": [("w", "X", 1)], "b": [("r", "X", 1)], "idle": []})
    result = check(h, "fisheye", ProximityGraph.complete(h.processes))
    assert result.verdict is Verdict.CONSISTENT
    assert result.witness.views["idle"] == (0,) and result.witness.views["a"] == (0,)
    assert result.witness.views["b"] == (0, 1)
    assert result.stats["views"] == 1  # only b reads


def test_figure4_b1_fisheye_certificate_names_the_edge_and_the_two_reads():
    h = paper.figure4(1)
    result = check(h, "fisheye", file_graph(h))
    assert result.verdict is Verdict.VIOLATION and result.witness is None
    cert = result.certificate
    assert {r.rule for r in cert} <= RULES
    edges = [r for r in cert if r.rule == "edge"]
    assert len(edges) == 1
    assert edges[0].ops == (0, 3)  # w(X,1)@paris#0, w(X,2)@berlin#0
    assert edges[0].text.startswith("w(X,1)@paris#0 < w(X,2)@berlin#0 or")
    assert edges[0].text.endswith("[edge paris-berlin]")
    legal = sorted(r.text for r in cert if r.rule == "legality")
    assert legal == ["legal: r(X)1@berlin#2 in S_berlin follows a last write to X among {w(X,1)@paris#0}",
                     "legal: r(X)2@paris#2 in S_paris follows a last write to X among {w(X,2)@berlin#0}"]


def test_figure4_b1_is_cc_and_fisheye_on_the_empty_graph():
    h = paper.figure4(1)
    for model, graph in [(Model.CC, file_graph(h)), (Model.FISHEYE, ProximityGraph.empty(h.processes))]:
        result = check(h, model, graph)
        assert result.verdict is Verdict.CONSISTENT
        assert problems(h, model, graph, result.witness) == []


def test_a_read_of_an_unwritten_value_is_a_violation_certified_by_its_rf_constraint():
    h = History.build({"a": [("w", "X", 1)], "b": [("r", "X", 7)]})
    cc = check(h, "cc", file_graph(h))
    assert cc.verdict is Verdict.VIOLATION
    assert [r.rule for r in cc.certificate] == ["rf"]
    assert cc.certificate[0].text.startswith("rf: r(X)7@b#0 reads from one of {}")
    sc = check(h, "sc", file_graph(h))
    assert sc.verdict is Verdict.VIOLATION and [r.rule for r in sc.certificate] == ["legality"]


def test_the_separating_history_is_fisheye_but_not_fisheye_2014():
    h = History.build({"p": [("w", "X", 1), ("r", "Z", 0)], "q": [("r", "Z", 1), ("r", "X", 0)],
                       "s": [("w", "Z", 1)]})
    g = ProximityGraph.of(h.processes, [("p", "q")])
    new = check(h, "fisheye", g)
    assert new.verdict is Verdict.CONSISTENT and problems(h, "fisheye", g, new.witness) == []
    old = check(h, "fisheye-2014", g)
    assert old.verdict is Verdict.VIOLATION
    assert any(r.rule == "edge" and "r(X)0@q#1" in r.text for r in old.certificate)
    assert check(h, "cc", g).verdict is Verdict.CONSISTENT
    assert check(h, "sc", g).verdict is Verdict.VIOLATION


def test_repeated_values_make_the_read_from_map_part_of_the_search():
    # b reads 2 then 1: only c's write of 1 can come after a's write of 2.
    with_c = History.build({"a": [("w", "X", 1), ("w", "X", 2)], "b": [("r", "X", 2), ("r", "X", 1)],
                            "c": [("w", "X", 1)]})
    assert not with_c.differentiated
    for model in UNTIMED:
        g = ProximityGraph.complete(with_c.processes)
        result = check(with_c, model, g)
        assert result.verdict is Verdict.CONSISTENT, model
        assert problems(with_c, model, g, result.witness) == []
    without_c = with_c.restrict(range(4))  # drop w(X,1)@c#0 (uid 4)
    assert check(without_c, "cc", ProximityGraph.empty(without_c.processes)).verdict is Verdict.VIOLATION


def test_initial_value_read_after_own_write_of_it():
    h = History.build({"a": [("w", "X", 1), ("w", "X", 0), ("r", "X", 0)]})
    result = check(h, "sc", file_graph(h))
    assert result.verdict is Verdict.CONSISTENT
    assert result.witness.read_from == {2: 1}  # the write of 0, not the initial value


def test_figure2_is_not_fisheye_on_the_complete_graph():
    h = paper.FIGURE2
    assert check(h, "fisheye", ProximityGraph.complete(h.processes)).verdict is Verdict.VIOLATION
    assert check(h, "fisheye", ProximityGraph.of(h.processes, [("r", "s")])).verdict is Verdict.CONSISTENT
    pq = check(h, "fisheye", ProximityGraph.of(h.processes, [("p", "q")]))
    assert pq.verdict is Verdict.VIOLATION


def _contended(processes: int, length: int) -> History:
    data = {f"p{i}": [("w", "X", (i * k) % 3) if k % 2 == 0 else ("r", "X", (i + k) % 3)
                      for k in range(length)] for i in range(processes)}
    return History.build(data)


def test_a_tiny_time_budget_gives_unknown_never_consistent():
    h = _contended(5, 8)
    result = check(h, "fisheye", ProximityGraph.complete(h.processes), timeout=0.001)
    assert result.verdict is Verdict.UNKNOWN and result.witness is None
    assert "time budget of 0.001 s" in result.message


@pytest.mark.parametrize(("obj", "consistent"), [
    ({"history": {"a": [], "b": []}}, True),
    ({"history": {"a": [["r", "X", "s"]]}, "initial": {"X": "s"}}, True),
    ({"history": {"a": [["r", "X", 0]]}, "initial": {"X": "s"}}, False),
    ({"history": {"a": [["w", "X", "1"], ["r", "X", 1]]}}, False),  # "1" is not 1
    ({"history": {"a": [["w", "X", "v"], ["r", "X", "v"]]}}, True),
], ids=["no-operations", "initial-string", "initial-overridden", "string-is-not-int", "string-value"])
def test_edge_cases_agree_under_every_model(obj, consistent):
    h = parse_history(obj)
    g = ProximityGraph.complete(h.processes)
    for model in UNTIMED:
        result = check(h, model, g)
        assert result.verdict is (Verdict.CONSISTENT if consistent else Verdict.VIOLATION), model
        if consistent:
            assert problems(h, model, g, result.witness) == []
