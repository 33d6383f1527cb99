"""Differential tests: the direct engine and the Z3 engine give the same verdict
on random histories of every shape: consistent by construction (random serialisations,
causal memory runs), inconsistent by mutation of those, fully random; with and without
repeated values; random graphs; every model.  Both run through the facade, so every
consistent verdict's witness is also re-validated by the spec."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fisheye.checker.engines import check
from fisheye.checker.result import Verdict
from fisheye.spec.history import History
from fisheye.testing.strategies import cc_histories, graphs, histories, sc_histories, timed_histories

UNTIMED_MODELS = ("sc", "cc", "fisheye", "fisheye-2014")
"""The models of the direct and Z3 engines of this module (no real time)."""

pytestmark = pytest.mark.z3

SETTINGS = settings(max_examples=150, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


@st.composite
def mutated(draw: st.DrawFn, base: st.SearchStrategy[History]) -> History:
    """A history of ``base`` with one small change: a read returns another value of its
    register (or the initial 0), or two adjacent operations of a process swap."""
    h = draw(base)
    data = {p: [op.to_json() for op in ops] for p, ops in h.by_process.items()}
    reads = [op for op in h.ops if op.is_read]
    if reads and draw(st.booleans()):
        r = draw(st.sampled_from(reads))
        values = sorted({0} | {op.value for op in h.ops if op.is_write and op.register == r.register})
        data[r.process][r.index][2] = draw(st.sampled_from(values))
    else:
        movable = [p for p in h.processes if len(data[p]) > 1]
        if movable:
            p = draw(st.sampled_from(movable))
            i = draw(st.integers(0, len(data[p]) - 2))
            data[p][i], data[p][i + 1] = data[p][i + 1], data[p][i]
    return History.build(data, processes=h.processes)


def shapes(repeated: bool) -> st.SearchStrategy[History]:
    kw = {"max_processes": 4, "max_ops": 10, "repeated_values": repeated}
    consistent = st.one_of(sc_histories(**kw), cc_histories(**kw))
    return st.one_of(consistent, mutated(consistent), histories(**kw))


def agree(h: History, graph, model: str) -> Verdict:
    direct = check(h, model, graph, engine="direct").verdict
    z3 = check(h, model, graph, engine="z3").verdict
    assert Verdict.UNKNOWN not in (direct, z3)
    assert direct == z3, (model, h.to_json(), graph.to_json())
    return direct


@SETTINGS
@given(st.data(), st.sampled_from(UNTIMED_MODELS))
def test_agree_distinct_values(data: st.DataObject, model: str) -> None:
    h = data.draw(shapes(False))
    agree(h, data.draw(graphs(h.processes)), model)


@SETTINGS
@given(st.data(), st.sampled_from(UNTIMED_MODELS))
def test_agree_repeated_values(data: st.DataObject, model: str) -> None:
    h = data.draw(shapes(True))
    agree(h, data.draw(graphs(h.processes)), model)


@settings(max_examples=40, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_agree_fisheye_on_dense_graphs(data: st.DataObject) -> None:
    """Fisheye's search (star order) on graphs with many edges, both definitions, and the
    hierarchy sc ⇒ fisheye-2014 ⇒ fisheye ⇒ cc on the same history and graph."""
    h = data.draw(shapes(False))
    g = data.draw(graphs(h.processes))
    verdicts = {m: agree(h, g, m) for m in UNTIMED_MODELS}
    order = ["sc", "fisheye-2014", "fisheye", "cc"]
    for stronger, weaker in zip(order, order[1:], strict=False):
        if verdicts[stronger] is Verdict.CONSISTENT:
            assert verdicts[weaker] is Verdict.CONSISTENT, (stronger, weaker, h.to_json())


def with_maybe(h: History, mark: list[bool]) -> History:
    """``h`` with the last operation of some processes, when a write, marked maybe."""
    data = {}
    for k, (p, ops) in enumerate(h.by_process.items()):
        rows = [op.to_json() for op in ops]
        if rows and rows[-1][0] == "w" and mark[k % len(mark)]:
            rows[-1] = [*rows[-1][:3], {"maybe": True}]
        data[p] = rows
    return History.build(data, processes=h.processes)


def by_definition(h: History, graph, model: str) -> Verdict:
    """The verdict by the definition of maybe: consistent iff for some set of the maybe
    writes taking effect (the others removed), Z3 finds a witness."""
    from itertools import combinations

    from fisheye.spec.witness import effective_history

    maybe = [op.uid for op in h.ops if op.maybe]
    verdicts = set()
    for k in range(len(maybe) + 1):
        for taken in combinations(maybe, k):
            eff, _ = effective_history(h, taken)
            plain = History.build({p: [op.to_json()[:3] for op in ops] for p, ops in eff.by_process.items()},
                                  processes=eff.processes)
            verdicts.add(check(plain, model, graph, engine="z3").verdict)
    assert Verdict.UNKNOWN not in verdicts
    return Verdict.CONSISTENT if Verdict.CONSISTENT in verdicts else Verdict.VIOLATION


@settings(max_examples=100, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(st.data(), st.sampled_from(UNTIMED_MODELS), st.booleans())
def test_maybe_writes_agree_with_the_definition(data: st.DataObject, model: str, repeated: bool) -> None:
    h = with_maybe(data.draw(shapes(repeated)), data.draw(st.lists(st.booleans(), min_size=1, max_size=4)))
    g = data.draw(graphs(h.processes))
    direct = check(h, model, g, engine="direct")  # the facade re-validates a witness
    assert direct.verdict == by_definition(h, g, model), (model, h.to_json(), g.to_json())


@settings(max_examples=80, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(st.data(), st.sampled_from(UNTIMED_MODELS), st.booleans())
def test_timed_histories_agree_with_the_definition(data: st.DataObject, model: str,
                                                   linearizable: bool) -> None:
    """With real time the direct engine tries a linearization first (a witness of every
    untimed model); its verdict must still be the definition's, which ignores time."""
    h = data.draw(timed_histories(cas=False, linearizable=linearizable, max_ops=9))
    g = data.draw(graphs(h.processes))
    direct = check(h, model, g, engine="direct")  # the facade re-validates a witness
    assert direct.verdict == by_definition(h, g, model), (model, h.to_json(), g.to_json())


