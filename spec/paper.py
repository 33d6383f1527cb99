"""The paper's example histories (2015 conference text) with their published verdicts.

* Figure 1 (section 2.2): sequentially consistent.
* Figure 2 (section 2.3): causally consistent, not sequentially consistent.
* Figure 4 (section 3.1/3.2), the execution of the program of Figure 3, with berlin's
  final read ``b?`` in {1, 2, 3}; proximity graph of Figure 5: the edge paris–berlin.
  "If the system is G-fisheye (SC,CC)-consistent, b? can be equal to 2 or 3, but not
  to 1"; under CC, berlin "might still read 1"; under SC "berlin can only read 2 (...)
  or 3 (...), but not 1".
* Figure 6 and Table 1 (section 3.2): processes p, q, r, s, graph p–q, r–s, and the
  values ``x?`` and ``y?`` allowed by SC, CC and fisheye.

Figure 4 in the OCR'd text lists new-york's reads as ``S.read→1 R.read→1``; the program
of Figure 3 waits on R first, then on S (its ``repeat ... until`` loops are waits on a
register's local value), and records only the read that ends each wait, so new-york is
``R.read→1, S.read→1, X.write(3)`` here, as in the contract's example.  The order of
these two reads changes no verdict (both flags are written before the respective
process's final read, by different processes).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from .graph import ProximityGraph, graph_of
from .history import History, Value
from .models import Model

# ---- Figure 1 -------------------------------------------------------------------------

FIGURE1 = History.build({
    "p": [("r", "X", 0), ("w", "X", 3)],
    "q": [("w", "X", 2), ("r", "X", 3)],
})
"""Figure 1: op1_p X.read→0, op2_p X.write(3); op1_q X.write(2), op2_q X.read→3.
Sequentially consistent: X.read→0, X.write(2), X.write(3), X.read→3."""

# ---- Figure 2 -------------------------------------------------------------------------

FIGURE2 = History.build({
    "p": [("w", "X", 2)],
    "q": [("w", "X", 3)],
    "r": [("r", "X", 2), ("r", "X", 3)],
    "s": [("r", "X", 3), ("r", "X", 2)],
})
"""Figure 2: r and s see p's and q's writes on X in opposite orders: CC, not SC."""

# ---- Figure 4 (program of Figure 3, graph of Figure 5) ------------------------------

FIGURE4_PROCESSES = ("paris", "berlin", "new-york")
FIGURE4_EDGES = (("paris", "berlin"),)
FIGURE4_B_VALUES: tuple[int, ...] = (1, 2, 3)


def figure4(b: Value) -> History:
    """Figure 4 with berlin's final read ``X.read→b``; the file graph is Figure 5's."""
    return History.build({
        "paris": [("w", "X", 1), ("w", "R", 1), ("r", "X", 2)],
        "berlin": [("w", "X", 2), ("w", "S", 1), ("r", "X", b)],
        "new-york": [("r", "R", 1), ("r", "S", 1), ("w", "X", 3)],
    }, processes=FIGURE4_PROCESSES, edges=FIGURE4_EDGES)


# ---- Figure 6 and Table 1 ---------------------------------------------------------------

FIGURE6_PROCESSES = ("p", "q", "r", "s")
FIGURE6_EDGES = (("p", "q"), ("r", "s"))
FIGURE6_X_CANDIDATES: tuple[int, ...] = (0, 2, 3)
"""Candidate values of x?: the values written to X (2 and 3) and X's initial value."""
FIGURE6_Y_CANDIDATES: tuple[int, ...] = (0, 4, 5)
"""Candidate values of y?: the values written to Y (4 and 5) and Y's initial value."""


def figure6(x: Value, y: Value) -> History:
    """Figure 6 with s's reads ``x?`` and ``y?`` set to ``x`` and ``y``:
    p: X.write(2), Y.write(4); q: X.write(3), Y.read→4, Y.read→5;
    r: X.read→2, X.read→3, Y.write(5); s: X.read→3, X.read→x?, Y.read→5, Y.read→y?."""
    return History.build({
        "p": [("w", "X", 2), ("w", "Y", 4)],
        "q": [("w", "X", 3), ("r", "Y", 4), ("r", "Y", 5)],
        "r": [("r", "X", 2), ("r", "X", 3), ("w", "Y", 5)],
        "s": [("r", "X", 3), ("r", "X", x), ("r", "Y", 5), ("r", "Y", y)],
    }, processes=FIGURE6_PROCESSES, edges=FIGURE6_EDGES)


@dataclass(frozen=True)
class Table1Row:
    """One line of Table 1: the values of x? and y? a model allows."""

    model: Model
    x: frozenset[int]
    y: frozenset[int]


TABLE1: Mapping[Model, Table1Row] = {
    Model.SC: Table1Row(Model.SC, frozenset({3}), frozenset({5})),
    Model.CC: Table1Row(Model.CC, frozenset({2, 3}), frozenset({4, 5})),
    Model.FISHEYE: Table1Row(Model.FISHEYE, frozenset({3}), frozenset({4, 5})),
}
"""Table 1 as published ("Possible executions for the history of Figure 6"), for the
graph of Figure 6 (p–q, r–s)."""


# ---- published verdicts ---------------------------------------------------------------

@dataclass(frozen=True)
class PaperExample:
    """A history of the paper with a verdict the text states for ``model`` on ``graph``."""

    name: str
    history: History
    model: Model
    graph: ProximityGraph
    consistent: bool
    source: str


def published_verdicts() -> tuple[PaperExample, ...]:
    """Every verdict the 2015 text states about Figures 1, 2 and 4 (Figure 6: TABLE1)."""
    out = [
        PaperExample("figure1", FIGURE1, Model.SC, graph_of(FIGURE1), True, "section 2.2, Figure 1"),
        PaperExample("figure2", FIGURE2, Model.CC, graph_of(FIGURE2), True, "section 2.3, Figure 2"),
        PaperExample("figure2", FIGURE2, Model.SC, graph_of(FIGURE2), False, "section 2.3, Figure 2"),
    ]
    for b in FIGURE4_B_VALUES:
        h = figure4(b)
        out += [
            PaperExample(f"figure4-b{b}", h, Model.CC, graph_of(h), True,
                         "section 3.1: CC allows b? = 1, 2, 3"),
            PaperExample(f"figure4-b{b}", h, Model.SC, graph_of(h), b != 1, "section 3.1: SC allows 2 or 3"),
            PaperExample(f"figure4-b{b}", h, Model.FISHEYE, graph_of(h), b != 1,
                         "section 3.2: fisheye allows 2 or 3, not 1"),
        ]
    return tuple(out)
