"""Explanations of violations: :func:`explain` and :class:`Explanation` of the facade.

An explanation is what ``fisheye explain`` prints: for a history that violates a model,
the minimal core of operations, the argument that ends in a contradiction (after Elle)
and a space-time diagram; for a counterexample file, also the run that produced the
history as a numbered replay script; for a run that breaks a property of its system (a
broadcast property of section 4.1, deadlock freedom, a protocol's own property), the
replayed run, its delivery logs and the replay script.  The text, the diagrams and the report
are the command line's own: both call :mod:`fisheye.checker.explain.outputs`."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from fisheye.checker.result import CheckResult
from fisheye.spec.history import History
from fisheye.spec.models import MODEL_NAMES, Model

from ._check import GraphLike, HistoryLike, as_graph, as_history

if TYPE_CHECKING:
    from fisheye.checker.counterexample import Counterexample
    from fisheye.checker.explain.run_replay import RunReplay


@dataclass(frozen=True)
class Explanation:
    """Why something violates ``violates`` (a model, or a property of a system).

    ``argument`` is the engine's explanation of a history (None for a run that breaks
    a property of its system: then ``run`` holds the replay); ``counterexample`` the
    file's content when a counterexample was explained."""

    violates: str
    title: str
    argument: Any = None
    counterexample: Counterexample | None = None
    run: RunReplay | None = None
    replay: tuple[str, ...] = field(default=())

    @property
    def reproduced(self) -> bool:
        """False only for a counterexample whose run no longer breaks its property."""
        return self.run is None or self.run.reproduced

    def text(self) -> str:
        """The text ``fisheye explain`` prints."""
        from fisheye.checker.explain.outputs import explanation_text

        return explanation_text(self.argument, self.counterexample, self.run)

    def svg(self) -> str:
        """The space-time diagram as an SVG document (``fisheye explain --svg``): of the
        core and its contradiction for a history, of the run step by step for a run
        that breaks a property.  ``ValueError`` when there is none (a model with real
        time, a run whose system no longer replays it)."""
        from fisheye.checker.explain.outputs import explanation_svg

        return explanation_svg(self.argument, self.counterexample, self.run)

    def html(self) -> str:
        """A self-contained HTML report (``fisheye explain --html``)."""
        from fisheye.checker.explain.outputs import explanation_html

        return explanation_html(self.title, self.argument, self.counterexample, self.run)

    def to_json(self) -> dict[str, Any]:
        """The explanation as data (what ``fisheye explain --json`` prints for it)."""
        if self.run is not None:
            return {"violates": self.violates, "reproduced": self.run.reproduced, "details": self.run.head,
                    "delivery_logs": {p: list(e) for p, e in self.run.logs.items()},
                    "replay": list(self.replay)}
        return {"violates": self.violates, **self.argument.to_json()}


def explain(subject: HistoryLike | CheckResult | Counterexample, model: Model | str | None = None,
            graph: GraphLike = None, *, history: HistoryLike | None = None,
            timeout: float | None = None) -> Explanation:
    """Explain why ``subject`` violates ``model`` on ``graph``, as ``fisheye explain`` does.

    ``subject`` is a history (a :class:`~fisheye.spec.history.History`, its JSON
    object, or a file path: ``model`` is then required), a
    :class:`~fisheye.checker.result.CheckResult` of a violation (with the ``history``
    it checked; its model and graph are the defaults), or a counterexample (a file path
    or a loaded :class:`~fisheye.checker.counterexample.Counterexample`: its own
    ``violates`` is the default model).  ``timeout`` bounds the search for the core.
    Raises :class:`~fisheye.checker.explain.ExplainError` when there is nothing to
    explain (the history is consistent) or the check is unknown."""
    from fisheye.checker import counterexample as cxm

    title_name = "the history"
    cx: Counterexample | None = None
    absent: Any = None
    if isinstance(subject, CheckResult):
        if history is None:
            raise TypeError("explain(result) needs the history that was checked: explain(result, history=h)")
        h = as_history(history)
        model = model if model is not None else subject.model
        graph = graph if graph is not None else subject.graph
    elif isinstance(subject, cxm.Counterexample):
        cx, h = subject, subject.history
    elif isinstance(subject, str | os.PathLike):
        title_name = Path(subject).name
        cx, h, absent = _read(subject)
    else:
        h = as_history(subject)
    if cx is not None:
        if model is None:
            model = cx.violates
        if str(model) not in MODEL_NAMES:
            return explain_run(cx, title_name)
    if model is None:
        raise TypeError("explain(history) needs the model the history violates")
    return explain_history(h, Model(model), as_graph(graph, h), cx, title_name, timeout, absent)


def _read(path: str | os.PathLike[str]) -> tuple[Counterexample | None, History, Any]:
    """The file at ``path`` as ``fisheye explain`` reads it: its counterexample (None for
    another file), its history, and the value that stands for "no value yet" (a Jepsen
    history's nil; None for the others)."""
    from fisheye.checker import counterexample as cxm
    from fisheye.checker.formats import read_history_object
    from fisheye.spec.history import parse_history

    imported = read_history_object(os.fspath(path))
    whole = imported.document if imported.document is not None else imported.obj
    if imported.format == "json" and cxm.is_counterexample(whole):
        cx = cxm.from_json(whole, imported.source)
        return cx, cx.history, None
    absent = imported.notes.sentinel if imported.notes is not None else None
    return None, parse_history(imported.obj, imported.source), absent


def explain_history(h: History, model: Model, graph: Any, cx: Counterexample | None, title_name: str,
                    timeout: float | None, absent: Any = None) -> Explanation:
    """The argument of a history that violates a model (and of the run behind it)."""
    from fisheye.checker.explain import explain as explain_argument
    from fisheye.checker.explain.replay_script import replay_script
    from fisheye.spec import realtime

    title = f"Why {title_name} violates {model.value}"
    if realtime.handles(h, model):
        from fisheye.checker.explain.realtime import explain_realtime

        argument = explain_realtime(h, model, graph, timeout=timeout, absent=absent)
        return Explanation(model.value, title, argument)
    schedule = [s.to_json() for s in cx.schedule] if cx is not None else []
    argument = explain_argument(h, model, graph, schedule=schedule, timeout=timeout, absent=absent)
    return Explanation(model.value, title, argument, cx, replay=replay_script(cx.schedule if cx else ()))


def explain_run(cx: Counterexample, title_name: str = "the run") -> Explanation:
    """A run that breaks a property of its system: replay it and show what it does."""
    from fisheye.checker.explain.replay_script import replay_script
    from fisheye.checker.explain.run_replay import replay_run, what_it_breaks

    return Explanation(cx.violates, f"Why {title_name} {what_it_breaks(cx)}", counterexample=cx,
                       run=replay_run(cx), replay=replay_script(cx.schedule))

