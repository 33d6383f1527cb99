"""The one-pass judge of clauses 2-4 (:func:`fisheye.spec.realtime.order_problems`)
against the clauses read literally (module docstring of :mod:`fisheye.spec.realtime`):
pairs of positions for process order and real time, a replay for legality, on random
small timed histories, random sequences and random graphs."""

from __future__ import annotations

from itertools import combinations

from hypothesis import given, settings
from hypothesis import strategies as st

from fisheye.spec.graph import ProximityGraph
from fisheye.spec.history import parse_history
from fisheye.spec.realtime import RealTimePairs, order_problems


@st.composite
def cases(draw):
    procs = [f"p{i}" for i in range(draw(st.integers(1, 4)))]
    hist = {}
    for p in procs:
        t, ops = 0, []
        for _ in range(draw(st.integers(0, 4))):
            kind = draw(st.sampled_from(["w", "r"]))
            start = t + draw(st.integers(0, 3))
            end = start + draw(st.integers(0, 4))
            t = end
            reg, value = draw(st.sampled_from(["X", "Y"])), draw(st.integers(0, 2))
            ops.append([kind, reg, value, {"t": [start, end]}])
        hist[p] = ops
    h = parse_history({"processes": procs, "history": hist})
    edges = [e for e in combinations(procs, 2) if draw(st.booleans())]
    seq = draw(st.permutations(range(len(h.ops))))
    return h, ProximityGraph(tuple(procs), tuple(edges)), list(seq)


def literal(h, graph, seq):
    ops = [h.ops[u] for u in seq]
    order = any(a.process == b.process and a.index > b.index for a, b in combinations(ops, 2))
    illegal, current = 0, {}
    for a in ops:
        if a.kind == "r" and current.get(a.register, h.initial_value(a.register)) != a.value:
            illegal += 1
        if a.kind == "w":
            current[a.register] = a.value
    adjacent = {frozenset(e) for e in graph.edges}
    late = any(frozenset((a.process, b.process)) in adjacent and b.complete < a.invoke
               for a, b in combinations(ops, 2))   # a placed before b, b completed before a began
    return order, illegal, late


@settings(max_examples=600, deadline=None)
@given(case=cases(), every=st.booleans())
def test_one_pass_judges_each_clause_as_written(case, every):
    h, graph, seq = case
    if every:
        graph = ProximityGraph(graph.processes, tuple(combinations(graph.processes, 2)))
    pairs = RealTimePairs.all() if every else RealTimePairs.of(graph)
    got = order_problems(h, pairs, seq)
    order, illegal, late = literal(h, graph, seq)
    assert sum("against the process order" in m for m in got) == int(order)
    assert sum(" is not legal: " in m for m in got) == illegal
    if not order:  # (with process order broken, a same-process pair may be named too)
        assert any("against real time" in m for m in got) == late
