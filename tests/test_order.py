"""The vector-clock closure, the totality and reachability of a generated relation
(spec/order.py) and the linear 'respects' checks (spec/validate) against brute force
(networkx transitive closure, all pairs)."""

from __future__ import annotations

import itertools

import networkx as nx
from hypothesis import given, settings
from hypothesis import strategies as st

from fisheye.spec.history import History
from fisheye.spec.order import ClosedOrder, Cycle, close, generate
from fisheye.spec.validate import _Respect, respect_problems


@st.composite
def shapes(draw):
    """A history shape (ops per process) and extra edges between uids."""
    nproc = draw(st.integers(1, 4))
    kinds = [draw(st.lists(st.sampled_from("wr"), max_size=4)) for _ in range(nproc)]
    data = {f"p{i}": [[k, "X", j] for j, k in enumerate(ks)] for i, ks in enumerate(kinds)}
    h = History.build(data)
    n = len(h.ops)
    extra = draw(st.lists(st.tuples(st.integers(0, max(n - 1, 0)), st.integers(0, max(n - 1, 0))),
                          max_size=8)) if n else []
    extra = [(a, b) for a, b in extra if a != b]
    return h, extra


def _graph(h: History, extra):
    g = nx.DiGraph()
    g.add_nodes_from(range(len(h.ops)))
    g.add_edges_from(extra)
    for a, b in zip(h.ops, h.ops[1:], strict=False):
        if a.process == b.process:
            g.add_edge(a.uid, b.uid)
    return g


@settings(max_examples=300, deadline=None)
@given(shapes())
def test_closure_totality_and_reachability_match_networkx(shape):
    h, extra = shape
    g = _graph(h, extra)
    result = close(h, extra)
    relation = generate(h, extra)
    if not nx.is_directed_acyclic_graph(g):
        assert isinstance(result, Cycle)
        assert not relation.acyclic and not relation.is_total()
        cyc = result.ops
        assert len(cyc) >= 2
        for a, b in zip(cyc, cyc[1:] + cyc[:1], strict=True):
            assert g.has_edge(a, b), "the reported cycle must follow generating edges"
        return
    assert isinstance(result, ClosedOrder)
    tc = nx.transitive_closure_dag(g)
    for a, b in itertools.permutations(range(len(h.ops)), 2):
        assert result.precedes(a, b) == tc.has_edge(a, b)
    rank = relation.rank
    assert list(result.topo) == list(relation.topo) and sorted(rank) == list(range(len(h.ops)))
    for a, b in g.edges:
        assert rank[a] < rank[b]
    for a, b in itertools.permutations(range(len(h.ops)), 2):
        if rank[a] < rank[b]:
            assert relation.reaches(a, b) == tc.has_edge(a, b)
    pairs = itertools.combinations(range(len(h.ops)), 2)
    assert relation.is_total() == all(tc.has_edge(a, b) or tc.has_edge(b, a) for a, b in pairs)


@settings(max_examples=200, deadline=None)
@given(shapes(), st.randoms(use_true_random=False))
def test_respect_check_matches_all_pairs(shape, rnd):
    h, extra = shape
    order = close(h, extra)
    if isinstance(order, Cycle) or not h.ops:
        return
    p = h.processes[0]
    seq = [op.uid for op in h.ops if op.process == p or op.is_write]
    rnd.shuffle(seq)
    brute_ok = all(not order.precedes(a, b) or seq.index(a) < seq.index(b)
                   for a, b in itertools.permutations(seq, 2))
    assert (not respect_problems(h, seq, extra, "S", "R")) == brute_ok
    assert _Respect(generate(h, extra)).respected_by(seq) == brute_ok
