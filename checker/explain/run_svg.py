"""An SVG space-time diagram of a run (``fisheye explain --svg`` and ``--html`` of a
protocol-level counterexample): one horizontal lane per process, time left to right, one
column per step of the schedule (numbered below the lanes).

Each step is a point on its process's lane, its label (slanted, above and right) what it
did there: operations, broadcasts ``b(m)`` and deliveries ``d(m)``, a crash.  An arrow
runs from each message's sending step to its receiving step, routed around the labels
(:mod:`.routing`); a message still in transit when the run ends is a dashed stub, a
message dropped by a crash a grey dashed line ending in a cross.  The steps that break
the property are circled in red, with the property's words in red below the lanes and a
leader line to each of them; the definitions of the notations the words use follow.

Every element of a step carries ``data-step`` (the step it appears at) so the HTML
report's slider can walk through the run: an arrow appears at its receipt, a pending
message (``data-from``/``data-until``) is a stub while in transit, the ``cursor`` marks
the current step.  Built with :mod:`xml.etree`, so the output is well-formed XML.
"""

from __future__ import annotations

import math
import textwrap
import xml.etree.ElementTree as ET

from .diagram import clip
from .routing import Box, route
from .run import DEADLOCK, RunTrace
from .svg_parts import CHAR, SVG_NS, arrowheads, el, halo_text

TOP, ROW, DX = 120, 124, 50      # first lane, lane spacing, column width
SLANT = 40                       # degrees: labels rise to the right
MAX_MARK = 20                    # characters of a step's label at most
BREAK_COLOUR, INVOLVED_COLOUR, MSG_COLOUR, LANE_COLOUR = "#c0392b", "#c0392b", "#2c3e50", "#7f8c8d"


def _cross(x: float, y: float, r: float) -> str:
    a, b, c, d = f"{x - r:.1f}", f"{x + r:.1f}", f"{y - r:.1f}", f"{y + r:.1f}"
    return f"M {a} {c} L {b} {d} M {a} {d} L {b} {c}"


def step_label(marks: tuple[str, ...]) -> str:
    return clip(" ".join(marks), MAX_MARK)


def _slanted_boxes(x: float, y: float, n: int) -> list[Box]:
    """Axis-aligned boxes covering a label of ``n`` characters that starts at (x, y) and
    rises at :data:`SLANT` degrees (one box per two characters)."""
    cos, sin = math.cos(math.radians(SLANT)), math.sin(math.radians(SLANT))
    out = []
    for k in range(0, n, 2):
        bx, by = x + k * CHAR * cos, y - k * CHAR * sin
        out.append((bx - 2, by - 13, bx + 2 * CHAR * cos + 4, by + 2))
    return out


