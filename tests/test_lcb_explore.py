"""LCURB1–LCURB5 checked exhaustively on every run of lcb3 (and lcb4), with and without
crashes; beyond the fault threshold (F = 2 >= n/2) uniform agreement and validity fail,
as majority-ack URB predicts.  Counts are pinned (deferred URB delivery, the default)."""

from __future__ import annotations

import json

import pytest

from fisheye.checker.lcb_search import explore, explore_fates
from fisheye.impl.api import replay
from fisheye.impl.lcb import check_state, make_lcb_system
from fisheye.spec import lcurb

PS = ("p", "q", "r")
COMPLETE = {p: {q for q in PS if q != p} for p in PS}


@pytest.mark.parametrize("crashes, states, terminals", [(0, 316, 13), (1, 2772, 119)])
def test_lcb3_below_the_threshold_satisfies_every_property(crashes, states, terminals):
    res = explore(make_lcb_system("lcb3", crashes=crashes))
    assert (res.states, res.terminal_states) == (states, terminals)
    assert res.violations == {}


@pytest.mark.parametrize("name, locality, network, crashes, states, terminals", [
    ("empty", {}, "fifo", 1, 2940, 142),
    ("complete", COMPLETE, "fifo", 1, 2604, 96),
    ("reversed ring", {"p": {"q"}, "q": {"r"}, "r": {"p"}}, "fifo", 1, 2772, 119),
    ("empty", {}, "unordered", 1, 2934, 142),
    ("complete", COMPLETE, "unordered", 0, 314, 10),
])
def test_lcb3_other_localities_and_networks(name, locality, network, crashes, states, terminals):
    res = explore(make_lcb_system("lcb3", crashes=crashes, locality=locality, network=network))
    assert (res.states, res.terminal_states) == (states, terminals)
    assert res.violations == {}


def test_locality_decides_which_delivery_orders_occur():
    """With the empty locality r may deliver q1 before p1 in every case; with p in q's
    locality, not after q delivered p1 before broadcasting q1."""
    def r_orders(locality):
        system = make_lcb_system("lcb3", crashes=0, locality=locality)
        init = system.initial()
        seen, stack, orders = {init}, [init], set()
        while stack:
            s = stack.pop()
            steps = system.enabled(s)
            if not steps:
                run = system.run(s)
                log = run.logs["q"]
                q_first = log.index(("deliver", "p", "p1")) < log.index(("broadcast", "q1"))
                orders.add((q_first, run.deliveries("r")))
            for st in steps:
                t = system.apply(s, st)
                if t not in seen:
                    seen.add(t)
                    stack.append(t)
        return orders

    p1_q1, q1_p1 = (("p", "p1"), ("q", "q1")), (("q", "q1"), ("p", "p1"))
    local = r_orders({"q": {"p"}})
    assert (True, q1_p1) not in local and {(True, p1_q1), (False, q1_p1), (False, p1_q1)} <= local
    assert (True, q1_p1) in r_orders({})


def test_lcb3_beyond_the_threshold_breaks_uniform_agreement_and_validity():
    system = make_lcb_system("lcb3", crashes=2)
    res = explore(system)
    assert (res.states, res.terminal_states) == (6730, 743)
    assert res.violations == {lcurb.VALIDITY: 174, lcurb.UNIFORM_AGREEMENT: 324}
    sched, text = res.shortest[lcurb.UNIFORM_AGREEMENT]
    assert len(sched) == 4
    state = replay(system, sched)
    run = system.run(state)
    assert run.complete and len(run.crashed) == 2
    # a crashed process delivered a message that the correct one never delivers
    (correct,) = run.correct
    delivered_by_crashed = {m for p in run.crashed for m in run.deliveries(p)}
    assert delivered_by_crashed - set(run.deliveries(correct))
    assert text.startswith(f"{lcurb.UNIFORM_AGREEMENT}: ")
    # safety (no duplication, no creation, causal delivery) holds even there
    assert lcurb.CAUSAL_DELIVERY not in res.violations


def test_cli_explore_lcb3(run_cli):
    ok = run_cli("explore", "lcb3", "--algorithm", "lcb", "--crashes", "1", "--model", "none", "--json",
                 "--quiet")
    assert ok.status == 0, ok.err
    report = ok.json()
    assert report["complete"] and report["terminal_states"] == 119 and report["violations"] == []
    bad = run_cli("explore", "lcb3", "--algorithm", "lcb", "--crashes", "2", "--model", "none", "--json",
                  "--quiet")
    assert bad.status == 1
    found = {v["violates"]: v["runs"] for v in json.loads(bad.out)["violations"]}
    assert found == {lcurb.VALIDITY: 174, lcurb.UNIFORM_AGREEMENT: 324}


def test_crash_fates_with_persistent_sets_reach_exactly_the_terminal_states_of_the_full_search():
    found: set = set()
    plain = explore(make_lcb_system("lcb3", crashes=1), on_terminal=lambda s, _kind: found.add(s))
    fates = explore_fates("lcb3", 1)
    assert set(fates.terminals) == set(found) and fates.violations == plain.violations == {}
    assert (plain.states, fates.states, fates.terminal_states) == (2772, 1911, 119)


def test_lcb4_without_crashes_satisfies_every_property():
    res = explore_fates("lcb4", 0)
    assert (res.states, res.terminal_states) == (11499, 25)
    assert res.violations == {}


def test_safety_holds_in_every_reachable_state():
    """LCURB2, LCURB3 ("previously": judged in every state, so a delivery can never come
    before its broadcast) and LCURB5 in each of the 6,730 states of lcb3 with F = 2."""
    system = make_lcb_system("lcb3", crashes=2)
    init = system.initial()
    seen, stack, bad = {init}, [init], []
    while stack:
        s = stack.pop()
        bad.extend(check_state(system, s))
        for st in system.enabled(s):
            t = system.apply(s, st)
            if t not in seen:
                seen.add(t)
                stack.append(t)
    assert len(seen) == 6730 and bad == []
