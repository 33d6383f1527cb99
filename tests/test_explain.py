"""``fisheye explain``: minimal cores and Elle-style arguments for the paper's violating
figures, checked independently: the core is re-checked by removing
each operation, every fact of the argument is re-derived (:func:`verify`), and the
prover agrees with the engines on random histories."""

from __future__ import annotations

import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fisheye.checker.engines import check
from fisheye.checker.explain import Core, ExplainError, Explanation, explain, verify
from fisheye.checker.explain.core import _removal, sourceless_reads
from fisheye.checker.explain.prover import Choice, Fact, Leaf, NoProof, Split, prove
from fisheye.checker.result import Verdict
from fisheye.spec import paper
from fisheye.spec.graph import ProximityGraph
from fisheye.spec.history import History
from fisheye.spec.models import Model
from fisheye.testing import strategies as hs


def _graph(h: History) -> ProximityGraph:
    return ProximityGraph(h.processes, h.edges)


# (name, history, model, expected core size, expected order(s) of the contradiction)
VIOLATIONS = [
    ("figure2-sc", paper.FIGURE2, Model.SC, 6, {"S"}),
    ("figure4-b1-fisheye", paper.figure4(1), Model.FISHEYE, 4, {"S_paris", "S_berlin"}),
    ("figure4-b1-sc", paper.figure4(1), Model.SC, 4, {"S"}),
    ("figure6-x2-fisheye", paper.figure6(2, 5), Model.FISHEYE, 6, {"S_r", "S_s"}),
    ("figure6-x2-y4-fisheye", paper.figure6(2, 4), Model.FISHEYE, 6, {"S_r", "S_s"}),
    ("figure6-x0-cc", paper.figure6(0, 5), Model.CC, 3, {"S_s"}),
    ("figure6-y4-sc", paper.figure6(3, 4), Model.SC, 6, {"S"}),
    ("figure6-y0-fisheye", paper.figure6(3, 0), Model.FISHEYE, 3, {"S_s"}),
]


def _cycle_orders(exp: Explanation) -> set[str]:
    return {c["order"] for c in _contradictions(exp.to_json()["proof"])}


def _contradictions(node: dict) -> list[dict]:
    if "contradiction" in node:
        return [node["contradiction"]]
    return [c for case in node["split"]["cases"] for c in _contradictions(case["proof"])]


@pytest.fixture(scope="module")
def explained() -> dict[str, Explanation]:
    return {name: explain(h, model, _graph(h)) for name, h, model, _, _ in VIOLATIONS}


@pytest.mark.parametrize("name,h,model,size,orders", VIOLATIONS, ids=[v[0] for v in VIOLATIONS])
def test_paper_violation_is_explained_minimally(explained, name, h, model, size, orders):
    exp = explained[name]
    assert len(exp.core.uids) == size
    assert exp.core.minimal
    g = _graph(h)
    core = exp.core.history
    assert check(core, model, g).verdict is Verdict.VIOLATION
    # 1-minimal, re-checked here: removing any one operation (a write with the reads it
    # leaves without a source) makes the core consistent
    keep = set(range(len(core.ops)))
    for u in keep:
        sub = core.restrict(sorted(keep - _removal(core, keep, u)))
        assert check(sub, model, g).verdict is Verdict.CONSISTENT, (name, core.ops[u].label())
    # the argument names a real contradiction, fact by fact
    assert verify(exp) == []
    assert _cycle_orders(exp) == orders
    text = exp.text()
    assert text.count("a contradiction!") == len(_contradictions(exp.to_json()["proof"]))
    assert "Let:" in text and "A = " in text


def test_figure4_argument_is_the_edge_case_split(explained):
    """Figure 4, b = 1: paris sees its write before berlin's, berlin the opposite; the
    edge paris–berlin splits on the order of the two writes, both cases contradict."""
    data = explained["figure4-b1-fisheye"].to_json()
    assert data["let"]["A"] == {"op": "w(X,1)", "process": "paris", "index": 0, "kind": "w",
                                "register": "X", "value": 1}
    assert [data["let"][n]["op"] for n in "ABCD"] == ["w(X,1)", "r(X)->2", "w(X,2)", "r(X)->1"]
    split = data["proof"]["split"]
    assert split["on"].startswith("paris and berlin are neighbours in G")
    assert len(split["cases"]) == 2
    cycles = sorted(case["proof"]["contradiction"]["cycle"] for case in split["cases"])
    assert cycles == [["A", "C", "A"], ["C", "A", "C"]]
    rules = {f["rule"] for f in data["facts"]}
    assert {"po", "legality", "case"} <= rules


