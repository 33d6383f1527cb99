"""The published Algorithm 1 breaks causal order; the corrected one does not
(docs/algorithm1-correction.md).

The hypothesis (line 5 increments causal_i[i] at broadcast time, so a message
that causally depends on p_i's own still-pending message passes p_i's C test) is
verified here by (1) a pinned, hand-derived schedule, (2) the register-level history it
yields through Algorithm 2, judged by the checker, and (3) a small exhaustive search of
our own (depth-first, every interleaving, FIFO channels).
"""

from __future__ import annotations

from collections import Counter

import pytest

from fisheye.checker.engines import check
from fisheye.impl.api import ReplayError, Step, replay
from fisheye.impl.system import TocoSystem, make_system

S = Step
EDGE = [("p0", "p1")]

# p0 broadcasts m; p0's T1 waits for p1's clock.  p2 (isolated) delivers m, then
# broadcasts m' (s_caus = [1,0,0]).  At p0, causal_0 = [1,0,0] already (line 5), so m'
# is in C; p2 has no neighbour, so m' is in T1 and T2: p0 delivers m' before m.
BROADCAST_RUN = [S("op", "p0"), S("recv", "p2", "p0"), S("recv", "p1", "p0"), S("recv", "p2", "p1"),
                 S("deliver", "p2"), S("op", "p2"), S("recv", "p0", "p2"), S("recv", "p0", "p2"),
                 S("deliver", "p0")]

REGISTER_PROGRAM = "p0: write(X,1), read(Y), read(X); p1: read(X), write(Y,1); p2: read(X), write(X,3)"
REGISTER_RUN = [
    S("op", "p0"), S("recv", "p2", "p0"), S("recv", "p1", "p0"), S("recv", "p2", "p1"), S("deliver", "p2"),
    S("op", "p2"), S("op", "p2"), S("recv", "p0", "p2"), S("recv", "p0", "p2"), S("deliver", "p0"),
    S("deliver", "p1"), S("recv", "p1", "p2"), S("recv", "p1", "p2"), S("deliver", "p1"), S("op", "p1"),
    S("op", "p1"), S("recv", "p0", "p1"), S("recv", "p0", "p1"), S("recv", "p0", "p1"), S("deliver", "p0"),
    S("deliver", "p0"), S("op", "p0"), S("op", "p0")]


def test_published_pinned_causal_order_violation():
    system = make_system("p0: write(X,1); p1: ; p2: write(X,3)", EDGE, variant="published")
    state = replay(system, BROADCAST_RUN)
    v = system.broadcast_violations(state)
    assert [(x.prop, x.text) for x in v] == [
        ("causal order", "p0#0 ~>M p2#0 but p0 delivered p2#0 before p0#0")]
    p0 = state.procs[0].toco
    assert p0.causal == (1, 0, 1)          # line 5 counted m at broadcast time
    assert [m.mid for m in p0.pending] == [(0, 0)]  # m itself still pending


def test_corrected_refuses_the_same_delivery():
    system = make_system("p0: write(X,1); p1: ; p2: write(X,3)", EDGE, variant="corrected")
    with pytest.raises(ReplayError, match="step 8"):
        replay(system, BROADCAST_RUN)
    state = replay(system, BROADCAST_RUN[:8])
    assert state.procs[0].toco.causal == (0, 0, 0)
    assert Step("deliver", "p0") not in system.enabled(state)


def test_published_register_history_is_not_causal():
    """Through Algorithm 2 the same flaw yields a history that violates cc (and hence
    fisheye and sc): p0 reads X = 1 after reading Y = 1, which causally follows
    w(X,3), which causally follows w(X,1)."""
    system = make_system(REGISTER_PROGRAM, EDGE, variant="published")
    state = replay(system, REGISTER_RUN)
    history = system.history(state)
    assert history.to_json()["history"] == {
        "p0": [["w", "X", 1], ["r", "Y", 1], ["r", "X", 1]],
        "p1": [["r", "X", 3], ["w", "Y", 1]],
        "p2": [["r", "X", 1], ["w", "X", 3]]}
    for model in ("cc", "fisheye", "sc"):
        assert check(history, model).verdict == "violation", model
    with pytest.raises(ReplayError):
        replay(make_system(REGISTER_PROGRAM, EDGE, variant="corrected"), REGISTER_RUN)


def explore(system: TocoSystem) -> tuple[int, int, int, Counter[str]]:
    """Every reachable state (depth-first); returns (states, final states, deadlocks,
    number of terminal states violating each broadcast property).  Safety violations
    are prefix-closed and every run is finite, so checking terminal states suffices."""
    init = system.initial()
    seen = {init}
    stack = [init]
    finals = deadlocks = 0
    bad: Counter[str] = Counter()
    while stack:
        s = stack.pop()
        steps = system.enabled(s)
        if not steps:
            if system.is_final(s):
                finals += 1
            else:
                deadlocks += 1
            for prop in {v.prop for v in system.broadcast_violations(s, complete=True)}:
                bad[prop] += 1
            continue
        for step in steps:
            t = system.apply(s, step)
            if t not in seen:
                seen.add(t)
                stack.append(t)
    return len(seen), finals, deadlocks, bad


@pytest.mark.slow
def test_exhaustive_smallest_setting():
    """3 processes, edge p0-p1, broadcasts by p0 and p2 (p1, silent, is needed as p0's
    neighbour): published violates causal order in some runs, corrected in none; no
    deadlock in either."""
    program = "p0: write(X,1); p1: ; p2: write(X,3)"
    pub = explore(make_system(program, EDGE, variant="published"))
    cor = explore(make_system(program, EDGE, variant="corrected"))
    assert pub == (13024, 17, 0, Counter({"causal order": 1}))
    assert cor == (12688, 16, 0, Counter())


def test_exhaustive_edge_senders_only_agree():
    """With broadcasts only by p0 and p1 (the edge), the flaw cannot show: both
    variants have the same state space and no violation."""
    program = "p0: write(X,1); p1: write(X,2); p2: "
    pub = explore(make_system(program, EDGE, variant="published"))
    cor = explore(make_system(program, EDGE, variant="corrected"))
    assert pub == cor == (7139, 5, 0, Counter())
