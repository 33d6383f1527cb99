"""Property tests (Hypothesis) of the models, decided by the Z3 engine, over the public
strategies of ``fisheye.testing.strategies``.

* fisheye on the complete graph ⟺ SC; fisheye on the empty graph ⟺ CC (end of
  section 3.2 of the 2015 text);
* SC ⇒ fisheye(G) ⇒ CC;  G' ⊆ G ⇒ (fisheye(G) ⇒ fisheye(G'));
* fisheye-2014(G) ⇒ fisheye(G);
* histories consistent by construction are found consistent;
* every witness passes the validators, and a mutated witness does not.
"""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from fisheye.checker.engines import check
from fisheye.checker.result import Verdict
from fisheye.spec import paper
from fisheye.spec.graph import ProximityGraph
from fisheye.spec.history import History
from fisheye.spec.models import Model
from fisheye.spec.validate import problems
from fisheye.spec.witness import Witness
from fisheye.testing.strategies import (
    causal_history,
    cc_histories,
    graph_pairs,
    graphs,
    histories,
    sc_histories,
)

pytestmark = pytest.mark.z3

SMALL = settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])

ANY_HISTORY = st.one_of(
    histories(max_ops=8),
    histories(max_ops=8, repeated_values=True),
    sc_histories(max_ops=8),
    sc_histories(max_ops=8, repeated_values=True),
    cc_histories(min_processes=2, max_ops=8),
    cc_histories(min_processes=2, max_ops=10, registers=("X",)),
    cc_histories(min_processes=2, max_ops=8, repeated_values=True),
)

# Histories on the boundaries between the models, always tried (small random histories
# are rarely anything but SC or inconsistent).
STORE_BUFFERING = History.build({"p": [("w", "X", 1), ("r", "Y", 0)], "q": [("w", "Y", 1), ("r", "X", 0)]})
SEPARATING = History.build({"p": [("w", "X", 1), ("r", "Z", 0)], "q": [("r", "Z", 1), ("r", "X", 0)],
                            "s": [("w", "Z", 1)]})  # fisheye, not fisheye-2014, for the edge p-q
BOUNDARY = (paper.FIGURE2, STORE_BUFFERING, SEPARATING, paper.figure4(1), paper.figure6(2, 4),
            paper.figure6(3, 4))


def with_boundary_examples(test):
    for h in BOUNDARY:
        test = example(h)(test)
    return test


def consistent(h: History, model: Model | str, g: ProximityGraph) -> bool:
    """Z3's verdict, never unknown here; a consistent verdict's witness is validated
    directly by the spec (the facade does it too)."""
    result = check(h, model, g, engine="z3")
    assert result.verdict is not Verdict.UNKNOWN
    if result.verdict is Verdict.CONSISTENT:
        assert problems(h, model, g, result.witness) == []
        return True
    assert result.certificate, "a violation carries its unsat core"
    return False


def _one_edge_graph(h: History) -> ProximityGraph:
    if h.edges:
        return ProximityGraph(h.processes, h.edges)
    return ProximityGraph.of(h.processes, [h.processes[:2]])


def with_boundary_graphs(test):
    """Each boundary history with its file graph (or one edge) and the complete graph."""
    for h in BOUNDARY:
        for g in (_one_edge_graph(h), ProximityGraph.complete(h.processes)):
            test = example((h, g))(test)
    return test


def with_boundary_graph_pairs(test):
    """Each boundary history with G' ⊆ G: (empty, one edge) and (one edge, complete)."""
    for h in BOUNDARY:
        g = _one_edge_graph(h)
        for pair in ((ProximityGraph.empty(h.processes), g), (g, ProximityGraph.complete(h.processes))):
            test = example((h, *pair))(test)
    return test


@SMALL
@with_boundary_examples
@given(ANY_HISTORY)
def test_fisheye_on_the_complete_graph_is_sc(h):
    assert consistent(h, "fisheye", ProximityGraph.complete(h.processes)) == consistent(
        h, "sc", ProximityGraph.empty(h.processes))


@SMALL
@with_boundary_examples
@given(ANY_HISTORY)
def test_fisheye_on_the_empty_graph_is_cc(h):
    g = ProximityGraph.empty(h.processes)
    assert consistent(h, "fisheye", g) == consistent(h, "cc", g)


HISTORY_AND_GRAPH = ANY_HISTORY.flatmap(lambda h: graphs(h.processes).map(lambda g: (h, g)))
HISTORY_AND_GRAPH_PAIR = ANY_HISTORY.flatmap(lambda h: graph_pairs(h.processes).map(lambda p: (h, *p)))


