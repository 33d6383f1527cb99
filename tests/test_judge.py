"""The one judge (fisheye.checker.judge): every property kind judged, the model
replaced by the one asked for, deadlock freedom always there, and a property that
cannot be judged an error before any state is visited."""

from __future__ import annotations

import pytest

from fisheye.checker.explore.expand import Context
from fisheye.checker.explore.scenarios import run
from fisheye.checker.judge import Judge
from fisheye.checker.result import Verdict
from fisheye.impl.actors import Actor, ActorSystem
from fisheye.impl.api import Step, replay
from fisheye.impl.properties import Expectation, Property, PropertyKind


class OneShot(Actor):
    """p sends one message to q; q counts what it received."""

    def init(self, me):
        return 0

    def can_invoke(self, me, local):
        return me == "p" and local == 0

    def has_program(self, me, local):
        return self.can_invoke(me, local)

    def on_invoke(self, me, local):
        return 1, [("q", "m")]

    def on_receive(self, me, local, src, msg):
        return local + 1, []


def received(state):
    return state.procs[1]


def system(*props, model=None):
    return ActorSystem(OneShot(), ("p", "q"), name="oneshot", model=model, properties=props)


def prop(name, kind, expectation, check):
    return Property(name, Expectation(expectation), PropertyKind(kind), check)


NOTHING_RECEIVED = prop("nothing received", "broadcast", "always",
                        lambda s, c: "q received m" if received(s) else None)
NEVER = prop("never", "protocol", "sometimes", lambda s, c: "never holds")


def test_every_kind_is_judged_at_the_end_of_a_run():
    s = system(NOTHING_RECEIVED, prop("quiet", "liveness", "always", lambda s, c: "always fails"), NEVER)
    end = replay(s, [Step("op", "p"), Step("recv", "q", "p")])
    j = Judge.of(s)(end, True)
    assert [(v.prop, v.kind.value) for v in j.failed] == [("nothing received", "broadcast"),
                                                         ("quiet", "liveness")]
    assert j.held == ("complete run",)


def test_a_deadlock_fails_deadlock_freedom_even_when_the_system_does_not_state_it():
    s = system()
    j = Judge(s, (), False)
    assert j.properties == ()
    full = Judge.of(s)
    start = s.initial()
    assert [v.prop for v in full(start, False).failed] == ["deadlock"]


def test_the_model_is_replaced_and_judged_through_the_injected_checker():
    s = system(model="sc")
    assert [p.name for p in Judge.of(s, model="cc").models] == ["cc"]
    assert Judge.of(s, model=None).models == ()
    end = replay(s, [Step("op", "p"), Step("recv", "q", "p")])
    asked = []

    def check_model(history, model):
        asked.append(model)
        return Verdict.VIOLATION
    j = Judge.of(s)(end, True, check_model)
    assert asked == ["sc"] and [v.prop for v in j.failed] == ["sc"]
    assert Judge.of(s)(end, True, lambda h, m: Verdict.UNKNOWN).undecided == ("sc",)


@pytest.mark.parametrize("bad, words", [
    (Property("no check", Expectation.ALWAYS, PropertyKind.PROTOCOL), "has no check"),
    (Property("m", Expectation.SOMETIMES, PropertyKind.MODEL, model="sc"), "'always' only"),
    (Property("m", Expectation.ALWAYS, PropertyKind.MODEL, model="nosuchmodel"), "unknown model"),
    (Property("complete run", Expectation.ALWAYS, PropertyKind.PROTOCOL, lambda s, c: None),
     "two properties"),
])
def test_a_property_that_cannot_be_judged_is_an_error_at_start(bad, words):
    with pytest.raises(ValueError, match=words):
        Judge.of(system(bad))


def test_the_explorer_judges_user_broadcast_and_liveness_properties():
    rep = run(Context(system(NOTHING_RECEIVED)), model=None)
    assert rep["complete"] and [v["violates"] for v in rep["violations"]] == ["nothing received"]
    assert rep["violations"][0]["kind"] == "broadcast"
    status = {p["name"]: p["status"] for p in rep["properties"]}
    assert status == {"nothing received": "violated", "deadlock": "held", "complete run": "held"}


def test_a_sometimes_property_that_never_held_is_listed():
    rep = run(Context(system(NEVER)), model=None)
    assert rep["violations_total"] == 0
    assert {p["name"]: p["status"] for p in rep["properties"]}["never"] == "never held"


def test_shrinking_and_the_shortest_run_search_judge_user_properties():
    from fisheye.checker.explore.shortest import shortest_violation, violates_property
    from fisheye.checker.shrink import RunChecks, shrink, still_violates

    s = system(NOTHING_RECEIVED)
    run_ = [Step("op", "p"), Step("recv", "q", "p")]
    checks = RunChecks(models=())
    assert still_violates(s, run_, "nothing received", checks)
    assert not still_violates(s, run_[:1], "nothing received", checks)
    assert shrink(s, run_, "nothing received", checks) == run_
    found = shortest_violation(s, violates_property("nothing received"))
    assert found.schedule == tuple(run_)
