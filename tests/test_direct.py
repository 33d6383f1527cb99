"""The direct engine: verdicts on the paper's examples, witnesses accepted by
the spec, certificates that are cycles of forced orderings, budgets, and the polynomial
cc path on a large differentiated history."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fisheye.checker.engines import check
from fisheye.checker.engines.direct import check as direct_check
from fisheye.checker.engines.direct import decides
from fisheye.checker.result import Verdict
from fisheye.spec import validate
from fisheye.spec.graph import ProximityGraph
from fisheye.spec.history import History
from fisheye.spec.models import Model
from fisheye.spec.witness import Witness

UNTIMED_MODELS = ("sc", "cc", "fisheye", "fisheye-2014")
"""The models of the direct and Z3 engines of this module (no real time)."""

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))

from histgen import cc_history, fisheye_history, interleaving, pairs_along, random_graph, sc_history  # noqa: E402


def fig6(x: int, y: int) -> History:
    """Figure 6 / Table 1 of the 2015 text (section 3.2), graph p-q, r-s."""
    return History.build({
        "p": [("w", "X", 2), ("w", "Y", 4)],
        "q": [("w", "X", 3), ("r", "Y", 4), ("r", "Y", 5)],
        "r": [("r", "X", 2), ("r", "X", 3), ("w", "Y", 5)],
        "s": [("r", "X", 3), ("r", "X", x), ("r", "Y", 5), ("r", "Y", y)],
    }, processes="pqrs", edges=[("p", "q"), ("r", "s")])


# Table 1: SC allows x?=3, y?=5; CC x? in {2,3}, y? in {4,5}; fisheye x?=3, y? in {4,5}.
TABLE1 = {
    "sc": {(3, 5)},
    "cc": {(2, 4), (2, 5), (3, 4), (3, 5)},
    "fisheye": {(3, 4), (3, 5)},
}


@pytest.mark.parametrize("model", ["sc", "cc", "fisheye", "fisheye-2014"])
def test_table1(model: str) -> None:
    allowed = set()
    for x in (2, 3):
        for y in (4, 5):
            h = fig6(x, y)
            res = check(h, model, ProximityGraph(h.processes, h.edges), engine="direct")
            assert res.engine == "direct"
            assert res.verdict in (Verdict.CONSISTENT, Verdict.VIOLATION)
            if res.verdict is Verdict.CONSISTENT:
                allowed.add((x, y))
    assert allowed == TABLE1.get(model, TABLE1["fisheye"])


def _is_cycle(reasons) -> bool:
    """The reasons' orderings a0<a1, a1<a2, ..., ak<a0 close a cycle."""
    pairs = [r.ops[:2] for r in reasons]
    return len(pairs) >= 2 and all(pairs[i][1] == pairs[(i + 1) % len(pairs)][0] for i in range(len(pairs)))


def test_sc_certificate_is_a_cycle_of_forced_orderings() -> None:
    h = fig6(2, 4)
    res = direct_check(h, "sc", ProximityGraph(h.processes, h.edges))
    assert res.verdict is Verdict.VIOLATION
    assert _is_cycle(res.certificate)
    assert {r.rule for r in res.certificate} <= {"po", "rf", "forced"}
    assert any("must precede" in r.text for r in res.certificate)


def test_fisheye_certificate_names_the_edge() -> None:
    h = fig6(2, 5)
    res = direct_check(h, "fisheye", ProximityGraph(h.processes, h.edges))
    assert res.verdict is Verdict.VIOLATION
    assert _is_cycle(res.certificate)
    assert any(r.rule == "edge" and "[edge p-q]" in r.text for r in res.certificate)


def test_cc_violation_certificate() -> None:
    # p writes X=1 then X=2; q reads 2 then 1: the read of 1 comes after a read of the
    # later write, against the causal order (Ahamad et al.'s causal memory).
    h = History.build({"p": [("w", "X", 1), ("w", "X", 2)], "q": [("r", "X", 2), ("r", "X", 1)]})
    res = direct_check(h, "cc", ProximityGraph.empty(h.processes))
    assert res.verdict is Verdict.VIOLATION
    assert _is_cycle(res.certificate)
    assert any(r.rule == "forced" for r in res.certificate)


def test_read_without_source_is_a_violation() -> None:
    h = History.build({"p": [("r", "X", 7)]})
    for model in UNTIMED_MODELS:
        res = direct_check(h, model, ProximityGraph.empty(h.processes))
        assert res.verdict is Verdict.VIOLATION
        assert res.certificate[0].rule == "rf"
        assert "7" in res.certificate[0].text


def test_repeated_values_view_source_differs_from_causal_source() -> None:
    # p0 reads 0 after writing 1: legal only if p1's write of 0 (the initial value)
    # sits in between in S_p0, while ~>H may map the read to the initial value.
    h = History.build({"p0": [("w", "X", 1), ("r", "X", 0)], "p1": [("w", "X", 0)]})
    g = ProximityGraph.empty(h.processes)
    res = check(h, "cc", g, engine="direct")
    assert res.verdict is Verdict.CONSISTENT
    assert validate.is_valid(h, Model.CC, g, res.witness)
    assert check(h, "sc", g, engine="direct").verdict is Verdict.CONSISTENT


