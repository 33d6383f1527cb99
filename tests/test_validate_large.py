"""spec.validate on a run of Algorithm 2 large enough to take every path of the validator
(views of thousands of operations, a star order that is not total): the engine's witness
is accepted, and a witness broken in one place fails exactly the clause it breaks, with
the message that names the place."""

from __future__ import annotations

import random
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from fisheye.checker.engines import check
from fisheye.checker.result import Verdict
from fisheye.spec.causal import rf_edges
from fisheye.spec.graph import ProximityGraph
from fisheye.spec.history import History
from fisheye.spec.order import ClosedOrder, close
from fisheye.spec.validate import problems
from fisheye.spec.witness import Witness

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))

from histgen import alg2_history, procs_of  # noqa: E402

PROCS = procs_of(6)
GRAPH = ProximityGraph.of(PROCS, [("p0", "p1"), ("p2", "p3"), ("p3", "p4")])


@pytest.fixture(scope="module")
def run() -> History:
    return alg2_history(random.Random(3), len(PROCS), 2000, 4, GRAPH)


@pytest.fixture(scope="module")
def witnesses(run: History) -> dict[str, Witness]:
    out = {}
    for model in ("fisheye-2014", "fisheye", "cc"):
        res = check(run, model, GRAPH, validate_witness=False)
        assert res.verdict is Verdict.CONSISTENT and res.witness is not None
        out[model] = res.witness
    return out


def _order(h: History, w: Witness) -> ClosedOrder:
    """The witness's order by the vector-clock closure (the reference for the tests)."""
    order = close(h, rf_edges(w.read_from) + list(w.star))
    assert isinstance(order, ClosedOrder)
    return order


def _with_view(w: Witness, p: str, seq: list[int]) -> Witness:
    return replace(w, views={**w.views, p: tuple(seq)})


def test_the_engine_witnesses_take_the_large_paths_and_are_valid(run, witnesses):
    assert all(len(w.views) == len(PROCS) and len(w.views["p0"]) > 1000 for w in witnesses.values())
    assert witnesses["fisheye-2014"].star
    assert not _total(run, witnesses["fisheye-2014"])  # the totality of each edge is searched
    for model, w in witnesses.items():
        assert problems(run, model, GRAPH, w) == []


def _total(h: History, w: Witness) -> bool:
    order = _order(h, w)
    return all(order.comparable(a, b) for a, b in zip(order.topo, order.topo[1:], strict=False))


def _adjacent(h: History, w: Witness, p: str, want) -> int:
    seq = w.views[p]
    return next(i for i in range(len(seq) - 1) if want(h.ops[seq[i]], h.ops[seq[i + 1]]))


@pytest.mark.parametrize("model", ["fisheye-2014", "cc"])
def test_swapping_two_ordered_writes_breaks_the_respect_clause_only(run, witnesses, model):
    w = witnesses[model]
    order = _order(run, w)
    name = "the star order" if model != "cc" else "~>H"
    p = "p2"
    i = _adjacent(run, w, p, lambda a, b: a.is_write and b.is_write and a.process != b.process
                  and a.register != b.register and order.precedes(a.uid, b.uid))
    seq = list(w.views[p])
    a, b = run.ops[seq[i]], run.ops[seq[i + 1]]
    seq[i], seq[i + 1] = seq[i + 1], seq[i]
    assert problems(run, model, GRAPH, _with_view(w, p, seq)) == [
        f"S_{p} does not respect {name}: {a.label()} precedes {b.label()} in {name} but follows it in S_{p}"]


def test_swapping_two_writes_of_one_process_breaks_equivalence_and_respect(run, witnesses):
    w = witnesses["fisheye-2014"]
    p = "p0"
    i = _adjacent(run, w, p, lambda a, b: a.is_write and b.is_write and a.process == b.process != p
                  and a.register != b.register)
    seq = list(w.views[p])
    a, b = run.ops[seq[i]], run.ops[seq[i + 1]]
    seq[i], seq[i + 1] = seq[i + 1], seq[i]
    assert problems(run, "fisheye-2014", GRAPH, _with_view(w, p, seq)) == [
        f"S_{p} is not equivalent to the history: it puts {b.label()} before {a.label()}, "
        f"against the process order of {a.process}",
        f"S_{p} does not respect the star order: {a.label()} precedes {b.label()} in the star order "
        f"but follows it in S_{p}"]


