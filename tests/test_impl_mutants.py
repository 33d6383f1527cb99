"""Each mutant of Algorithms 1 and 2 (:class:`fisheye.impl.toco.Mutant`) changes one thing,
and each is caught on a small system: the search or the pinned run below shows the
violation (or deadlock), and the same search or run on the unmutated corrected algorithm
shows none."""

from __future__ import annotations

import json
from collections import Counter

import pytest

from fisheye.checker.engines import check
from fisheye.impl.api import ReplayError, Step, replay
from fisheye.impl.system import TocoSystem, make_system
from fisheye.impl.toco import Mutant
from fisheye.spec.history import parse_history

S = Step
EDGE = [("p0", "p1")]


def explore(system: TocoSystem):
    """Every reachable state: (states, finals, deadlocks, violating terminal states per
    property, distinct terminal histories as JSON strings)."""
    init = system.initial()
    seen, stack = {init}, [init]
    finals = deadlocks = 0
    bad: Counter[str] = Counter()
    histories = set()
    while stack:
        s = stack.pop()
        steps = system.enabled(s)
        if not steps:
            final = system.is_final(s)
            finals += final
            deadlocks += not final
            bad.update({v.prop for v in system.broadcast_violations(s, complete=True)})
            histories.add(json.dumps(system.history(s).to_json()))
            continue
        for step in steps:
            t = system.apply(s, step)
            if t not in seen:
                seen.add(t)
                stack.append(t)
    return len(seen), finals, deadlocks, bad, histories


def test_mutant_names():
    assert [m.value for m in Mutant] == ["no-catch-up", "no-t1", "no-t2", "write-returns-early",
                                         "opposite-tie-break"]


@pytest.mark.parametrize("mutant, program, expected", [
    # p1 never broadcasts: without CATCH_UP p0 never learns p1's clock (line 23 blocks)
    ("no-catch-up", "p0: write(X,1); p1: ", (4, 0, 1, Counter({"termination": 1}))),
    (None, "p0: write(X,1); p1: ", (8, 1, 0, Counter())),
    # T1 = C: p2 delivers p0's message before it can know p1's concurrent one is smaller
    ("no-t1", "p0: write(X,1); p1: write(X,2); p2: ", (18221, 10, 0, Counter({"G-delivery order": 5}))),
    (None, "p0: write(X,1); p1: write(X,2); p2: ", (7139, 5, 0, Counter())),
    # p0 alone breaks clock ties the other way
    ("opposite-tie-break", "p0: write(X,1); p1: write(X,2)", (124, 5, 0, Counter({"G-delivery order": 1}))),
    (None, "p0: write(X,1); p1: write(X,2)", (117, 5, 0, Counter())),
])
def test_mutant_search(mutant, program, expected):
    assert explore(make_system(program, EDGE, mutant=mutant))[:4] == expected


def test_write_returns_early_breaks_sc():
    """Dekker on the complete graph: with the write waiting for its own delivery both
    reads cannot return 0; if it returns early they can."""
    program = "p0: write(X,1), read(Y); p1: write(Y,1), read(X)"
    dekker = json.dumps({"processes": ["p0", "p1"], "graph": [["p0", "p1"]],
                   "history": {"p0": [["w", "X", 1], ["r", "Y", 0]], "p1": [["w", "Y", 1], ["r", "X", 0]]}})
    early = explore(make_system(program, EDGE, mutant="write-returns-early"))
    good = explore(make_system(program, EDGE))
    assert dekker in early[4] and dekker not in good[4]
    assert len(early[4]) == 4 and len(good[4]) == 3
    assert check(parse_history(json.loads(dekker)), "sc").verdict == "violation"
    for h in good[4]:
        assert check(parse_history(json.loads(h)), "sc").verdict == "consistent"


NO_T2_RUN = [S("op", "p2"), S("recv", "p1", "p2"), S("deliver", "p1"), S("op", "p1"), S("recv", "p0", "p1"),
             S("recv", "p0", "p1"), S("op", "p0"), S("recv", "p1", "p0"), S("recv", "p1", "p0"),
             S("recv", "p0", "p1"), S("deliver", "p0"), S("deliver", "p1")]


def test_no_t2_pinned_g_delivery_violation():
    """p1's m1 depends on p2's m2 and waits at p0 (not in C, m2 not yet received) with a
    smaller timestamp than p0's own m0, which is in T1: T2 is what keeps m0 back."""
    program = "p0: write(X,1); p1: write(Y,1); p2: write(Z,1)"
    system = make_system(program, EDGE, mutant="no-t2")
    state = replay(system, NO_T2_RUN)
    assert [v.text for v in system.broadcast_violations(state)] == [
        "p0 delivered p0#0 before p1#0 but p1 delivered p1#0 before p0#0 (p0 and p1 are neighbours)"]
    with pytest.raises(ReplayError, match="step 10"):
        replay(make_system(program, EDGE), NO_T2_RUN)
