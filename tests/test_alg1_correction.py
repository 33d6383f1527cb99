"""The published Algorithm 1 breaks causal order; the corrected one does not.

CI-sized versions of ``python scripts/research/alg1_correction.py`` (the bigger runs are in
``docs/algorithm1-correction.md``): the broadcast properties and the models run on
``corrected`` for every 3-process graph up to isomorphism, and the known violations of
``published`` are asserted (the stored minimal schedule replays to a causal-order
violation, the register-level history is not cc).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from research_scripts import load

from fisheye.checker import counterexample as cxm
from fisheye.checker.engines import check
from fisheye.checker.explain.broadcast import causal_chain
from fisheye.checker.explore.shortest import shortest_violation, violates_property
from fisheye.impl.api import ReplayError, replay
from fisheye.impl.programs import Broadcast, parse_program
from fisheye.impl.system import make_system
from fisheye.spec import broadcast as bspec
from fisheye.spec.graph import ProximityGraph

DRIVER = load("alg1_correction")
BCAST_1, CC_PROGRAM, GRAPHS3 = DRIVER.BCAST_1, DRIVER.CC_PROGRAM, DRIVER.GRAPHS3
alternative_fix = DRIVER.alternative_fix
causal_details = DRIVER.causal_details
explore_config = DRIVER.explore_config
random_check = DRIVER.random_check
random_systems = DRIVER.random_systems

ROOT = Path(__file__).resolve().parents[1]
CX_CAUSAL = ROOT / "counterexamples" / "alg1-published-causal-order.json"
CX_CC = ROOT / "counterexamples" / "alg1-published-cc.json"
ONE_EDGE = GRAPHS3["one edge p0-p1"]


# ---- the broadcast-level program shape ------------------------------------------------------------

def test_bcast_parses_round_trips_and_does_not_wait():
    prog = parse_program("p0: bcast(X,1), bcast(X,2); p1: write(Y,3)")
    assert prog.ops[0] == (Broadcast("X", 1), Broadcast("X", 2))
    assert str(prog) == "p0: bcast(X,1), bcast(X,2); p1: write(Y,3)"
    assert parse_program(str(prog)) == prog
    system = make_system(prog, [("p0", "p1")])
    s = system.apply(system.initial(), system.enabled(system.initial())[0])
    # a Broadcast returns at once: p0's next broadcast is enabled before any delivery
    assert any(st.kind == "op" and st.process == "p0" for st in system.enabled(s))
    # a write waits (Algorithm 2, line 4)
    s1 = system.apply(system.initial(), [st for st in system.enabled(system.initial())
                                         if st.process == "p1"][0])
    assert not any(st.kind == "op" and st.process == "p1" for st in system.enabled(s1))


def test_reduction_keeps_every_terminal_state_of_a_broadcast_program():
    """The explorer's reduction vs the full search, on a program with back-to-back
    broadcasts (2 processes: too small for the flaw, which needs a third)."""
    from fisheye.checker.explore.scenarios import make_context, run

    for variant in ("corrected", "published"):
        got = []
        for red in ("auto", "none"):
            ctx = make_context("p0: bcast(X,1), bcast(X,2); p1: bcast(Y,3)", [("p0", "p1")], variant=variant,
                               reduction=red, prune_deviations=False)
            r = run(ctx, model=None)
            got.append((r["complete"], r["terminal_states"], r["histories"], r["deadlocks"],
                        r["violations_total"]))
        assert got[0] == got[1] == (True, 25, 1, 0, 0)


# ---- published: the stored counterexamples -------------------------------------------------------

def test_minimal_schedule_replays_to_a_causal_order_violation():
    obj = json.loads(CX_CAUSAL.read_text())
    assert obj["variant"] == "published" and obj["violates"] == "causal order" and obj["mutant"] is None
    assert obj["network"] == "fifo"
    cx = cxm.load(CX_CAUSAL)
    assert cx.program == BCAST_1 and cx.system_graph == ONE_EDGE
    assert len(cx.schedule) == 9
    res = cxm.replay(cx)
    assert res.ok, res.message
    system = cx.system()
    bad = [v for v in bspec.causal_order(system.delivery_logs(res.state))]
    assert len(bad) == 1
    (m1, m2), (p,) = bad[0].msgs, bad[0].processes
    assert m1.sender == p                      # the victim is the sender of the overtaken message
    # the recorded explanation names the chain and line 21 / line 5
    assert "~>M" in cx.details and "line 21" in cx.details and "line 5" in cx.details
    assert causal_chain(system.delivery_logs(res.state), m1, m2) == [
        f"{m2.sender} delivered {m1} before it broadcast {m2}"]
    # every step but the last is the same on corrected, and there the last delivery is not enabled
    corrected = make_system(parse_program(BCAST_1), list(ONE_EDGE), variant="corrected")
    with pytest.raises(ReplayError):
        replay(corrected, cx.schedule)
    before = replay(corrected, cx.schedule[:-1])
    assert not bspec.causal_order(corrected.delivery_logs(before))


def test_no_shorter_violating_run_exists():
    """Breadth-first over the raw system: the first causal-order violation is at depth 9."""
    system = make_system(parse_program(BCAST_1), list(ONE_EDGE), variant="published")
    found = shortest_violation(system, violates_property(bspec.CAUSAL_ORDER))
    sched, visited = found.schedule, found.states
    assert sched is not None and len(sched) == 9
    state = replay(system, sched)
    assert bspec.causal_order(system.delivery_logs(state))
    assert "counts p" in causal_details(system, sched)
    assert visited > 1000


def test_register_level_history_is_not_causally_consistent():
    obj = json.loads(CX_CC.read_text())
    assert obj["variant"] == "published" and obj["violates"] == "cc"
    cx = cxm.load(CX_CC)
    assert cx.program == CC_PROGRAM and len(cx.schedule) == 18
    res = cxm.replay(cx)
    assert res.ok, res.message
    h = cx.history
    g = ProximityGraph(h.processes, h.edges)
    for model in ("cc", "fisheye", "sc"):
        assert check(h, model, g).verdict.value == "violation", model
    # p0 read Y=5 (written after p2 overwrote X=1 with 3) and then X=1
    assert obj["history"]["history"]["p0"] == [["w", "X", 1], ["r", "Y", 5], ["r", "X", 1]]
    assert obj["explanation"] is not None


# ---- exhaustive: corrected is clean, published violates, counts pinned ----------------------------

@pytest.mark.parametrize("gname", list(GRAPHS3))
def test_corrected_one_broadcast_each_every_graph(gname):
    row = explore_config(gname, BCAST_1, GRAPHS3[gname], "corrected")
    assert row.complete and row.runs > 0 and row.histories == 1
    assert row.deadlocks == 0 and row.violations == {}, row.violations


def test_published_one_broadcast_each_counts():
    """Published, one broadcast per process on three processes with the edge p0-p1: 369
    complete runs, 39 violate causal order, nothing else (no deadlock, G-delivery order
    holds); the empty graph is clean (nothing delays a process's own message, so it is
    delivered before anything that depends on it)."""
    row = explore_config("one edge", BCAST_1, ONE_EDGE, "published")
    assert row.complete
    assert (row.runs, row.deadlocks, row.violations) == (369, 0, {"causal order": 39})
    empty = explore_config("empty", BCAST_1, (), "published")
    assert empty.complete and empty.violations == {} and empty.deadlocks == 0


@pytest.mark.parametrize("gname", list(GRAPHS3))
def test_register_level_program_every_graph(gname):
    corrected = explore_config(gname, CC_PROGRAM, GRAPHS3[gname], "corrected")
    assert corrected.complete and corrected.runs > 0
    assert corrected.deadlocks == 0 and corrected.violations == {}, corrected.violations
    published = explore_config(gname, CC_PROGRAM, GRAPHS3[gname], "published")
    assert published.complete and published.deadlocks == 0
    if gname == "one edge p0-p1":
        assert (published.runs, published.violations) == (6, {"causal order": 3, "cc": 2, "fisheye": 2})
    if gname == "empty":
        assert published.violations == {}


def test_paper_scenario_corrected_paris_berlin_newyork():
    row = explore_config("pbn", "paris-berlin-newyork", "paper", "corrected")
    assert row.complete and row.runs > 0 and row.deadlocks == 0 and row.violations == {}


def test_alternative_fix_differs_only_in_the_own_entry():
    """The document's alternative (no ``sent`` counter): same messages as corrected except
    entry i of s_caus, and clean with one broadcast per process on the edge p0-p1."""
    with alternative_fix():
        row = explore_config("alt", BCAST_1, ONE_EDGE, "corrected")
        system = make_system(parse_program("p0: bcast(X,1), bcast(X,2); p1: bcast(Y,3)"), [("p0", "p1")])
        s = system.initial()
        for _ in range(2):
            s = system.apply(s, [st for st in system.enabled(s) if st.kind == "op" and st.process == "p0"][0])
        alt = sorted(m.caus for m in s.procs[0].toco.pending)
    assert row.complete and row.violations == {} and row.deadlocks == 0
    assert alt == [(0, 0), (0, 0)]                      # own entry: own deliveries (none yet)
    system = make_system(parse_program("p0: bcast(X,1), bcast(X,2); p1: bcast(Y,3)"), [("p0", "p1")])
    s = system.initial()
    for _ in range(2):
        s = system.apply(s, [st for st in system.enabled(s) if st.kind == "op" and st.process == "p0"][0])
    assert sorted(m.caus for m in s.procs[0].toco.pending) == [(0, 0), (1, 0)]   # corrected: seq


# ---- random runs of larger systems -------------------------------------------------------------------

def test_random_runs_of_larger_systems_corrected():
    systems = random_systems(5, 6)
    assert {len(parse_program(p).processes) for p, _ in systems} == {5, 6}
    res = random_check("corrected", systems, runs=3, seed=9)
    assert res.runs == 18 and res.deadlocks == 0 and res.violations == {}, res.violations
