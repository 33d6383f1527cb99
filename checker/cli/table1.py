"""``fisheye table1 [--json] [--engine ENGINE]``: reproduce Table 1 of the 2015 text.

For every candidate value of x? (values written to X, and X's initial value) and of y?
(likewise for Y), build the history of Figure 6 (:func:`fisheye.spec.paper.figure6`)
and check it under SC, CC and fisheye for the graph of Figure 6 (p–q, r–s).  A value
of x? is allowed when some consistent history has it (and likewise for y?).  The
2014 definition is added as a last row, which the paper does not publish.

Exit status: 0 when the three published rows are reproduced exactly, 1 otherwise,
3 when a check was unknown."""

from __future__ import annotations

import argparse
import json
from dataclasses import dataclass

from fisheye.spec import paper
from fisheye.spec.graph import ProximityGraph
from fisheye.spec.models import Model

from ..engines import ENGINE_NAMES, check
from ..result import Verdict

MODELS = (Model.SC, Model.CC, Model.FISHEYE, Model.FISHEYE_2014)
TITLES = {
    Model.SC: "Sequential Consistency",
    Model.CC: "Causal Consistency",
    Model.FISHEYE: "G-fisheye (SC,CC)-consistency",
    Model.FISHEYE_2014: "G-fisheye, 2014 definition (not in the paper)",
}


@dataclass(frozen=True)
class Row:
    model: Model
    pairs: tuple[tuple[int, int], ...]  # the consistent (x?, y?) pairs
    unknown: tuple[tuple[int, int], ...]

    @property
    def x(self) -> frozenset[int]:
        return frozenset(x for x, _ in self.pairs)

    @property
    def y(self) -> frozenset[int]:
        return frozenset(y for _, y in self.pairs)

    @property
    def published(self) -> paper.Table1Row | None:
        return paper.TABLE1.get(self.model)

    @property
    def matches(self) -> bool | None:
        pub = self.published
        if pub is None:
            return None
        return not self.unknown and pub.x == self.x and pub.y == self.y


def compute(engine: str = "auto", timeout: float | None = None) -> tuple[Row, ...]:
    """Check every candidate (x?, y?) under every model."""
    rows = []
    for model in MODELS:
        ok, unknown = [], []
        for x in paper.FIGURE6_X_CANDIDATES:
            for y in paper.FIGURE6_Y_CANDIDATES:
                h = paper.figure6(x, y)
                graph = ProximityGraph(h.processes, h.edges)
                verdict = check(h, model, graph, engine=engine, timeout=timeout).verdict
                if verdict is Verdict.CONSISTENT:
                    ok.append((x, y))
                elif verdict is Verdict.UNKNOWN:
                    unknown.append((x, y))
        rows.append(Row(model, tuple(ok), tuple(unknown)))
    return tuple(rows)


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "table1", help="reproduce Table 1 (Figure 6) of the paper",
        description="Check every candidate value of x? and y? in Figure 6 under SC, CC and fisheye "
                    "(graph p:q, r:s) and print Table 1. Exit status: 0 reproduced, 1 not, 3 unknown.")
    p.add_argument("--json", action="store_true", help="print one JSON object on stdout")
    p.add_argument("--engine", default="auto", choices=ENGINE_NAMES,
                   help="z3, direct or auto (default: the fastest that decides)")
    p.set_defaults(func=run)


def _fmt(values: frozenset[int]) -> str:
    items = sorted(values)
    if len(items) == 1:
        return str(items[0])
    return "{" + ",".join(map(str, items)) + "}"


def run(args: argparse.Namespace) -> int:
    rows = compute(args.engine)
    reproduced = all(r.matches for r in rows if r.published is not None)
    if args.json:
        print(json.dumps({
            "graph": [list(e) for e in paper.FIGURE6_EDGES],
            "candidates": {"x": list(paper.FIGURE6_X_CANDIDATES), "y": list(paper.FIGURE6_Y_CANDIDATES)},
            "rows": [{"model": r.model.value, "x": sorted(r.x), "y": sorted(r.y),
                      "pairs": [list(p) for p in r.pairs], "unknown": [list(p) for p in r.unknown],
                      "paper": None if r.published is None else
                      {"x": sorted(r.published.x), "y": sorted(r.published.y)},
                      "matches_paper": r.matches} for r in rows],
            "reproduced": reproduced,
        }))
    else:
        from rich.console import Console
        from rich.table import Table

        table = Table(title="Table 1. Possible executions for the history of Figure 6 (graph p:q, r:s)")
        for col in ("Consistency", "x?", "y?", "(x?, y?) pairs", "paper"):
            table.add_column(col)
        for r in rows:
            mark = "-" if r.matches is None else ("matches" if r.matches else "DIFFERS")
            table.add_row(TITLES[r.model], _fmt(r.x), _fmt(r.y),
                          " ".join(f"({x},{y})" for x, y in r.pairs), mark)
        console = Console(width=120)
        console.print(table)
        console.print("Table 1 reproduced." if reproduced else "Table 1 NOT reproduced.")
    if any(r.unknown for r in rows):
        return 3
    return 0 if reproduced else 1
