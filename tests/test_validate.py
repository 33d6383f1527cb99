"""spec.validate: the witness validators accept hand-checked witnesses of the paper's
figures and reject each kind of broken witness (the validators can fail)."""

from __future__ import annotations

from fisheye.spec import paper
from fisheye.spec.graph import ProximityGraph
from fisheye.spec.history import History
from fisheye.spec.validate import is_valid, problems
from fisheye.spec.witness import Witness

F1 = paper.FIGURE1  # uids: p: r(X)0=0, w(X,3)=1; q: w(X,2)=2, r(X)3=3
F2 = paper.FIGURE2  # uids: p: w2=0; q: w3=1; r: r2=2, r3=3; s: r3=4, r2=5
F2_RF = {2: 0, 3: 1, 4: 1, 5: 0}
F2_VIEWS = {"p": (0, 1), "q": (0, 1), "r": (0, 2, 1, 3), "s": (1, 4, 0, 5)}


def empty(h: History) -> ProximityGraph:
    return ProximityGraph.empty(h.processes)


def test_figure1_serialization_of_the_paper_is_valid_for_sc():
    # "X.read→0, X.write(2), X.write(3), X.read→3" (section 2.2)
    assert problems(F1, "sc", empty(F1), Witness(sequence=(0, 2, 1, 3))) == []


def test_sc_rejects_illegal_reordered_incomplete_and_missing_sequences():
    g = empty(F1)
    assert any("not legal" in p for p in problems(F1, "sc", g, Witness(sequence=(2, 0, 1, 3))))
    assert any("not legal" in p for p in problems(F1, "sc", g, Witness(sequence=(0, 1, 2, 3))))
    assert any("process order" in p for p in problems(F1, "sc", g, Witness(sequence=(1, 0, 2, 3))))
    assert any("misses" in p for p in problems(F1, "sc", g, Witness(sequence=(0, 2, 1))))
    assert problems(F1, "sc", g, Witness()) == ["the witness has no serialization S (needed for sc)"]


def test_figure2_views_are_valid_for_cc_and_fisheye_on_the_empty_graph():
    w = Witness(read_from=F2_RF, views=F2_VIEWS)
    assert is_valid(F2, "cc", empty(F2), w)
    assert is_valid(F2, "fisheye", empty(F2), w)
    assert is_valid(F2, "fisheye-2014", empty(F2), w)


def test_figure2_views_fail_fisheye_when_p_and_q_are_neighbours():
    g = ProximityGraph.of(F2.processes, [("p", "q")])
    unordered = problems(F2, "fisheye", g, Witness(read_from=F2_RF, views=F2_VIEWS))
    assert len(unordered) == 1 and "not total" in unordered[0] and "[edge p-q]" in unordered[0]
    ordered = problems(F2, "fisheye", g, Witness(read_from=F2_RF, views=F2_VIEWS, star=((0, 1),)))
    assert ordered and all("S_s does not respect the star order" in p for p in ordered)


def test_cc_rejects_bad_read_from_maps():
    g = empty(F2)
    wrong_value = problems(F2, "cc", g, Witness(read_from={**F2_RF, 2: 1}, views=F2_VIEWS))
    assert any("another register or value" in p for p in wrong_value)
    missing = problems(F2, "cc", g, Witness(read_from={2: 0, 3: 1, 4: 1}, views=F2_VIEWS))
    assert any("no entry in the read-from map" in p for p in missing)
    initial = problems(F2, "cc", g, Witness(read_from={**F2_RF, 2: None}, views=F2_VIEWS))
    assert any("initial value" in p for p in initial)


