"""Verdict first, proof on demand (docs/contract.md section 7): ``check`` returns a
violation with the deciding engine's own refutation, checked and cheap; the minimal core
only with ``--minimal`` (or ``fisheye explain``). The search budget is the user's
(``--max-steps``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from fisheye.checker.engines import check
from fisheye.checker.engines import lin as lin_engine
from fisheye.checker.engines.search_budget import Budget
from fisheye.checker.engines.seqsearch import search
from fisheye.checker.formats import load
from fisheye.checker.result import Verdict
from fisheye.spec.models import Model
from fisheye.spec.realtime import RealTimePairs

JEPSEN = Path(__file__).parent / "data" / "jepsen"
ETCD_VIOLATION = JEPSEN / "porcupine-etcd_000.log"


def _etcd():
    history, _ = load(str(ETCD_VIOLATION), fmt="auto", nil_read="initial")
    return history


def _linearizable(history, uids) -> bool:
    return search(history, sorted(uids), RealTimePairs.all(), Budget(max_states=10**7)) is not None


def test_default_certificate_is_the_refuted_part_and_costs_no_shrinking(monkeypatch):
    history = _etcd()

    def no_shrinking(*args, **kwargs):
        raise AssertionError("check without --minimal shrank the certificate")

    monkeypatch.setattr(lin_engine, "_certificate", no_shrinking)
    result = check(history, Model.LIN)
    assert result.verdict is Verdict.VIOLATION
    (reason,) = result.certificate
    assert reason.rule == "no-sequence" and f"these {len(reason.ops)} operations on x" in reason.text
    register = {op.uid for op in history.ops if op.register == "x"}
    assert set(reason.ops) == register
    assert not _linearizable(history, reason.ops)  # the certificate is checked: no sequence exists


def test_minimal_certificate_is_a_smaller_failing_core():
    history = _etcd()
    cheap = check(history, Model.LIN)
    core = check(history, Model.LIN, minimal=True)
    assert core.verdict is Verdict.VIOLATION
    shown = [r.ops[0] for r in core.certificate if r.rule == "operation"]
    assert shown and core.certificate[-1].rule == "no-sequence"
    assert set(shown) < set(cheap.certificate[0].ops) and len(shown) < len(cheap.certificate[0].ops) // 4


def test_cli_json_certificate_and_minimal(run_cli):
    cheap = run_cli("check", ETCD_VIOLATION, "--model", "lin", "--json")
    assert cheap.status == 1
    (reason,) = cheap.json()["certificate"]
    assert reason["rule"] == "no-sequence" and len(reason["ops"]) == 65
    core = run_cli("check", ETCD_VIOLATION, "--model", "lin", "--json", "--minimal")
    assert core.status == 1
    rules = [r["rule"] for r in core.json()["certificate"]]
    assert rules[-1] == "no-sequence" and rules.count("operation") == len(rules) - 1 and len(rules) < 20


def test_max_steps_runs_out_with_unknown_and_says_how_to_raise_it(run_cli):
    r = run_cli("check", ETCD_VIOLATION, "--model", "lin", "--engine", "direct", "--max-steps", "5")
    assert r.status == 3 and "unknown under lin" in r.out
    assert "budget of 5 configurations ran out" in r.out and "--max-steps" in r.out
    assert "consistent" not in r.out
    raised = run_cli("check", ETCD_VIOLATION, "--model", "lin", "--engine", "direct", "--max-steps", "100000")
    assert raised.status == 1


@pytest.mark.parametrize("model", ["cc", "fisheye-2014"])
def test_max_steps_ends_the_check_under_auto_too(run_cli, model):
    """With ``--max-steps``, ``auto`` does not go on to Z3 when the direct engine's
    budget runs out (Z3 has no step budget: on a large history it would run unbounded)."""
    fig4 = Path(__file__).parent.parent / "examples" / "fig4.json"
    r = run_cli("check", fig4, "--model", model, "--max-steps", "1")
    assert r.status == 3 and "engine direct" in r.out and "search budget of 1 nodes" in r.out
    assert "z3" not in r.out + r.err
    unbounded = run_cli("check", fig4, "--model", model, "--engine", "auto")
    assert unbounded.status in (0, 1) and "engine direct" in unbounded.out


@pytest.mark.parametrize("value", ["0", "-3"])
def test_max_steps_must_be_positive(run_cli, value):
    r = run_cli("check", ETCD_VIOLATION, "--model", "lin", "--max-steps", value)
    assert r.status == 2 and r.out == "" and "--max-steps must be a positive number" in r.err


@pytest.mark.parametrize("model", ["cc", "fisheye"])
def test_max_steps_bounds_the_causal_search_too(run_cli, model):
    fig4 = Path(__file__).parent.parent / "examples" / "fig4.json"
    r = run_cli("check", fig4, "--model", model, "--engine", "direct", "--max-steps", "1")
    assert r.status == 3 and "search budget of 1 nodes" in r.out and f"consistent under {model}" not in r.out
    decided = run_cli("check", fig4, "--model", model, "--engine", "direct", "--max-steps", "1000")
    assert decided.status == (0 if model == "cc" else 1)
