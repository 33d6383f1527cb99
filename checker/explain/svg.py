"""An SVG space-time diagram of an explained history (``fisheye explain --svg``).

One horizontal line per process, the operations as labelled points, read-from arrows,
the core's operations and the contradicting cycles highlighted, the proximity graph's
edges drawn as arcs between the process labels.  Built with :mod:`xml.etree` so the
output is well-formed XML; every element carries a ``class`` (``process``, ``op``,
``core``, ``rf``, ``cycle``, ``graph-edge``) so tests and stylesheets can find it.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET

from .argument import Explanation, Leaf, _leaves, op_text, order_name
from .diagram import core_names, layout

SVG_NS = "http://www.w3.org/2000/svg"
LEFT, TOP, COL, ROW = 150, 60, 120, 80
CORE_COLOUR, CYCLE_COLOUR, RF_COLOUR, EDGE_COLOUR = "#c0392b", "#e67e22", "#2c3e50", "#2980b9"


def _el(parent: ET.Element, tag: str, **attrs: object) -> ET.Element:
    return ET.SubElement(parent, tag, {k.rstrip("_").replace("_", "-"): str(v) for k, v in attrs.items()})


def render(exp: Explanation) -> str:
    h = exp.history
    lay = layout(h)
    names = core_names(exp)
    width = LEFT + COL * (lay.width + 1)
    cyc_list = _cycle_pairs(exp)
    height = TOP + ROW * len(h.processes) + 30 + 18 * len(cyc_list)
    svg = ET.Element("svg", {"xmlns": SVG_NS, "width": str(width), "height": str(height),
                             "viewBox": f"0 0 {width} {height}", "font-family": "monospace",
                             "font-size": "12"})
    _el(svg, "title").text = f"Why the history violates {exp.model.value}"
    defs = _el(svg, "defs")
    for mid, colour in (("arrow", RF_COLOUR), ("arrow-cycle", CYCLE_COLOUR)):
        m = _el(defs, "marker", id=mid, viewBox="0 0 10 10", refX=9, refY=5, markerWidth=7,
                markerHeight=7, orient="auto-start-reverse")
        _el(m, "path", d="M 0 0 L 10 5 L 0 10 z", fill=colour)

    def pos(uid: int) -> tuple[int, int]:
        op = h.ops[uid]
        return LEFT + COL * lay.cols[uid] + COL // 2, TOP + ROW * lay.rows[op.process]

    # processes and the proximity graph
    for p, row in lay.rows.items():
        y = TOP + ROW * row
        g = _el(svg, "g", class_="process")
        _el(g, "text", x=10, y=y + 4).text = p
        _el(g, "line", x1=LEFT, y1=y, x2=width - 20, y2=y, stroke="#7f8c8d", stroke_width=1.5)
    for a, b in exp.graph.edges:
        ya, yb = TOP + ROW * lay.rows[a], TOP + ROW * lay.rows[b]
        bulge = 20 + 15 * abs(lay.rows[a] - lay.rows[b])
        _el(svg, "path", class_="graph-edge", d=f"M 8 {ya} C {8 - bulge} {ya}, {8 - bulge} {yb}, 8 {yb}",
            fill="none", stroke=EDGE_COLOUR, stroke_width=2, transform="translate(100 0)")
    # read-from arrows
    for w, r in lay.rf:
        (x1, y1), (x2, y2) = pos(w), pos(r)
        core = w in names and r in names
        _el(svg, "line", class_="rf core" if core else "rf", x1=x1, y1=y1, x2=x2 - 8, y2=y2,
            stroke=RF_COLOUR, stroke_width=2 if core else 1, stroke_dasharray="" if core else "4 3",
            marker_end="url(#arrow)")
    # contradicting cycles: curved arrows between core operations
    for k, (order, pairs) in enumerate(cyc_list):
        for a, b in pairs:
            (x1, y1), (x2, y2) = pos(a), pos(b)
            # control point off the segment, on its left (perpendicular), so arrows
            # between aligned points stay visible and the two directions do not overlap
            dx, dy = x2 - x1, y2 - y1
            norm = max((dx * dx + dy * dy) ** 0.5, 1.0)
            off = 28 + 8 * k
            mx, my = (x1 + x2) / 2 + dy / norm * off, (y1 + y2) / 2 - dx / norm * off
            _el(svg, "path", class_="cycle", d=f"M {x1} {y1} Q {mx:.1f} {my:.1f} {x2} {y2}", fill="none",
                stroke=CYCLE_COLOUR, stroke_width=2, stroke_dasharray="" if k % 2 == 0 else "6 3",
                marker_end="url(#arrow-cycle)")
        ids = " < ".join([names[pairs[0][0]]] + [names[b] for _, b in pairs])
        _el(svg, "text", class_="cycle-label", x=10, y=TOP + ROW * len(h.processes) + 10 + 18 * k,
            fill=CYCLE_COLOUR).text = f"cycle in {order}: {ids}"
    # operations on top
    for op in h.ops:
        x, y = pos(op.uid)
        core = op.uid in names
        g = _el(svg, "g", class_="op core" if core else "op")
        _el(g, "circle", cx=x, cy=y, r=7 if core else 4, fill=CORE_COLOUR if core else "#95a5a6",
            stroke="black" if core else "none")
        label = f"{names[op.uid]} = {op_text(op)}" if core else op_text(op)
        _el(g, "text", x=x - 30, y=y - 12, fill=CORE_COLOUR if core else "#7f8c8d").text = label
    ET.indent(svg)
    return ET.tostring(svg, encoding="unicode", xml_declaration=False) + "\n"


def _cycle_pairs(exp: Explanation) -> list[tuple[str, list[tuple[int, int]]]]:
    """Each contradicting cycle as pairs of FULL-history uids."""
    if exp.proof is None:
        return []
    out = []
    facts = exp.proof.facts
    for leaf in _leaves(exp.proof.root):
        assert isinstance(leaf, Leaf)
        pairs = [(exp.core.uids[facts[f].lit.a], exp.core.uids[facts[f].lit.b]) for f in leaf.cycle]
        out.append((order_name(leaf.ctx), pairs))
    return out
