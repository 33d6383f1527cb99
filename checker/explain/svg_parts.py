"""The pieces both SVG diagrams (:mod:`.svg`, :mod:`.run_svg`) are built from, with
:mod:`xml.etree` so the output is well-formed XML: elements whose attribute names are
written in Python (``stroke_width`` for ``stroke-width``, ``class_`` for ``class``),
text on a white halo (so a line under it does not hide it), arrowhead markers, and the
metrics of the 12 px monospace font."""

from __future__ import annotations

import xml.etree.ElementTree as ET

SVG_NS = "http://www.w3.org/2000/svg"
CHAR = 7.3                    # width of one character of the 12 px monospace font
HALO = {"stroke": "white", "stroke-width": "4", "paint-order": "stroke", "stroke-linejoin": "round"}


def el(parent: ET.Element, tag: str, **attrs: object) -> ET.Element:
    return ET.SubElement(parent, tag, {k.rstrip("_").replace("_", "-"): str(v) for k, v in attrs.items()})


def halo_text(parent: ET.Element, x: float, y: float, words: str, **attrs: object) -> ET.Element:
    t = el(parent, "text", x=f"{x:.1f}", y=f"{y:.1f}", **attrs)
    for k, v in HALO.items():
        t.set(k, v)
    t.text = words
    return t


def arrowheads(svg: ET.Element, colours: dict[str, str]) -> None:
    """One arrowhead marker per id, in its colour."""
    defs = el(svg, "defs")
    for mid, colour in colours.items():
        m = el(defs, "marker", id=mid, viewBox="0 0 10 10", refX=9, refY=5, markerWidth=7,
               markerHeight=7, orient="auto-start-reverse")
        el(m, "path", d="M 0 0 L 10 5 L 0 10 z", fill=colour)
