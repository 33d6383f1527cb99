"""The abstraction level (Algorithm 2 over the G-fisheye broadcast specification) and the
exactness of its stubborn-set reduction against the full search."""

from __future__ import annotations

import random

import pytest

from fisheye.checker.explore import make_context, run
from fisheye.impl.abstract import AbstractSystem
from fisheye.impl.api import Step, replay
from fisheye.impl.programs import parse_program, random_edges, random_program, scenario
from fisheye.spec.graph import ProximityGraph

PBN = "paris-berlin-newyork"


def explore(ctx, **kw):
    terminals: dict = {}
    rep = run(ctx, model=None, on_terminal=lambda s, k: terminals.__setitem__(s, k), **kw)
    return rep, terminals


# ---- pinned counts: (states full, states reduced, terminal states, histories, outcomes) ------
PBN_COUNTS = {
    "empty": (25829, 1508, 132, 9),
    "paper": (10772, 1650, 148, 8),
    "complete": (10772, 1710, 148, 8),
}


@pytest.mark.parametrize("graph", ["empty", "paper", "complete"])
def test_pbn_reduced_equals_full_with_pinned_counts(graph):
    full_states, red_states, terminals, hists = PBN_COUNTS[graph]
    full, tf = explore(make_context(PBN, graph, level="abstract", reduction="none"))
    red, tr = explore(make_context(PBN, graph, level="abstract"))
    assert red["reduction"] == "stubborn" and full["reduction"] == "none"
    assert (full["states"], red["states"]) == (full_states, red_states)
    assert full["terminal_states"] == red["terminal_states"] == terminals
    assert full["histories"] == red["histories"] == hists
    assert set(tf.items()) == set(tr.items())          # the very same terminal states
    assert full["outcomes"] == red["outcomes"]
    assert full["complete"] and red["complete"] and red["level"] == "abstract"


def test_pbn_outcomes_reproduce_the_papers_claim():
    """With the paris-berlin edge, berlin cannot read 1 once paris read 2; without it, it can."""
    vals = {}
    for g in ("empty", "paper", "complete"):
        rep = run(make_context(PBN, g, level="abstract"), model=None)
        vals[g] = {tuple(v) for v in rep["outcomes"]["values"]}
    assert (2, 1) in vals["empty"]
    assert (2, 1) not in vals["paper"] and (2, 1) not in vals["complete"]
    assert vals["empty"] - vals["paper"] == {(2, 1)}
    assert len(vals["empty"]) == 9


FIG6_COUNTS = {  # reduced states, terminal states, histories, pruned (deviating), outcomes
    "empty": (3539, 261, 4, 871, [[2, 4], [2, 5], [3, 4], [3, 5]]),
    "paper": (1579, 55, 2, 367, [[3, 4], [3, 5]]),
    "complete": (1950, 11, 1, 505, [[3, 5]]),
}


@pytest.mark.parametrize("graph", ["empty", "paper", "complete"])
def test_fig6_reproduces_table1(graph):
    """SC row from the complete graph, fisheye row from the paper graph, CC row from the
    empty graph (Table 1), by execution; every complete history satisfies the model."""
    states, terms, hists, pruned, outcomes = FIG6_COUNTS[graph]
    model = {"empty": "cc", "paper": "fisheye", "complete": "sc"}[graph]
    rep = run(make_context("fig6", graph, level="abstract"), model=model)
    assert rep["complete"]
    assert (rep["states"], rep["terminal_states"], rep["histories"]) == (states, terms, hists)
    assert rep["pruned"]["deviating_reads"] == pruned
    assert rep["outcomes"] == {"reads": ["x", "y"], "values": outcomes}
    assert rep["violations"] == [] and rep["violations_total"] == 0


@pytest.mark.slow
@pytest.mark.parametrize("graph,full_states", [("paper", 76420), ("complete", 43204)])
def test_fig6_full_equals_reduced(graph, full_states):
    full, tf = explore(make_context("fig6", graph, level="abstract", reduction="none"))
    red, tr = explore(make_context("fig6", graph, level="abstract"))
    assert full["states"] == full_states
    assert set(tf.items()) == set(tr.items())
    assert full["outcomes"] == red["outcomes"] and full["histories"] == red["histories"]
    assert full["pruned"]["deviating_reads"] > red["pruned"]["deviating_reads"] > 0


def _random_case(seed: int):
    rng = random.Random(seed)
    n = rng.randint(2, 4)
    prog = random_program(rng, n, max_ops=3 if n < 4 else 2)
    return prog, ProximityGraph.of(prog.processes, random_edges(rng, prog.processes))


