"""Explanations of lin / fisheye-lin violations: the argument is a cycle of orderings,
each re-checked here against the history, independently of how it was found."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings

from fisheye.checker.explain import ExplainError
from fisheye.checker.explain.realtime import RealTimeExplanation, explain_realtime
from fisheye.checker.result import Verdict
from fisheye.spec.graph import ProximityGraph
from fisheye.spec.history import History, value_key
from fisheye.testing.strategies import timed_histories

STALE = History.build({"a": [["w", "X", 1, {"t": [0, 1]}]], "b": [["r", "X", 0, {"t": [2, 3]}]]})
INVERSION = History.build({
    "a": [["w", "X", 1, {"t": [0, 1]}]], "b": [["w", "X", 2, {"t": [2, 3]}]],
    "c": [["r", "X", 1, {"t": [4, 7]}]], "d": [["r", "Y", 0, {"t": [0, 9]}]]})


def check_argument(exp: RealTimeExplanation) -> None:
    """Every step holds for the reason it gives; the steps close a cycle."""
    h = exp.history
    ops = h.ops
    must = set(exp.core) - exp.optional
    known: set[tuple[int, int]] = set()

    def reach(a: int, b: int) -> bool:
        seen, todo = {a}, [a]
        while todo:
            x = todo.pop()
            for p, q in known:
                if p == x and q not in seen:
                    if q == b:
                        return True
                    seen.add(q)
                    todo.append(q)
        return False

    for s in exp.steps:
        a, b = ops[s.before], ops[s.after]
        assert s.before in must and s.after in must
        if s.rule == "po":
            assert a.process == b.process and a.index < b.index
        elif s.rule == "real-time":
            assert a.process != b.process and a.complete is not None and a.complete < b.invoke
        elif s.rule == "source":
            srcs = [u for u in exp.core if ops[u].writes and ops[u].register == b.register
                    and ops[u].vkey == value_key(b.observed) and u != s.after]
            assert srcs == [s.before] and value_key(h.initial_value(b.register)) != value_key(b.observed)
        elif s.rule == "overwritten":  # last step: every source of a (an observer) precedes b
            assert s is exp.steps[-1] and b.writes and a.observes and b.register == a.register
            srcs = [u for u in exp.core if ops[u].writes and ops[u].register == a.register
                    and ops[u].vkey == value_key(a.observed) and u != s.before]
            assert srcs and value_key(h.initial_value(a.register)) != value_key(a.observed)
            for u in srcs:
                c = ops[u]
                assert (c.process == b.process and c.index < b.index) or (
                    c.process != b.process and c.complete is not None and c.complete < b.invoke)
            assert reach(s.after, s.before)
            return
        else:
            assert s.rule == "legality" and a.register == b.register
            # w < r ⇒ w < src(r), or src(r) < w ⇒ r < w, or r reads the initial value
            observers = [u for u in exp.core if ops[u].observes and ops[u].register == a.register]
            ok = False
            for r in observers:
                want = value_key(ops[r].observed)
                srcs = [u for u in exp.core if ops[u].writes and ops[u].register == a.register
                        and ops[u].vkey == want and u != r]
                initial = value_key(h.initial_value(a.register)) == want
                if initial and not srcs and s.before == r and b.writes:
                    ok = True
                if len(srcs) == 1 and not initial:
                    src = srcs[0]
                    if s.after == src and reach(s.before, r) and a.writes:
                        ok = True
                    if s.before == r and reach(src, s.after) and b.writes:
                        ok = True
            assert ok, s
        known.add((s.before, s.after))
    last = exp.steps[-1]
    assert reach(last.after, last.before)


def test_stale_read_is_explained_by_real_time_and_the_initial_value():
    exp = explain_realtime(STALE, "lin")
    text = exp.text()
    assert "A = w(X,1) by a, invoked at 0, completed at 1" in text
    assert "A completed at 1, before B was invoked at 2 (real time)" in text
    assert "B reads the initial value of X" in text and text.endswith("a contradiction!")
    check_argument(exp)
    obj = json.loads(json.dumps(exp.to_json()))
    assert obj["contradiction"] is True and [c["name"] for c in obj["core"]] == ["A", "B"]


def test_new_old_inversion_core_leaves_out_the_other_register():
    exp = explain_realtime(INVERSION, "lin")
    assert {INVERSION.ops[u].register for u in exp.core} == {"X"}
    check_argument(exp)


def test_every_possible_source_overwritten():
    h = History.build({"a": [["w", "X", 2, {"t": [0, 1]}]], "b": [["w", "X", 2, {"t": [0, 2]}]],
                       "c": [["w", "X", 1, {"t": [3, 4]}]], "d": [["r", "X", 2, {"t": [5, 6]}]]})
    exp = explain_realtime(h, "lin")
    assert exp.steps[-1].rule == "overwritten"
    text = exp.text()
    assert "which only A, B write" in text and "C writes 1 to X before D" in text
    check_argument(exp)


def test_a_read_of_a_value_nothing_writes():
    h = History.build({"a": [["w", "X", 1, {"t": [0, 1]}]], "b": [["r", "X", 7, {"t": [2, 3]}]]})
    exp = explain_realtime(h, "lin")
    assert exp.proved and [h.ops[u].label() for u in exp.core] == ["r(X)7@b#0"]
    assert "no operation writes 7 to X, which starts at 0" in exp.text()


@pytest.mark.parametrize("sentinel", ["nil", "nil'"])
def test_the_absent_initial_value_of_an_import_is_said_in_words(sentinel):
    """A Jepsen register starts at nil, which an import represents by a string sentinel
    (``nil``, or ``nil'`` when the history holds the string ``nil``): given as ``absent``,
    the text says the register has no value yet instead of quoting the sentinel; without
    it, the same initial value is a string like any other, quoted as written."""
    h = History.build({"a": [["w", "X", 1, {"t": [0, 1]}]], "b": [["r", "X", 7, {"t": [2, 3]}]]},
                      initial={"X": sentinel})
    said = explain_realtime(h, "lin", absent=sentinel).text()
    assert "no operation writes 7 to X, which starts with no value (nil)" in said
    assert f'"{sentinel}"' not in said
    quoted = explain_realtime(h, "lin").text()
    assert f'no operation writes 7 to X, which starts at "{sentinel}"' in quoted
    assert "no value" not in quoted


def test_a_read_of_the_absent_value_shows_nil():
    h = History.build({"a": [["w", "X", 1, {"t": [0, 1]}]], "b": [["r", "X", "nil", {"t": [2, 3]}]]},
                      initial={"X": "nil"})
    said = explain_realtime(h, "lin", absent="nil").text()
    assert "= r(X)nil by b" in said and '"nil"' not in said
    assert '= r(X)"nil" by b' in explain_realtime(h, "lin").text()
    cas = History.build({"a": [["w", "X", 1, {"t": [0, 1]}]], "b": [["cas", "X", ["nil", 2], {"t": [2, 3]}]]},
                        initial={"X": "nil"})
    assert "= cas(X,nil,2) by b" in explain_realtime(cas, "lin", absent="nil").text()
    assert '= cas(X,"nil",2) by b' in explain_realtime(cas, "lin").text()


def test_fisheye_lin_uses_only_edges_of_the_graph():
    h = History.build({"a": [["w", "X", 1, {"t": [0, 1]}]], "b": [["r", "X", 0, {"t": [2, 3]}]], "c": []})
    exp = explain_realtime(h, "fisheye-lin", ProximityGraph.of(h.processes, [("a", "b")]))
    assert "(real time, edge a-b)" in exp.text()
    check_argument(exp)
    with pytest.raises(ExplainError) as info:
        explain_realtime(h, "fisheye-lin", ProximityGraph.of(h.processes, [("b", "c")]))
    assert info.value.verdict is Verdict.CONSISTENT


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                   HealthCheck.filter_too_much])
@given(h=timed_histories(max_ops=8))
def test_every_argument_found_is_a_valid_cycle(h):
    try:
        exp = explain_realtime(h, "lin")
    except ExplainError as e:
        assert e.verdict is Verdict.CONSISTENT
        return
    assert exp.core
    if exp.no_source is not None:
        op = h.ops[exp.no_source]
        assert not any(w.writes and w.register == op.register and w.vkey == value_key(op.observed)
                       for w in h.ops)
        assert value_key(h.initial_value(op.register)) != value_key(op.observed)
    elif exp.proved:
        check_argument(exp)
    else:
        assert "tried every order" in exp.text()


def test_cli_explain_lin(run_cli, write_file):
    path = write_file("stale.json", STALE.to_json())
    r = run_cli("explain", path, "--model", "lin")
    assert r.status == 0 and r.out.rstrip().endswith("a contradiction!")
    r = run_cli("explain", path, "--model", "lin", "--json")
    assert r.status == 0 and r.json()["contradiction"] is True and r.json()["verdict"] == "violation"
    r = run_cli("explain", path, "--model", "sc")
    assert r.status == 1 and "nothing to explain" in r.out
