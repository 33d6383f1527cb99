"""Hand-traced runs of the paper's scenarios, pinned step by step.

Every expected value below was computed by hand from Algorithm 1 (lines cited) with the
appendix's timestamp order (ties: higher process index first) and the corrected
variant, then checked against the implementation.  ``V(p)`` is a compact view of
process p: ``total``, ``causal``, pending message ids ``(sender, seq, s_tot)``, and the
local register copies.
"""

from __future__ import annotations

from typing import Any

import pytest

from fisheye.impl.api import ReplayError, Step, replay
from fisheye.impl.system import TocoSystem, make_system


def op(p: str) -> Step:
    return Step("op", p)


def dl(p: str) -> Step:
    return Step("deliver", p)


def rv(p: str, src: str) -> Step:
    return Step("recv", p, src)


def view(system: TocoSystem, state: Any, p: str) -> dict[str, Any]:
    ps = state.procs[system.processes.index(p)]
    return {
        "total": list(ps.toco.total),
        "causal": list(ps.toco.causal),
        "pending": [(system.processes[m.sender], m.seq, m.tot) for m in ps.toco.pending],
        "copies": dict(zip(system.registers, ps.reg.copies, strict=True)),
    }


def run_checked(system: TocoSystem, schedule: list[Step], checks: dict[int, dict[str, dict[str, Any]]]):
    """Replay ``schedule``; after step k (1-based) compare the listed view fields."""
    state = system.initial()
    for k, step in enumerate(schedule, 1):
        assert step in system.enabled(state), f"step {k} ({step}) not enabled"
        state = system.apply(state, step)
        for p, fields in checks.get(k, {}).items():
            v = view(system, state, p)
            for key, expected in fields.items():
                assert v[key] == expected, f"after step {k} ({step}): {p}.{key} = {v[key]}, not {expected}"
    return state


PBN = "paris", "berlin", "new-york"
P, B, N = PBN

PBN_SCHEDULE = [
    op(P), op(B), rv(B, P), rv(P, B), dl(P), rv(P, B), dl(P), dl(B), dl(B),       # 1-9
    op(P), op(B), rv(B, P), rv(B, P), rv(P, B), dl(P), rv(P, B), dl(P), op(P),    # 10-18
    dl(B), dl(B), op(B),                                                          # 19-21
    rv(N, P), rv(N, P), rv(N, P), rv(N, P), rv(N, B), rv(N, B), rv(N, B), rv(N, B),  # 22-29
    dl(N), dl(N), dl(N), dl(N), op(N), op(N), op(N), dl(N),                       # 30-37
    rv(P, N), rv(P, N), rv(P, N), dl(P), rv(B, N), rv(B, N), rv(B, N), dl(B),     # 38-45
    rv(B, P), rv(N, P), rv(P, B), rv(N, B), rv(B, P),                             # 46-50
]

PBN_CHECKS: dict[int, dict[str, dict[str, Any]]] = {
    # line 2: total_p[p] = 1; line 4: own message pending; corrected: causal unchanged
    1: {P: {"total": [1, 0, 0], "causal": [0, 0, 0], "pending": [(P, 0, 1)]}},
    # lines 8-12 at berlin: total_b[paris] = 1, late clock 1 <= 1 -> 2, CATCH_UP(2)
    3: {B: {"total": [1, 2, 0], "pending": [(P, 0, 1), (B, 0, 1)]}},
    4: {P: {"total": [2, 1, 0]}},
    # tie <1,paris> vs <1,berlin>: berlin's is smaller; T1 for paris's own message
    # needs <total_p[berlin], berlin> > <1, paris>, i.e. total_p[berlin] >= 2: not yet
    5: {P: {"copies": {"R": 0, "S": 0, "X": 2}, "causal": [0, 1, 0], "pending": [(P, 0, 1)]}},
    6: {P: {"total": [2, 2, 0]}},
    7: {P: {"copies": {"R": 0, "S": 0, "X": 1}, "causal": [1, 1, 0], "pending": []}},
    8: {B: {"copies": {"R": 0, "S": 0, "X": 2}, "pending": [(P, 0, 1)]}},
    9: {B: {"copies": {"R": 0, "S": 0, "X": 1}, "causal": [1, 1, 0]}},
    10: {P: {"total": [3, 2, 0], "pending": [(P, 1, 3)]}},
    11: {B: {"total": [1, 3, 0], "pending": [(B, 1, 3)]}},
    13: {B: {"total": [3, 4, 0]}},
    14: {P: {"total": [4, 3, 0], "pending": [(P, 1, 3), (B, 1, 3)]}},
    15: {P: {"copies": {"R": 0, "S": 1, "X": 1}, "causal": [1, 2, 0]}},
    17: {P: {"copies": {"R": 1, "S": 1, "X": 1}, "causal": [2, 2, 0], "pending": []}},
    25: {N: {"total": [4, 0, 4]}},
    29: {N: {"total": [4, 4, 4], "pending": [(P, 0, 1), (P, 1, 3), (B, 0, 1), (B, 1, 3)]}},
    30: {N: {"copies": {"R": 0, "S": 0, "X": 2}}},
    31: {N: {"copies": {"R": 0, "S": 0, "X": 1}}},
    33: {N: {"copies": {"R": 1, "S": 1, "X": 1}, "causal": [2, 2, 0]}},
    36: {N: {"total": [4, 4, 5], "pending": [(N, 0, 5)]}},
    37: {N: {"copies": {"R": 1, "S": 1, "X": 3}, "causal": [2, 2, 1]}},
    40: {P: {"total": [6, 4, 5]}},
    41: {P: {"copies": {"R": 1, "S": 1, "X": 3}, "causal": [2, 2, 1]}},
    44: {B: {"total": [3, 6, 5]}},
    # berlin still had paris's CATCH_UP(4) (sent at step 14) in its channel
    46: {B: {"total": [4, 6, 5]}},
    49: {P: {"total": [6, 6, 5]}, N: {"total": [6, 6, 5]}},
    50: {B: {"total": [6, 6, 5]}},
}


