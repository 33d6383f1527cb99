"""A space-time diagram of an explained history, in the terminal.

Only the core and its context are drawn: the core's operations, the operation just
before and just after each of them in process order, and the write each core read
most likely reads from (:func:`shown`); at most :data:`MAX_SHOWN` operations, so the
picture stays small on a history of thousands of operations.  One line per process
that has a drawn operation, operations left to right; an operation's column is its
depth in process order ∪ read-from among the drawn operations (so every read-from
arrow points right).  ``+k`` before an operation counts the operations of its process
not drawn since the previous one.  Core operations carry their names (``A``, ``B``...),
context ones a ``.``.  Below the lines: the legend, the read-from arrows, the proximity
graph's edges and the contradicting cycles.  :func:`layout` is shared with
:mod:`fisheye.checker.explain.svg` and :mod:`fisheye.checker.explain.html`.
"""

from __future__ import annotations

from dataclasses import dataclass

from fisheye.spec.history import History

from .core import all_candidate_sources
from .explanation import Explanation
from .prover import Leaf, leaves
from .words import op_text, order_name

MAX_SHOWN = 60      # operations drawn at most (core first)
MAX_LABEL = 32      # characters of an operation's text at most


@dataclass(frozen=True)
class Layout:
    """What is drawn: ``uids`` (full-history uids, sorted), the rows of the processes
    drawn, the column of each drawn operation, read-from pairs among drawn operations
    (write uid, read uid), ``hidden_before[u]``: operations of u's process not drawn
    between the previous drawn one and u; ``hidden_after[p]``: not drawn after the last;
    ``hidden_processes``: processes with nothing drawn."""

    uids: tuple[int, ...]
    rows: dict[str, int]
    cols: dict[int, int]
    rf: tuple[tuple[int, int], ...]
    width: int
    hidden_before: dict[int, int]
    hidden_after: dict[str, int]
    hidden_processes: tuple[str, ...]
    core_cut: int = 0   # core operations not drawn (a core larger than MAX_SHOWN)


def read_from_guess(history: History) -> dict[int, int]:
    """For the picture: each read's source, preferring a write of another process
    (the last candidate otherwise); reads of the initial value have none."""
    out = {}
    every = all_candidate_sources(history)
    for r in history.reads:
        srcs = [s for s in every[r.uid] if s is not None]
        if srcs:
            others = [s for s in srcs if history.ops[s].process != r.process]
            out[r.uid] = (others or srcs)[-1]
    return out


def shown(history: History, core: tuple[int, ...], cycle_ops: tuple[int, ...] = (),
          limit: int = MAX_SHOWN) -> tuple[tuple[int, ...], int]:
    """The operations drawn: the core (those of the contradicting cycles first, when the
    core exceeds ``limit``), then the context (neighbours in process order, sources of
    the core's reads) while room is left.  Returns the uids and how many core operations
    are left out."""
    first = list(dict.fromkeys([u for u in cycle_ops if u in set(core)] + list(core)))
    picked = first[:limit]
    cut = len(first) - len(picked)
    chosen = set(picked)
    rf = read_from_guess(history)
    context: list[int] = []
    for u in picked:
        op = history.ops[u]
        mine = history.of(op.process)
        k = op.index
        if k > 0:
            context.append(mine[k - 1].uid)
        if k + 1 < len(mine):
            context.append(mine[k + 1].uid)
        if op.is_read and u in rf:
            context.append(rf[u])
    for u in context:
        if len(chosen) >= limit:
            break
        chosen.add(u)
    return tuple(sorted(chosen)), cut


def layout(history: History, uids: tuple[int, ...] | None = None, core_cut: int = 0) -> Layout:
    if uids is None:
        uids = tuple(op.uid for op in history.ops)
    drawn = set(uids)
    rf_all = read_from_guess(history)
    rf = tuple((w, r) for r, w in sorted(rf_all.items()) if r in drawn and w in drawn)
    preds: dict[int, list[int]] = {u: [] for u in uids}
    hidden_before: dict[int, int] = {}
    hidden_after: dict[str, int] = {}
    for p in history.processes:
        last = -1
        prev_uid = None
        for op in history.of(p):
            if op.uid not in drawn:
                continue
            hidden_before[op.uid] = op.index - last - 1
            if prev_uid is not None:
                preds[op.uid].append(prev_uid)
            prev_uid, last = op.uid, op.index
        if prev_uid is not None:
            hidden_after[p] = len(history.of(p)) - last - 1
    for w, r in rf:
        preds[r].append(w)
    cols: dict[int, int] = {}
    # longest-path depth; a cycle through read-from falls back to the order of drawing
    for _ in range(len(uids) + 1):
        changed = False
        for u in uids:
            c = max((cols.get(p, 0) + 1 for p in preds[u]), default=0)
            if cols.get(u) != c:
                cols[u] = c
                changed = True
        if not changed:
            break
    else:
        cols = {}
        for p in history.processes:
            for k, op in enumerate(o for o in history.of(p) if o.uid in drawn):
                cols[op.uid] = k
    procs = [p for p in history.processes if p in hidden_after]
    rows = {p: i for i, p in enumerate(procs)}
    hidden_procs = tuple(p for p in history.processes if p not in rows)
    width = max(cols.values(), default=0) + 1
    return Layout(tuple(uids), rows, cols, rf, width, hidden_before, hidden_after, hidden_procs, core_cut)