def test_sc_explanation_of_figure2_forces_then_splits(explained):
    data = explained["figure2-sc"].to_json()
    forced = [f for f in data["facts"] if f["rule"] == "legality"]
    assert forced and all(f["premises"] for f in forced)
    assert "split" in data["proof"]


def test_consistent_history_has_nothing_to_explain():
    h = paper.figure4(2)
    with pytest.raises(ExplainError) as e:
        explain(h, Model.FISHEYE, _graph(h))
    assert e.value.verdict is Verdict.CONSISTENT
    with pytest.raises(NoProof):
        prove(h, Model.FISHEYE, _graph(h))


def test_read_without_source_is_a_one_operation_core():
    h = History.build({"p": [("w", "X", 1), ("r", "X", 7)], "q": [("r", "X", 1)]})
    exp = explain(h, Model.CC)
    assert exp.core.uids == (1,) and exp.proof is None and exp.core.minimal
    assert "no write of 7 to X" in exp.text()
    assert verify(exp) == []


def test_repeated_values_split_on_the_source_choice():
    """Two writes of 2 to X, both before the write of 1 that p's read of 2 follows: the
    argument must consider each possible source of the read (a case per source); and
    the minimal core keeps one of the two writes of 2."""
    h = History.build({"p": [("w", "X", 2), ("w", "X", 2), ("w", "X", 1), ("r", "X", 2)]})
    proof = prove(h, Model.SC)
    assert isinstance(proof.root.end, Split) and isinstance(proof.root.end.on, Choice)
    assert len(proof.root.end.cases) == 2
    exp = Explanation(h, Model.SC, _graph(h), Core(tuple(range(4)), h, False, 0), ("A", "B", "C", "D"), proof)
    assert verify(exp) == []
    assert "D may read from any of A, B (in S)" in exp.text()
    small = explain(h, Model.SC)
    assert len(small.core.uids) == 3 and small.core.minimal and verify(small) == []


def test_verify_rejects_a_tampered_argument(explained):
    exp = explained["figure4-b1-fisheye"]
    assert exp.proof is not None
    facts = dict(exp.proof.facts)
    # turn a legality fact around: its claimed clause no longer yields it
    fid = next(f for f, fact in facts.items() if fact.rule == "legality" and f in _all_shown(exp))
    bad = facts[fid]
    facts[fid] = Fact(bad.id, type(bad.lit)(bad.lit.ctx, bad.lit.b, bad.lit.a), bad.rule, bad.info,
                      bad.refuted, bad.deps)
    tampered = Explanation(exp.history, exp.model, exp.graph, exp.core, exp.names,
                           type(exp.proof)(exp.proof.history, exp.proof.model, exp.proof.graph, facts,
                                           exp.proof.root, exp.proof.parents, exp.proof.nodes))
    assert verify(tampered)


def _all_shown(exp: Explanation) -> set[int]:
    out: set[int] = set()

    def walk(node) -> None:
        out.update(node.facts)
        if not isinstance(node.end, Leaf):
            for _, c in node.end.cases:
                walk(c)
    walk(exp.proof.root)
    return out


MODELS = st.sampled_from([m.value for m in Model if not m.uses_time])  # lin: test_explain_realtime


@settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.booleans().flatmap(
    lambda rep: hs.histories_with_graph(hs.histories(max_ops=7, repeated_values=rep))), MODELS)
def test_prover_agrees_with_the_engines(hg, model):
    """The prover finds a contradiction exactly when the engines say violation, and every
    argument it produces re-verifies."""
    h, g = hg
    verdict = check(h, model, g).verdict
    if sourceless_reads(h):
        assert verdict is Verdict.VIOLATION
        return
    try:
        proof = prove(h, model, g)
    except NoProof:
        assert verdict is Verdict.CONSISTENT
        return
    assert verdict is Verdict.VIOLATION
    from fisheye.checker.explain.words import op_names

    names = tuple(op_names(len(h.ops)))
    exp = Explanation(h, Model(model), g, Core(tuple(range(len(h.ops))), h, False, 0), names, proof)
    assert verify(exp) == []
    assert _contradictions_stay_in_their_view(exp) == []


def test_a_read_without_source_says_how_its_register_starts():
    """The argument for a read nothing can have written names the register's initial
    value; ``absent`` (an import's stand-in for "no value yet") is said in words."""
    h = History.build({"p": [("w", "X", 1)], "q": [("r", "X", 7)]}, initial={"X": "nil"})
    quoted = explain(h, Model.CC).text()
    assert 'and X starts at "nil"' in quoted and "no value" not in quoted
    said = explain(h, Model.CC, absent="nil")
    assert "and X starts with no value (nil)" in said.text() and '"nil"' not in said.text()
    assert "starts with no value (nil)" in said.to_json()["proof"]["because"]