def test_paris_berlin_newyork_hand_traced():
    system = make_system("paris-berlin-newyork")
    assert system.graph.edges == (("paris", "berlin"),)
    state = run_checked(system, PBN_SCHEDULE, PBN_CHECKS)
    assert system.is_final(state)
    assert system.enabled(state) == []
    assert system.outcome(state) == {"a": 1, "b": 1}
    assert system.history(state).to_json() == {
        "processes": ["paris", "berlin", "new-york"],
        "graph": [["paris", "berlin"]],
        "history": {
            "paris": [["w", "X", 1], ["w", "R", 1], ["r", "X", 1]],
            "berlin": [["w", "X", 2], ["w", "S", 1], ["r", "X", 1]],
            "new-york": [["r", "R", 1], ["r", "S", 1], ["w", "X", 3]],
        },
    }
    assert system.broadcast_violations(state) == []
    logs = system.delivery_logs(state)
    delivered = {p: [f"{e.msg}" for e in log if e.kind == "deliver"] for p, log in logs.items()}
    # G-delivery order: every process delivers berlin#0 before paris#0 (tie-break)
    assert delivered == {
        "paris": ["berlin#0", "paris#0", "berlin#1", "paris#1", "new-york#0"],
        "berlin": ["berlin#0", "paris#0", "berlin#1", "paris#1", "new-york#0"],
        "new-york": ["berlin#0", "paris#0", "berlin#1", "paris#1", "new-york#0"],
    }


def test_pbn_blocked_steps_are_not_enabled():
    """After step 10 paris's R-write waits for berlin's clock (line 23): no delivery."""
    system = make_system("paris-berlin-newyork")
    state = replay(system, PBN_SCHEDULE[:10])
    assert dl(P) not in system.enabled(state)
    # paris is waiting for its own write: its next op (read X) is not enabled (Alg. 2 line 4)
    assert op(P) not in system.enabled(state)
    with pytest.raises(ReplayError):
        replay(system, PBN_SCHEDULE[:10] + [dl(P)])
    # new-york's await R == 1 is not enabled before R = 1 is delivered there
    assert op(N) not in system.enabled(state)


p_, q_, r_, s_ = "p", "q", "r", "s"
FIG6_SCHEDULE = [
    op(p_), rv(q_, p_), op(q_), dl(q_), rv(p_, q_), dl(p_), rv(p_, q_), dl(p_),          # 1-8
    op(p_), rv(q_, p_), rv(q_, p_), dl(q_), dl(q_), op(q_), rv(p_, q_), dl(p_),          # 9-16
    rv(r_, p_), rv(r_, q_), dl(r_), op(r_), rv(r_, q_), rv(r_, p_), dl(r_), op(r_), op(r_),  # 17-25
    rv(s_, p_), rv(s_, q_), rv(s_, q_), rv(s_, p_), dl(s_), dl(s_), op(s_), op(s_),      # 26-33
    rv(s_, r_), rv(s_, r_), rv(s_, r_), dl(s_), op(s_), rv(s_, p_), rv(s_, q_), dl(s_), op(s_),  # 34-42
    rv(r_, s_), rv(r_, s_), rv(r_, s_), dl(r_),                                          # 43-46
    rv(q_, r_), rv(q_, r_), rv(q_, r_), rv(q_, s_), rv(q_, s_), rv(q_, s_), dl(q_), op(q_),  # 47-54
]

