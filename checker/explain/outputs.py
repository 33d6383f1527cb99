"""What ``fisheye explain`` and :func:`fisheye.explain` give of an explanation, in its
three forms: the text, the SVG diagram and the HTML report.

An explanation is either the argument of a history that violates a model (an
:class:`~.explanation.Explanation` with its minimal core and space-time diagram, or a
real-time model's argument, text only), with the counterexample whose run produced the
history when there is one; or a run that breaks a property of its system
(:class:`~.run_replay.RunReplay`), drawn lane by lane."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from . import html
from .diagram import render as text_diagram
from .explanation import Explanation
from .replay_script import replay_script
from .run_replay import RunReplay
from .run_svg import render as run_svg
from .run_trace import model_run, property_run
from .svg import render as history_svg
from .system_text import system_text

if TYPE_CHECKING:
    from fisheye.checker.counterexample import Counterexample


def draws(argument: Any) -> bool:
    """The argument is a history's, with a space-time diagram (not a real-time model's)."""
    return isinstance(argument, Explanation)


def explanation_text(argument: Any = None, cx: Counterexample | None = None,
                     run: RunReplay | None = None) -> str:
    """The text: for a run, what its replay shows, the delivery logs and the replay
    script; for a history, the argument, its diagram, and for a counterexample the system
    that produced it and the replay script of its run."""
    if run is not None:
        assert cx is not None
        lines = [run.head, *run.lines, "Delivery logs (b = broadcast, d = deliver):"]
        lines += [f"  {p}: {' '.join(events) or '-'}" for p, events in run.logs.items()]
        return "\n".join([*lines, "Replay script:", *replay_script(cx.schedule)])
    if not draws(argument):
        return str(argument.text())
    out = [argument.text(), "", text_diagram(argument)]
    if cx is not None:
        out += ["", f"Found by: {cx.search or 'a search'} ({system_text(cx)}).",
                "Replay script (the run that produced this history):", *replay_script(cx.schedule)]
    return "\n".join(out)


def explanation_svg(argument: Any = None, cx: Counterexample | None = None,
                    run: RunReplay | None = None) -> str:
    """The SVG diagram: of the core and its contradiction for a history, of the run step
    by step for a run.  ``ValueError`` when there is none (a real-time model's argument,
    a run whose system no longer replays it)."""
    if run is not None:
        assert cx is not None
        if not run.drawable:
            raise ValueError(f"no diagram: the run that violates {cx.violates} does not replay")
        return run_svg(property_run(cx))
    if not draws(argument):
        raise ValueError(f"no SVG diagram for an explanation of {argument.model.value}")
    return history_svg(argument)


def explanation_html(title: str, argument: Any = None, cx: Counterexample | None = None,
                     run: RunReplay | None = None) -> str:
    """The self-contained HTML report (``ValueError`` for a real-time model's argument)."""
    if run is not None:
        assert cx is not None
        return html.render_run(title=title, verdict=run.head, lines=run.lines, logs=run.logs,
                               history=cx.history, replay=replay_script(cx.schedule),
                               trace=property_run(cx) if run.drawable else None)
    if not draws(argument):
        raise ValueError(f"no HTML report for an explanation of {argument.model.value}")
    return html.render(argument, title=title, found_by=system_text(cx) if cx else "",
                       replay=replay_script(cx.schedule) if cx else (),
                       trace=model_run(cx, argument) if cx else None)