def render(trace: RunTrace) -> str:
    rows = {p: i for i, p in enumerate(trace.processes)}
    left = 40 + CHAR * max((len(clip(p, 16)) for p in trace.processes), default=4) + 24
    n = max(len(trace.steps), 1)

    def x_of(step: int) -> float:
        return left + DX * (step - 0.5)

    def y_of(p: str) -> float:
        return TOP + ROW * rows[p]

    lanes_bottom = TOP + ROW * (len(trace.processes) - 1)
    width_chars = 92
    said = trace.words if trace.words.startswith(trace.violates) else f"{trace.violates}: {trace.words}"
    words = textwrap.wrap(said, width_chars) if trace.words else []
    defs = [line for d in trace.definitions for line in textwrap.wrap(d, width_chars)]
    legend = _legend_items(trace)
    longest = max([width_chars + 2] + [len(t) + 7 for _, t in legend])
    waits = max((len(", ".join(m)) + 12 for _, m in trace.waiting), default=0)
    width = int(max(left + DX * n + 140 + CHAR * waits, 60 + CHAR * longest))
    words_top = lanes_bottom + 64
    legend_top = words_top + 18 * (len(words) + len(defs)) + (16 if words else 0)
    height = int(legend_top + 20 * len(legend) + 10)
    svg = ET.Element("svg", {"xmlns": SVG_NS, "width": str(width), "height": str(height),
                             "viewBox": f"0 0 {width} {height}", "font-family": "monospace",
                             "font-size": "12", "class": "run", "data-steps": str(len(trace.steps))})
    el(svg, "title").text = f"The run, step by step ({trace.violates})"
    el(svg, "rect", x=0, y=0, width=width, height=height, fill="white")
    arrowheads(svg, {"run-arrow": MSG_COLOUR})
    # the current step (moved by the HTML report's slider) and the breaking steps' bands
    last = trace.steps[-1].number if trace.steps else 1
    el(svg, "rect", id="cursor", class_="cursor", x=f"{x_of(last) - DX / 2:.1f}", y=TOP - 100, width=DX,
        height=lanes_bottom - TOP + 130, fill="#fff6cc")
    for s in trace.steps:
        if s.breaks:
            el(svg, "rect", class_="breaks-band", x=f"{x_of(s.number) - DX / 2 + 4:.1f}", y=TOP - 100,
                width=DX - 8, height=lanes_bottom - TOP + 130, fill="#fdecea")
    # lanes; a crashed process's lane is dashed after its crash
    crashed = {s.process: s.number for s in trace.steps if "crash" in s.marks}
    for p in trace.processes:
        y = y_of(p)
        g = el(svg, "g", class_="lane")
        halo_text(g, 40, y + 4, clip(p, 16))
        end = width - 30
        cut = x_of(crashed[p]) if p in crashed else end
        el(g, "line", x1=f"{left:.1f}", y1=y, x2=f"{cut:.1f}", y2=y, stroke=LANE_COLOUR, stroke_width=1.5)
        if p in crashed:
            el(g, "line", x1=f"{cut:.1f}", y1=y, x2=end, y2=y, stroke=LANE_COLOUR, stroke_width=1,
                stroke_dasharray="3 4")
    # the labels' boxes first: the arrows are routed around them
    boxes: list[Box] = []
    for s in trace.steps:
        label = step_label(s.marks)
        if label:
            boxes += _slanted_boxes(x_of(s.number) + 6, y_of(s.process) - 8, len(label))
        x = x_of(s.number)
        boxes.append((x - 10, lanes_bottom + 18, x + 10, lanes_bottom + 34))     # the step's number
    # messages
    for m in trace.messages:
        if m.src not in rows or m.dst not in rows:
            continue
        start = (x_of(m.sent), y_of(m.src))
        up = y_of(m.dst) < y_of(m.src)           # steeper upwards: the labels rise to the right
        toward = (x_of(m.sent) + DX * (0.3 if up else 0.8), y_of(m.src) + (y_of(m.dst) - y_of(m.src)) * 0.35)
        stub = route(start, toward, boxes, bulge=10, gap=0).path()
        words_of = (f"{m.src} -> {m.dst}: {m.text}, sent at step {m.sent}"
                    + ("" if m.received is None else
                       f", {'dropped' if m.lost else 'received'} at step {m.received}"))
        if m.received is None:
            g = el(svg, "g", class_="msg transit", data_step=m.sent)
            el(g, "title").text = words_of + ", in transit when the run ends"
            el(g, "path", d=stub, fill="none", stroke=MSG_COLOUR, stroke_width=1, stroke_dasharray="4 3",
                marker_end="url(#run-arrow)")
            continue
        pending = el(svg, "g", class_="msg pending", data_from=m.sent, data_until=m.received,
                      visibility="hidden")
        el(pending, "path", d=stub, fill="none", stroke=MSG_COLOUR, stroke_width=1, stroke_dasharray="4 3",
            marker_end="url(#run-arrow)")
        end = (x_of(m.received), y_of(m.dst))
        curve = route(start, end, boxes, bulge=20, gap=7)
        g = el(svg, "g", class_="msg lost" if m.lost else "msg", data_step=m.received, data_from=m.sent)
        el(g, "title").text = words_of
        if m.lost:
            el(g, "path", d=curve.path(), fill="none", stroke=LANE_COLOUR, stroke_width=1.2,
                stroke_dasharray="5 3")
            ex, ey = curve.end
            el(g, "path", d=_cross(ex, ey, 5), stroke=LANE_COLOUR, stroke_width=2)
        else:
            el(g, "path", d=curve.path(), fill="none", stroke=MSG_COLOUR, stroke_width=1.4,
                marker_end="url(#run-arrow)")
    # the steps, on top
    for s in trace.steps:
        x, y = x_of(s.number), y_of(s.process)
        cls = "step breaks" if s.breaks else ("step involved" if s.involved else "step")
        g = el(svg, "g", class_=cls, data_step=s.number, data_x=f"{x - DX / 2:.1f}")
        el(g, "title").text = f"step {s.number}: {s.text}" + (f": {' '.join(s.marks)}" if s.marks else "")
        if s.breaks:
            el(g, "circle", cx=f"{x:.1f}", cy=y, r=10, fill="none", stroke=BREAK_COLOUR, stroke_width=3)
        if "crash" in s.marks:
            el(g, "path", d=_cross(x, y, 7), stroke="black", stroke_width=3)
        else:
            el(g, "circle", cx=f"{x:.1f}", cy=y, r=5, fill="#34495e" if s.marks else "#bdc3c7")
        label = step_label(s.marks)
        if label:
            lx, ly = x + 6, y - 8
            colour = BREAK_COLOUR if s.breaks or s.involved else "#2c3e50"
            halo_text(g, lx, ly, label, fill=colour, font_weight="bold" if s.breaks else "normal",
                  transform=f"rotate(-{SLANT} {lx:.1f} {ly:.1f})")
        halo_text(g, x, lanes_bottom + 30, str(s.number), fill=LANE_COLOUR, text_anchor="middle",
                  font_size=10)
    # a run that deadlocks: at the end of each lane, what its process still waits for
    for p, missing in trace.waiting:
        x, y = x_of(n) + DX / 2 + 6, y_of(p)
        g = el(svg, "g", class_="waiting", data_step=n)
        el(g, "line", x1=f"{x:.1f}", y1=y - 9, x2=f"{x:.1f}", y2=y + 9, stroke=BREAK_COLOUR, stroke_width=3)
        halo_text(g, x + 6, y - 6, "waits for " + ", ".join(missing), fill=BREAK_COLOUR, font_weight="bold")
    # the property's words below the lanes, with a leader line to each breaking step
    y = words_top
    if words:
        wg = el(svg, "g", class_="words")
        for s in trace.steps:
            if s.breaks:
                xb = f"{x_of(s.number):.1f}"
                el(wg, "line", x1=xb, y1=y_of(s.process) + 11, x2=xb, y2=y - 14, stroke=BREAK_COLOUR,
                    stroke_width=1.2, stroke_dasharray="3 3", data_step=s.number)
        for line in words:
            halo_text(wg, 30, y, line, fill=BREAK_COLOUR, font_weight="bold")
            y += 18
    dg = el(svg, "g", class_="definitions")
    for line in defs:
        halo_text(dg, 30, y, line)
        y += 18
    y = legend_top + 8
    leg = el(svg, "g", class_="legend")
    for kind, text in legend:
        _legend_mark(leg, kind, 14, y - 4)
        halo_text(leg, 48, y, text)
        y += 20
    ET.indent(svg)
    return ET.tostring(svg, encoding="unicode", xml_declaration=False) + "\n"


