"""The compiled kernel of the protocol level (fisheye.impl.protocol_kernel) against its
reference, ProtocolSystem under the explorer's stubborn sets (assert_kernel_matches): on
every reachable state of the protocol-level configurations the suite explores, the same
kind (inner, pruned, no step), the same reduced successors in the same order (each the
quotient's canonical form of the raw step), rows that decode to the state they encode; on
random walks of fig6."""

from __future__ import annotations

import os

import numpy as np
import pytest
from kernel_configurations import SEARCHES
from small_programs import SEEDS, small_configuration

from fisheye.checker.explore import make_context, run
from fisheye.impl.programs import parse_program
from fisheye.spec.graph import ProximityGraph
from fisheye.testing import assert_kernel_matches

PBN = "paris-berlin-newyork"
MON = (("monitors", True),)     # broadcast monitors instead of delivery logs


def agree_everywhere(ctx) -> int:
    """Compare on every reachable state of the reduced graph; return how many."""
    return assert_kernel_matches(ctx.system, prune=ctx.prune_deviations)


def walks(ctx, seed: int, runs: int) -> int:
    """Compare along ``runs`` random runs of the reduced graph; return the states compared."""
    return assert_kernel_matches(ctx.system, prune=ctx.prune_deviations, every_state=False, walks=runs,
                                 seed=seed)


@pytest.mark.parametrize("graph,variant,states,options", [
    ("paper", "corrected", 17352, ()), ("paper", "published", 18127, ()),
    ("paper", "published", 15123, MON), ("empty", "corrected", 10882, MON),
    pytest.param("empty", "corrected", 40301, (), marks=pytest.mark.slow),
    pytest.param("complete", "corrected", 119958, (), marks=pytest.mark.slow),
])
def test_kernel_equals_reference_on_every_state_of_pbn(graph, variant, states, options):
    assert agree_everywhere(make_context(PBN, graph, variant=variant, options=options)) == states


@pytest.mark.parametrize("options", [(), MON])
@pytest.mark.parametrize("seed", SEEDS)
def test_kernel_equals_reference_on_random_programs(seed, options):
    prog, graph = small_configuration(seed)
    for variant in ("corrected", "published"):
        assert agree_everywhere(make_context(prog, graph, variant=variant, options=options)) > 1


@pytest.mark.parametrize("options", [(), MON])
@pytest.mark.parametrize("mutant", ["opposite-tie-break", "no-catch-up", "no-t1", "no-t2",
                                    "write-returns-early"])
def test_kernel_equals_reference_under_every_mutant(mutant, options):
    prog = parse_program("p0: write(X,1), read(X); p1: write(X,2), read(X)")
    graph = ProximityGraph.of(prog.processes, [("p0", "p1")])
    assert agree_everywhere(make_context(prog, graph, mutant=mutant, options=options)) > 1
    prog = parse_program("p0: write(X,1), read(Y); p1: write(Y,2), read(X); p2: read(X)")
    graph = ProximityGraph.of(prog.processes, [("p0", "p1")])
    assert agree_everywhere(make_context(prog, graph, mutant=mutant, options=options)) > 1


def test_kernel_equals_reference_with_awaits_and_broadcasts():
    prog = parse_program("p0: write(X,1), bcast(Y,3); p1: await X==1, write(X,2), read(Y)")
    graph = ProximityGraph.of(prog.processes, [("p0", "p1")])
    assert agree_everywhere(make_context(prog, graph)) > 1


@pytest.mark.parametrize("graph,prune", [("empty", True), ("empty", False)])
def test_kernel_equals_reference_on_fig6_conditioned_and_not(graph, prune):
    ctx = make_context("fig6", graph, prune_deviations=prune)
    assert ctx.system.raw.condition_reads is prune
    assert walks(ctx, 11, 40) > 200


@pytest.mark.parametrize("graph,options", [("paper", ()), ("complete", ()), ("paper", MON),
                                           ("complete", MON)])
def test_kernel_equals_reference_on_random_walks_of_fig6(graph, options):
    ctx = make_context("fig6", graph, options=options)
    assert walks(ctx, 5, 60) > 500


# ---- the whole search: the compiled path's report is the reference's -------------------------

# what depends on time, memory or the implementation, not on what was explored
VOLATILE = {"seconds", "states_per_second", "cpu_seconds", "peak_memory_bytes", "kernel"}


def both(scenario, graph, *, mutant=None, variant="corrected", **kw):
    reports, terminals = {}, {}
    for kernel in ("compiled", "python"):
        seen: dict = {}
        r = run(make_context(scenario, graph, mutant=mutant, variant=variant), kernel=kernel,
                on_terminal=lambda s, k, seen=seen: seen.__setitem__(s, k), **kw)
        assert r["kernel"] == kernel
        reports[kernel] = {k: v for k, v in r.items() if k not in VOLATILE}
        terminals[kernel] = seen
    assert reports["compiled"] == reports["python"]
    assert terminals["compiled"] == terminals["python"]
    return reports["compiled"]


