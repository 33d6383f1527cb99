"""An SVG space-time diagram of an explained history (``fisheye explain --svg``, and the
picture of ``--html``).

The core and its context only (:func:`fisheye.checker.explain.diagram.explanation_layout`):
one horizontal line per process drawn, the operations as labelled points, read-from
arrows, the core's operations and the contradicting cycles highlighted (one line style
per cycle: solid, dashed, dotted ...), the proximity graph's edges as arcs left of the
process lines, and a legend.  Labels never overlap: a column is as wide as its longest
label (labels are clipped, the width is bounded by :data:`MAX_WIDTH`), every label sits
right of its point, above the process line, or below it when more of the point's arrows
leave it up and to the right than down and to the right; read-from arrows and cycle arcs
are routed around the labels (:mod:`.routing`).  Built with :mod:`xml.etree` so the output
is well-formed XML; every
element carries a ``class`` (``process``, ``op``, ``core``, ``rf``, ``cycle``,
``graph-edge``, ``legend``) so tests and stylesheets can find it.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET

from .diagram import MAX_LABEL, clip, core_names, cycle_pairs, cycles, explanation_layout, label
from .explanation import Explanation
from .routing import Box, route
from .svg_parts import CHAR, SVG_NS, arrowheads, el, halo_text

TOP, ROW, MIN_COL = 70, 84, 90
MAX_WIDTH = 4000              # px: columns shrink (labels are clipped) to stay below
CORE_COLOUR, CYCLE_COLOUR, RF_COLOUR, EDGE_COLOUR = "#c0392b", "#e67e22", "#2c3e50", "#2980b9"
CYCLE_DASHES = ("none", "7 4", "2 3", "9 3 2 3")   # the line style of each contradicting cycle, in turn
LABEL_DX, LABEL_ABOVE, LABEL_BELOW = 9, -9, 21      # a label's start, from its point


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
    fit = max(3, int((col - 24) / CHAR))
    legend_items = _legend_items(lay)
    cycle_texts = [f"contradiction (a case ending in {order}): {text}" for order, text in cycles(exp)]
    longest = max([len(t) + 5 for t in cycle_texts] + [len(t) + 5 for _, t in legend_items])
    width = int(min(MAX_WIDTH, max(left + col * n_cols + 40, CHAR * longest + 30)))
    n_text = len(cyc_list) + len(legend_items) + (1 if lay.hidden_processes or lay.core_cut else 0)
    text_top = TOP + ROW * (max(len(lay.rows), 1) - 1) + 44   # the cycles and the legend, below
    height = int(text_top + 20 * n_text)
    svg = ET.Element("svg", {"xmlns": SVG_NS, "width": str(width), "height": str(height),
                             "viewBox": f"0 0 {width} {height}", "font-family": "monospace",
                             "font-size": "12"})
    el(svg, "title").text = f"Why the history violates {exp.model.value}"
    el(svg, "rect", x=0, y=0, width=width, height=height, fill="white")
    arrowheads(svg, {"arrow": RF_COLOUR, "arrow-cycle": CYCLE_COLOUR})

    def pos(uid: int) -> tuple[float, float]:
        op = h.ops[uid]
        return left + col * lay.cols[uid] + col / 2, TOP + ROW * lay.rows[op.process]

    # processes and the proximity graph (arcs between the drawn processes' labels)
    for p, row in lay.rows.items():
        y = TOP + ROW * row
        g = el(svg, "g", class_="process")
        halo_text(g, 40, y + 4, clip(p, 24))
        el(g, "line", x1=f"{left:.1f}", y1=y, x2=width - 20, y2=y, stroke="#7f8c8d", stroke_width=1.5)
        if lay.hidden_after[p]:
            halo_text(g, width - 36, y - 8, f"+{lay.hidden_after[p]}", fill="#7f8c8d")
    for a, b in exp.graph.edges:
        if a not in lay.rows or b not in lay.rows:
            continue
        ya, yb = TOP + ROW * lay.rows[a], TOP + ROW * lay.rows[b]
        bulge = min(30, 10 + 6 * abs(lay.rows[a] - lay.rows[b]))
        el(svg, "path", class_="graph-edge", d=f"M 34 {ya} C {34 - bulge} {ya}, {34 - bulge} {yb}, 34 {yb}",
            fill="none", stroke=EDGE_COLOUR, stroke_width=2)
    # the labels' places and boxes first: arrows are routed around them
    drawn = set(lay.uids)
    links = [*lay.rf, *((a, b) for _order, pairs in cyc_list for a, b in pairs if a in drawn and b in drawn)]
    rising = dict.fromkeys(lay.uids, 0)      # arrows leaving up and right, less those leaving down and right
    for a, b in links:
        for u, v in ((a, b), (b, a)):
            (x1, y1), (x2, y2) = pos(u), pos(v)
            if x2 > x1 and y2 != y1:
                rising[u] += 1 if y2 < y1 else -1
    label_text = {u: clip(texts[u], fit) for u in lay.uids}
    label_at: dict[int, tuple[float, float]] = {}
    boxes: list[Box] = []
    for u in lay.uids:
        x, y = pos(u)
        lx, ly = x + LABEL_DX, y + (LABEL_BELOW if rising[u] > 0 else LABEL_ABOVE)
        label_at[u] = (lx, ly)
        boxes.append((lx - 2, ly - 12, lx + CHAR * len(label_text[u]) + 2, ly + 3))
    # read-from arrows
    for w, r in lay.rf:
        core = w in names and r in names
        curve = route(pos(w), pos(r), boxes, bulge=18, gap=9)
        el(svg, "path", class_="rf core" if core else "rf", d=curve.path(), fill="none",
            stroke=RF_COLOUR, stroke_width=2 if core else 1, stroke_dasharray="none" if core else "4 3",
            marker_end="url(#arrow)")
    # contradicting cycles: curved arrows between core operations, one line style per cycle
    for k, (_order, pairs) in enumerate(cyc_list):
        for a, b in pairs:
            if a not in drawn or b not in drawn:
                continue
            curve = route(pos(a), pos(b), boxes, bulge=24 + 8 * k, straight=False, gap=9)
            el(svg, "path", class_="cycle", d=curve.path(), fill="none", stroke=CYCLE_COLOUR, stroke_width=2,
                stroke_dasharray=CYCLE_DASHES[k % len(CYCLE_DASHES)], marker_end="url(#arrow-cycle)")
    # operations on top, each label above and right of its point
    for u in lay.uids:
        x, y = pos(u)
        core = u in names
        g = el(svg, "g", class_="op core" if core else "op")
        el(g, "circle", cx=f"{x:.1f}", cy=y, r=7 if core else 4, fill=CORE_COLOUR if core else "#95a5a6",
            stroke="black" if core else "none")
        halo_text(g, *label_at[u], label_text[u], fill=CORE_COLOUR if core else "#7f8c8d",
              text_anchor="start", font_weight="bold" if core else "normal")
    # below: the cycles, then the legend
    y = text_top
    for k, text in enumerate(cycle_texts):
        el(svg, "line", class_="cycle-label", x1=6, y1=y - 4, x2=36, y2=y - 4, stroke=CYCLE_COLOUR,
            stroke_width=2, stroke_dasharray=CYCLE_DASHES[k % len(CYCLE_DASHES)],
            marker_end="url(#arrow-cycle)")
        halo_text(svg, 44, y, clip(text, int((width - 54) / CHAR)), class_="cycle-label", fill=CYCLE_COLOUR)
        y += 20
    leg = el(svg, "g", class_="legend")
    for kind, text in legend_items:
        _legend_mark(leg, kind, 14, y - 4)
        halo_text(leg, 44, y, clip(text, int((width - 54) / CHAR)))
        y += 20
    if lay.hidden_processes or lay.core_cut:
        parts = []
        if lay.hidden_processes:
            parts.append(f"{len(lay.hidden_processes)} processes with nothing near the core")
        if lay.core_cut:
            parts.append(f"{lay.core_cut} core operations")
        halo_text(leg, 10, y, "not drawn: " + "; ".join(parts), fill="#7f8c8d")
    ET.indent(svg)
    return ET.tostring(svg, encoding="unicode", xml_declaration=False) + "\n"


def _legend_items(lay: object) -> list[tuple[str, str]]:
    return [("core", "A:op  an operation of the core (named in the argument)"),
            ("context", ".op  an operation near the core; +k: k operations not drawn"),
            ("rf", "read-from between two core operations"),
            ("rf-context", "read-from with a context operation"),
            ("cycle", "an ordering of a contradicting cycle, in its cycle's line style (above; "
                      "< the order named, <* the star order, ~> ~>H)"),
            ("edge", "an edge of the proximity graph (left of the process names)")]


def _legend_mark(g: ET.Element, kind: str, x: float, y: float) -> None:
    if kind == "core":
        el(g, "circle", cx=x + 8, cy=y, r=6, fill=CORE_COLOUR, stroke="black")
    elif kind == "context":
        el(g, "circle", cx=x + 8, cy=y, r=4, fill="#95a5a6")
    elif kind in ("rf", "rf-context"):
        el(g, "line", x1=x, y1=y, x2=x + 20, y2=y, stroke=RF_COLOUR, stroke_width=2 if kind == "rf" else 1,
            stroke_dasharray="none" if kind == "rf" else "4 3", marker_end="url(#arrow)")
    elif kind == "cycle":
        el(g, "line", x1=x, y1=y, x2=x + 20, y2=y, stroke=CYCLE_COLOUR, stroke_width=2,
            marker_end="url(#arrow-cycle)")
    else:
        el(g, "path", d=f"M {x + 20} {y - 6} C {x + 6} {y - 6}, {x + 6} {y + 6}, {x + 20} {y + 6}",
            fill="none", stroke=EDGE_COLOUR, stroke_width=2)
