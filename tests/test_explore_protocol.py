"""The protocol level (Algorithm 2 over Algorithm 1 over FIFO channels): exactness of the
reduction (stubborn sets + the dead-clock quotient) against the full search, pinned
counts on paris-berlin-newyork, replayable violation schedules."""

from __future__ import annotations

import random

import pytest
from small_programs import SEEDS, small_configuration

from fisheye.checker.explore import make_context, run
from fisheye.impl.api import Step, replay
from fisheye.impl.programs import parse_program
from fisheye.impl.system import make_system
from fisheye.impl.toco_quotient import ProtocolSystem
from fisheye.spec.graph import ProximityGraph

PBN = "paris-berlin-newyork"


def explore(ctx, model=None, **kw):
    terminals: dict = {}
    rep = run(ctx, model=model, on_terminal=lambda s, k: terminals.__setitem__(s, k), **kw)
    return rep, terminals


def compare(prog, graph, *, mutant=None, variant="corrected", model=None):
    """Full (raw system, every step) against reduced: the same terminal states up to the
    quotient, the same histories, outcomes, deadlocks and violations."""
    full, tf = explore(make_context(prog, graph, reduction="none", mutant=mutant, variant=variant), model)
    red, tr = explore(make_context(prog, graph, mutant=mutant, variant=variant), model)
    assert full["complete"] and red["complete"]
    assert full["reduction"] == "none" and red["reduction"] == "stubborn"
    view = ProtocolSystem(make_system(prog, graph, mutant=mutant, variant=variant))
    assert {(view.canon(s), k) for s, k in tf.items()} == set(tr.items()), str(prog)
    for key in ("terminal_states", "histories", "deadlocks", "outcomes", "violations_total"):
        assert full[key] == red[key], key
    assert {(v["violates"], repr(v["history"])) for v in full["violations"]} == \
        {(v["violates"], repr(v["history"])) for v in red["violations"]}
    assert red["states"] <= full["states"]
    return full, red


@pytest.mark.parametrize("seed", SEEDS)
def test_random_programs_reduced_equals_full(seed):
    prog, graph = small_configuration(seed)
    compare(prog, graph)


@pytest.mark.parametrize("mutant,edges,expect", [
    ("opposite-tie-break", [("p0", "p1")], "G-delivery order"),
    ("no-catch-up", [("p0", "p1")], "deadlock"),
])
def test_mutants_same_violations_and_deadlocks(mutant, edges, expect):
    prog = parse_program("p0: write(X,1), read(X); p1: write(X,2), read(X)")
    graph = ProximityGraph.of(prog.processes, edges)
    full, red = compare(prog, graph, mutant=mutant)
    assert expect in {v["violates"] for v in red["violations"]}
    for v in red["violations"]:            # the shortest schedules replay on the raw system
        raw = make_system(prog, graph, mutant=mutant)
        end = replay(raw, [Step.from_json(s) for s in v["schedule"]])
        if v["violates"] == "deadlock":
            assert raw.is_deadlock(end)
        else:
            assert v["violates"] in {b.prop for b in raw.broadcast_violations(end)}


def test_catch_up_program_with_an_edge():
    prog = parse_program("p0: write(X,1), read(Y); p1: write(Y,2), read(X); p2: read(X)")
    graph = ProximityGraph.of(prog.processes, [("p0", "p1")])
    full, red = compare(prog, graph, model="fisheye")
    assert red["violations_total"] == 0
    assert (full["states"], red["states"]) == (FULL_CU, RED_CU)


FULL_CU, RED_CU = 37024, 335


PBN_COUNTS = {  # reduced states, distinct final states, histories, outcome (2, 1) possible
    "paper": (17352, 232, 8, False),
    "empty": (40301, 2306, 9, True),
    "complete": (119958, 232, 8, False),
}


@pytest.mark.parametrize("graph", ["paper", pytest.param("empty", marks=pytest.mark.slow),
                                   pytest.param("complete", marks=pytest.mark.slow)])
def test_pbn_protocol_pinned_counts_and_the_papers_claim(graph):
    states, finals, hists, b1 = PBN_COUNTS[graph]
    ctx = make_context(PBN, graph)
    proto: set = set()
    rep = run(ctx, model="fisheye", on_terminal=lambda s, k: proto.add(repr(ctx.system.history(s).to_json())))
    actx = make_context(PBN, graph, level="abstract")
    spec: set = set()
    run(actx, model=None, on_terminal=lambda s, k: spec.add(repr(actx.system.history(s).to_json())))
    assert proto == spec       # Algorithm 1 produces exactly the histories its specification allows
    assert rep["complete"] and rep["level"] == "protocol" and rep["reduction"] == "stubborn"
    assert (rep["states"], rep["terminal_states"], rep["histories"]) == (states, finals, hists)
    assert rep["deadlocks"] == 0 and rep["violations_total"] == 0
    assert ([2, 1] in rep["outcomes"]["values"]) is b1


