"""The shortest violating run (fisheye.checker.explore.shortest): a breadth-first search
of the raw system on the explorer's core, stopping at the first violating state."""

from __future__ import annotations

from fisheye.checker.engines import check
from fisheye.checker.explore import shortest_violation, violates_model, violates_property
from fisheye.checker.explore.expand import Context, successors
from fisheye.impl.api import replay
from fisheye.impl.programs import parse_program
from fisheye.impl.system import make_system
from fisheye.spec import broadcast as bspec

BCAST_1 = "p0: bcast(X,1); p1: bcast(Y,2); p2: bcast(Z,3)"
CC_PROGRAM = "p0: write(X,1), read(Y), read(X); p1: ; p2: await X==1, write(X,3), write(Y,5)"


def _published(program: str):
    return make_system(parse_program(program), [("p0", "p1")], variant="published")


def test_the_published_causal_order_violation_is_nine_steps_away():
    system = _published(BCAST_1)
    found = shortest_violation(system, violates_property(bspec.CAUSAL_ORDER))
    assert found.schedule is not None and len(found.schedule) == 9 and not found.complete
    state = replay(system, found.schedule)
    assert bspec.causal_order(system.delivery_logs(state))
    # the state before the last step does not violate: the run is not longer than needed
    before = replay(system, found.schedule[:-1])
    assert not bspec.causal_order(system.delivery_logs(before))


def test_no_state_at_a_smaller_depth_violates():
    """Every state reachable in at most 8 steps (every enabled step, no reduction)
    satisfies causal order: a brute-force check of the minimality claim."""
    system = _published(BCAST_1)
    ctx = Context(system, reduction="none", prune_deviations=False)
    level, seen = {system.initial()}, {system.initial()}
    for _ in range(8):
        level = {t for s in level for _, t in successors(ctx, s)} - seen
        seen |= level
        assert not any(bspec.causal_order(system.delivery_logs(s)) for s in level)
    assert len(seen) > 1000


def test_a_model_violation_of_the_history_so_far():
    system = _published(CC_PROGRAM)
    found = shortest_violation(system, violates_model("cc"))
    assert found.schedule is not None and len(found.schedule) == 18
    h = system.history(replay(system, found.schedule))
    assert check(h, "cc", system.graph).verdict.value == "violation"


def test_a_clean_system_is_searched_completely():
    system = make_system(parse_program("p0: bcast(X,1); p1: bcast(Y,2)"), [("p0", "p1")],
                         variant="corrected")
    found = shortest_violation(system, violates_property(bspec.CAUSAL_ORDER))
    assert found.schedule is None and found.complete and found.states > 10


def test_the_state_budget_is_never_exceeded():
    system = _published(BCAST_1)
    found = shortest_violation(system, violates_property(bspec.CAUSAL_ORDER), max_states=50)
    assert found.schedule is None and not found.complete and found.states == 50


def test_a_violating_initial_state_is_the_empty_run():
    found = shortest_violation(_published(BCAST_1), lambda system, state: True)
    assert found.schedule == () and found.states == 1
