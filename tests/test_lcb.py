"""The localized causal broadcast over majority-ack URB (impl/lcb.py, impl/urb.py): the
algorithm's lines, the step API with crashes and losses, and the deferred-delivery
reduction compared with the unreduced (lazy) system."""

from __future__ import annotations

import pytest

from fisheye.impl import urb
from fisheye.impl.api import ReplayError, Step, replay
from fisheye.impl.lcb import (
    SCENARIOS,
    BroadcastApp,
    LcbLocal,
    LcbSystem,
    check_run,
    lcb_broadcast,
    lcb_urb_deliver,
    make_lcb_system,
)

RANKS = {"p": 0, "q": 1, "r": 2}


def test_urb_needs_a_majority_of_acknowledgements():
    ps = ("p", "q", "r")
    s, sends = urb.broadcast(urb.UrbState(), "p", ps, "m")
    assert [d for d, _ in sends] == ["q", "r"] and urb.deliverable(s) == ()  # 1 ack of 3
    msg = sends[0][1]
    s2, relays = urb.receive(urb.UrbState(), "q", ps, "p", msg)  # q: acks p and q -> majority
    assert [d for d, _ in relays] == ["p", "r"] and urb.deliverable(s2) == (msg.key,)
    assert urb.is_dead(s2, msg.key)
    s3, again = urb.receive(s2, "q", ps, "r", msg)  # a second copy: no relay, nothing new
    assert again == () and s3 == s2
    s4 = urb.deliver(s2, msg.key)
    assert urb.deliverable(s4) == () and msg.key in s4.delivered
    with pytest.raises(ValueError):
        urb.deliver(s4, msg.key)
    # four processes: a majority is three
    s5, _ = urb.receive(urb.UrbState(), "q", ("p", "q", "r", "s"), "p", msg)
    assert urb.deliverable(s5) == ()


def test_lcb_broadcast_stamps_w_with_v_send_and_lsn():
    st = LcbLocal((0, 2, 0), (1, 2, 0), lsn=1)
    st2, (w, m) = lcb_broadcast(st, 0, "x")
    assert w == (1, 2, 0) and m == "x" and st2.lsn == 2


def test_delivery_waits_for_w_and_counts_only_local_senders():
    st = LcbLocal.init(3)
    # q's message depends on p's first message: held back
    st, out = lcb_urb_deliver(st, RANKS, frozenset({"p"}), "q", ((1, 0, 0), "q1"))
    assert out == () and len(st.pending) == 1
    # p's message arrives: both are delivered, in causal order
    st, out = lcb_urb_deliver(st, RANKS, frozenset({"p"}), "p", ((0, 0, 0), "p1"))
    assert out == (("p", "p1"), ("q", "q1"))
    assert st.v_recv == (1, 1, 0) and st.v_send == (1, 0, 0) and not st.pending  # q not in locality


def _sys(locality, crashes=0, mode="deferred", programs=None, network="fifo"):
    programs = programs or {"p": ("p1",), "q": ("q1",), "r": ()}
    return LcbSystem(("p", "q", "r"), locality, BroadcastApp(programs), crashes=crashes,
                     urb_delivery=mode, network=network)


def test_a_run_step_by_step_with_a_crash_and_a_loss():
    s = _sys({"q": {"p"}}, crashes=1, mode="lazy")
    sched = [Step("op", "p"), Step("recv", "q", "p"), Step("deliver", "q", None, ("p", ((0, 0, 0), "p1"))),
             Step("op", "q"), Step("crash", "q")]
    state = replay(s, sched)
    assert s.delivery_logs(state)["q"] == (("deliver", "p", "p1"), ("broadcast", "q1"))
    en = s.enabled(state)
    assert not any(st.process == "q" for st in en)            # a crashed process takes no step
    assert Step("crash", "p") not in en                          # at most F = 1 crash
    assert Step("lose", "r", "q") in en and Step("recv", "r", "q") in en  # q's messages may be lost
    assert Step("lose", "r", "p") not in en                      # p is correct: reliable link
    with pytest.raises(ReplayError):
        replay(s, sched + [Step("op", "q")])
    # the run's q1 carries W = [1, 0, 0]: r cannot deliver it before p1
    state = replay(s, sched + [Step("recv", "r", "q"), Step("recv", "r", "q")])
    assert s.delivery_logs(state)["r"] == ()