def test_cc_rejects_views_that_are_illegal_or_break_the_causal_order():
    g = empty(F2)
    illegal = {**F2_VIEWS, "r": (0, 1, 2, 3)}
    assert any("S_r is not legal" in p for p in problems(F2, "cc", g, Witness(F2_RF, views=illegal)))
    missing = {k: v for k, v in F2_VIEWS.items() if k != "q"}
    assert any("no sequential history S_q" in p for p in problems(F2, "cc", g, Witness(F2_RF, views=missing)))
    # r(Y)1@b reads from w(Y,1)@a, which follows a's read of b's later write: ~>H respected?
    h = History.build({"a": [("w", "X", 1), ("w", "Y", 1)], "b": [("r", "Y", 1), ("r", "X", 0)]})
    rf = {2: 1, 3: None}
    bad_view = {"a": (0, 1), "b": (3, 0, 1, 2)}  # process order of b broken
    assert any("process order" in p for p in problems(h, "cc", empty(h), Witness(rf, views=bad_view)))
    legal_but_acausal = {"a": (0, 1), "b": (1, 2, 3, 0)}  # w(X,1) ~> w(Y,1) ~> r(Y)1 ~> r(X)0
    out = problems(h, "cc", empty(h), Witness(rf, views=legal_but_acausal))
    assert any("does not respect ~>H" in p for p in out)


def test_causal_cycle_is_rejected():
    h = History.build({"a": [("r", "X", 1), ("w", "Y", 1)], "b": [("r", "Y", 1), ("w", "X", 1)]})
    out = problems(h, "cc", empty(h), Witness(read_from={0: 3, 2: 1}, views={"a": (), "b": ()}))
    assert len(out) == 1 and "has a cycle" in out[0]
    # the fisheye models find it through the star order's cycle, and still report ~>H's
    causal = "the causal order ~>H (process order + read-from) has a cycle"
    for model in ("fisheye", "fisheye-2014"):
        for star in ((), ((1, 3),), ((1, 9),)):
            w = Witness(read_from={0: 3, 2: 1}, star=star, views={"a": (), "b": ()})
            out = problems(h, model, empty(h), w)
            assert len(out) == 1 and out[0].startswith(causal)


# A history that separates the two definitions: fisheye (2015) but not fisheye-2014 for
# the edge p-q.  q's read r(X)0 must precede p's w(X,1) in the 2014 star order, and it
# follows w(Z,1)@s (q read it), so the star order puts w(Z,1) before p's r(Z)0.
SEPARATING = History.build({"p": [("w", "X", 1), ("r", "Z", 0)], "q": [("r", "Z", 1), ("r", "X", 0)],
                            "s": [("w", "Z", 1)]})
SEP_GRAPH = ProximityGraph.of(SEPARATING.processes, [("p", "q")])
# uids: p: w(X,1)=0, r(Z)0=1; q: r(Z)1=2, r(X)0=3; s: w(Z,1)=4
SEP_WITNESS = Witness(read_from={1: None, 2: 4, 3: None},
                      views={"p": (0, 1, 4), "q": (4, 2, 3, 0), "s": (0, 4)})


def test_separating_witness_is_valid_for_2015_but_not_total_for_2014():
    assert problems(SEPARATING, "fisheye", SEP_GRAPH, SEP_WITNESS) == []
    out = problems(SEPARATING, "fisheye-2014", SEP_GRAPH, SEP_WITNESS)
    assert len(out) == 1 and "restricted to the operations of p and q is not total" in out[0]
    # Ordering q's reads before p's write, as S_q needs, drags w(Z,1) before r(Z)0 in S_p.
    star = ((2, 0), (3, 0), (3, 1))
    ordered = Witness(read_from=SEP_WITNESS.read_from, views=SEP_WITNESS.views, star=star)
    out = problems(SEPARATING, "fisheye-2014", SEP_GRAPH, ordered)
    assert out and any("S_p does not respect the star order" in p for p in out)


def test_star_order_with_a_cycle_is_rejected():
    g = ProximityGraph.of(F2.processes, [("p", "q")])
    out = problems(F2, "fisheye", g, Witness(F2_RF, star=((0, 1), (1, 0)), views=F2_VIEWS))
    assert len(out) == 1 and "not a partial order" in out[0]
