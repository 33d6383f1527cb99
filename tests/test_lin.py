"""lin, fisheye-lin (G-fisheye (LIN,SC)) and sc with cas and maybe operations: hand
cases checked by hand, the spec's validator, and the engines' agreement."""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fisheye.checker.engines import check
from fisheye.checker.engines import lin as lin_engine
from fisheye.checker.errors import UsageError
from fisheye.checker.result import Verdict
from fisheye.spec.graph import ProximityGraph
from fisheye.spec.history import History
from fisheye.spec.models import Model
from fisheye.spec.realtime import sequence_problems
from fisheye.testing.strategies import graph_pairs, graphs, timed_histories, timed_history

C, V = Verdict.CONSISTENT, Verdict.VIOLATION


def H(**procs: list) -> History:
    """``H(a=[("w", "X", 1, 0, 1)])``: kind, register, value, invoke, complete[, maybe]."""
    data = {}
    for p, ops in procs.items():
        out = []
        for kind, reg, val, inv, comp, *rest in ops:
            ext = {"t": [inv, comp]}
            if rest and rest[0]:
                ext["maybe"] = True
            out.append([kind, reg, list(val) if isinstance(val, tuple) else val, ext])
        data[p] = out
    return History.build(data)


def verdict(h: History, model: str, graph: str | ProximityGraph = "empty", engine: str = "direct") -> Verdict:
    g = graph if isinstance(graph, ProximityGraph) else (
        ProximityGraph.complete(h.processes) if graph == "complete" else
        ProximityGraph.empty(h.processes) if graph == "empty" else
        ProximityGraph.of(h.processes, [tuple(e.split(":")) for e in graph.split(",")]))
    return check(h, model, g, engine=engine).verdict


# Each case: history, and verdicts (lin, sc, fisheye-lin on the graph given), worked out by hand.
STALE = H(a=[("w", "X", 1, 0, 1)], b=[("r", "X", 0, 2, 3)])  # b reads 0 after a's write returned
CASES = [
    ("stale read", STALE, V, C, "a:b", V),
    ("concurrent read may see either",
     H(a=[("w", "X", 1, 0, 4)], b=[("r", "X", 0, 1, 2), ("r", "X", 1, 3, 5)]),
     C, C, "a:b", C),
    ("new-old inversion", H(a=[("w", "X", 1, 0, 10)], b=[("r", "X", 1, 1, 2)], c=[("r", "X", 0, 3, 4)]),
     V, C, "a:b", C),
    ("new-old inversion between neighbours b, c", H(a=[("w", "X", 1, 0, 10)], b=[("r", "X", 1, 1, 2)],
                                                    c=[("r", "X", 0, 3, 4)]), V, C, "b:c", V),
    ("two cas from 0 both succeed", H(a=[("cas", "X", (0, 1), 0, 5)], b=[("cas", "X", (0, 2), 1, 6)]),
     V, V, "a:b", V),
    ("cas chain", H(a=[("cas", "X", (0, 1), 0, 2)], b=[("cas", "X", (1, 2), 1, 5)], c=[("r", "X", 2, 6, 7)]),
     C, C, "a:c", C),
    ("cas reads a value written later in real time",
     H(a=[("w", "X", 5, 3, 4)], b=[("cas", "X", (5, 6), 0, 1)]),
     V, C, "a:b", V),
    ("maybe write that took effect", H(a=[("w", "X", 1, 0, None, True)], b=[("r", "X", 1, 5, 6)]),
     C, C, "a:b", C),
    ("maybe write that did not", H(a=[("w", "X", 1, 0, 1, True)], b=[("r", "X", 0, 5, 6)]), C, C, "a:b", C),
    ("a maybe write cannot be undone", H(a=[("w", "X", 1, 0, None, True)],
                                         b=[("r", "X", 1, 5, 6), ("r", "X", 0, 7, 8)]), V, V, "a:b", V),
    ("a maybe write takes effect within its interval", H(a=[("w", "X", 1, 0, 1, True)],
                                                         b=[("r", "X", 0, 5, 6), ("r", "X", 1, 7, 8)]),
     V, C, "a:b", V),
    ("a pending write that must take effect", H(a=[("w", "X", 1, 0, None)], b=[("r", "X", 0, 5, 6)]),
     C, C, "a:b", C),
    # store buffering with equal time stamps at the process boundaries: each register
    # alone is linearizable, process order (not implied by real time) makes it fail
    ("process order with equal time stamps",
     H(a=[("w", "X", 1, 0, 1), ("r", "Y", 0, 1, 2)], b=[("w", "Y", 1, 0, 1), ("r", "X", 0, 1, 2)]),
     V, V, "empty", V),
]


