"""A space-time diagram of an explained history, in the terminal (issue 7, item 3).

One line per process, its operations left to right; an operation's column is its depth
in process order ∪ read-from (so every read-from arrow points right).  The core's
operations carry their names (``A``, ``B``...), the others are dimmed with ``.``.  Below
the lines: the read-from arrows, the proximity graph's edges and the contradicting
cycles.  :func:`layout` is shared with :mod:`fisheye.checker.explain.svg`.
"""

from __future__ import annotations

from dataclasses import dataclass

from fisheye.spec.causal import candidate_sources
from fisheye.spec.history import History

from .argument import Explanation, Leaf, _leaves, op_text


@dataclass(frozen=True)
class Layout:
    """Row of each process, column of each operation (uids of the full history),
    read-from pairs (write uid, read uid; one candidate source per read)."""

    rows: dict[str, int]
    cols: dict[int, int]
    rf: tuple[tuple[int, int], ...]
    width: int


def read_from_guess(history: History) -> tuple[tuple[int, int], ...]:
    """For the picture: each read's source, preferring a write of another process
    (the first candidate otherwise); reads of the initial value have none."""
    out = []
    for r in history.reads:
        srcs = [s for s in candidate_sources(history, r) if s is not None]
        if srcs:
            others = [s for s in srcs if history.ops[s].process != r.process]
            out.append(((others or srcs)[-1], r.uid))
    return tuple(out)


def layout(history: History) -> Layout:
    rf = read_from_guess(history)
    preds: dict[int, list[int]] = {op.uid: [] for op in history.ops}
    for op in history.ops:
        if op.index > 0:
            preds[op.uid].append(op.uid - 1)
    for w, r in rf:
        preds[r].append(w)
    cols: dict[int, int] = {}
    # longest path depth; a cycle through read-from falls back to the process index
    for _ in range(len(history.ops) + 1):
        changed = False
        for op in history.ops:
            c = max((cols.get(p, 0) + 1 for p in preds[op.uid]), default=0)
            if cols.get(op.uid) != c:
                cols[op.uid] = c
                changed = True
        if not changed:
            break
    else:
        cols = {op.uid: op.index for op in history.ops}
    rows = {p: i for i, p in enumerate(history.processes)}
    width = max(cols.values(), default=0) + 1
    return Layout(rows, cols, rf, width)


def core_names(exp: Explanation) -> dict[int, str]:
    """Name of each core operation, by uid in the FULL history."""
    return {orig: exp.names[i] for i, orig in enumerate(exp.core.uids)}


def cycles(exp: Explanation) -> list[tuple[str, list[str]]]:
    """Every contradicting cycle of the argument: (order name, operation names)."""
    from .argument import order_name

    if exp.proof is None:
        return []
    out = []
    for leaf in _leaves(exp.proof.root):
        assert isinstance(leaf, Leaf)
        facts = exp.proof.facts
        names = [exp.n(facts[leaf.cycle[0]].lit.a)] + [exp.n(facts[f].lit.b) for f in leaf.cycle]
        out.append((order_name(leaf.ctx), names))
    return out


def render(exp: Explanation) -> str:
    h = exp.history
    lay = layout(h)
    names = core_names(exp)
    cell = max([len(op_text(op)) + 3 for op in h.ops] + [8])
    pw = max(len(p) for p in h.processes) + 1
    lines = ["Space-time diagram (core operations named; . marks the others):"]
    for p in h.processes:
        cells = ["-" * cell] * lay.width
        for op in h.of(p):
            label = f"{names[op.uid]}:{op_text(op)}" if op.uid in names else f".{op_text(op)}"
            cells[lay.cols[op.uid]] = ("-" + label).ljust(cell, "-")
        lines.append(f"{p.rjust(pw)} |" + "".join(cells) + ">")
    arrows = [f"{names.get(w, h.ops[w].label())} -> {names.get(r, h.ops[r].label())}"
              for w, r in lay.rf if w in names and r in names]
    if arrows:
        lines.append("read-from (core): " + ", ".join(arrows))
    edges = ", ".join(f"{a} -- {b}" for a, b in exp.graph.edges) or "none"
    lines.append(f"proximity graph: {edges}")
    for order, cyc in cycles(exp):
        lines.append(f"cycle in {order}: " + " < ".join(cyc))
    return "\n".join(lines)