@pytest.mark.slow
def test_published_variant_breaks_causal_order_with_a_replayable_schedule():
    """Three processes, edge p0-p1, one broadcast each: the smallest configuration where the
    published Algorithm 1 breaks causal order (docs/algorithm1-correction.md)."""
    prog = "p0: write(X,1); p1: write(Y,1); p2: write(Z,1)"
    rep = run(make_context(prog, "p0:p1", variant="published"), model="fisheye")
    assert rep["complete"]
    causal = [v for v in rep["violations"] if v["violates"] == "causal order"]
    assert causal
    raw = make_system(prog, "p0:p1", variant="published")
    end = replay(raw, [Step.from_json(s) for s in causal[0]["schedule"]])
    assert "causal order" in {b.prop for b in raw.broadcast_violations(end)}
    ok = run(make_context(prog, "p0:p1"), model="fisheye")
    assert ok["violations_total"] == 0 and ok["complete"]


def test_fig6_protocol_empty_graph_reproduces_the_cc_row():
    """Table 1's CC row by executing Algorithms 1 and 2 (no edge: no CATCH_UP is live)."""
    rep = run(make_context("fig6", "empty"), model="cc")
    assert rep["complete"] and rep["level"] == "protocol"
    assert (rep["states"], rep["terminal_states"], rep["histories"]) == (10616, 497, 4)
    assert rep["pruned"]["deviating_reads"] == 710
    assert rep["outcomes"] == {"reads": ["x", "y"], "values": [[2, 4], [2, 5], [3, 4], [3, 5]]}
    assert rep["violations_total"] == 0 and rep["deadlocks"] == 0


def _unconditioned(prog, graph, **kw):
    """The figure's runs cut *after* a deviating read (the system does not condition its
    reads): the search the conditioned one must agree with."""
    from fisheye.checker.explore.expand import Context

    raw = make_system(prog, graph, condition_reads=False, **kw)
    assert not raw.condition_reads
    return Context(ProtocolSystem(raw), reduction="auto", prune_deviations=True, may_send=raw.may_send)


@pytest.mark.parametrize("graph,mutant,network", [("empty", None, "fifo"), ("empty", "no-catch-up", "fifo")])
def test_conditioned_reads_keep_every_run_of_the_figure(graph, mutant, network):
    """A conditioning read enabled only when it returns the figure's value (and a run
    cut once one can no longer get it) reaches exactly the terminal states, histories,
    outcomes, deadlocks and violations of the search that cuts a run after a read
    deviates, with fewer states."""
    kw = {"mutant": mutant, "network": network}
    plain, tp = explore(_unconditioned("fig6", graph, **kw), "fisheye")
    cond_ctx = make_context("fig6", graph, **kw)
    assert cond_ctx.system.raw.condition_reads
    cond, tc = explore(cond_ctx, "fisheye")
    assert plain["complete"] and cond["complete"]
    assert tp == tc
    for key in ("terminal_states", "histories", "deadlocks", "outcomes", "violations_total"):
        assert plain[key] == cond[key], key
    assert {(v["violates"], repr(v["history"])) for v in plain["violations"]} == \
        {(v["violates"], repr(v["history"])) for v in cond["violations"]}
    assert cond["states"] < plain["states"]


@pytest.mark.parametrize("scenario,graph", [("paris-berlin-newyork", "complete"), ("fig6", "complete"),
                                            ("fig6", "paper")])
def test_saturation_marks_of_quotient_states_equal_the_recomputed_saturation(scenario, graph):
    """The quotient reads the saturated views of its own states off their SATURATED
    values; along random runs they equal the views recomputed from the state."""
    system = ProtocolSystem(make_system(scenario, graph))
    rng = random.Random(7)
    saturated_seen = 0
    for _ in range(30):
        state = system.initial()
        while True:
            system._dv_last[0] = None
            marked = system._summary(state, image=True)
            system._dv_last[0] = None
            assert marked == system._summary(state), scenario
            saturated_seen += sum(bin(m).count("1") for m in marked[2])
            steps = system.enabled(state)
            if not steps:
                break
            state = system.apply(state, rng.choice(steps))
    assert saturated_seen > 0
