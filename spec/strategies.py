"""Public Hypothesis strategies for histories and proximity graphs.

Importable without pytest (it needs ``hypothesis``, an extra of ``fisheye[test]``)::

    from fisheye.spec.strategies import histories, sc_histories, cc_histories, graphs

* :func:`histories`: random small histories (section 2.1), with distinct written values
  (each read returns a value written to its register, or the initial value) or with
  repeated values (then the read-from map is ambiguous, notes item 3);
* :func:`sc_histories`: consistent by construction for SC (section 2.2): the operations
  of a random serialisation, each read returning the current value;
* :func:`cc_histories`: consistent by construction for CC (section 2.3, Ahamad et al.'s
  causal memory): a random run of the classic causal memory, where every process
  applies writes in a causal delivery order (vector clocks) and reads its local copy.
  Each process's view is thus a linear extension of the causal order of the run;
* :func:`graphs` and :func:`graph_pairs`: proximity graphs (section 3.1) over given
  processes, and pairs ``(G', G)`` with ``G' ⊆ G``.

All register initial values are 0 (the contract's default).
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import combinations

from hypothesis import strategies as st

from .graph import ProximityGraph
from .history import History

DEFAULT_REGISTERS: tuple[str, ...] = ("X", "Y")


def process_names(n: int) -> tuple[str, ...]:
    """``p0``, ``p1``, ...: the process names the strategies use."""
    return tuple(f"p{i}" for i in range(n))


def _build(processes: Sequence[str], ops: Sequence[tuple[str, str, str, int]]) -> History:
    data: dict[str, list[tuple[str, str, int]]] = {p: [] for p in processes}
    for p, kind, reg, value in ops:
        data[p].append((kind, reg, value))
    return History.build(data, processes=processes)


@st.composite
def histories(draw: st.DrawFn, *, min_processes: int = 1, max_processes: int = 4, max_ops: int = 8,
              registers: Sequence[str] = DEFAULT_REGISTERS, repeated_values: bool = False) -> History:
    """A random history (in general not consistent for any model).

    Without ``repeated_values``: every write writes a fresh value (1, 2, ...) and each
    read returns a value written to its register somewhere in the history, or 0.  With
    ``repeated_values``: writes and reads draw values from {0, 1, 2} (0 is also the
    initial value), so several writes may supply the same read."""
    n = draw(st.integers(min_processes, max_processes))
    procs = process_names(n)
    count = draw(st.integers(0, max_ops))
    shape = draw(st.lists(st.tuples(st.sampled_from(procs), st.sampled_from(("w", "r")),
                                    st.sampled_from(tuple(registers))), min_size=count, max_size=count))
    ops: list[tuple[str, str, str, int]] = []
    if repeated_values:
        for p, kind, reg in shape:
            ops.append((p, kind, reg, draw(st.integers(0, 2))))
        return _build(procs, ops)
    written: dict[str, list[int]] = {}
    fresh = 0
    for _p, kind, reg in shape:
        if kind == "w":
            fresh += 1
            written.setdefault(reg, []).append(fresh)
    fresh = 0
    for p, kind, reg in shape:
        if kind == "w":
            fresh += 1
            ops.append((p, kind, reg, fresh))
        else:
            ops.append((p, kind, reg, draw(st.sampled_from([0] + written.get(reg, [])))))
    return _build(procs, ops)


def _value(draw: st.DrawFn, repeated_values: bool, fresh: int) -> int:
    return draw(st.integers(0, 2)) if repeated_values else fresh


@st.composite
def sc_histories(draw: st.DrawFn, *, min_processes: int = 1, max_processes: int = 4, max_ops: int = 8,
                 registers: Sequence[str] = DEFAULT_REGISTERS, repeated_values: bool = False) -> History:
    """A sequentially consistent history: a random serialisation of operations on one
    memory (each read returns the value of the last write before it), split by
    process.  The serialisation itself is a witness."""
    n = draw(st.integers(min_processes, max_processes))
    procs = process_names(n)
    count = draw(st.integers(0, max_ops))
    memory: dict[str, int] = dict.fromkeys(registers, 0)
    ops: list[tuple[str, str, str, int]] = []
    for k in range(count):
        p = draw(st.sampled_from(procs))
        reg = draw(st.sampled_from(tuple(registers)))
        if draw(st.booleans()):
            memory[reg] = _value(draw, repeated_values, k + 1)
            ops.append((p, "w", reg, memory[reg]))
        else:
            ops.append((p, "r", reg, memory[reg]))
    return _build(procs, ops)


@st.composite
def cc_histories(draw: st.DrawFn, *, min_processes: int = 1, max_processes: int = 4, max_ops: int = 8,
                 registers: Sequence[str] = DEFAULT_REGISTERS, repeated_values: bool = False) -> History:
    """A causally consistent history: a random run of a causal memory.

    Each process keeps a local copy of every register and a vector clock.  A write
    applies locally and is broadcast; a process applies a remote write only when it is
    causally deliverable (the writer's entry is the next one, all other entries already
    seen); a read returns the local copy.  Each process's local order of applied writes
    and own operations is then a legal view respecting the causal order of the run."""
    n = draw(st.integers(min_processes, max_processes))
    procs = process_names(n)
    count = draw(st.integers(0, max_ops))
    local = {p: dict.fromkeys(registers, 0) for p in procs}
    clock = {p: [0] * n for p in procs}
    sent: list[tuple[int, tuple[int, ...], str, int]] = []  # (writer index, vc, register, value)
    applied: dict[str, set[int]] = {p: set() for p in procs}
    ops: list[tuple[str, str, str, int]] = []

    def deliverable(p: str) -> list[int]:
        vc = clock[p]
        out = []
        for m, (j, mvc, _, _) in enumerate(sent):
            if m in applied[p]:
                continue
            if mvc[j] == vc[j] + 1 and all(mvc[k] <= vc[k] for k in range(n) if k != j):
                out.append(m)
        return out

    steps = 0
    while len(ops) < count and steps < 4 * max_ops + 8:
        steps += 1
        p = draw(st.sampled_from(procs))
        i = procs.index(p)
        ready = deliverable(p)
        action = draw(st.sampled_from(("write", "read", "deliver") if ready else ("write", "read")))
        if action == "deliver":
            m = draw(st.sampled_from(ready))
            j, mvc, reg, value = sent[m]
            local[p][reg] = value
            clock[p][j] = mvc[j]
            applied[p].add(m)
        elif action == "write":
            reg = draw(st.sampled_from(tuple(registers)))
            value = _value(draw, repeated_values, len(ops) + 1)
            clock[p][i] += 1
            local[p][reg] = value
            applied[p].add(len(sent))
            sent.append((i, tuple(clock[p]), reg, value))
            ops.append((p, "w", reg, value))
        else:
            reg = draw(st.sampled_from(tuple(registers)))
            ops.append((p, "r", reg, local[p][reg]))
    return _build(procs, ops)


@st.composite
def graphs(draw: st.DrawFn, processes: Sequence[str]) -> ProximityGraph:
    """A random proximity graph over ``processes`` (any subset of the possible edges)."""
    pairs = list(combinations(tuple(processes), 2))
    chosen = draw(st.lists(st.booleans(), min_size=len(pairs), max_size=len(pairs)))
    return ProximityGraph(tuple(processes), tuple(e for e, keep in zip(pairs, chosen, strict=True) if keep))


@st.composite
def graph_pairs(draw: st.DrawFn, processes: Sequence[str]) -> tuple[ProximityGraph, ProximityGraph]:
    """``(G', G)`` over ``processes`` with ``G' ⊆ G``."""
    g = draw(graphs(processes))
    keep = draw(st.lists(st.booleans(), min_size=len(g.edges), max_size=len(g.edges)))
    sub = ProximityGraph(g.processes, tuple(e for e, k in zip(g.edges, keep, strict=True) if k))
    return sub, g


@st.composite
def histories_with_graph(draw: st.DrawFn, base: st.SearchStrategy[History] | None = None
                         ) -> tuple[History, ProximityGraph]:
    """A history (from ``base``, default :func:`histories`) and a graph over its processes."""
    h = draw(base if base is not None else histories())
    return h, draw(graphs(h.processes))