@pytest.mark.parametrize(("case", "h", "lin", "sc", "graph", "fl"), CASES, ids=[c[0] for c in CASES])
@pytest.mark.parametrize("engine", ["direct", "z3"])
def test_hand_cases(case, h, lin, sc, graph, fl, engine):
    assert verdict(h, "lin", engine=engine) is lin
    assert verdict(h, "sc", engine=engine) is sc
    assert verdict(h, "fisheye-lin", graph, engine=engine) is fl
    assert verdict(h, "fisheye-lin", "empty", engine=engine) is sc
    assert verdict(h, "fisheye-lin", "complete", engine=engine) is lin


def test_witness_is_a_linearization_validated_by_the_spec():
    h = H(a=[("w", "X", 1, 0, 4), ("cas", "X", (2, 3), 9, 10)], b=[("r", "X", 0, 1, 2), ("w", "X", 2, 5, 6)])
    r = check(h, "lin", engine="direct")
    assert r.verdict is C
    assert [h.ops[u].label() for u in r.witness.sequence] == [
        "r(X)0@b#0", "w(X,1)@a#0", "w(X,2)@b#1", "cas(X,2,3)@a#1"]
    assert sequence_problems(h, ProximityGraph.complete(h.processes), r.witness.sequence) == []


def test_validator_names_the_broken_clause():
    g = ProximityGraph.complete(STALE.processes)
    assert "against real time" in sequence_problems(STALE, g, (1, 0))[0]
    assert "not legal" in sequence_problems(STALE, g, (0, 1))[0]
    assert "misses" in sequence_problems(STALE, g, (0,))[0]
    assert sequence_problems(STALE, ProximityGraph.empty(STALE.processes), (1, 0)) == []


def test_certificate_is_a_small_core_whose_own_history_fails():
    h = H(a=[("w", "X", 1, 0, 1), ("w", "Y", 7, 2, 3)], b=[("w", "X", 2, 2, 3)], c=[("r", "X", 1, 4, 7)],
          d=[("r", "Y", 7, 4, 5)])
    r = check(h, "lin", engine="direct", minimal=True)
    assert r.verdict is V
    core = {u for reason in r.certificate if reason.rule == "operation" for u in reason.ops}
    assert {h.ops[u].label() for u in core} == {"w(X,1)@a#0", "w(X,2)@b#0", "r(X)1@c#0"}
    assert check(h.restrict(core), "lin", engine="z3").verdict is V


def test_usage_errors():
    untimed = History.build({"a": [["w", "X", 1]]})
    with pytest.raises(UsageError, match="needs real time"):
        check(untimed, "lin")
    with_cas = History.build({"a": [["cas", "X", [0, 1]]]})
    for model in ("cc", "fisheye", "fisheye-2014"):
        with pytest.raises(UsageError, match="not defined on histories with cas"):
            check(with_cas, model)
    assert check(with_cas, "sc").verdict is C


def test_cli_lin_exit_statuses(run_cli, write_file):
    path = write_file("stale.json", STALE.to_json())
    assert run_cli("check", path, "--model", "lin").status == 1
    assert run_cli("check", path, "--model", "sc").status == 0
    assert run_cli("check", path, "--model", "fisheye-lin", "--graph", "a:b").status == 1
    r = run_cli("check", path, "--model", "cc", "--json")
    assert r.status == 0  # times are not part of cc: the history is cc
    cas = write_file("cas.json", {"history": {"a": [["cas", "X", [0, 1]]]}})
    r = run_cli("check", cas, "--model", "cc")
    assert r.status == 2 and len(r.err.splitlines()) == 1 and "cas" in r.err


