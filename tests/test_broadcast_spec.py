"""The section 4.1 properties as checks on hand-written delivery logs: each property
accepts a correct log and names the violation in a bad one."""

from __future__ import annotations

from fisheye.spec import broadcast as b
from fisheye.spec.broadcast import Event, MsgId
from fisheye.spec.graph import ProximityGraph

A0, B0, C0, A1 = MsgId("a", 0), MsgId("b", 0), MsgId("c", 0), MsgId("a", 1)
PROCS = ("a", "b", "c")
EDGE_AB = ProximityGraph.of(PROCS, [("a", "b")])
EMPTY = ProximityGraph.empty(PROCS)


def bc(m: MsgId) -> Event:
    return Event("broadcast", m)


def dv(m: MsgId) -> Event:
    return Event("deliver", m)


GOOD = {
    "a": (bc(A0), dv(A0), dv(B0), dv(C0)),
    "b": (bc(B0), dv(A0), dv(B0), dv(C0)),
    "c": (dv(A0), dv(B0), bc(C0), dv(C0)),
}


def props(logs, graph=EDGE_AB, complete=True):
    return [(v.prop, v.text) for v in b.check(logs, graph, complete=complete)]


def test_good_logs_satisfy_all_five():
    assert props(GOOD) == []


def test_validity():
    logs = dict(GOOD, c=(dv(A0), dv(B0), dv(MsgId("z", 0))))
    assert ("validity", "c delivered z#0, which z never broadcast") in props(logs, complete=False)


def test_integrity():
    logs = dict(GOOD, b=(bc(B0), dv(A0), dv(B0), dv(A0), dv(C0)))
    assert props(logs) == [("integrity", "b delivered a#0 twice")]


def test_g_delivery_order_only_for_neighbours():
    logs = dict(GOOD, b=(bc(B0), dv(B0), dv(A0), dv(C0)))
    assert props(logs) == [("G-delivery order", "a delivered a#0 before b#0 but b delivered b#0 before a#0 "
                                                "(a and b are neighbours)")]
    assert props(logs, graph=EMPTY) == []


def test_g_delivery_order_on_a_prefix():
    """b delivered b#0 while a#0 was undelivered: already a violation on the prefix."""
    logs = {"a": (bc(A0), dv(A0), dv(B0)), "b": (bc(B0), dv(B0)), "c": ()}
    assert [p for p, _ in props(logs, complete=False)] == ["G-delivery order"]


def test_causal_order_through_delivery_and_transitivity():
    # c delivered a#0 then broadcast c#0: a#0 ~>M c#0; a delivers c#0 before a#0
    logs = {"a": (bc(A0), dv(C0), dv(A0)), "b": (), "c": (dv(A0), bc(C0), dv(C0))}
    assert props(logs, EMPTY, complete=False) == [
        ("causal order", "a#0 ~>M c#0 but a delivered c#0 before a#0")]
    pairs = b.causal_pairs({"a": (bc(A0), bc(A1)), "b": (dv(A1), bc(B0)), "c": ()})
    assert pairs == {(A0, A1), (A1, B0), (A0, B0)}


def test_causal_order_same_sender_fifo():
    logs = {"a": (bc(A0), bc(A1), dv(A0), dv(A1)), "b": (dv(A1), dv(A0)), "c": ()}
    assert props(logs, EMPTY, complete=False) == [
        ("causal order", "a#0 ~>M a#1 but b delivered a#1 before a#0")]


def test_termination_only_on_complete_runs():
    logs = dict(GOOD, c=(dv(A0), dv(B0), bc(C0)))
    assert props(logs, complete=False) == []
    assert props(logs) == [("termination", "c never delivered c#0")]