def explanation_layout(exp: Explanation) -> Layout:
    """The layout of the core and its context."""
    cyc = tuple(u for _, pairs in cycle_pairs(exp) for pair in pairs for u in pair)
    uids, cut = shown(exp.history, exp.core.uids, cyc)
    return layout(exp.history, uids, cut)


def core_names(exp: Explanation) -> dict[int, str]:
    """Name of each core operation, by uid in the FULL history."""
    return {orig: exp.names[i] for i, orig in enumerate(exp.core.uids)}


def cycles(exp: Explanation) -> list[tuple[str, str]]:
    """Every contradicting cycle of the argument: (the order the case ends in, the cycle
    with each step's own relation: ``<`` in that order, ``<*`` the star order, ``~>``
    the causal order ~>H)."""
    if exp.proof is None:
        return []
    facts = exp.proof.facts
    out = []
    for leaf in leaves(exp.proof.root):
        assert isinstance(leaf, Leaf)
        first = facts[leaf.cycle[0]].lit
        parts = [exp.n(first.a)]
        for f in leaf.cycle:
            lit = facts[f].lit
            rel = {"star": "<*", "hb": "~>"}.get(lit.ctx, "<") if lit.ctx != leaf.ctx else "<"
            parts.append(f"{rel} {exp.n(lit.b)}")
        out.append((order_name(leaf.ctx), " ".join(parts)))
    return out


def cycle_pairs(exp: Explanation) -> list[tuple[str, list[tuple[int, int]]]]:
    """Each contradicting cycle as consecutive pairs of FULL-history uids."""
    if exp.proof is None:
        return []
    out = []
    facts = exp.proof.facts
    for leaf in leaves(exp.proof.root):
        assert isinstance(leaf, Leaf)
        pairs = [(exp.core.uids[facts[f].lit.a], exp.core.uids[facts[f].lit.b]) for f in leaf.cycle]
        out.append((order_name(leaf.ctx), pairs))
    return out


def clip(text: str, n: int = MAX_LABEL) -> str:
    return text if len(text) <= n else text[: n - 1] + "…"


def label(exp: Explanation, uid: int, names: dict[int, str]) -> str:
    op = exp.history.ops[uid]
    text = clip(op_text(op, exp.absent))
    return f"{names[uid]}:{text}" if uid in names else f".{text}"


def render(exp: Explanation) -> str:
    h = exp.history
    lay = explanation_layout(exp)
    names = core_names(exp)
    labels = {u: (f"+{lay.hidden_before[u]} " if lay.hidden_before[u] else "") + label(exp, u, names)
              for u in lay.uids}
    colw = [8] * lay.width
    for u in lay.uids:
        colw[lay.cols[u]] = max(colw[lay.cols[u]], len(labels[u]) + 3)
    pw = max((len(clip(p, 24)) for p in lay.rows), default=1) + 1
    total = len(h.ops)
    head = "Space-time diagram"
    if len(lay.uids) < total:
        head += f" of the core and its context ({len(lay.uids)} of {total} operations)"
    lines = [head + ":"]
    for p in lay.rows:
        cells = ["-" * w for w in colw]
        for op in h.of(p):
            if op.uid in lay.cols:
                c = lay.cols[op.uid]
                cells[c] = ("-" + labels[op.uid]).ljust(colw[c], "-")
        tail = f" +{lay.hidden_after[p]}" if lay.hidden_after[p] else ""
        lines.append(f"{clip(p, 24).rjust(pw)} |" + "".join(cells) + ">" + tail)
    lines.append("legend: A:op a core operation (named in the argument), .op a context operation, "
                 "+k k operations of the process not drawn")
    if lay.hidden_processes:
        lines.append(f"not drawn: {len(lay.hidden_processes)} process(es) with no operation near the core")
    if lay.core_cut:
        lines.append(f"not drawn: {lay.core_cut} core operations (the diagram is limited to {MAX_SHOWN})")
    arrows = [f"{names[w]} -> {names[r]}" for w, r in lay.rf if w in names and r in names]
    if arrows:
        lines.append("read-from (core): " + ", ".join(arrows))
    drawn = [(a, b) for a, b in exp.graph.edges if a in lay.rows and b in lay.rows]
    edges = ", ".join(f"{a}:{b}" for a, b in drawn) or "none"
    more = len(exp.graph.edges) - len(drawn)
    other = f" (and {more} edges between other processes)" if more else ""
    lines.append(f"proximity graph: {edges}{other}")
    for order, cyc in cycles(exp):
        lines.append(f"contradiction (a case ending in {order}): {cyc}")
    if exp.proof is not None:
        lines.append("relations: < the order named, <* the star order, ~> the causal order ~>H")
    return "\n".join(lines)
