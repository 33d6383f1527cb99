"""The ~>M chain behind a causal-order violation (fisheye.checker.explain.broadcast)."""

from __future__ import annotations

from fisheye.checker.explain.broadcast import causal_chain
from fisheye.spec.broadcast import BROADCAST, DELIVER, Event, MsgId

A, B, C = MsgId("p", 1), MsgId("q", 1), MsgId("r", 1)


def test_a_chain_through_a_delivery_and_a_process_order():
    # p broadcasts A; q delivers A then broadcasts B; r broadcasts C after delivering B
    logs = {"p": [Event(BROADCAST, A)],
            "q": [Event(DELIVER, A), Event(BROADCAST, B)],
            "r": [Event(DELIVER, B), Event(BROADCAST, C)]}
    assert causal_chain(logs, A, C) == ["q delivered p#1 before it broadcast q#1",
                                        "r delivered q#1 before it broadcast r#1"]
    assert causal_chain(logs, A, B) == ["q delivered p#1 before it broadcast q#1"]


def test_own_broadcasts_are_ordered_and_unrelated_messages_have_no_chain():
    p2 = MsgId("p", 2)
    logs = {"p": [Event(BROADCAST, A), Event(BROADCAST, p2)], "q": [Event(BROADCAST, B)]}
    assert causal_chain(logs, A, p2) == ["p broadcast p#1 before p#2"]
    assert causal_chain(logs, A, B) == []
    assert causal_chain(logs, p2, A) == []