FIG6_CHECKS: dict[int, dict[str, dict[str, Any]]] = {
    2: {q_: {"total": [1, 2, 0, 0], "pending": [(p_, 0, 1)]}},
    3: {q_: {"total": [1, 3, 0, 0], "pending": [(p_, 0, 1), (q_, 0, 3)]}},
    4: {q_: {"copies": {"X": 2, "Y": 0}, "causal": [1, 0, 0, 0]}},
    6: {p_: {"copies": {"X": 2, "Y": 0}, "causal": [1, 0, 0, 0]}},
    7: {p_: {"total": [4, 3, 0, 0]}},
    8: {p_: {"copies": {"X": 3, "Y": 0}, "causal": [1, 1, 0, 0]}},
    9: {p_: {"total": [5, 3, 0, 0], "pending": [(p_, 1, 5)]}},
    11: {q_: {"total": [5, 6, 0, 0]}},
    # corrected: p#1 carries s_caus = [1,1,0,0] and q has not delivered its own q#0
    12: {q_: {"copies": {"X": 3, "Y": 0}, "causal": [1, 1, 0, 0], "pending": [(p_, 1, 5)]}},
    13: {q_: {"copies": {"X": 3, "Y": 4}, "causal": [2, 1, 0, 0]}},
    16: {p_: {"copies": {"X": 3, "Y": 4}, "pending": []}},
    17: {r_: {"total": [1, 0, 2, 0]}},
    19: {r_: {"copies": {"X": 2, "Y": 0}}},
    21: {r_: {"total": [1, 3, 4, 0]}},
    23: {r_: {"copies": {"X": 3, "Y": 0}}},
    25: {r_: {"total": [4, 3, 5, 0], "pending": [(r_, 0, 5)]}},
    28: {s_: {"total": [1, 3, 0, 4]}},
    31: {s_: {"copies": {"X": 3, "Y": 0}, "causal": [1, 1, 0, 0]}},
    36: {s_: {"total": [4, 3, 5, 6]}},
    37: {s_: {"copies": {"X": 3, "Y": 5}, "causal": [1, 1, 1, 0]}},
    39: {s_: {"total": [5, 3, 5, 6], "pending": [(p_, 1, 5)]}},
    41: {s_: {"copies": {"X": 3, "Y": 4}, "causal": [2, 1, 1, 0]}},
    46: {r_: {"copies": {"X": 3, "Y": 5}, "pending": []}},
    53: {q_: {"copies": {"X": 3, "Y": 5}}},
}


def test_fig6_hand_traced_reaches_figure6_with_x3_y4():
    system = make_system("fig6")
    assert system.graph.edges == (("p", "q"), ("r", "s"))
    state = run_checked(system, FIG6_SCHEDULE, FIG6_CHECKS)
    assert system.outcome(state) == {"x": 3, "y": 4}
    assert system.matches_expected(state)
    # every operation has run; finish the run (only receipts and deliveries remain)
    assert all(ps.reg.pc == len(ops) for ps, ops in zip(state.procs, system.program.ops, strict=True))
    while system.enabled(state):
        state = system.apply(state, system.enabled(state)[0])
    assert system.is_final(state)
    assert system.broadcast_violations(state) == []
    assert system.history(state).to_json()["history"] == {
        "p": [["w", "X", 2], ["w", "Y", 4]],
        "q": [["w", "X", 3], ["r", "Y", 4], ["r", "Y", 5]],
        "r": [["r", "X", 2], ["r", "X", 3], ["w", "Y", 5]],
        "s": [["r", "X", 3], ["r", "X", 3], ["r", "Y", 5], ["r", "Y", 4]],
    }


def test_fig6_tie_break_orders_q_first_on_equal_clocks():
    """Both p and q write X with clock 1: <1,q> < <1,p> in the appendix's order, so
    every process delivers q's X=3 before p's X=2."""
    system = make_system("fig6")
    state = replay(system, [op(p_), op(q_), rv(q_, p_), rv(p_, q_)])
    assert view(system, state, p_)["pending"] == [(p_, 0, 1), (q_, 0, 1)]
    state = system.apply(state, dl(p_))
    assert view(system, state, p_)["copies"]["X"] == 3
