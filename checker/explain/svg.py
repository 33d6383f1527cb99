"""An SVG space-time diagram of an explained history (``fisheye explain --svg``, and the
picture of ``--html``).

The core and its context only (:func:`fisheye.checker.explain.diagram.explanation_layout`):
one horizontal line per process drawn, the operations as labelled points, read-from
arrows, the core's operations and the contradicting cycles highlighted, the proximity
graph's edges as arcs left of the process lines, and a legend.  Labels never overlap:
a column is as wide as its longest label (labels are clipped, the width is bounded by
:data:`MAX_WIDTH`), every label sits above its point on a white halo so arrows crossing
it do not hide it.  Built with :mod:`xml.etree` so the output is well-formed XML; every
element carries a ``class`` (``process``, ``op``, ``core``, ``rf``, ``cycle``,
``graph-edge``, ``legend``) so tests and stylesheets can find it.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET

from .diagram import MAX_LABEL, clip, core_names, cycle_pairs, cycles, explanation_layout, label
from .explanation import Explanation

SVG_NS = "http://www.w3.org/2000/svg"
CHAR = 7.3                    # width of one character of the 12 px monospace font
TOP, ROW, MIN_COL = 70, 84, 90
MAX_WIDTH = 4000              # px: columns shrink (labels are clipped) to stay below
CORE_COLOUR, CYCLE_COLOUR, RF_COLOUR, EDGE_COLOUR = "#c0392b", "#e67e22", "#2c3e50", "#2980b9"
HALO = {"stroke": "white", "stroke-width": "4", "paint-order": "stroke", "stroke-linejoin": "round"}


def _el(parent: ET.Element, tag: str, **attrs: object) -> ET.Element:
    return ET.SubElement(parent, tag, {k.rstrip("_").replace("_", "-"): str(v) for k, v in attrs.items()})


def _text(parent: ET.Element, x: float, y: float, text: str, **attrs: object) -> ET.Element:
    t = _el(parent, "text", x=f"{x:.1f}", y=f"{y:.1f}", **attrs)
    for k, v in HALO.items():
        t.set(k, v)
    t.text = text
    return t


def render(exp: Explanation) -> str:
    h = exp.history
    lay = explanation_layout(exp)
    names = core_names(exp)
    cyc_list = cycle_pairs(exp)
    left = 40 + CHAR * max((len(clip(p, 24)) for p in lay.rows), default=4) + 30
    n_cols = max(lay.width, 1)
    room = (MAX_WIDTH - left - 40) / n_cols
    texts = {u: (f"+{lay.hidden_before[u]} " if lay.hidden_before[u] else "") + label(exp, u, names)
             for u in lay.uids}
    chars = min(MAX_LABEL + 8, max((len(t) for t in texts.values()), default=8))
    col = max(MIN_COL, CHAR * chars + 34)
    if col > room:                       # bounded width: clip labels to fit the columns
        col = max(40.0, room)
    fit = max(3, int((col - 14) / CHAR))
    legend_items = _legend_items(lay)
    cycle_texts = [f"contradiction (a case ending in {order}): {text}" for order, text in cycles(exp)]
    longest = max([len(t) for t in cycle_texts] + [len(t) + 5 for _, t in legend_items])
    width = int(min(MAX_WIDTH, max(left + col * n_cols + 40, CHAR * longest + 30)))
    n_text = len(cyc_list) + len(legend_items) + (1 if lay.hidden_processes or lay.core_cut else 0)
    text_top = TOP + ROW * (max(len(lay.rows), 1) - 1) + 44   # the cycles and the legend, below
    height = int(text_top + 20 * n_text)
    svg = ET.Element("svg", {"xmlns": SVG_NS, "width": str(width), "height": str(height),
                             "viewBox": f"0 0 {width} {height}", "font-family": "monospace",
                             "font-size": "12"})
    _el(svg, "title").text = f"Why the history violates {exp.model.value}"
    _el(svg, "rect", x=0, y=0, width=width, height=height, fill="white")
    defs = _el(svg, "defs")
    for mid, colour in (("arrow", RF_COLOUR), ("arrow-cycle", CYCLE_COLOUR)):
        m = _el(defs, "marker", id=mid, viewBox="0 0 10 10", refX=9, refY=5, markerWidth=7,
                markerHeight=7, orient="auto-start-reverse")
        _el(m, "path", d="M 0 0 L 10 5 L 0 10 z", fill=colour)

    def pos(uid: int) -> tuple[float, float]:
        op = h.ops[uid]
        return left + col * lay.cols[uid] + col / 2, TOP + ROW * lay.rows[op.process]

    # processes and the proximity graph (arcs between the drawn processes' labels)
    for p, row in lay.rows.items():
        y = TOP + ROW * row
        g = _el(svg, "g", class_="process")
        _text(g, 40, y + 4, clip(p, 24))
        _el(g, "line", x1=f"{left:.1f}", y1=y, x2=width - 20, y2=y, stroke="#7f8c8d", stroke_width=1.5)
        if lay.hidden_after[p]:
            _text(g, width - 36, y - 8, f"+{lay.hidden_after[p]}", fill="#7f8c8d")
    for a, b in exp.graph.edges:
        if a not in lay.rows or b not in lay.rows:
            continue
        ya, yb = TOP + ROW * lay.rows[a], TOP + ROW * lay.rows[b]
        bulge = min(30, 10 + 6 * abs(lay.rows[a] - lay.rows[b]))
        _el(svg, "path", class_="graph-edge", d=f"M 34 {ya} C {34 - bulge} {ya}, {34 - bulge} {yb}, 34 {yb}",
            fill="none", stroke=EDGE_COLOUR, stroke_width=2)
    # read-from arrows
    for w, r in lay.rf:
        (x1, y1), (x2, y2) = pos(w), pos(r)
        core = w in names and r in names
        _el(svg, "line", class_="rf core" if core else "rf", x1=f"{x1:.1f}", y1=y1, x2=f"{x2 - 8:.1f}", y2=y2,
            stroke=RF_COLOUR, stroke_width=2 if core else 1, stroke_dasharray="none" if core else "4 3",
            marker_end="url(#arrow)")
    # contradicting cycles: curved arrows between core operations
    drawn = set(lay.uids)
    for k, (_order, pairs) in enumerate(cyc_list):
        for a, b in pairs:
            if a not in drawn or b not in drawn:
                continue
            (x1, y1), (x2, y2) = pos(a), pos(b)
            dx, dy = x2 - x1, y2 - y1
            norm = max((dx * dx + dy * dy) ** 0.5, 1.0)
            off = 24 + 8 * k
            mx, my = (x1 + x2) / 2 + dy / norm * off, (y1 + y2) / 2 - dx / norm * off
            _el(svg, "path", class_="cycle", d=f"M {x1:.1f} {y1} Q {mx:.1f} {my:.1f} {x2:.1f} {y2}",
                fill="none", stroke=CYCLE_COLOUR, stroke_width=2,
                stroke_dasharray="none" if k % 2 == 0 else "6 3", marker_end="url(#arrow-cycle)")
    # operations on top, each label above its point, inside its column
    for u in lay.uids:
        x, y = pos(u)
        core = u in names
        g = _el(svg, "g", class_="op core" if core else "op")
        _el(g, "circle", cx=f"{x:.1f}", cy=y, r=7 if core else 4, fill=CORE_COLOUR if core else "#95a5a6",
            stroke="black" if core else "none")
        _text(g, x, y - 13, clip(texts[u], fit), fill=CORE_COLOUR if core else "#7f8c8d",
              text_anchor="middle", font_weight="bold" if core else "normal")
    # below: the cycles, then the legend
    y = text_top
    for text in cycle_texts:
        _text(svg, 10, y, clip(text, int((width - 20) / CHAR)), class_="cycle-label", fill=CYCLE_COLOUR)
        y += 20
    leg = _el(svg, "g", class_="legend")
    for kind, text in legend_items:
        _legend_mark(leg, kind, 14, y - 4)
        _text(leg, 44, y, clip(text, int((width - 54) / CHAR)))
        y += 20
    if lay.hidden_processes or lay.core_cut:
        parts = []
        if lay.hidden_processes:
            parts.append(f"{len(lay.hidden_processes)} processes with nothing near the core")
        if lay.core_cut:
            parts.append(f"{lay.core_cut} core operations")
        _text(leg, 10, y, "not drawn: " + "; ".join(parts), fill="#7f8c8d")
    ET.indent(svg)
    return ET.tostring(svg, encoding="unicode", xml_declaration=False) + "\n"


def _legend_items(lay: object) -> list[tuple[str, str]]:
    return [("core", "A:op  an operation of the core (named in the argument)"),
            ("context", ".op  an operation near the core; +k: k operations not drawn"),
            ("rf", "read-from (solid: between core operations)"),
            ("cycle", "an ordering of a contradicting cycle (< the order named, <* star order, ~> ~>H)"),
            ("edge", "an edge of the proximity graph (left of the process names)")]


def _legend_mark(g: ET.Element, kind: str, x: float, y: float) -> None:
    if kind == "core":
        _el(g, "circle", cx=x + 8, cy=y, r=6, fill=CORE_COLOUR, stroke="black")
    elif kind == "context":
        _el(g, "circle", cx=x + 8, cy=y, r=4, fill="#95a5a6")
    elif kind == "rf":
        _el(g, "line", x1=x, y1=y, x2=x + 20, y2=y, stroke=RF_COLOUR, stroke_width=2,
            marker_end="url(#arrow)")
    elif kind == "cycle":
        _el(g, "line", x1=x, y1=y, x2=x + 20, y2=y, stroke=CYCLE_COLOUR, stroke_width=2,
            marker_end="url(#arrow-cycle)")
    else:
        _el(g, "path", d=f"M {x + 20} {y - 6} C {x + 6} {y - 6}, {x + 6} {y + 6}, {x + 20} {y + 6}",
            fill="none", stroke=EDGE_COLOUR, stroke_width=2)