@st.composite
def phased_histories(draw: st.DrawFn, repeated: bool) -> History:
    """Executions on one memory where every process uses the registers in the order
    X, Y, Z (it never comes back to an earlier one), so that the direct engine splits
    them into phases; with one read's value changed half of the time."""
    procs = tuple(f"p{i}" for i in range(draw(st.integers(2, 4))))
    plan = {p: sorted(draw(st.lists(st.sampled_from("XYZ"), max_size=4))) for p in procs}
    data: dict[str, list[list]] = {p: [] for p in procs}
    memory: dict[str, int] = {}
    fresh = 0
    while any(len(data[p]) < len(plan[p]) for p in procs):
        p = draw(st.sampled_from([q for q in procs if len(data[q]) < len(plan[q])]))
        x = plan[p][len(data[p])]
        if draw(st.booleans()):
            fresh += 1
            memory[x] = draw(st.integers(1, 2)) if repeated else fresh
            data[p].append(["w", x, memory[x]])
        else:
            data[p].append(["r", x, memory.get(x, 0)])
    reads = [(p, i) for p in procs for i, op in enumerate(data[p]) if op[0] == "r"]
    if reads and draw(st.booleans()):
        p, i = draw(st.sampled_from(reads))
        data[p][i][2] = draw(st.sampled_from([0, *{op[2] for q in procs for op in data[q] if op[0] == "w"}]))
    return History.build(data, processes=procs)


@settings(max_examples=120, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(st.data(), st.sampled_from(UNTIMED_MODELS), st.booleans())
def test_phases_agree_with_z3(data: st.DataObject, model: str, repeated: bool) -> None:
    """The direct engine decides each phase apart and assembles the witness (validated
    by the facade); Z3 decides the whole history."""
    h = data.draw(phased_histories(repeated))
    agree(h, data.draw(graphs(h.processes)), model)