# ---- properties ----------------------------------------------------------------------------

SETTINGS = settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@SETTINGS
@given(h=timed_histories(linearizable=True, max_ops=10))
def test_linearizable_by_construction_is_found_consistent(h):
    assert verdict(h, "lin") is C


@SETTINGS
@given(data=st.data(), h=timed_histories(max_ops=7, max_processes=3))
def test_direct_and_z3_agree_on_every_model(data, h):
    g = data.draw(graphs(h.processes))
    for model, graph in (("lin", "empty"), ("sc", "empty"), ("fisheye-lin", g)):
        assert verdict(h, model, graph, "direct") is verdict(h, model, graph, "z3"), model


@SETTINGS
@given(data=st.data(), h=timed_histories(max_ops=8))
def test_fisheye_lin_lies_between_sc_and_lin_and_grows_with_the_graph(data, h):
    small, big = data.draw(graph_pairs(h.processes))
    lin = verdict(h, "lin")
    sc = verdict(h, "sc")
    assert verdict(h, "fisheye-lin", "empty") is sc
    assert verdict(h, "fisheye-lin", "complete") is lin
    f_small, f_big = verdict(h, "fisheye-lin", small), verdict(h, "fisheye-lin", big)
    if lin is C:
        assert f_big is C
    if f_big is C:
        assert f_small is C
    if f_small is C:
        assert sc is C


@SETTINGS
@given(h=timed_histories(max_ops=8, cas=False, crashes=False))
def test_sc_of_the_sequence_search_agrees_with_the_sc_engine(h):
    g = ProximityGraph.empty(h.processes)
    mine = lin_engine.check(h, Model.SC, g).verdict
    assert mine is check(h, "sc", g, engine="direct").verdict


def test_many_keys_with_crashes_decided_and_validated():
    rnd = random.Random(7)
    h = timed_history(rnd, min_processes=6, max_processes=6, min_ops=400, max_ops=400,
                      registers=tuple("ABCDEFGHIJ"), linearizable=True)
    r = check(h, "lin")
    assert r.verdict is C and len(r.witness.sequence) <= len(h.ops)


def _naive_ok(h: History, pairs: set[frozenset[str]] | None, seq: list[int]) -> bool:
    """The definition of spec.realtime, written out pair by pair (quadratic)."""
    ops = h.ops
    if len(set(seq)) != len(seq) or any(not op.maybe and op.uid not in seq for op in ops):
        return False
    at = {u: i for i, u in enumerate(seq)}
    for a in seq:
        for b in seq:
            oa, ob = ops[a], ops[b]
            if oa.process == ob.process and oa.index < ob.index and at[a] > at[b]:
                return False
            near = pairs is None or frozenset((oa.process, ob.process)) in pairs
            if (oa.process != ob.process and near and oa.complete is not None
                    and oa.complete < ob.invoke and at[a] > at[b]):
                return False
    value: dict[str, object] = {}
    for u in seq:
        op = ops[u]
        if op.observes and value.get(op.register, h.initial_value(op.register)) != op.observed:
            return False
        if op.writes:
            value[op.register] = op.value
    return True


@SETTINGS
@given(data=st.data(), h=timed_histories(max_ops=6, max_processes=3))
def test_validator_accepts_exactly_the_sequences_the_definition_allows(data, h):
    g = data.draw(graphs(h.processes))
    found = check(h, "sc", engine="direct")
    if found.verdict is C and data.draw(st.booleans()):
        seq = list(found.witness.sequence)  # valid for sc at least; then perhaps one swap
        if len(seq) > 1 and data.draw(st.booleans()):
            k = data.draw(st.integers(0, len(seq) - 2))
            seq[k], seq[k + 1] = seq[k + 1], seq[k]
    else:
        seq = data.draw(st.permutations(range(len(h.ops))))
        seq = [u for u in seq if not h.ops[u].maybe or data.draw(st.booleans())]
    for graph, pairs in ((ProximityGraph.complete(h.processes), None),
                         (g, {frozenset(e) for e in g.edges}),
                         (ProximityGraph.empty(h.processes), set())):
        assert (sequence_problems(h, graph, seq) == []) is _naive_ok(h, pairs, seq)