@pytest.mark.parametrize("scenario,graph,mutant,variant", [
    *SEARCHES,
    pytest.param("fig6", "empty", None, "corrected", marks=pytest.mark.slow),
])
def test_compiled_and_python_searches_give_the_same_report(scenario, graph, mutant, variant):
    r = both(scenario, graph, mutant=mutant, variant=variant)
    assert r["complete"] and r["states"] > 1
    if mutant or variant == "published":
        assert r["violations"], "violations, with schedules rebuilt from the parent log"


@pytest.mark.parametrize("budget", [{"max_states": 1}, {"max_states": 257}, {"max_states": 5000},
                                    {"max_depth": 9}, {"max_states": 12000, "memory": 1}])
def test_compiled_and_python_searches_cut_alike(budget):
    r = both(PBN, "complete", **budget)
    assert not r["complete"]
    if "max_states" in budget:
        assert r["states"] == budget["max_states"]


def test_compiled_kernel_where_none_exists_is_refused():
    ctx = make_context(PBN, "paper", network="unordered")
    with pytest.raises(ValueError, match="no compiled kernel"):
        run(ctx, kernel="compiled")
    assert run(make_context(PBN, "paper", network="unordered"), max_states=100)["kernel"] == "python"
    with pytest.raises(ValueError, match="exact states"):
        run(make_context(PBN, "paper"), kernel="compiled", exact=True)


@pytest.mark.parametrize("shards", [1, 3])
def test_spark_level_step_on_the_kernel_gives_the_reference_run(shards):
    """The Spark search's level step (run in process: every level narrow) on the compiled
    kernel admits, expands and groups exactly as on the reference."""
    from fisheye.checker.spark import bfs

    class NoSpark:          # every level narrow: Spark is asked only to hold the terminal groups
        def parallelize(self, groups, n):
            return groups

    runs = {}
    for kernel in ("compiled", "python"):
        r = bfs.run(NoSpark(), make_context(PBN, "paper", variant="published"), partitions=shards,
                    driver_width=10 ** 9, kernel=kernel)
        runs[kernel] = (r.states, r.transitions, r.pruned, r.max_depth, r.complete,
                        sorted((g[0], repr(g[1]), g[2]) for g in r.groups))
    assert runs["compiled"] == runs["python"]
    assert runs["compiled"][0] == 18127


def test_sorted_runs_hold_a_level_s_keys_like_a_set():
    from fisheye.checker.explore.store import SortedRuns

    rng = np.random.default_rng(1)
    runs, ref = SortedRuns(), set()
    for _ in range(300):
        keys = np.unique(rng.integers(0, 5000, rng.integers(0, 50)).astype(np.uint64))
        hit = runs.known(keys)
        assert hit.tolist() == [int(x) in ref for x in keys]
        runs.add(keys[~hit])
        ref |= {int(x) for x in keys[~hit]}
        assert len(runs.runs) <= 2 + int(np.log2(max(len(ref), 1)))
    assert runs.sorted().tolist() == sorted(ref) and len(runs) == len(ref)


def test_a_small_memory_budget_chunks_and_spills_without_changing_the_report(monkeypatch, tmp_path):
    """Under a tiny --memory the compiled search expands CHUNK states per call, writes
    every level's frontier and its checkpoint to disk and reads them back a few rows at a
    time: its report is the unbudgeted one, and a level was wider than a chunk."""
    from fisheye.checker.explore import engine, store

    spills, chunks = [], []
    spill, compiled = store.RowFrontier.spill, engine.Level.compiled

    def counting_spill(self):
        spills.append(len(self.blocks))
        spill(self)

    def recording_compiled(self, kern, frontier, at, chunk=engine.KERNEL_CHUNK, *rest):
        chunks.append((chunk, len(frontier)))
        return compiled(self, kern, frontier, at, chunk, *rest)

    def report(**kw):
        r = run(make_context(PBN, "paper", variant="published"), kernel="compiled", **kw)
        return {k: v for k, v in r.items() if k not in VOLATILE | {"visited_bytes"}}

    plain = report()
    monkeypatch.setattr(store.RowFrontier, "spill", counting_spill)
    monkeypatch.setattr(store.RowFrontier, "PIECE", 1000)
    monkeypatch.setattr(engine.Level, "compiled", recording_compiled)
    small = report(memory=1, checkpoint=str(tmp_path), checkpoint_every=0)
    assert small == plain and plain["complete"] and plain["violations"]
    assert spills, "the frontier went to disk"
    assert {c for c, _ in chunks} == {engine.CHUNK}
    assert max(w for _, w in chunks) > engine.CHUNK, "a level wider than a chunk"
    assert not plain.get("checkpoint") and os.path.isdir(tmp_path / "checkpoint")
    resumed = report(memory=1, checkpoint=str(tmp_path), resume=True)
    assert {k: v for k, v in resumed.items() if k != "resumed"} == plain
