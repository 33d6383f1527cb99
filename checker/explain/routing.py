"""Arrows that keep clear of labels, for the SVG diagrams (:mod:`.svg`, :mod:`.run_svg`).

An arrow is a quadratic Bézier curve from one point to another.  :func:`route` tries
the straight line (when allowed), then curves bulging to either side, further and
further, and keeps the first that crosses no label box (away from its own two ends,
where the points sit); failing that, the one that crosses fewest.  The curve is cut
short of its end by the radius of the point drawn there, so the arrowhead shows."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

Point = tuple[float, float]
Box = tuple[float, float, float, float]      # x0, y0, x1, y1


@dataclass(frozen=True)
class Curve:
    """A quadratic Bézier curve: start, control point, end."""

    start: Point
    control: Point
    end: Point

    def at(self, t: float) -> Point:
        (x0, y0), (cx, cy), (x1, y1) = self.start, self.control, self.end
        u = 1 - t
        return u * u * x0 + 2 * u * t * cx + t * t * x1, u * u * y0 + 2 * u * t * cy + t * t * y1

    def head(self, t: float) -> Curve:
        """The part from the start to parameter ``t`` (de Casteljau)."""
        (x0, y0), (cx, cy) = self.start, self.control
        return Curve(self.start, (x0 + (cx - x0) * t, y0 + (cy - y0) * t), self.at(t))

    def path(self) -> str:
        (x0, y0), (cx, cy), (x1, y1) = self.start, self.control, self.end
        return f"M {x0:.1f} {y0:.1f} Q {cx:.1f} {cy:.1f} {x1:.1f} {y1:.1f}"


def _segment_hits(p: Point, q: Point, box: Box) -> bool:
    """Whether the segment from ``p`` to ``q`` meets the box (Liang-Barsky clipping)."""
    (x0, y0), (x1, y1) = p, q
    dx, dy = x1 - x0, y1 - y0
    lo, hi = 0.0, 1.0
    for d, low, high, at in ((dx, box[0], box[2], x0), (dy, box[1], box[3], y0)):
        if d == 0:
            if not low <= at <= high:
                return False
            continue
        t0, t1 = (low - at) / d, (high - at) / d
        lo, hi = max(lo, min(t0, t1)), min(hi, max(t0, t1))
        if lo > hi:
            return False
    return True


def crossings(curve: Curve, boxes: Sequence[Box], *, clear: float = 10.0, samples: int = 48,
              margin: float = 0.0) -> int:
    """How many of ``boxes`` (grown by ``margin`` on every side) the curve runs through,
    ignoring its first and last ``clear`` pixels around its two ends."""
    points = [curve.at(k / samples) for k in range(samples + 1)]
    near = [math.dist(p, curve.start) < clear or math.dist(p, curve.end) < clear for p in points]
    xs = (curve.start[0], curve.control[0], curve.end[0])
    ys = (curve.start[1], curve.control[1], curve.end[1])
    hull = (min(xs), min(ys), max(xs), max(ys))         # the curve lies inside its control points' hull
    grown = [(x0 - margin, y0 - margin, x1 + margin, y1 + margin) for x0, y0, x1, y1 in boxes
             if x0 - margin <= hull[2] and hull[0] <= x1 + margin and y0 - margin <= hull[3]
             and hull[1] <= y1 + margin]
    hit = 0
    for box in grown:
        if any(_segment_hits(points[k], points[k + 1], box)
               for k in range(samples) if not near[k] and not near[k + 1]):
            hit += 1
    return hit


def _bent(a: Point, b: Point, offset: float) -> Curve:
    (x1, y1), (x2, y2) = a, b
    dx, dy = x2 - x1, y2 - y1
    norm = max(math.hypot(dx, dy), 1.0)
    return Curve(a, ((x1 + x2) / 2 + dy / norm * offset, (y1 + y2) / 2 - dx / norm * offset), b)


def route(a: Point, b: Point, boxes: Sequence[Box], *, bulge: float = 24.0, straight: bool = True,
          gap: float = 8.0) -> Curve:
    """An arrow from ``a`` to ``b`` that avoids ``boxes`` if it can (see the module
    docstring), ending ``gap`` pixels before ``b``.  ``bulge``: the first offset tried
    (its sign, the side tried first)."""
    offsets = [bulge]
    for k in (1.0, 2.0, 3.0, 4.5, 6.0, 7.5, 9.0, 11.0, 13.0):
        offsets += [abs(bulge) * k, -abs(bulge) * k]
    candidates = ([Curve(a, ((a[0] + b[0]) / 2, (a[1] + b[1]) / 2), b)] if straight else [])
    candidates += [_bent(a, b, o) for o in dict.fromkeys(offsets)]
    best = min(candidates, key=lambda c: (crossings(c, boxes, margin=2.0), candidates.index(c)))
    return shorten(best, gap)


def shorten(curve: Curve, gap: float) -> Curve:
    """The curve cut where it comes within ``gap`` pixels of its end."""
    if math.dist(curve.start, curve.end) <= 2 * gap:
        return curve
    t = 1.0
    while t > 0.5 and math.dist(curve.at(t), curve.end) < gap:
        t -= 0.005
    return curve.head(t)
