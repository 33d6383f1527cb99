"""A self-contained HTML report of an explanation (``fisheye explain --html OUT.html``).
:func:`render` for a model violation, :func:`render_run` for a broadcast property
violation or a deadlock.

One file, no network access needed to view it (no external script, stylesheet, font or
image): the verdict, the argument (the same text as the terminal's, one fact a line),
the SVG space-time diagram of the core and its context with the contradiction
highlighted, the core's operations, the whole history (core operations marked), and,
for a counterexample, the run (:mod:`.run_svg`: one lane per process, the messages, the
steps that break the property) with a slider and step buttons that walk through it
(one inline script; ``#step=K`` in the address opens it at step K), and its replay
script, whose current step is highlighted as the slider moves.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from html import escape

from fisheye.spec.history import History, Value

from .diagram import core_names
from .explanation import Explanation
from .run import DEADLOCK, RunTrace
from .run_svg import render as run_svg
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
.controls { margin: .5em 0; font-family: monospace; }
.controls input[type=range] { width: 30em; vertical-align: middle; }
.controls button { font-size: 1em; min-width: 2.5em; }
#run-status { font-family: monospace; margin: .3em 0 .6em; min-height: 1.4em; }
.replay div.current { background: #fff6cc; font-weight: bold; }
"""

# Walks through the run: shows the steps up to K, the messages received by then, the ones
# in transit as stubs; moves the cursor; highlights step K of the replay script.
WALK = """
(function () {
  var svg = document.querySelector('#run svg.run');
  if (!svg) { return; }
  var n = +svg.getAttribute('data-steps');
  var slider = document.getElementById('run-step');
  var status = document.getElementById('run-status');
  var cursor = svg.getElementById('cursor');
  function show(k) {
    k = Math.max(0, Math.min(n, k));
    slider.value = k;
    svg.querySelectorAll('[data-step]').forEach(function (e) {
      e.setAttribute('visibility', +e.getAttribute('data-step') <= k ? 'visible' : 'hidden');
    });
    svg.querySelectorAll('.pending').forEach(function (e) {
      var on = +e.getAttribute('data-from') <= k && k < +e.getAttribute('data-until');
      e.setAttribute('visibility', on ? 'visible' : 'hidden');
    });
    var step = svg.querySelector('g.step[data-step="' + k + '"]');
    if (step) {
      cursor.setAttribute('x', step.getAttribute('data-x'));
      cursor.setAttribute('visibility', 'visible');
      var what = step.querySelector('title').textContent.replace(/^step \\d+: /, '');
      var text = 'Step ' + k + ' of ' + n + ': ' + what;
      if (step.classList.contains('breaks')) { text += ' <- ' + svg.getAttribute('data-breaks'); }
      status.textContent = text;
    } else {
      cursor.setAttribute('visibility', 'hidden');
      status.textContent = 'Before the first step (' + n + ' steps)';
    }
    document.querySelectorAll('.replay div.current').forEach(function (e) { e.classList.remove('current'); });
    var line = document.getElementById('replay-' + k);
    if (line) { line.classList.add('current'); }
  }
  slider.addEventListener('input', function () { show(+slider.value); });
  document.getElementById('run-first').addEventListener('click', function () { show(0); });
  document.getElementById('run-prev').addEventListener('click', function () { show(+slider.value - 1); });
  document.getElementById('run-next').addEventListener('click', function () { show(+slider.value + 1); });
  document.getElementById('run-last').addEventListener('click', function () { show(n); });
  document.addEventListener('keydown', function (e) {
    if (e.key === 'ArrowLeft') { show(+slider.value - 1); }
    if (e.key === 'ArrowRight') { show(+slider.value + 1); }
  });
  function start() {   // after the whole page: the replay script comes below
    var m = /step=(\\d+)/.exec(location.hash);
    show(m ? +m[1] : n);
  }
  if (document.readyState === 'loading') {
    document.addEventListener('DOMContentLoaded', start);
  } else {
    start();
  }
})();
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
    lines = "".join(f'<div id="replay-{i + 1}">{escape(line)}</div>' for i, line in enumerate(replay))
    return ["<h2>Replay script (the run that produced this history)</h2>",
            f'<div class="argument replay">{lines}</div>']


def _run(trace: RunTrace | None) -> list[str]:
    """The run's diagram with its slider and step buttons (see the module docstring)."""
    if trace is None or not trace.steps:
        return []
    n = len(trace.steps)
    cut = (f' <span class="note">(the first {n} of {trace.total_steps} steps)</span>'
           if trace.total_steps > n else "")
    svg = run_svg(trace)
    said = escape(f"this step breaks {trace.violates}" if trace.violates != DEADLOCK
                  else "after this step no step is enabled", quote=True)
    svg = svg.replace('class="run"', f'class="run" data-breaks="{said}"', 1)
    return [f"<h2>The run, step by step</h2><p>One lane per process, one column per step; drag the "
            f"slider or use the buttons (or the arrow keys) to replay it.{cut}</p>",
            '<div class="controls"><button id="run-first" type="button" title="before the first step">'
            "|&#x25C0;</button> "
            '<button id="run-prev" type="button" title="previous step">&#x25C0;</button> '
            f'<input id="run-step" type="range" min="0" max="{n}" value="{n}" aria-label="step"> '
            '<button id="run-next" type="button" title="next step">&#x25B6;</button> '
            '<button id="run-last" type="button" title="the whole run">&#x25B6;|</button></div>',
            '<div id="run-status"></div>',
            f'<div class="diagram" id="run">{svg}</div>',
            f"<script>{WALK}</script>"]


def render_run(*, title: str, verdict: str, lines: Sequence[str], logs: Mapping[str, Sequence[str]],
               history: History, replay: Sequence[str], trace: RunTrace | None = None) -> str:
    """A broadcast property violation or a deadlock: what the replay shows, the run step
    by step, the delivery logs, the history and the replay script."""
    out = _head(title) + [f'<p class="verdict">{escape(verdict)}</p>']
    out += [f"<p>{escape(line)}</p>" for line in lines]
    out += _run(trace)
    out.append("<h2>Delivery logs</h2><table><tr><th>process</th><th>events (b: broadcast, d: deliver)"
               "</th></tr>")
    for p, events in logs.items():
        out.append(f"<tr><td>{escape(p)}</td><td>{escape(' '.join(events)) or '-'}</td></tr>")
    out.append("</table>")
    out += _history_table(history, {}) + _replay(replay) + ["</body>", "</html>"]
    return "\n".join(out) + "\n"


def render(exp: Explanation, *, title: str = "", found_by: str = "",
           replay: Sequence[str] = (), trace: RunTrace | None = None) -> str:
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
    out += _run(trace) + _history_table(h, names, exp.absent) + _replay(replay)
    out += ["</body>", "</html>"]
    return "\n".join(out) + "\n"