def test_a_read_of_the_absent_value_shows_nil_in_the_text_diagram_and_html():
    from fisheye.checker.explain.diagram import render as diagram
    from fisheye.checker.explain.html import render as html

    h = History.build({"p": [("w", "X", 1), ("r", "X", "nil")]}, initial={"X": "nil"})
    said = explain(h, Model.CC, absent="nil")
    for shown in (said.text(), diagram(said), html(said).replace("&gt;", ">")):
        assert "r(X)->nil" in shown and "nil&quot;" not in shown and '"nil"' not in shown
    assert 'r(X)->"nil"' in explain(h, Model.CC).text()


def test_past_the_proof_budget_the_core_is_still_given():
    h = paper.FIGURE2
    exp = explain(h, Model.SC, _graph(h), budget=0)
    assert exp.proof is None and exp.unproved and len(exp.core.uids) == 6
    assert "No step-by-step argument" in exp.text()
    assert exp.to_json()["proof"]["kind"] == "unproved"


def _contradictions_stay_in_their_view(exp) -> list[str]:
    """Every chain stated 'in S_p' names only operations of S_p (p's and the writes)."""
    from fisheye.checker.explain.prover import leaves
    from fisheye.checker.explain.words import order_name

    problems = []
    if exp.proof is None:
        return problems
    numbering = exp._numbering()
    by_name = {exp.n(op.uid): op.uid for op in exp.ops}
    for leaf in leaves(exp.proof.root):
        text = exp.contradiction_text(leaf, numbering)
        stated = text.rsplit("; so ", 1)[-1] if "; so " in text else text.split(" while ", 1)[-1]
        view = order_name(leaf.ctx)
        for name in re.findall(r"\b[A-Z]{1,2}\b", stated.split(f" in {view}")[0]):
            if name in by_name and not exp.in_view(leaf.ctx, by_name[name]):
                problems.append(f"{name} is not in {view}: {text}")
    return problems


def test_iriw_argument_states_no_chain_outside_its_view():
    """The 2014 IRIW counterexample: C (a read of p2) is not in S_p3; the stretch through
    it holds in the star order and is composed first."""
    import json as _json

    from fisheye.checker import counterexample as cxm

    cx = cxm.from_json(_json.loads(open("counterexamples/alg2-published-4p--fisheye-2014.json").read()))
    exp = explain(cx.history, Model.FISHEYE_2014)
    text = exp.text()
    assert "< C [3] in S_p3" not in text and "< E [4] in S_p2" not in text
    assert "A < C in ~>H [3] and C <* E [7] give A <* E" in text
    assert "so E < F [2] < A [6] <* E in S_p3: a contradiction!" in text
    assert _contradictions_stay_in_their_view(exp) == [] and verify(exp) == []


def test_every_shipped_model_counterexample_argues_inside_its_views():
    import glob
    import json as _json

    from fisheye.checker import counterexample as cxm

    seen = 0
    for f in sorted(glob.glob("counterexamples/*.json")):
        cx = cxm.from_json(_json.loads(open(f).read()), f)
        if not cx.is_model:
            continue
        exp = explain(cx.history, cx.violates)
        assert _contradictions_stay_in_their_view(exp) == [], f
        assert verify(exp) == [], f
        seen += 1
    assert seen >= 5


@settings(max_examples=300, deadline=None)
@given(st.booleans().flatmap(lambda rep: hs.histories(max_ops=9, repeated_values=rep)))
def test_indexed_candidate_sources_are_the_specs(h):
    from fisheye.checker.explain.core import all_candidate_sources
    from fisheye.spec.causal import candidate_sources

    assert all_candidate_sources(h) == {r.uid: candidate_sources(h, r) for r in h.reads}


def test_minimal_violating_core_is_the_public_entry_of_the_core_alone():
    from fisheye.checker.explain import minimal_violating_core

    h = paper.figure6(2, 5)
    core = minimal_violating_core(h, "fisheye", _graph(h))
    assert core.minimal and len(core.uids) == 6
    assert check(core.history, Model.FISHEYE, _graph(h)).verdict is Verdict.VIOLATION
    assert [h.ops[u].label() for u in core.uids] == [op.label() for op in core.history.ops]
    with pytest.raises(ExplainError) as e:
        minimal_violating_core(h, "cc", _graph(h))
    assert e.value.verdict is Verdict.CONSISTENT