def test_scenarios_and_factory():
    assert {"lcb3", "lcb4", "lcb-mem3", "lcb-dekker"} <= set(SCENARIOS)
    s = make_lcb_system("lcb3", crashes=1)
    assert s.processes == ("p", "q", "r") and s.locality["q"] == {"p"} and s.max_crashes == 1
    assert make_lcb_system("lcb4", crashes=0).n == 4
    assert make_lcb_system("lcb-dekker", crashes=0).graph.edges == (("p", "q"),)
    assert make_lcb_system("lcb3", crashes=0, locality={"p": {"q"}, "q": {"p"}}).graph.edges == (("p", "q"),)
    with pytest.raises(ValueError, match="unknown lcb scenario"):
        make_lcb_system("nope", crashes=0)
    with pytest.raises(ValueError, match="unknown processes"):
        make_lcb_system("lcb3", crashes=0, locality={"p": {"zz"}})
    with pytest.raises(ValueError, match="urb_delivery"):
        _sys({}, mode="sometimes")


def _terminals(system):
    init = system.initial()
    seen, stack, out = {init}, [init], set()
    while stack:
        s = stack.pop()
        steps = system.enabled(s)
        if not steps:
            out.add(s)
        for st in steps:
            t = system.apply(s, st)
            if t not in seen:
                seen.add(t)
                stack.append(t)
    return out, len(seen)


@pytest.mark.parametrize("locality, crashes, network, lazy_states, deferred_states, terminals", [
    ({"q": {"p"}, "r": {"q"}}, 0, "fifo", 1383, 316, 13),
    ({"q": {"p"}, "r": {"q"}}, 1, "fifo", 7865, 2772, 119),
    ({"q": {"p"}, "r": {"q"}}, 2, "fifo", 12441, 6730, 743),
    ({}, 0, "unordered", 1493, 350, 16),
])
def test_deferred_delivery_reaches_exactly_the_lazy_terminal_states(locality, crashes, network, lazy_states,
                                                                   deferred_states, terminals):
    lazy, n_lazy = _terminals(_sys(locality, crashes, "lazy", network=network))
    deferred, n_deferred = _terminals(_sys(locality, crashes, "deferred", network=network))
    assert lazy == deferred and len(lazy) == terminals
    assert (n_lazy, n_deferred) == (lazy_states, deferred_states)


def test_eager_delivery_is_a_restriction_that_misses_runs():
    lazy, _ = _terminals(_sys({"q": {"p"}, "r": {"q"}}, 0, "lazy"))
    eager, n = _terminals(_sys({"q": {"p"}, "r": {"q"}}, 0, "eager"))
    assert eager < lazy and (len(eager), len(lazy), n) == (6, 13, 106)


def test_check_run_on_a_complete_run_and_on_a_mutant(monkeypatch):
    s = _sys({"q": {"p"}, "r": {"q"}}, mode="lazy")
    sched = [Step("op", "p"), Step("recv", "q", "p"), Step("deliver", "q", None, ("p", ((0, 0, 0), "p1"))),
             Step("op", "q")]
    state = replay(s, sched)
    assert not s.is_final(state) and check_run(s, state) == []
    while s.enabled(state):
        state = s.apply(state, s.enabled(state)[0])
    assert s.is_final(state) and check_run(s, state) == []
    # a mutant that forgets the locality clause when stamping W (V-send never grows):
    # q1 then carries W = [0, 0, 0] and r may deliver it before p1, which p1 -> q1 forbids
    import fisheye.impl.lcb as lcb

    real = lcb.lcb_urb_deliver
    monkeypatch.setattr(lcb, "lcb_urb_deliver",
                        lambda st, ranks, loc, p, payload: real(st, ranks, frozenset(), p, payload))
    first_p1_then_q1 = [Step("recv", "r", "q"), Step("recv", "r", "q")]  # q relayed p1 before sending q1
    state = replay(s, sched + first_p1_then_q1 + [Step("deliver", "r", None, ("q", ((0, 0, 0), "q1")))])
    while s.enabled(state):
        state = s.apply(state, s.enabled(state)[0])
    violations = check_run(s, state)
    assert {v.property for v in violations} == {"LCURB5 (causal delivery)"}
    assert "r delivers 'q1' from q before 'p1' from p" in violations[0].message