def test_moving_a_read_past_an_unordered_write_breaks_legality_only(run, witnesses):
    w = witnesses["cc"]
    order = _order(run, w)
    p = "p1"
    i = _adjacent(run, w, p, lambda r, x: r.is_read and r.process == p and x.is_write
                  and x.register == r.register and not order.comparable(r.uid, x.uid))
    seq = list(w.views[p])
    r, x = run.ops[seq[i]], run.ops[seq[i + 1]]
    seq[i], seq[i + 1] = seq[i + 1], seq[i]
    assert problems(run, "cc", GRAPH, _with_view(w, p, seq)) == [
        f"S_{p} is not legal: {r.label()} follows {x.label()} with no write of {r.value!r} "
        f"to {r.register} in between"]


def test_a_view_without_one_of_its_operations_or_with_one_twice(run, witnesses):
    w = witnesses["fisheye-2014"]
    p = "p3"
    seq = list(w.views[p])
    gone = run.ops[seq.pop(len(seq) // 2)]
    assert problems(run, "fisheye-2014", GRAPH, _with_view(w, p, seq)) == [f"S_{p} misses {gone.label()}"]
    twice = [*seq, seq[7]]
    assert problems(run, "fisheye-2014", GRAPH, _with_view(w, p, twice)) == [
        f"S_{p} holds {run.ops[seq[7]].label()} twice"]
    assert problems(run, "fisheye-2014", GRAPH, _with_view(w, p, [*seq, len(run.ops)])) == [
        f"S_{p} names unknown operations {[len(run.ops)]}"]
    other = next(op for op in run.ops if op.is_read and op.process != p)
    assert problems(run, "fisheye-2014", GRAPH, _with_view(w, p, [*seq, gone.uid, other.uid])) == [
        f"S_{p} holds operations outside its scope: {other.label()}"]


def test_read_from_entries_for_writes_and_values_of_another_type(run, witnesses):
    w = witnesses["cc"]
    write = next(op for op in run.ops if op.is_write)
    assert problems(run, "cc", GRAPH, replace(w, read_from={**w.read_from, write.uid: None})) == [
        f"the read-from map has entries for operations that are not reads: {[write.uid]}"]
    read = next(op for op in run.ops if op.is_read and op.value != 0)
    other = History(run.processes, tuple(replace(op, value=str(op.value)) if op is read else op
                                         for op in run.ops), run.edges, run.initial)
    source = run.ops[w.read_from[read.uid]]
    assert problems(other, "cc", GRAPH, w) == [
        f"read {other.ops[read.uid].label()} is mapped to {source.label()}: another register or value"]


@pytest.mark.parametrize("edges", [[*GRAPH.edges, ("p0", "p5")], "complete"])
def test_edges_the_witness_was_not_built_for_are_found_not_total(run, witnesses, edges):
    """The star order is asked for the first two consecutive members (in topological
    order) of each edge that it leaves unordered: the same two as the vector-clock
    closure finds, whether they are searched (a graph with at most as many edges as
    processes) or read from the clocks (the complete graph)."""
    graph = ProximityGraph.complete(PROCS) if edges == "complete" else ProximityGraph.of(PROCS, edges)
    for model, what in (("fisheye-2014", "operations"), ("fisheye", "writes")):
        w = witnesses[model]
        order = _order(run, w)
        rank = {u: i for i, u in enumerate(order.topo)}
        expected = []
        for p, q in graph.edges:
            members = sorted((op.uid for op in run.ops if op.process in (p, q)
                              and (model == "fisheye-2014" or op.is_write)), key=rank.__getitem__)
            unordered = [(run.ops[a], run.ops[b]) for a, b in zip(members, members[1:], strict=False)
                         if run.ops[a].process != run.ops[b].process and not order.precedes(a, b)]
            if unordered:
                a, b = unordered[0]
                expected.append(f"the star order restricted to the {what} of {p} and {q} is not total: "
                                f"{a.label()} and {b.label()} are unordered [edge {p}-{q}]")
        assert expected and problems(run, model, graph, w) == expected[:20]
