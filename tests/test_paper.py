"""The paper's figures give their published verdicts (2015 text, sections 2.2, 2.3,
3.1, 3.2 and Table 1), through the engine facade with the Z3 engine."""

from __future__ import annotations

import pytest

from fisheye.checker.cli.table1 import compute
from fisheye.checker.engines import check
from fisheye.checker.result import Verdict
from fisheye.spec import paper
from fisheye.spec.graph import ProximityGraph
from fisheye.spec.models import Model
from fisheye.spec.validate import problems

pytestmark = pytest.mark.z3

EXAMPLES = paper.published_verdicts()


def test_the_published_verdicts_cover_every_figure_and_model():
    assert len(EXAMPLES) == 12
    assert {e.name for e in EXAMPLES} == {"figure1", "figure2", "figure4-b1", "figure4-b2", "figure4-b3"}


@pytest.mark.parametrize("ex", EXAMPLES, ids=[f"{e.name}-{e.model}" for e in EXAMPLES])
def test_published_verdict(ex):
    result = check(ex.history, ex.model, ex.graph, engine="z3")
    assert result.verdict is (Verdict.CONSISTENT if ex.consistent else Verdict.VIOLATION), ex.source
    if ex.consistent:
        assert problems(ex.history, ex.model, ex.graph, result.witness) == []


@pytest.mark.parametrize("b", paper.FIGURE4_B_VALUES)
def test_figure4_under_the_2014_definition_matches_the_2015_one(b):
    # b = 2, 3 are SC, hence fisheye-2014 (take the star order to be S); b = 1 is not
    # even fisheye (2015), which fisheye-2014 implies.
    h = paper.figure4(b)
    result = check(h, "fisheye-2014", ProximityGraph(h.processes, h.edges), engine="z3")
    assert result.verdict is (Verdict.VIOLATION if b == 1 else Verdict.CONSISTENT)


def test_figure4_fixture_is_the_contract_example_for_b2():
    h = paper.figure4(2)
    assert h.to_json()["history"] == {
        "paris": [["w", "X", 1], ["w", "R", 1], ["r", "X", 2]],
        "berlin": [["w", "X", 2], ["w", "S", 1], ["r", "X", 2]],
        "new-york": [["r", "R", 1], ["r", "S", 1], ["w", "X", 3]],
    }
    assert h.edges == (("paris", "berlin"),)


def test_figure6_fixture():
    h = paper.figure6(3, 5)
    assert h.processes == ("p", "q", "r", "s") and h.edges == (("p", "q"), ("r", "s"))
    assert [op.label() for op in h.of("s")] == ["r(X)3@s#0", "r(X)3@s#1", "r(Y)5@s#2", "r(Y)5@s#3"]
    assert len(h.ops) == 12


def test_table1_is_reproduced_exactly():
    rows = {r.model: r for r in compute(engine="z3")}
    for model, published in paper.TABLE1.items():
        row = rows[model]
        assert (row.x, row.y) == (published.x, published.y), model
        assert row.unknown == ()
    assert rows[Model.SC].pairs == ((3, 5),)
    assert rows[Model.CC].pairs == ((2, 4), (2, 5), (3, 4), (3, 5))
    assert rows[Model.FISHEYE].pairs == ((3, 4), (3, 5))
    # Not published: the 2014 definition allows the same pairs here.
    assert rows[Model.FISHEYE_2014].pairs == ((3, 4), (3, 5))
