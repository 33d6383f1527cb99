"""Assertions for pytest suites: a failed check raises
:class:`~fisheye.testing.VerificationFailure`, an ``AssertionError`` whose message is the
explanation ``fisheye explain`` prints and the command that replays it, with the
counterexample files it wrote."""

from __future__ import annotations

import json
import shlex
from typing import Any

import fisheye
from fisheye._check import GraphLike, HistoryLike, as_graph, as_history

from .failure import VerificationFailure, save_dir, slug


def assert_consistent(history: HistoryLike, model: fisheye.Model | str, graph: GraphLike = None, *,
                      engine: str = "auto", timeout: float | None = None) -> fisheye.CheckResult:
    """Assert that ``history`` is consistent under ``model`` on ``graph`` (see
    :func:`fisheye.check`) and return the result.  On a violation the message is the
    explanation of ``fisheye explain``; on *unknown* (``timeout`` ran out) it says so:
    unknown is never a pass.  The history, with the graph checked, is written to a file
    that the message's command checks again."""
    __tracebackhide__ = True      # pytest shows the caller's line, not this function's
    h = as_history(history)
    g = as_graph(graph, h)
    model = fisheye.Model(model)
    result = fisheye.check(h, model, g, engine=engine, timeout=timeout)
    if result.verdict is fisheye.Verdict.CONSISTENT:
        return result
    path = save_dir() / f"history--{slug(model.value)}.json"
    path.write_text(json.dumps(h.with_edges(g.edges).to_json(), indent=1) + "\n", encoding="utf-8")
    if result.verdict is fisheye.Verdict.UNKNOWN:
        head = f"the check under {model.value} is unknown (never a pass): {result.message}"
        command = shlex.join(["fisheye", "check", str(path), "--model", model.value])
        raise VerificationFailure(f"{head}\n\nReplay: {command}", [path], [command])
    body = _explanation(lambda: fisheye.explain(h, model, g, timeout=timeout).text(), result.message)
    command = shlex.join(["fisheye", "explain", str(path), "--model", model.value])
    raise VerificationFailure(f"the history violates {model.value}\n\n{body}\n\nReplay: {command}",
                              [path], [command])


def _explanation(text: Any, fallback: str) -> str:
    """The explanation's text, or ``fallback`` should the explainer give up."""
    from fisheye.checker.explain import ExplainError

    try:
        return str(text())
    except ExplainError as e:
        return f"(no explanation: {e}) {fallback}".strip()


def assert_explores_clean(system: Any, program: Any = None, model: fisheye.Model | str | None = "fisheye",
                          **options: Any) -> fisheye.Report:
    """Assert that exploring every schedule of ``system`` (see :func:`fisheye.explore`,
    which takes the same arguments and ``options``) finds no violation, every
    ``sometimes`` property held and the search completed; return the report.  On a
    violation the message is the explanation of the first one by ``fisheye explain``
    and the command that replays its counterexample file (one file per violation)."""
    __tracebackhide__ = True
    report = fisheye.explore(system, program, model=model, **options)
    if report.ok:
        return report
    if not report.violations:
        statuses = ", ".join(f"{name}: {status}" for name, status in report.properties.items())
        why = (f"{report['violations_total']} violations (none listed)" if report["violations_total"]
               else "a sometimes property never held" if "never held" in statuses
               else "the exploration is unknown (cut short, or a check could not decide): never a pass")
        raise VerificationFailure(f"{why}\nproperties: {statuses}\nRerun: {report.command}")
    files = report.save(save_dir())
    first = report.violations[0]
    body = _explanation(lambda: report.explain(0).text(), "")
    listed = "\n".join(f"  {v.violates}: {shlex.quote(str(f))}"
                       for v, f in zip(report.violations, files, strict=True))
    raise VerificationFailure(
        f"{report['violations_total']} violations found exploring {report.command}; the first violates "
        f"{first.violates} ({first.kind}, {first.runs} run{'' if first.runs == 1 else 's'})\n\n{body}\n\n"
        f"Replay: fisheye explain {shlex.quote(str(files[0]))}\nCounterexample files:\n{listed}", files)
