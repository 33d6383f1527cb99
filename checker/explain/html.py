"""A self-contained HTML report of an explanation (``fisheye explain --html OUT.html``).
:func:`render` for a model violation, :func:`render_run` for a broadcast property
violation or a deadlock.

One file, no network access needed to view it (no script, no external stylesheet, font
or image): the verdict, the argument (the same text as the terminal's, one fact a
line), the SVG space-time diagram of the core and its context with the contradiction
highlighted, the core's operations, the whole history (core operations marked), and,
for a counterexample, the run's replay script.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from html import escape

from fisheye.spec.history import History, Value

from .diagram import core_names
from .explanation import Explanation
from .svg import render as svg_render
from .words import op_text

STYLE = """
body { font-family: sans-serif; margin: 2em; color: #222; max-width: 80em; }
h1 { font-size: 1.4em; } h2 { font-size: 1.15em; margin-top: 1.6em; }
.verdict { font-size: 1.1em; padding: .6em 1em; background: #fdecea; border-left: 6px solid #c0392b; }
.argument { font-family: monospace; white-space: pre-wrap; background: #f7f7f7; padding: 1em;
            line-height: 1.45; }
.argument .contradiction { color: #c0392b; font-weight: bold; }
.diagram { overflow-x: auto; border: 1px solid #ddd; padding: .5em; background: white; }
table { border-collapse: collapse; } td, th { border: 1px solid #ccc; padding: .25em .6em;
font-family: monospace; text-align: left; vertical-align: top; }
td.core { background: #fdecea; color: #c0392b; font-weight: bold; }
.note { color: #666; }
"""

MAX_HISTORY_ROWS = 200   # operations per process listed in the history table


def _head(heading: str) -> list[str]:
    return ["<!DOCTYPE html>", '<html lang="en">', "<head>", '<meta charset="utf-8">',
            f"<title>{escape(heading)}</title>", f"<style>{STYLE}</style>", "</head>", "<body>",
            f"<h1>{escape(heading)}</h1>"]


def _history_table(h: History, names: dict[int, str], absent: Value | None = None) -> list[str]:
    out = ["<h2>The history</h2><table><tr><th>process</th><th>operations (in process order)</th></tr>"]
    for p in h.processes:
        ops = h.of(p)
        cells = []
        for op in ops[:MAX_HISTORY_ROWS]:
            text = escape(op_text(op, absent))
            cells.append(f'<span class="core" style="color:#c0392b;font-weight:bold">'
                         f"{escape(names[op.uid])}={text}</span>" if op.uid in names else text)
        more = f' <span class="note">... and {len(ops) - MAX_HISTORY_ROWS} more</span>' \
            if len(ops) > MAX_HISTORY_ROWS else ""
        out.append(f"<tr><td>{escape(p)}</td><td>{', '.join(cells) or '-'}{more}</td></tr>")
    out.append("</table>")
    return out


def _replay(replay: Sequence[str]) -> list[str]:
    if not replay:
        return []
    return ["<h2>Replay script (the run that produced this history)</h2>",
            '<pre class="argument">' + escape("\n".join(replay)) + "</pre>"]


def render_run(*, title: str, verdict: str, lines: Sequence[str], logs: Mapping[str, Sequence[str]],
               history: History, replay: Sequence[str]) -> str:
    """A broadcast property violation or a deadlock: what the replay shows, the delivery
    logs, the history and the replay script."""
    out = _head(title) + [f'<p class="verdict">{escape(verdict)}</p>']
    out += [f"<p>{escape(line)}</p>" for line in lines]
    out.append("<h2>Delivery logs</h2><table><tr><th>process</th><th>events (b: broadcast, d: deliver)"
               "</th></tr>")
    for p, events in logs.items():
        out.append(f"<tr><td>{escape(p)}</td><td>{escape(' '.join(events)) or '-'}</td></tr>")
    out.append("</table>")
    out += _history_table(history, {}) + _replay(replay) + ["</body>", "</html>"]
    return "\n".join(out) + "\n"


def render(exp: Explanation, *, title: str = "", found_by: str = "",
           replay: Sequence[str] = ()) -> str:
    names = core_names(exp)
    h = exp.history
    heading = title or f"Why the history violates {exp.model.value}"
    graph = ", ".join(f"{a}:{b}" for a, b in exp.graph.edges) or "none"
    out = _head(heading) + [
           f'<p class="verdict">Violation of <b>{escape(exp.model.value)}</b> (proximity graph: '
           f"{escape(graph)}). Minimal core: {len(exp.core.uids)} of {len(h.ops)} operations"
           + ("" if exp.core.minimal else " (not verified 1-minimal)") + ".</p>"]
    if found_by:
        out.append(f'<p class="note">Found by: {escape(found_by)}</p>')
    out.append("<h2>The argument</h2>")
    lines = []
    for line in exp.text().splitlines():
        cls = ' class="contradiction"' if "contradiction" in line else ""
        lines.append(f"<div{cls}>{escape(line) or '&nbsp;'}</div>")
    out.append('<div class="argument">' + "".join(lines) + "</div>")
    out.append("<h2>Space-time diagram</h2>")
    out.append('<div class="diagram">' + svg_render(exp) + "</div>")
    out.append("<h2>The core</h2><table><tr><th>name</th><th>operation</th><th>process</th>"
               "<th>position</th></tr>")
    for i, u in enumerate(exp.core.uids):
        op = h.ops[u]
        text = escape(op_text(op, exp.absent))
        out.append(f"<tr><td class=\"core\">{escape(exp.names[i])}</td><td>{text}</td>"
                   f"<td>{escape(op.process)}</td><td>{op.index + 1}</td></tr>")
    out.append("</table>")
    out += _history_table(h, names, exp.absent) + _replay(replay)
    out += ["</body>", "</html>"]
    return "\n".join(out) + "\n"
