"""LCURB1–LCURB5 and "potentially caused" (localized-causal-broadcast.md) on hand-made logs."""

from __future__ import annotations

import pytest

from fisheye.spec import lcurb
from fisheye.spec.lcurb import broadcast_event as B
from fisheye.spec.lcurb import deliver_event as D

PS = ("p", "q", "r")


def run(logs, locality=None, crashed=(), complete=True):
    return lcurb.make_run(PS, locality if locality is not None else {"q": {"p"}}, logs, crashed, complete)


def test_locality_clause_decides_whether_a_delivery_causes_a_broadcast():
    logs = {"p": [B("a")], "q": [D("p", "a"), B("b")], "r": []}
    assert lcurb.potentially_caused(run(logs, {"q": {"p"}})) == {("q", "b"): frozenset({("p", "a")})}
    # p is not in q's locality: delivering a before broadcasting b creates no dependency
    assert lcurb.potentially_caused(run(logs, {"q": set(), "p": {"q"}})) == {}


def test_process_order_and_transitivity():
    # p: a, a2 (clause 1); q delivers a2 from p in its locality, broadcasts b (clause 2);
    # r delivers b from q in its locality, broadcasts c: a -> a2 -> b -> c (clause 3),
    # although p is not in r's locality.
    logs = {"p": [B("a"), B("a2")], "q": [D("p", "a"), D("p", "a2"), B("b")],
            "r": [D("p", "a"), D("p", "a2"), D("q", "b"), B("c")]}
    caused = lcurb.potentially_caused(run(logs, {"q": {"p"}, "r": {"q"}}))
    assert caused[("r", "c")] == {("p", "a"), ("p", "a2"), ("q", "b")}
    assert caused[("q", "b")] == {("p", "a"), ("p", "a2")}
    assert caused[("p", "a2")] == {("p", "a")}
    assert ("p", "a") not in caused


def test_localities_need_not_be_symmetric():
    logs = {"p": [D("q", "b"), B("a")], "q": [B("b"), D("p", "a")], "r": []}
    assert lcurb.potentially_caused(run(logs, {"p": {"q"}})) == {("p", "a"): frozenset({("q", "b")})}
    assert lcurb.potentially_caused(run(logs, {"q": {"p"}})) == {}


def good_logs():
    return {"p": [B("a"), D("p", "a"), D("q", "b")],
            "q": [D("p", "a"), B("b"), D("q", "b")],
            "r": [D("p", "a"), D("q", "b")]}


def test_a_correct_run_satisfies_every_property():
    assert lcurb.check(run(good_logs())) == []


def test_causal_delivery_violation_names_both_messages():
    logs = good_logs()
    logs["r"] = [D("q", "b"), D("p", "a")]
    vs = lcurb.check(run(logs))
    assert [v.property for v in vs] == [lcurb.CAUSAL_DELIVERY]
    assert "r delivers 'b' from q before 'a' from p" in vs[0].message
    # the same order is fine when p is not in q's locality
    assert lcurb.check(run(logs, {"q": set()})) == []


def test_no_duplication_and_no_creation():
    logs = good_logs()
    logs["r"] = [D("p", "a"), D("p", "a"), D("q", "b"), D("q", "zz"), D("r", "a")]
    names = lcurb.violated(lcurb.check(run(logs)))
    assert names == (lcurb.NO_DUPLICATION, lcurb.NO_CREATION, lcurb.UNIFORM_AGREEMENT)
    creation = [v for v in lcurb.check(run(logs)) if v.property == lcurb.NO_CREATION]
    assert len(creation) == 2  # 'zz' from q and 'a' from r


def test_validity_and_agreement_judge_correct_processes_of_complete_runs_only():
    logs = {"p": [B("a"), D("p", "a")], "q": [B("b")], "r": []}
    vs = lcurb.check(run(logs))
    assert lcurb.violated(vs) == (lcurb.VALIDITY, lcurb.UNIFORM_AGREEMENT)
    assert {v.message for v in vs if v.property == lcurb.VALIDITY} == {
        "correct process q broadcasts 'b' but never delivers it"}
    assert len([v for v in vs if v.property == lcurb.UNIFORM_AGREEMENT]) == 2  # q and r miss a
    # q crashed: its validity is not required; a delivered by p must still reach r
    vs = lcurb.check(run(logs, crashed={"q"}))
    assert [v.message for v in vs] == [
        "'a' from p is delivered by p (correct) but never by correct process r"]
    # uniform: a message delivered only by a crashed process still counts
    assert lcurb.violated(lcurb.check(run(logs, crashed={"p", "q"}))) == (lcurb.UNIFORM_AGREEMENT,)
    # a run that has not ended: eventual properties are not judged
    assert lcurb.check(run(logs, complete=False)) == []


def test_safety_checks_ignore_eventual_properties():
    logs = {"p": [B("a")], "q": [D("p", "a"), B("b")], "r": [D("q", "b")]}
    assert lcurb.violated(lcurb.check_safety(run(logs))) == (lcurb.CAUSAL_DELIVERY,)


@pytest.mark.parametrize("logs, locality, message", [
    ({"p": [B("a"), B("a")]}, {}, "p broadcasts 'a' twice"),
    ({"p": [("send", "a")]}, {}, "bad event"),
    ({"x": []}, {}, "logs of unknown processes"),
    ({}, {"p": {"x"}}, "locality of p names unknown processes"),
])
def test_malformed_runs_are_refused(logs, locality, message):
    with pytest.raises(ValueError, match=message):
        lcurb.make_run(PS, locality, logs)
