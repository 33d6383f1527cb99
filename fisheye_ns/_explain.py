"""Explanations of violations: :func:`explain` and :class:`Explanation` of the facade.

An explanation is what ``fisheye explain`` prints: for a history that violates a model,
the minimal core of operations, the argument that ends in a contradiction (after Elle)
and a space-time diagram; for a counterexample file, also the run that produced the
history as a numbered replay script; for a run that breaks a property of its system (a
broadcast property of section 4.1, deadlock freedom, a protocol's own property), the
replayed run, its delivery logs and the replay script.  The words, the replay script and
the run diagrams are the command line's own (a test keeps the texts equal)."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from fisheye.checker.result import CheckResult
from fisheye.spec.history import History
from fisheye.spec.models import MODEL_NAMES, Model

from ._check import GraphLike, HistoryLike, as_graph, as_history

if TYPE_CHECKING:
    from fisheye.checker.counterexample import Counterexample


@dataclass(frozen=True)
class RunReplay:
    """A replayed run that breaks a property of its system: whether the replay
    reproduced the violation, what it showed, and the delivery logs, one line of
    events per process."""

    reproduced: bool
    head: str
    lines: tuple[str, ...]
    logs: Mapping[str, tuple[str, ...]]


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
        if self.run is not None:
            lines = [self.run.head, *self.run.lines, "Delivery logs (b = broadcast, d = deliver):"]
            lines += [f"  {p}: {' '.join(events) or '-'}" for p, events in self.run.logs.items()]
            return "\n".join([*lines, "Replay script:", *self.replay])
        if not _draws(self.argument):
            return str(self.argument.text())
        from fisheye.checker.cli.explain import _system_text
        from fisheye.checker.explain.diagram import render as diagram

        out = [self.argument.text(), "", diagram(self.argument)]
        if self.counterexample is not None:
            out += ["", f"Found by: {self.counterexample.search or 'a search'} "
                        f"({_system_text(self.counterexample)}).",
                    "Replay script (the run that produced this history):", *self.replay]
        return "\n".join(out)

    def svg(self) -> str:
        """The space-time diagram as an SVG document (``fisheye explain --svg``): of the
        core and its contradiction for a history, of the run step by step for a run
        that breaks a property.  ``ValueError`` when there is none (a model with real
        time, a run that no longer breaks its property)."""
        if self.run is not None:
            from fisheye.checker.cli.explain import _property_run
            from fisheye.checker.explain.run_svg import render as render_run

            assert self.counterexample is not None
            if not self.run.reproduced:
                raise ValueError(f"no diagram: the run no longer violates {self.violates}")
            return render_run(_property_run(self.counterexample))
        if not _draws(self.argument):
            raise ValueError(f"no SVG diagram for an explanation of {self.violates}")
        from fisheye.checker.explain.svg import render

        return render(self.argument)

    def html(self) -> str:
        """A self-contained HTML report (``fisheye explain --html``)."""
        from fisheye.checker.cli.explain import _model_run, _property_run, _system_text
        from fisheye.checker.explain import html

        cx = self.counterexample
        if self.run is not None:
            assert cx is not None
            return html.render_run(title=self.title, verdict=self.run.head, lines=self.run.lines,
                                   logs=self.run.logs, history=cx.history, replay=self.replay,
                                   trace=_property_run(cx) if self.run.reproduced else None)
        if not _draws(self.argument):
            raise ValueError(f"no HTML report for an explanation of {self.violates}")
        return html.render(self.argument, title=self.title, found_by=_system_text(cx) if cx else "",
                           replay=self.replay, trace=_model_run(cx, self.argument) if cx else None)

    def to_json(self) -> dict[str, Any]:
        """The explanation as data (what ``fisheye explain --json`` prints for it)."""
        if self.run is not None:
            return {"violates": self.violates, "reproduced": self.run.reproduced, "details": self.run.head,
                    "delivery_logs": {p: list(e) for p, e in self.run.logs.items()},
                    "replay": list(self.replay)}
        return {"violates": self.violates, **self.argument.to_json()}


def _draws(argument: Any) -> bool:
    """The argument is a history's (it has a space-time diagram), not a real-time one."""
    from fisheye.checker.explain import Explanation as HistoryArgument

    return isinstance(argument, HistoryArgument)


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
    from fisheye.checker import counterexample as cxm
    from fisheye.checker.cli.explain import _system_text
    from fisheye.checker.explain.run import definitions_used, event_text

    res = cxm.replay(cx)
    logs = cxm.logs_json(cx.system(), res.state) if res.state is not None else cx.delivery_logs
    what = "deadlocks" if cx.violates == cxm.DEADLOCK else f"violates {cx.violates}"
    lines = [f"Replayed: {res.message}." if res.ok else f"NOT reproduced: {res.message}."]
    if cx.details and cx.details != res.message:
        lines.append(f"Recorded: {cx.details}")
    lines += definitions_used(lines)
    run = RunReplay(res.ok, f"The run {what} ({_system_text(cx)}).", tuple(lines),
                    {p: tuple(event_text(e) for e in log) for p, log in logs.items()})
    return Explanation(cx.violates, f"Why {title_name} {what}", counterexample=cx, run=run,
                       replay=replay_script(cx.schedule))


def replay_script(schedule: Sequence[Any]) -> tuple[str, ...]:
    """The schedule of a run as numbered steps, as ``fisheye explain`` prints it."""
    from fisheye.checker.cli.explain import replay_script as numbered

    return tuple(numbered([s.to_json() for s in schedule]))