@pytest.mark.parametrize("seed", range(25))
def test_random_programs_reduced_equals_full(seed):
    prog, graph = _random_case(seed)
    full, tf = explore(make_context(prog, graph, level="abstract", reduction="none"), max_states=200_000)
    red, tr = explore(make_context(prog, graph, level="abstract"))
    assert full["complete"] and red["complete"]
    assert set(tf.items()) == set(tr.items()), str(prog)
    assert full["histories"] == red["histories"] and full["deadlocks"] == red["deadlocks"] == 0
    assert red["states"] <= full["states"]


def test_awaits_and_genuine_deadlock_kept_by_reduction():
    """An await that no write satisfies is a deadlock of the program (not of the
    specification): reported, with a replayable schedule, by both searches."""
    prog = parse_program("p0: write(X,1), await Y==1; p1: await X==1, write(Y,2)")
    g = ProximityGraph.of(prog.processes, [("p0", "p1")])
    full, tf = explore(make_context(prog, g, level="abstract", reduction="none"))
    red, tr = explore(make_context(prog, g, level="abstract"))
    assert full["deadlocks"] == red["deadlocks"] >= 1
    assert {s for s, k in tf.items() if k == "deadlock"} == {s for s, k in tr.items() if k == "deadlock"}
    v = red["violations"][0]
    assert v["violates"] == "deadlock"
    system = AbstractSystem(prog, g)
    end = replay(system, [Step.from_json(s) for s in v["schedule"]])
    assert not system.enabled(end) and not system.is_final(end)


def test_logs_satisfy_the_broadcast_specification_and_do_not_change_histories():
    """With delivery logs kept, every complete run satisfies the five properties of
    section 4.1 (checked by spec.broadcast), and the histories are the same."""
    sc = scenario("fig6")
    for graph in ("paper", "empty"):
        g = ProximityGraph.of(sc.program.processes, sc.paper_edges if graph == "paper" else ())
        logged = AbstractSystem(sc.program, g, keep_logs=True, scenario="fig6")
        plain = AbstractSystem(sc.program, g, scenario="fig6")
        from fisheye.checker.explore.expand import Context

        rl, tl = explore(Context(logged))
        rp, tp = explore(Context(plain))
        assert rl["violations_total"] == 0 and rl["terminal_states"] >= rp["terminal_states"]
        for s, k in tl.items():
            if k == "final":
                assert logged.broadcast_violations(s, complete=True) == []
        assert {logged.history(s).to_json()["history"].__repr__() for s, k in tl.items() if k == "final"} == \
            {plain.history(s).to_json()["history"].__repr__() for s, k in tp.items() if k == "final"}


def test_no_infeasible_branch_on_a_path_graph():
    """Path p-q-r, three concurrent writes: the delivery rule (a pair's order is decided by
    the first process that delivers one of its messages) never paints a process into a
    corner: no state is pruned as infeasible, and both searches agree."""
    prog = parse_program("p: write(X,1); q: write(X,2); r: write(X,3); s: read(X)")
    g = ProximityGraph.of(prog.processes, [("p", "q"), ("q", "r")])
    full = run(make_context(prog, g, level="abstract", reduction="none"), model=None)
    red = run(make_context(prog, g, level="abstract"), model=None)
    assert full["deadlocks"] == red["deadlocks"] == 0
    assert full["pruned"]["infeasible"] == red["pruned"]["infeasible"] == 0
    assert (full["states"], red["states"], full["terminal_states"]) == (43566, 4636, 360)
    assert full["histories"] == red["histories"] == 4


def test_one_algorithm_2_at_both_levels_a_bcast_does_not_wait():
    """The abstract level runs Algorithm 2 of impl.registers, as the protocol level
    does: a write waits for its own WRITE (line 4), a ``bcast`` does not; and every
    history of Algorithm 1 over channels is one of the specification's."""
    prog = parse_program("p: bcast(X,1), bcast(X,2), read(X); q: read(X), read(X)")
    g = ProximityGraph.of(prog.processes, [("p", "q")])
    system = AbstractSystem(prog, g)
    after = system.apply(system.initial(), Step("op", "p"))
    assert Step("op", "p") in system.enabled(after) and after.regs[0].waiting is False
    waits = AbstractSystem(parse_program("p: write(X,1), read(X); q: read(X)"), g)
    after = waits.apply(waits.initial(), Step("op", "p"))
    assert Step("op", "p") not in waits.enabled(after) and after.regs[0].waiting is True

    def histories(level: str) -> set[str]:
        ctx = make_context(prog, g, level=level, reduction="none")
        out: set[str] = set()
        run(ctx, model=None, on_terminal=lambda s, k: out.add(repr(ctx.system.history(s).to_json())))
        return out

    protocol, abstract = histories("protocol"), histories("abstract")
    assert protocol and protocol <= abstract
