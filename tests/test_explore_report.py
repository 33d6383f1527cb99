"""The report builder keeps verdicts as the three-valued Verdict (fisheye.checker.result)
and renders their names only in the report: a verdict computed elsewhere (the Spark
engine's executors) is used as is, and unknown never counts as a pass."""

from __future__ import annotations

import pytest

from fisheye.checker.explore import ReportBuilder, exit_status, make_context, random_run
from fisheye.checker.explore.expand import FINAL, terminal_record
from fisheye.checker.result import Verdict


def _one_complete_run():
    ctx = make_context("paris-berlin-newyork", "paper")
    sched, state = random_run(ctx.system, 3)
    assert ctx.system.is_final(state)
    return ctx, sched, terminal_record(ctx, state, FINAL)


def _report(ctx, sched, rec, seeded: Verdict | None):
    builder = ReportBuilder(ctx, "protocol")
    if seeded is not None:
        builder.seed_verdict(rec.history_key, seeded)
    builder.add_terminal(rec, len(sched), lambda: sched)
    return builder, builder.build(complete=True, states=1, transitions=0, max_depth=len(sched), seconds=0.1)


def test_a_checked_verdict_is_kept_as_a_verdict():
    ctx, sched, rec = _one_complete_run()
    builder, rep = _report(ctx, sched, rec, None)
    assert builder.snapshot()["_verdicts"] == {rec.history_key: Verdict.CONSISTENT}
    assert rep["violations_total"] == 0 and rep["unknown_checks"] == 0 and exit_status(rep) == 0


def test_a_seeded_violation_is_reported_without_checking_again():
    ctx, sched, rec = _one_complete_run()
    _, rep = _report(ctx, sched, rec, Verdict.VIOLATION)   # the history itself is fisheye-consistent
    assert [v["violates"] for v in rep["violations"]] == ["fisheye"] and exit_status(rep) == 1
    assert rep["model_hierarchy"]["implied_violated"]


def test_a_seeded_unknown_is_no_pass():
    ctx, sched, rec = _one_complete_run()
    _, rep = _report(ctx, sched, rec, Verdict.UNKNOWN)
    assert rep["violations_total"] == 0 and rep["unknown_checks"] == 1 and exit_status(rep) == 3
    assert rep["model_hierarchy"]["implied_satisfied"] == []


@pytest.mark.parametrize("name", ["consistent", "violation", "unknown"])
def test_a_checkpoint_holding_verdict_names_restores_verdicts(name):
    ctx, _, rec = _one_complete_run()
    builder = ReportBuilder(ctx, "protocol")
    builder.restore({"_verdicts": {rec.history_key: name}})
    assert builder.snapshot()["_verdicts"][rec.history_key] is Verdict(name)