def _untimed(h: History) -> History:
    data = {p: [op.to_json()[:3] + ([{"maybe": True}] if op.maybe else []) for op in ops]
            for p, ops in h.by_process.items()}
    return History.build(data, processes=h.processes)


@SETTINGS
@given(h=timed_histories(max_ops=7, max_processes=3))
def test_sc_with_cas_and_maybe_without_times_direct_and_z3_agree(h):
    u = _untimed(h)
    assert not u.timed
    assert verdict(u, "sc", "empty", "direct") is verdict(u, "sc", "empty", "z3")


def test_identical_heads_of_two_processes_are_not_interchangeable():
    # p and q both start with w(X,1); p's read of 1 after q's w(Y,1) needs p's w(X,1)
    # after q's w(X,5): every sequence starts with q's w(X,1), never with p's.
    h = History.build({"p": [["w", "X", 1], ["r", "Y", 1], ["r", "X", 1]],
                       "q": [["w", "X", 1], ["w", "X", 5], ["w", "Y", 1], ["cas", "Z", [0, 1]]]})
    r = check(h, "sc", engine="direct")
    assert r.verdict is C and check(h, "sc", engine="z3").verdict is C


@pytest.mark.parametrize("seed", range(60))
def test_merge_by_points_agrees_with_the_merge_by_heads(seed):
    """The registers' linearizations merged by linearization points, and by Kahn's
    algorithm over the chain heads: both merge, or neither; a merge is a linearization."""
    from fisheye.checker.engines.lin import _merge, _merge_by_heads
    from fisheye.checker.engines.search_budget import Budget
    from fisheye.checker.engines.seqsearch import search
    from fisheye.spec.realtime import RealTimePairs

    rnd = random.Random(seed)
    h = timed_history(rnd, min_processes=2, max_processes=5, min_ops=4, max_ops=24, registers=("X", "Y", "Z"),
                      linearizable=rnd.random() < 0.8)
    by_reg: dict[str, list[int]] = {}
    for op in h.ops:
        by_reg.setdefault(op.register, []).append(op.uid)
    chains = [search(h, uids, RealTimePairs.all(), Budget()) for uids in by_reg.values()]
    if any(c is None for c in chains):
        return
    fast, exact = _merge(h, chains), _merge_by_heads(h, chains)
    assert (fast is None) == (exact is None)
    for merged in (fast, exact):
        if merged is not None:
            assert sequence_problems(h, ProximityGraph.complete(h.processes), tuple(merged)) == []


def test_the_default_budget_grows_with_the_history(monkeypatch) -> None:
    """Without --max-steps, a large history may explore a few configurations per
    operation (a linearizable one needs about one each) beyond the fixed floor."""
    rng = random.Random(3)
    data: dict[str, list] = {f"c{i}": [] for i in range(4)}
    t, value = 0.0, 0
    for _ in range(400):  # sequential operations on one register: linearizable
        p = f"c{rng.randrange(4)}"
        if rng.random() < 0.5:
            value += 1
            data[p].append(["w", "X", value, {"t": [t, t + 1]}])
        else:
            data[p].append(["r", "X", value, {"t": [t, t + 1]}])
        t += 2
    h = History.build(data)
    monkeypatch.setattr(lin_engine, "DEFAULT_MAX_STATES", 10)
    assert lin_engine.default_max_states(400) == 4 * 400
    assert lin_engine.check(h, "lin").verdict is C
    monkeypatch.setattr(lin_engine, "STATES_PER_OPERATION", 0)
    assert lin_engine.check(h, "lin").verdict is Verdict.UNKNOWN
    assert lin_engine.check(h, "lin", max_states=10_000).verdict is C