def test_witness_json_round_trip_is_valid() -> None:
    h = fig6(3, 4)
    g = ProximityGraph(h.processes, h.edges)
    res = check(h, "fisheye", g, engine="direct")
    w = Witness.from_json(h, json.loads(json.dumps(res.witness.to_json(h))))
    assert validate.problems(h, "fisheye", g, w) == []
    assert res.witness.star  # the edge p-q needs star pairs beyond ~>H


def test_decides_every_model() -> None:
    h = fig6(3, 5)
    assert all(decides(h, m) for m in UNTIMED_MODELS)
    assert check(h, "fisheye-2014", ProximityGraph(h.processes, h.edges)).engine == "direct"


def test_budget_gives_unknown_naming_the_budget() -> None:
    rng = random.Random(3)
    g = random_graph(rng, tuple(f"p{i}" for i in range(4)), 0.7)
    h = fisheye_history(rng, 4, 60, 3, g)
    res = direct_check(h, "fisheye", g, max_nodes=2)
    assert res.verdict is Verdict.UNKNOWN
    assert "budget of 2 nodes" in res.message
    res = direct_check(h, "fisheye", g, timeout=1e-9)
    assert res.verdict is Verdict.UNKNOWN
    assert "timeout" in res.message


def test_cli_engine_direct_exit_codes(tmp_path: Path) -> None:
    f = tmp_path / "h.json"
    f.write_text(json.dumps(fig6(2, 4).to_json()))
    exe = [sys.executable, "-m", "fisheye.checker.cli", "check", str(f), "--engine", "direct"]
    out = subprocess.run(exe + ["--model", "cc", "--json"], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    obj = json.loads(out.stdout)
    assert obj["verdict"] == "consistent" and obj["engine"] == "direct" and "views" in obj["witness"]
    out = subprocess.run(exe + ["--model", "sc"], capture_output=True, text=True)
    assert out.returncode == 1


def test_sc_histories_are_consistent_for_every_model() -> None:
    rng = random.Random(11)
    for _ in range(20):
        h = sc_history(rng, 4, 40, 3, repeated=rng.random() < 0.3)
        g = random_graph(rng, h.processes)
        for model in UNTIMED_MODELS:
            res = check(h, model, g, engine="direct")  # the facade re-validates the witness
            assert res.verdict is Verdict.CONSISTENT, (model, h.to_json())


def test_an_unread_write_waits_while_its_register_value_is_still_to_be_read() -> None:
    """The execution search runs a write nobody reads at once only when no read still has
    to return its register's current value: here the write of 2 must wait for b's read of
    0, which waits for c's write of 5."""
    from fisheye.checker.engines.direct_order import Budget, Index
    from fisheye.checker.engines.direct_sc_states import solve_sc_states

    h = History.build({"a": [("w", "X", 2)], "b": [("r", "Y", 5), ("r", "X", 0)], "c": [("w", "Y", 5)]})
    seq = solve_sc_states(Index(h), Budget())
    assert isinstance(seq, tuple)
    assert [h.ops[u].label() for u in seq] == ["w(Y,5)@c#0", "r(Y)5@b#0", "r(X)0@b#1", "w(X,2)@a#0"]
    assert check(h, "sc", engine="direct").verdict is Verdict.CONSISTENT


@pytest.mark.slow
def test_a_large_sc_history_is_decided_for_every_model() -> None:
    """A random serialisation of 10,000 operations (8 processes, 20 registers, distinct
    values) that the execution search used to lose its way on (sc was unknown): the
    writes nobody reads run at once, and the rest follows the nearest readers."""
    rng = random.Random(2)
    g = random_graph(rng, tuple(f"p{i}" for i in range(8)), 0.3)
    h = sc_history(rng, 8, 10_000, 20)
    for model in UNTIMED_MODELS:
        res = direct_check(h, model, g)
        assert res.verdict is Verdict.CONSISTENT, (model, res.message)
        assert not validate.problems(h, model, g, res.witness)
        assert res.stats["nodes"] < 500, (model, res.stats)


@pytest.mark.slow
def test_cc_polynomial_on_a_large_differentiated_history() -> None:
    rng = random.Random(5)
    h = cc_history(rng, 8, 3000, 20)
    assert h.differentiated
    res = check(h, "cc", ProximityGraph.empty(h.processes), engine="direct")
    assert res.verdict is Verdict.CONSISTENT
    assert res.stats["nodes"] < 50  # one saturation per process, a few rounds each
    # a read of an overwritten value, after reading the overwriting one, breaks cc
    data = {p: [op.to_json() for op in ops] for p, ops in h.by_process.items()}
    data["p0"] += [["w", "Z", "a"], ["w", "Z", "b"]]
    data["p1"] += [["r", "Z", "b"], ["r", "Z", "a"]]
    bad = History.build(data, processes=h.processes)
    res = check(bad, "cc", ProximityGraph.empty(h.processes), engine="direct")
    assert res.verdict is Verdict.VIOLATION
    assert _is_cycle(res.certificate)


def _maybe_history(maybe: bool) -> History:
    """c reads 1, 2, 1: a second write of 1 after b's write of 2 is needed, and only e's
    (marked maybe when ``maybe``) can be it."""
    ext = [{"maybe": True}] if maybe else []
    return History.build({"a": [("w", "X", 1)], "b": [("w", "X", 2)],
                          "c": [("r", "X", 1), ("r", "X", 2), ("r", "X", 1)],
                          "e": [["w", "X", 1, *ext]] if maybe else []})


@pytest.mark.parametrize("model", ["cc", "fisheye", "fisheye-2014"])
def test_a_maybe_write_takes_effect_when_a_read_needs_it(model: str) -> None:
    g = ProximityGraph.complete(("a", "b", "c", "e"))
    without = check(_maybe_history(False), model, g, engine="direct")
    assert without.verdict is Verdict.VIOLATION
    h = _maybe_history(True)
    res = check(h, model, g, engine="direct")  # the facade re-validates the witness
    assert res.verdict is Verdict.CONSISTENT
    e = h.op("e", 0).uid
    assert e in (res.witness.sequence or ()) or all(e in v for v in res.witness.views.values())


def test_a_maybe_write_nobody_reads_is_left_out() -> None:
    # the maybe write of 3 is never read; taking effect after c's reads would be fine too,
    # but the engine leaves it out, and the validator accepts a witness without it
    h = History.build({"a": [("w", "X", 1)], "c": [("r", "X", 1)], "e": [["w", "X", 3, {"maybe": True}]]})
    res = check(h, "cc", ProximityGraph.empty(h.processes), engine="direct")
    assert res.verdict is Verdict.CONSISTENT
    e = h.op("e", 0).uid
    assert e not in (res.witness.sequence or ()) and all(e not in v for v in res.witness.views.values())
    bad = Witness(read_from={1: 0}, sequence=(0, 1), views={"e": (0, 2)})
    assert any("misses" in p for p in validate.problems(h, "cc", ProximityGraph.empty(h.processes), bad))


def test_independent_parts_are_decided_separately_and_the_witness_is_assembled() -> None:
    # two groups of processes on disjoint registers; fisheye with an edge across groups
    h = History.build({"a": [("w", "X", 1), ("r", "X", 2)], "b": [("w", "X", 2), ("r", "X", 1)],
                       "c": [("w", "Y", 1)], "d": [("r", "Y", 1), ("r", "Y", 0)]})
    g = ProximityGraph.of(h.processes, [("a", "c"), ("b", "d")])
    for model in ("cc", "fisheye", "fisheye-2014"):
        res = direct_check(h, model, g)
        assert res.stats["parts"] == 2
        assert res.verdict is Verdict.VIOLATION  # d reads Y back to its initial value
        assert res.certificate[0].rule == "part"
    ok = History.build({"a": [("w", "X", 1), ("r", "X", 2)], "b": [("w", "X", 2), ("r", "X", 1)],
                        "c": [("w", "Y", 1)], "d": [("r", "Y", 0), ("r", "Y", 1)]})
    for model in UNTIMED_MODELS:  # a and b disagree on X: only sc forbids it here
        res = direct_check(ok, model, g)
        assert res.verdict is check(ok, model, g, engine="z3").verdict, model
        assert res.verdict is (Verdict.VIOLATION if model == "sc" else Verdict.CONSISTENT)
        if res.witness is not None:
            assert validate.problems(ok, model, g, res.witness) == []


def test_auto_falls_back_to_z3_when_the_direct_engine_gives_up(monkeypatch) -> None:
    from functools import partial

    from fisheye.checker.engines import direct

    monkeypatch.setattr(direct, "check", partial(direct.check, max_nodes=0))
    h = fig6(3, 4)
    res = check(h, "fisheye", ProximityGraph(h.processes, h.edges))
    assert res.engine == "z3" and res.verdict is Verdict.CONSISTENT
    assert "the direct engine gave up first" in res.message


@settings(max_examples=300, deadline=None, derandomize=True)
@given(st.randoms(use_true_random=False))
def test_extending_a_closure_equals_recomputing_it(rng: random.Random) -> None:
    """The incremental closure (pruned propagation, cycles detected on the way) against
    Kahn's algorithm from scratch, on random relations grown in random batches."""
    from fisheye.checker.engines.direct_order import Index, extend_order, full_order

    for _ in range(3):
        h = sc_history(rng, rng.randint(1, 4), rng.randint(2, 14), 2)
        ix = Index(h)
        n = len(h.ops)
        edges: list[tuple[int, int]] = []
        order = full_order(ix, edges)
        for _ in range(rng.randint(1, 6)):
            batch = [(rng.randrange(n), rng.randrange(n)) for _ in range(rng.randint(1, 4))]
            batch = [(a, b) for a, b in batch if a != b]
            edges += batch
            grown = extend_order(ix, order, batch)
            fresh = full_order(ix, edges)
            assert (grown is None) == (fresh is None), (h.to_json(), edges)
            if fresh is None:
                break
            assert [list(c) for c in grown.clock] == [list(c) for c in fresh.clock], (h.to_json(), edges)
            order = grown


def test_a_maybe_write_left_out_of_a_later_phase_is_not_named_by_the_star_order() -> None:
    # p0 goes from X to Y (two phases); its maybe write to Y is read by no one, so the
    # phase's witness leaves it out, and the pairs chaining M_p0p1 across the phases must
    # not name it (a named maybe write took effect, and the sequence would miss it)
    h = History.build({"p0": [["w", "X", 1], ["w", "Y", 2, {"maybe": True}]], "p1": []})
    g = ProximityGraph.of(h.processes, [("p0", "p1")])
    for model in ("cc", "fisheye", "fisheye-2014"):
        res = direct_check(h, model, g)
        assert res.verdict is Verdict.CONSISTENT
        assert validate.problems(h, model, g, res.witness) == []
        assert res.stats["parts"] == 2


@settings(max_examples=300, deadline=None, derandomize=True)
@given(st.randoms(use_true_random=False))
def test_the_compiled_closure_agrees_with_the_spec(rng: random.Random) -> None:
    """The compiled closure (:mod:`fisheye.checker.engines.closure_kernel`) against the
    spec's reference: the same clocks as :func:`fisheye.spec.order.close` on an acyclic
    relation, the same cycle as :func:`fisheye.spec.order.find_cycle` on a cyclic one."""
    from fisheye.checker.engines.direct_order import Index, find_cycle, full_order
    from fisheye.spec.order import ClosedOrder, close
    from fisheye.spec.order import find_cycle as spec_find_cycle

    h = sc_history(rng, rng.randint(1, 5), rng.randint(1, 16), 2)
    ix = Index(h)
    n = len(h.ops)
    edges = [(rng.randrange(n), rng.randrange(n)) for _ in range(rng.randint(0, 2 * n))]
    edges = [(a, b) for a, b in edges if a != b]
    ref = close(h, edges)
    got = full_order(ix, edges)
    if isinstance(ref, ClosedOrder):
        assert got is not None
        assert [tuple(c) for c in got.clock] == list(ref.clock), (h.to_json(), edges)
        assert got.pairs.tolist() == [x for e in edges for x in e]
    else:
        assert got is None, (h.to_json(), edges)
        assert find_cycle(ix, edges) == spec_find_cycle(h, edges), (h.to_json(), edges)


@settings(max_examples=200, deadline=None, derandomize=True)
@given(st.randoms(use_true_random=False))
def test_the_guided_order_is_topological_and_follows_its_rank(rng: random.Random) -> None:
    """``closure_kernel.guided_order`` (the star search's guess): a topological order of
    ``hard``; when the rank is a strict topological rank of an order containing
    ``hard`` (the sums of its clocks), a topological order of that order too."""
    import numpy as np

    from fisheye.checker.engines.closure_kernel import guided_order
    from fisheye.checker.engines.direct_order import Index, full_order

    h = sc_history(rng, rng.randint(1, 5), rng.randint(1, 16), 2)
    ix = Index(h)
    n = len(h.ops)

    pos = interleaving(rng, h)
    hard_pairs = pairs_along(rng, pos, rng.randint(0, n))
    hard = full_order(ix, hard_pairs)
    nested = rng.random() < 0.5
    soft = full_order(ix, hard_pairs + pairs_along(rng, pos, rng.randint(0, 2 * n))) if nested else None
    rank = (soft.array.sum(axis=1) if soft is not None else
            np.array([rng.randrange(4 * n + 1) for _ in range(n)]))  # any rank: only hard binds
    got = guided_order(ix.P, hard.array, rank.astype(np.int64), np.array(ix.base, np.int64),
                       np.array(ix.length, np.int64)).tolist()
    assert sorted(got) == list(range(n))
    at = {u: i for i, u in enumerate(got)}
    assert all(at[a] < at[b] for a in range(n) for b in range(n) if ix.precedes(hard, a, b))
    if soft is not None:
        assert all(at[a] < at[b] for a in range(n) for b in range(n) if ix.precedes(soft, a, b))


@settings(max_examples=300, deadline=None, derandomize=True)
@given(st.randoms(use_true_random=False))
def test_the_cycle_through_a_refused_batch_is_a_cycle_through_it(rng: random.Random) -> None:
    """``direct_order.conflict_of`` with a base order and a refused batch
    (:func:`fisheye.checker.engines.closure_kernel.cycle_through`): a simple cycle of
    process order and pairs that starts with a pair of the batch, whenever the batch
    closes one (the spec's closure says when); ``closure_through`` (compiled and
    Python) finds the same cycle, or the closure, and ``extend_or_conflict`` gives
    the same conflict, or the same order, as ``conflict_of`` and ``extend_order``; the
    search its conflict keeps (a new pair reversed at once) then finds ``cycle_through``'s
    cycle of the relation less the new pairs on the first."""
    import numpy as np

    from fisheye.checker.engines.closure_kernel import closure_through, cycle_through
    from fisheye.checker.engines.direct_order import (
        Conflict,
        Index,
        conflict_of,
        extend_or_conflict,
        extend_order,
        flat_pairs,
        full_order,
    )
    from fisheye.spec.order import ClosedOrder, close

    h = sc_history(rng, rng.randint(1, 5), rng.randint(2, 16), 2)
    ix = Index(h)
    n = len(h.ops)
    base_pairs = pairs_along(rng, interleaving(rng, h), n)  # acyclic
    base = full_order(ix, base_pairs)
    assert base is not None
    new = [(a, b) for a, b in ((rng.randrange(n), rng.randrange(n)) for _ in range(rng.randint(1, n)))
           if a != b]
    add = flat_pairs(new)
    cycle = cycle_through(ix.n, ix.P, ix.proc_array, ix.idx_array, ix.po_next_array,
                          np.concatenate((base.pairs, add)), add[0::2].copy(), add[1::2].copy()).tolist()
    cyclic = not isinstance(close(h, base_pairs + new), ClosedOrder)
    assert cyclic == (extend_order(ix, base, new) is None)
    # the closure and its cycle in one pass: the same cycle, compiled and in Python
    flat = np.concatenate((base.pairs, add))
    for through in (closure_through, closure_through.py_func):
        clock, again = through(ix.n, ix.P, ix.proc_array, ix.idx_array, ix.po_next_array, flat,
                               add[0::2].copy(), add[1::2].copy())
        assert again.tolist() == cycle
        if not cyclic:
            assert clock.tolist() == full_order(ix, flat).clock
    edges = {**{e: ("probe",) for e in base_pairs}, **{e: ("choice", 1) for e in new}}
    got = extend_or_conflict(ix, edges, base, new)
    if cyclic:
        assert isinstance(got, Conflict) and got.reasons == conflict_of(ix, edges, base, new).reasons
        if got.cycles is not None:  # its search goes on: the relation less the new pairs on the cycle
            pairs = flat.reshape(-1, 2)
            last = len(base.pairs) // 2
            on = set(zip(cycle, cycle[1:] + cycle[:1], strict=True))
            gone = np.array([i for i in range(last, len(pairs)) if tuple(pairs[i]) in on], np.int64)
            ids = np.array([i for i in range(last, len(pairs)) if i not in set(gone.tolist())], np.int64)
            more = got.cycles.cycle(gone, pairs[gone, 0].copy(), pairs[ids], ids)
            rest = np.delete(pairs, gone, axis=0).ravel()
            fresh = cycle_through(ix.n, ix.P, ix.proc_array, ix.idx_array, ix.po_next_array, rest,
                                  pairs[ids, 0].copy(), pairs[ids, 1].copy())
            assert more.tolist() == fresh.tolist()
    else:
        assert got.clock == extend_order(ix, base, new).clock
        assert cycle == []
        return
    steps = set(base_pairs) | set(new) | {(u, u + 1) for u in range(n - 1) if ix.po_next[u]}
    assert len(cycle) == len(set(cycle)) >= 2 or (len(cycle) == 1 and (cycle[0], cycle[0]) in new)
    assert (cycle[0], cycle[1 % len(cycle)]) in set(new)
    assert all((a, b) in steps for a, b in zip(cycle, cycle[1:] + cycle[:1], strict=True))


@settings(max_examples=300, deadline=None, derandomize=True)
@given(st.randoms(use_true_random=False))
def test_a_closure_extended_row_by_row_is_the_fresh_closure(rng: random.Random) -> None:
    """``closure_kernel.extend_closure`` (compiled and Python): from the clocks of an
    acyclic relation and a few new pairs, the clocks of the fresh closure and the rows
    that differ from the base's (status 0), status 1 exactly when the new pairs close a
    cycle (with no limit), and status 2 when it would take more rows than its limit
    (fewer than it raises); ``new_pairs_state`` says whether a new pair is reversed
    or every one implied already; ``extend_order``
    and ``extend_or_conflict``, which use it, give the fresh closure too."""
    import numpy as np

    from fisheye.checker.engines.closure_kernel import closure, extend_closure, new_pairs_state
    from fisheye.checker.engines.direct_order import Index, extend_order, flat_pairs, full_order

    h = sc_history(rng, rng.randint(1, 5), rng.randint(2, 16), 2)
    ix = Index(h)
    n = len(h.ops)
    base = full_order(ix, pairs_along(rng, interleaving(rng, h), n))
    assert base is not None
    new = [(a, b) for a, b in ((rng.randrange(n), rng.randrange(n)) for _ in range(rng.randint(1, 4)))
           if a != b]
    if not new:
        return
    add = flat_pairs(new)
    flat = np.concatenate((base.pairs, add))
    fresh, cycle = closure(ix.n, ix.P, ix.proc_array, ix.idx_array, ix.po_next_array, flat)
    reversed_, implied = ([ix.precedes(base, b, a) or a == b for a, b in new],
                          [ix.precedes(base, a, b) for a, b in new])
    for state in (new_pairs_state, new_pairs_state.py_func):
        got = state(base.array, ix.proc_array, ix.idx_array, add[0::2].copy(), add[1::2].copy())
        assert got == (1 if any(reversed_) else 0 if all(implied) else 2)
    for extend in (extend_closure, extend_closure.py_func):
        clock, raised, status = extend(ix.n, ix.P, ix.proc_array, ix.idx_array, ix.po_next_array, base.array,
                                       flat, add[0::2].copy(), add[1::2].copy(), 10**9)
        assert status == (1 if len(cycle) else 0)
        if not len(cycle):
            assert clock.tolist() == fresh.tolist()
            assert raised.tolist() == (fresh != base.array).any(axis=1).tolist()
            grown = int(raised.sum())
            if grown:  # one row fewer than it raises: cut short
                assert extend(ix.n, ix.P, ix.proc_array, ix.idx_array, ix.po_next_array, base.array, flat,
                              add[0::2].copy(), add[1::2].copy(), grown - 1)[2] == 2
    got = extend_order(ix, base, new)
    assert (got is None) == bool(len(cycle))
    if got is not None:
        assert got.array.tolist() == fresh.tolist()


def test_the_collector_is_paused_while_the_engine_and_the_validation_run(monkeypatch) -> None:
    """The direct engine's search and the spec's validation of its witness run with the
    cyclic garbage collector paused (they build large containers and no cycles), and
    it runs again after the check."""
    import gc

    from fisheye.checker.engines import direct_search
    from fisheye.spec import validate as spec_validate

    seen: list[tuple[str, bool]] = []
    search, problems = direct_search.search, spec_validate.problems

    def searched(*args, **kwargs):
        seen.append(("search", gc.isenabled()))
        return search(*args, **kwargs)

    def validated(*args, **kwargs):
        seen.append(("validation", gc.isenabled()))
        return problems(*args, **kwargs)

    monkeypatch.setattr("fisheye.checker.engines.direct.search", searched)
    monkeypatch.setattr(spec_validate, "problems", validated)
    assert gc.isenabled()
    h = fisheye_history(random.Random(5), 3, 30, 2, random_graph(random.Random(5), ["p0", "p1", "p2"], 0.5))
    assert check(h, "fisheye", engine="direct").verdict is Verdict.CONSISTENT
    assert seen == [("search", False), ("validation", False)] and gc.isenabled()


def test_a_saturation_over_a_chain_map_adds_to_its_first_map() -> None:
    """``direct_cc.saturate_reads`` on a ``ChainMap`` (a view's own edges over the
    orientation's reasons in the star search) adds the orderings it derives to the
    first map only, the same as on a plain dict, and reaches the same order."""
    from collections import ChainMap

    from fisheye.checker.engines.direct_cc import saturate_reads
    from fisheye.checker.engines.direct_order import Budget, Index, full_order, rf_edges

    derived = 0
    for seed in range(10):
        rng = random.Random(seed)
        h = sc_history(rng, rng.randint(2, 4), rng.randint(10, 40), 2)
        ix = Index(h)
        rf = {r: ix.cands[r][0] for r in ix.reads}
        hb = rf_edges(ix, rf)
        order = full_order(ix, hb.keys())
        plain = dict(hb)
        want = saturate_reads(ix, plain, order, list(rf), rf, "S", Budget(), from_read=True, initial=True)
        under = dict(hb)
        chained = ChainMap({}, under)
        got = saturate_reads(ix, chained, order, list(rf), rf, "S", Budget(), from_read=True, initial=True)
        assert got.clock == want.clock and under == hb
        assert chained.maps[0] == {e: info for e, info in plain.items() if e not in hb}
        derived += len(chained.maps[0])
    assert derived > 0


def test_a_first_pass_refutes_sc_only_where_the_search_does() -> None:
    """``direct_sc.first_pass`` (one pass of the rules, no reasons), on random causal
    and sc runs: when it refutes sc, ``solve_sc`` finds a conflict too; otherwise it
    gives the closure of the read-from pairs, and ``solve_sc`` started from it answers
    as from scratch.  Both cases occur."""
    from fisheye.checker.engines.direct_order import Budget, Index, full_order, rf_edges
    from fisheye.checker.engines.direct_sc import first_pass, solve_sc

    refuted = kept = 0
    for seed in range(80):
        rng = random.Random(seed)
        procs = rng.randint(2, 5)
        h = (sc_history(rng, procs, rng.randint(4, 40), rng.randint(1, 3)) if seed % 4 == 0 else
             cc_history(rng, procs, rng.randint(4, 40), rng.randint(1, 3), p_deliver=rng.random()))
        ix = Index(h)
        assert h.differentiated
        rf = {r: ix.cands[r][0] for r in ix.reads}
        hb = rf_edges(ix, rf)
        got = first_pass(ix, hb, rf, Budget())
        answer = solve_sc(ix, hb, rf, Budget())
        if got is None:
            refuted += 1
            assert not isinstance(answer, tuple)
        else:
            kept += 1
            assert got.clock == full_order(ix, hb.keys()).clock
            assert solve_sc(ix, hb, rf, Budget(), got) == answer
    assert refuted >= 5 and kept >= 5, (refuted, kept)


@settings(max_examples=300, deadline=None, derandomize=True)
@given(st.randoms(use_true_random=False))
def test_the_cycles_after_removals_are_those_of_a_fresh_search(rng: random.Random) -> None:
    """``cycle_after_removal`` (compiled and Python), taking pairs out of a relation
    bit by bit and resuming Kahn's algorithm, finds after each step the cycle that
    ``cycle_through`` finds on the relation less every pair taken out so far, with
    the same pairs to start from (skipping those an earlier step found with no way
    back, and searching within the strongly connected components of the first
    relation only)."""
    import numpy as np

    from fisheye.checker.engines.closure_kernel import cycle_after_removal, cycle_search, cycle_through
    from fisheye.checker.engines.direct_order import Index, flat_pairs

    h = sc_history(rng, rng.randint(1, 5), rng.randint(2, 16), 2)
    ix = Index(h)
    n = len(h.ops)
    listed = [(a, b) for a, b in ((rng.randrange(n), rng.randrange(n)) for _ in range(rng.randint(1, 2 * n)))
              if a != b]
    if not listed:
        return
    flat = flat_pairs(listed)
    pairs = flat.reshape(-1, 2)
    last = rng.randrange(len(pairs))  # the pairs searched from: pairs[last:]
    for search, after in ((cycle_search, cycle_after_removal),
                          (cycle_search.py_func, cycle_after_removal.py_func)):
        start, adj, indeg, po_next, slot, component = search(ix.n, ix.P, ix.proc_array, ix.idx_array,
                                                             ix.po_next_array, flat)
        assert adj[slot].tolist() == pairs[:, 1].tolist()  # each pair's place in the adjacency
        keep = np.ones(len(pairs), np.bool_)
        alive = keep.copy()
        space = (np.full(n + 1, -1, np.int64), np.empty(n + 1, np.int64), np.empty(n + 1, np.int64),
                 np.zeros(1, np.int64), np.zeros(len(pairs), np.bool_))
        for _ in range(4):
            keep &= np.array([rng.random() < 0.8 for _ in range(len(pairs))], np.bool_)
            gone = np.flatnonzero(alive & ~keep)
            alive = keep.copy()
            new_ids = last + np.flatnonzero(keep[last:])
            new = pairs[new_ids]
            got = after(ix.n, start, adj, indeg, po_next, pairs[gone, 0].copy(), slot[gone],
                        new[:, 0].copy(), new[:, 1].copy(), new_ids, *space, component)
            fresh = cycle_through(ix.n, ix.P, ix.proc_array, ix.idx_array, ix.po_next_array,
                                  pairs[keep].ravel(), new[:, 0].copy(), new[:, 1].copy())
            assert got.tolist() == fresh.tolist()


@settings(max_examples=300, deadline=None, derandomize=True)
@given(st.randoms(use_true_random=False))
def test_the_components_are_the_strongly_connected_ones_of_what_kahn_left(rng: random.Random) -> None:
    """``closure_kernel.components`` (compiled and Python) against networkx: two
    operations Kahn's algorithm left share a number exactly when they lie in one
    strongly connected component of the relation among those operations; an operation
    placed has none."""
    import networkx as nx

    from fisheye.checker.engines.closure_kernel import components, cycle_search
    from fisheye.checker.engines.direct_order import Index, flat_pairs

    h = sc_history(rng, rng.randint(1, 5), rng.randint(2, 16), 2)
    ix = Index(h)
    n = len(h.ops)
    listed = [(rng.randrange(n), rng.randrange(n)) for _ in range(rng.randint(1, 2 * n))]
    flat = flat_pairs(listed)
    start, adj, indeg, po_next, _, component = cycle_search(ix.n, ix.P, ix.proc_array, ix.idx_array,
                                                            ix.po_next_array, flat)
    assert components.py_func(n + 1, start, adj, po_next, indeg).tolist() == component.tolist()
    left = [u for u in range(n) if indeg[u] > 0]
    g = nx.DiGraph()
    g.add_nodes_from(left)
    g.add_edges_from((a, b) for a, b in [*listed, *((u, u + 1) for u in range(n - 1) if ix.po_next[u])]
                     if a in g and b in g)
    want = {u: i for i, c in enumerate(nx.strongly_connected_components(g)) for u in c}
    assert all(component[u] == -1 for u in range(n) if indeg[u] <= 0)
    assert all((component[u] == component[v]) == (want[u] == want[v]) for u in left for v in left)


@settings(max_examples=300, deadline=None, derandomize=True)
@given(st.randoms(use_true_random=False))
def test_the_compiled_premise_path_is_a_path_with_fewest_late_edges(rng: random.Random) -> None:
    """``closure_kernel.premise_path``: every step is a root edge, process order or a
    late edge of stamp below ``t``, and no path has fewer late edges (a plain 0-1
    breadth-first search counts them); no path found only when there is none."""
    import numpy as np

    from fisheye.checker.engines.closure_kernel import late_adjacency, premise_path
    from fisheye.checker.engines.direct_order import Index

    h = sc_history(rng, rng.randint(1, 4), rng.randint(2, 14), 2)
    ix = Index(h)
    n = len(h.ops)
    root = [(rng.randrange(n), rng.randrange(n)) for _ in range(rng.randint(0, n))]
    late = [(rng.randrange(n), rng.randrange(n), rng.randrange(6)) for _ in range(rng.randint(0, 2 * n))]
    t, u, v = rng.randrange(7), rng.randrange(n), rng.randrange(n)
    start = [0] * (n + 1)
    for a, _ in root:
        start[a + 1] += 1
    for x in range(n):
        start[x + 1] += start[x]
    adj, fill = [0] * len(root), start[:-1]
    for a, b in root:
        adj[fill[a]] = b
        fill[a] += 1
    arrays = [np.array(xs, np.int64) for xs in (start, adj, [a for a, _, _ in late], [b for _, b, _ in late],
                                                [s for _, _, s in late])]
    unbounded = np.empty((0, 0), np.int64)
    path = premise_path(n, ix.po_next_array, *arrays[:2], *late_adjacency(n, *arrays[2:]), unbounded,
                        ix.proc_array, ix.idx_array, t, u, v).tolist()
    free = {(a, b) for a, b in root} | {(x, x + 1) for x in range(n - 1) if ix.po_next[x]}
    cost = {(a, b): 0 for a, b in free}
    for a, b, s in late:
        if s < t and (a, b) not in cost:
            cost[(a, b)] = 1
    best = {u: 0}
    todo = [u]
    while todo:  # Bellman-Ford style relaxation: small graphs
        x = todo.pop()
        for (a, b), c in cost.items():
            if a == x and best[x] + c < best.get(b, n + 1):
                best[b] = best[x] + c
                todo.append(b)
    if v not in best:
        assert path == []
        return
    assert path[0] == u and path[-1] == v
    assert all((a, b) in cost for a, b in zip(path, path[1:], strict=False))
    assert sum(cost[(a, b)] for a, b in zip(path, path[1:], strict=False)) == best[v]


@settings(max_examples=300, deadline=None, derandomize=True)
@given(st.randoms(use_true_random=False))
def test_a_premise_path_bounded_by_the_root_order_loses_no_path(rng: random.Random) -> None:
    """With the clocks of the root order, the premise path keeps to the operations
    between its ends; on an acyclic graph that holds the root order (as the graphs of a
    saturation are) it still finds a path with the fewest late edges."""
    import numpy as np

    from fisheye.checker.engines.closure_kernel import adjacency, late_adjacency, premise_path
    from fisheye.checker.engines.direct_order import Index, flat_pairs, full_order

    h = sc_history(rng, rng.randint(1, 4), rng.randint(2, 14), 2)
    ix = Index(h)
    n = len(h.ops)
    pos = interleaving(rng, h)  # every edge goes along it
    root, late = pairs_along(rng, pos, rng.randint(0, n)), pairs_along(rng, pos, rng.randint(0, 2 * n))
    stamps = [rng.randrange(6) for _ in late]
    t, u, v = rng.randrange(7), rng.randrange(n), rng.randrange(n)
    order = full_order(ix, root)
    assert order is not None
    csr = adjacency(n, flat_pairs(root))
    lat = late_adjacency(n, *(np.array(col, np.int64) for col in ([a for a, _ in late], [b for _, b in late],
                                                                    stamps)))
    free = premise_path(n, ix.po_next_array, *csr, *lat, np.empty((0, 0), np.int64), ix.proc_array,
                        ix.idx_array, t, u, v).tolist()
    bounded = premise_path(n, ix.po_next_array, *csr, *lat, order.array, ix.proc_array, ix.idx_array,
                           t, u, v).tolist()
    assert (free == []) == (bounded == [])
    if not bounded:
        return
    cheap = set(root) | {(x, x + 1) for x in range(n - 1) if ix.po_next[x]}

    def cost(path: list[int]) -> int:
        return sum((a, b) not in cheap for a, b in zip(path, path[1:], strict=False))

    assert bounded[0] == u and bounded[-1] == v and cost(bounded) == cost(free)
    for x in bounded:  # none before u, none after v in the root order
        assert x == u or not ix.precedes(order, x, u)
        assert x == v or not ix.precedes(order, v, x)


def test_the_compiled_kernels_work_where_numba_can_write_no_cache() -> None:
    """Where numba finds no writable cache directory (here: no locator allowed but the
    one for zip archives, which does not apply), the kernels are compiled in memory and a
    check still decides, instead of the import failing."""
    import os

    env = {**os.environ, "NUMBA_CACHE_LOCATOR_CLASSES": "ZipCacheLocator"}
    code = ("from fisheye.spec.history import History\n"
            "from fisheye.checker.engines.direct import check\n"
            "h = History.build({'p': [['w', 'X', 1], ['r', 'X', 2]], 'q': [['w', 'X', 2], ['r', 'X', 1]]})\n"
            "print(check(h, 'cc').verdict.value, check(h, 'sc').verdict.value)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=300)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["consistent", "violation"]


@pytest.mark.parametrize("timed", [False, True])
def test_a_shortcut_that_runs_out_of_budget_leaves_the_search_to_decide(monkeypatch, timed: bool) -> None:
    """The serialisation (repeated values) and linearization (real time) shortcuts give up
    when their small budget runs out: the full search then decides, no crash."""
    from fisheye.checker.engines import lin, seqsearch
    from fisheye.checker.engines.search_budget import BudgetExhausted

    def out_of_budget(*args: object) -> None:
        raise BudgetExhausted("the shortcut's budget ran out")

    monkeypatch.setattr(seqsearch, "search", out_of_budget)
    monkeypatch.setattr(lin, "linearization", out_of_budget)
    t = [{"t": [0, 1]}] if timed else []
    h = History.build({"a": [["w", "X", 1, *t]], "b": [["r", "X", 1, *t]], "c": [["w", "X", 1, *t]]})
    assert not h.differentiated and h.timed is timed
    res = check(h, "sc", engine="direct")
    assert res.verdict is Verdict.CONSISTENT, res.message


@settings(max_examples=100, deadline=None)
@given(st.lists(st.dictionaries(st.tuples(st.integers(0, 5), st.integers(0, 5)), st.integers(0, 3),
                                max_size=6), min_size=1, max_size=4), st.booleans())
def test_flat_edges_gives_what_the_layers_give(layers: list[dict], nested: bool) -> None:
    """``direct_order.flat_edges``: a ChainMap of edge layers (nested or not) as one dict
    with the same keys in the same order and the reason each lookup gives."""
    from collections import ChainMap

    from fisheye.checker.engines.direct_order import flat_edges

    chain = ChainMap(*layers)
    if nested and len(layers) > 1:
        chain = ChainMap(layers[0], ChainMap(*layers[1:]))
    got = flat_edges(chain)
    assert type(got) is dict and list(got.items()) == list(dict(chain).items())
    assert flat_edges(layers[0]) is layers[0]