def _legend_items(trace: RunTrace) -> list[tuple[str, str]]:
    items = [("step", "a step of the process on that lane (numbered below): the operations it performs, "
                      "b(m) a broadcast, d(m) a delivery"),
             ("msg", "a message, from the step that sends it to the step that receives it")]
    if any(m.received is None for m in trace.messages):
        items.append(("transit", "a message still in transit when the run ends"))
    if any(m.lost for m in trace.messages):
        items.append(("lost", "a message taken out of its channel by a step that does not receive it "
                              "(its sender crashed, or the system dropped it)"))
    if any("crash" in s.marks for s in trace.steps):
        items.append(("crash", "a crash (the lane is dashed after it)"))
    if not trace.breaking:
        pass                                  # the run does not break the property (any more)
    elif trace.violates == DEADLOCK:
        items.append(("breaks", "the last step: after it no step is enabled, yet the run is not complete "
                                "(below the lanes: who waits for what; in red, those messages' events)"))
    else:
        items.append(("breaks", f"the step that breaks {trace.violates} (its words below the lanes); "
                                "in red, the events they name"))
    return items


def _legend_mark(g: ET.Element, kind: str, x: float, y: float) -> None:
    if kind == "step":
        el(g, "circle", cx=x + 12, cy=y, r=5, fill="#34495e")
    elif kind in ("msg", "transit"):
        el(g, "line", x1=x, y1=y, x2=x + 24, y2=y, stroke=MSG_COLOUR, stroke_width=1.4,
            stroke_dasharray="none" if kind == "msg" else "4 3", marker_end="url(#run-arrow)")
    elif kind == "lost":
        el(g, "line", x1=x, y1=y, x2=x + 20, y2=y, stroke=LANE_COLOUR, stroke_width=1.2,
            stroke_dasharray="5 3")
        el(g, "path", d=_cross(x + 23, y, 5), stroke=LANE_COLOUR, stroke_width=2)
    elif kind == "crash":
        el(g, "path", d=_cross(x + 12, y, 6), stroke="black", stroke_width=3)
    else:
        el(g, "circle", cx=x + 12, cy=y, r=9, fill="none", stroke=BREAK_COLOUR, stroke_width=3)
