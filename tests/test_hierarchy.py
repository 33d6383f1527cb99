"""The model hierarchy (spec/hierarchy.py): the implications, their closure, and the
summary a report gives; and, on generated histories, that no implication is
contradicted by the checkers."""

from __future__ import annotations

import pytest
from hypothesis import given, settings

from fisheye.checker.engines import check
from fisheye.checker.result import Verdict
from fisheye.spec.graph import ProximityGraph
from fisheye.spec.hierarchy import Instance, implies, instance, summarise, universe
from fisheye.testing.strategies import histories_with_graph

P = ("p", "q", "r")
EMPTY = ProximityGraph.empty(P)
PQ = ProximityGraph.of(P, [("p", "q")])
FULL = ProximityGraph.complete(P)


def fe(g: ProximityGraph) -> Instance:
    return Instance("fisheye", g)


def test_the_chain_sc_fisheye_cc():
    assert implies(Instance("sc"), fe(PQ)) and implies(fe(PQ), Instance("cc"))
    assert implies(Instance("sc"), Instance("cc")) and implies(Instance("lin"), Instance("cc"))
    assert not implies(Instance("cc"), Instance("sc")) and not implies(fe(PQ), Instance("sc"))


def test_fisheye_is_monotone_in_the_graph():
    assert implies(fe(FULL), fe(PQ)) and implies(fe(PQ), fe(EMPTY))
    assert not implies(fe(PQ), fe(FULL)) and not implies(fe(EMPTY), fe(PQ))
    assert implies(Instance("fisheye-2014", FULL), fe(PQ))
    assert not implies(fe(FULL), Instance("fisheye-2014", FULL))


def test_lin_and_fisheye_lin():
    assert implies(Instance("lin"), Instance("fisheye-lin", PQ))
    assert implies(Instance("fisheye-lin", PQ), Instance("sc"))
    assert implies(Instance("fisheye-lin", FULL), Instance("fisheye-lin", PQ))
    assert not implies(Instance("sc"), Instance("fisheye-lin", PQ))


def test_an_instance_names_its_graph_only_when_the_model_has_one():
    assert instance("sc", PQ) == Instance("sc")
    with pytest.raises(ValueError):
        Instance("fisheye")
    with pytest.raises(ValueError):
        Instance("cc", PQ)


def test_summary_names_the_weakest_violation_and_what_it_implies():
    s = summarise([Instance("sc"), fe(PQ)], [Instance("cc")], universe(PQ))
    assert s.weakest_violated == (fe(PQ),)
    implied = {Instance("lin"), Instance("fisheye-lin", PQ), Instance("fisheye-2014", PQ)}
    assert set(s.implied_violated) == implied
    assert s.implied_satisfied == ()
    s = summarise([], [Instance("sc")], universe(PQ))
    assert set(s.implied_satisfied) == {fe(PQ), Instance("cc")}


@settings(max_examples=60, deadline=None)
@given(histories_with_graph())
def test_the_checkers_never_contradict_an_implication(hg):
    """On generated histories: 'consistent' for a stronger model never comes with
    'violation' for a weaker one (every pair the hierarchy relates)."""
    h, g = hg
    models = ("sc", "fisheye", "fisheye-2014", "cc")
    verdict = {m: check(h, m, g, engine="direct").verdict for m in models}
    for a in models:
        for b in models:
            if implies(instance(a, g), instance(b, g)) and verdict[a] is Verdict.CONSISTENT:
                assert verdict[b] is not Verdict.VIOLATION, (a, b, h.to_json())