@SMALL
@with_boundary_graphs
@given(HISTORY_AND_GRAPH)
def test_sc_implies_fisheye_implies_cc(hg):
    h, g = hg
    sc, fe, cc = (consistent(h, m, g) for m in ("sc", "fisheye", "cc"))
    assert (not sc or fe) and (not fe or cc)


@SMALL
@with_boundary_graph_pairs
@given(HISTORY_AND_GRAPH_PAIR)
def test_fisheye_is_monotone_in_the_graph(hgg):
    h, sub, g = hgg
    assert sub.is_subgraph_of(g)
    if consistent(h, "fisheye", g):
        assert consistent(h, "fisheye", sub)


@SMALL
@with_boundary_graphs
@given(HISTORY_AND_GRAPH)
def test_fisheye_2014_implies_fisheye(hg):
    h, g = hg
    if consistent(h, "fisheye-2014", g):
        assert consistent(h, "fisheye", g)


@settings(max_examples=40, deadline=None)
@given(sc_histories(max_ops=8, repeated_values=True))
def test_histories_sc_by_construction_are_sc_and_fisheye_2014_on_any_graph(h):
    assert consistent(h, "sc", ProximityGraph.empty(h.processes))
    assert consistent(h, "fisheye-2014", ProximityGraph.complete(h.processes))


@settings(max_examples=40, deadline=None)
@given(cc_histories(max_ops=8, repeated_values=True))
def test_histories_cc_by_construction_are_cc(h):
    assert consistent(h, "cc", ProximityGraph.empty(h.processes))


# ---- the validators can fail ----------------------------------------------------------

def _mutants(h: History, w: Witness) -> list[tuple[str, Witness]]:
    """Witnesses broken in ways no valid witness can be: each must be rejected."""
    out: list[tuple[str, Witness]] = []
    if w.sequence is not None:
        seq = list(w.sequence)
        if seq:
            out.append(("drop an operation", Witness(sequence=tuple(seq[1:]))))
        for i, a in enumerate(seq):
            later = [j for j in range(i + 1, len(seq)) if h.ops[seq[j]].process == h.ops[a].process]
            if later:
                s = seq[:]
                s[i], s[later[0]] = s[later[0]], s[i]
                out.append(("swap two operations of a process", Witness(sequence=tuple(s))))
                break
        return out
    for p, view in w.views.items():
        if view:
            out.append((f"drop from S_{p}", Witness(w.read_from, w.star, {**w.views, p: view[1:]})))
            out.append((f"repeat in S_{p}", Witness(w.read_from, w.star, {**w.views, p: view + view[:1]})))
    for r in w.read_from:
        read = h.ops[r]
        wrong = [op.uid for op in h.writes if op.register == read.register and op.vkey != read.vkey]
        if wrong:
            out.append(("read from a write of another value",
                        Witness({**w.read_from, r: wrong[0]}, w.star, w.views)))
            break
    return out


@SMALL
@given(st.one_of(sc_histories(min_processes=2, max_ops=8, repeated_values=True),
                 cc_histories(min_processes=2, max_ops=8, repeated_values=True)),
       st.sampled_from([m for m in Model if not m.uses_time]))
def test_mutated_witnesses_are_rejected(h, model):
    g = ProximityGraph.empty(h.processes) if model is Model.CC else ProximityGraph.complete(h.processes)
    result = check(h, model, g, engine="z3")
    if result.verdict is not Verdict.CONSISTENT:
        return
    assert problems(h, model, g, result.witness) == []
    for what, bad in _mutants(h, result.witness):
        assert problems(h, model, g, bad), what


def test_causal_histories_are_cc_and_some_are_not_sc():
    """The CC-by-construction generator (seeded, deterministic) gives CC histories, some
    of which are not SC (else the properties above would be vacuous on them)."""
    rnd = random.Random(2015)
    not_sc = 0
    for _ in range(60):
        h = causal_history(rnd, min_processes=3, max_processes=3, min_ops=8, max_ops=8, registers=("X",))
        empty = ProximityGraph.empty(h.processes)
        assert consistent(h, "cc", empty)
        not_sc += not consistent(h, "sc", empty)
    assert not_sc >= 1


def test_strategies_generate_both_verdicts():
    """The random histories are not all of one verdict (else the properties are vacuous)."""
    seen: set[bool] = set()

    @settings(max_examples=30, deadline=None, database=None)
    @given(histories(min_processes=2, max_ops=6))
    def sample(h):
        seen.add(consistent(h, "cc", ProximityGraph.empty(h.processes)))

    sample()
    assert seen == {True, False}
