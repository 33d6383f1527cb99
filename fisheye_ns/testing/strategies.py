"""Hypothesis strategies for histories, proximity graphs, programs and schedules.

Importable without pytest (it needs ``hypothesis``, an extra of ``fisheye[test]``);
product code never imports it::

    from fisheye.testing.strategies import histories, sc_histories, cc_histories, graphs

* :func:`histories`: random small histories (section 2.1), with distinct written values
  (each read returns a value written to its register, or the initial value) or with
  repeated values (then the read-from map is ambiguous:
  the causal order ~>H of section 2.2 then depends on it);
* :func:`sc_histories`: consistent by construction for SC (section 2.2): the operations
  of a random serialisation, each read returning the current value;
* :func:`cc_histories`: consistent by construction for CC (section 2.3, Ahamad et al.'s
  causal memory): random per-process views (linear extensions) of a random causal
  order on the writes, each process reading from its own view
  (:func:`causal_history`);
* :func:`graphs` and :func:`graph_pairs`: proximity graphs (section 3.1) over given
  processes, and pairs ``(G', G)`` with ``G' ⊆ G``;
* :func:`programs`: programs of Algorithm 2 (section 4.2: reads and writes of shared
  registers per process), as :class:`fisheye.impl.programs.Program`;
* :func:`schedules`: runs of a system (a system of :mod:`fisheye.impl.api`), each a
  sequence of steps enabled one after the other from its initial state.

All register initial values are 0 (the contract's default).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from itertools import combinations

from hypothesis import strategies as st

from fisheye.impl.api import Step, System
from fisheye.impl.programs import Program, Read, Write
from fisheye.spec.graph import ProximityGraph
from fisheye.spec.history import History

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
def histories(draw: st.DrawFn, *, min_processes: int = 1, max_processes: int = 4,
              min_ops: int = 0, max_ops: int = 8,
              registers: Sequence[str] = DEFAULT_REGISTERS, repeated_values: bool = False) -> History:
    """A random history (in general not consistent for any model).

    Without ``repeated_values``: every write writes a fresh value (1, 2, ...) and each
    read returns a value written to its register somewhere in the history, or 0.  With
    ``repeated_values``: writes and reads draw values from {0, 1, 2} (0 is also the
    initial value), so several writes may supply the same read."""
    n = draw(st.integers(min_processes, max_processes))
    procs = process_names(n)
    count = draw(st.integers(min_ops, max_ops))
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
def sc_histories(draw: st.DrawFn, *, min_processes: int = 1, max_processes: int = 4,
                 min_ops: int = 0, max_ops: int = 8,
                 registers: Sequence[str] = DEFAULT_REGISTERS, repeated_values: bool = False) -> History:
    """A sequentially consistent history: a random serialisation of operations on one
    memory (each read returns the value of the last write before it), split by
    process.  The serialisation itself is a witness."""
    n = draw(st.integers(min_processes, max_processes))
    procs = process_names(n)
    count = draw(st.integers(min_ops, max_ops))
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
def cc_histories(draw: st.DrawFn, *, min_processes: int = 1, max_processes: int = 4,
                 min_ops: int = 0, max_ops: int = 8,
                 registers: Sequence[str] = DEFAULT_REGISTERS, repeated_values: bool = False) -> History:
    """A causally consistent history: :func:`causal_history` driven by a Random that
    Hypothesis seeds."""
    # One seeded Random makes the construction a plain function that scripts can reuse
    # (causal_history); Hypothesis then shrinks the seed, not the history.
    rnd = random.Random(draw(st.integers(0, 2**32 - 1)))
    return causal_history(rnd, min_processes=min_processes, max_processes=max_processes, min_ops=min_ops,
                          max_ops=max_ops, registers=registers, repeated_values=repeated_values)


def causal_history(rnd: random.Random, *, min_processes: int = 1, max_processes: int = 4,
                   min_ops: int = 0, max_ops: int = 8, registers: Sequence[str] = DEFAULT_REGISTERS,
                   repeated_values: bool = False) -> History:
    """A causally consistent history from random per-process views of a random causal
    order (section 2.3), every choice drawn from ``rnd``.

    1. The shape: a random sequence of (process, kind, register); each process's
       operations in that order are its process order.  Half the time the shape is
       that of litmus tests (store buffering, Figure 2): each process writes at most
       once, all writes first.  Reads mostly read registers other processes write.
    2. A random causal order ``C`` on the writes: process order, plus random edges from
       earlier to later writes of other processes (about one pair in seven), closed.
    3. For each process ``p`` a view ``V_p``: a random linear extension of ``C``.
    4. The reads of ``p`` are placed in ``V_p`` in process order, between ``p``'s
       surrounding writes, and return the value of the last write to their register
       before them (or 0).  A read placed before ``p``'s next write ``w'`` may only read
       from ⊥ or from a ``C``-predecessor of ``w'``; otherwise it falls back to the
       position and register of ``p``'s previous read (or to ``p``'s own last write).

    Then ``~>H`` restricted to the writes is contained in ``C`` (a read's source
    precedes the reader's next write in ``C``, and paths of ``~>H`` between writes
    leave a process only through such a read), so each ``V_p`` with ``p``'s reads is a
    legal view of ``H|(p + W)`` respecting ``~>H``: the history is CC.  The views are
    independent, so histories that are CC but not SC occur (a few percent at 8
    operations: small histories are rarely anything but SC)."""
    n = rnd.randint(min_processes, max_processes)
    procs = process_names(n)
    count = rnd.randint(min_ops, max_ops)
    regs = tuple(registers)
    shape = [(rnd.choice(procs), rnd.choice(("r", "w", "r")), rnd.choice(regs)) for _ in range(count)]
    if rnd.random() < 0.5:
        # Half the time, the shape of litmus tests (store buffering, Figure 2): every
        # process writes at most once, and all writes come first.
        writers = {p for p, _, _ in shape[: min(n, count // 2)]}
        shape = [(p, "w", rnd.choice(regs)) for p in sorted(writers)] + [
            (rnd.choice(procs), "r", rnd.choice(regs)) for _ in range(count - len(writers))]
    for k, (p, kind, _) in enumerate(shape):
        # Reads mostly read registers that other processes write: the interesting reads.
        others = sorted({r for q, t, r in shape if t == "w" and q != p})
        if kind == "r" and others and rnd.random() < 0.75:
            shape[k] = (p, kind, rnd.choice(others))
    writes = [k for k, (_, kind, _) in enumerate(shape) if kind == "w"]
    value = {k: rnd.randint(0, 2) if repeated_values else i + 1 for i, k in enumerate(writes)}
    # 2. the causal order C on writes, as predecessor sets (closed transitively)
    before: dict[int, set[int]] = {}
    for j in writes:
        preds: set[int] = set()
        for i in writes:
            if i >= j:
                break
            if shape[i][0] == shape[j][0] or rnd.random() < 0.15:
                preds |= {i} | before[i]
        before[j] = preds
    ops: dict[int, tuple[str, str, str, int]] = {k: (shape[k][0], "w", shape[k][2], value[k]) for k in writes}
    for p in procs:
        # 3. a random linear extension of C
        view: list[int] = []
        left = list(writes)
        while left:
            ready = [k for k in left if before[k] <= set(view)]
            k = rnd.choice(ready)
            view.append(k)
            left.remove(k)
        at = {k: i for i, k in enumerate(view)}  # write k is at position at[k]; reads at slots
        mine = [k for k, (q, _, _) in enumerate(shape) if q == p]
        # 4. place p's reads: slot s means "after the first s writes of the view"
        slot, reg_prev = 0, None
        last_write: int | None = None
        for idx, k in enumerate(mine):
            if shape[k][1] == "w":
                last_write, slot, reg_prev = k, at[k] + 1, None
                continue
            nxt = next((m for m in mine[idx + 1:] if shape[m][1] == "w"), None)
            hi = at[nxt] if nxt is not None else len(view)

            def source(s: int, reg: str, view: list[int] = view) -> int | None:
                return next((view[i] for i in range(s - 1, -1, -1) if shape[view[i]][2] == reg), None)

            def valid(s: int, reg: str, nxt: int | None = nxt) -> bool:
                src = source(s, reg)
                return nxt is None or src is None or src in before[nxt]

            reg = shape[k][2]
            choices = [s for s in range(slot, hi + 1) if valid(s, reg)]
            if choices:
                # stale reads (the earliest slot) make views diverge: favour them
                slot = choices[0] if rnd.random() < 0.5 else rnd.choice(choices)
            elif reg_prev is not None:
                reg = reg_prev  # same slot and register as p's previous read: valid
            else:
                reg = shape[last_write][2] if last_write is not None else reg  # reads p's own write
            src = source(slot, reg)
            ops[k] = (p, "r", reg, 0 if src is None else value[src])
            reg_prev = reg
    return _build(procs, [ops[k] for k in range(count)])


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


@st.composite
def programs(draw: st.DrawFn, *, min_processes: int = 2, max_processes: int = 3, max_ops: int = 2,
             registers: Sequence[str] = DEFAULT_REGISTERS) -> Program:
    """A program of Algorithm 2 for processes ``p0, p1, ...``: up to ``max_ops`` reads
    and writes per process, each write of a fresh value (1, 2, ... in process order),
    no await (a program without awaits never blocks)."""
    n = draw(st.integers(min_processes, max_processes))
    fresh = 0
    progs: dict[str, list[Write | Read]] = {}
    for p in process_names(n):
        ops: list[Write | Read] = []
        for _ in range(draw(st.integers(0, max_ops))):
            reg = draw(st.sampled_from(tuple(registers)))
            if draw(st.booleans()):
                ops.append(Read(reg))
            else:
                fresh += 1
                ops.append(Write(reg, fresh))
        progs[p] = ops
    return Program.of(progs)


@st.composite
def schedules(draw: st.DrawFn, system: System, *, max_steps: int = 200) -> tuple[Step, ...]:
    """A run of ``system`` from its initial state: at each state one of the enabled
    steps, until none is enabled or ``max_steps`` were taken.  Hypothesis shrinks a
    failing run towards earlier choices among the enabled steps (the first enabled one
    at each state)."""
    state = system.initial()
    out: list[Step] = []
    for _ in range(max_steps):
        enabled = system.enabled(state)
        if not enabled:
            break
        step = enabled[draw(st.integers(0, len(enabled) - 1))]
        state = system.apply(state, step)
        out.append(step)
    return tuple(out)


# ---- real time, cas and maybe operations (lin, fisheye-lin) --------------------------------

def _timed_shape(rnd: random.Random, n: int, count: int, registers: Sequence[str], *, cas: bool,
                 crashes: bool) -> list[dict]:
    """Per process, operations with real-time intervals on one clock: each invoked at or
    after the previous one of its process completed, so processes overlap freely.  The
    last operation of a process may be left running (a crash, ``complete`` None) or
    marked ``maybe``.  Values are filled in by the caller."""
    procs = process_names(n)
    kinds = ("w", "r", "cas") if cas else ("w", "r")
    per: dict[str, list[dict]] = {p: [] for p in procs}
    for _ in range(count):
        p = rnd.choice(procs)
        per[p].append({"process": p, "kind": rnd.choice(kinds), "register": rnd.choice(tuple(registers))})
    out: list[dict] = []
    for p in procs:
        t = rnd.randint(0, 3)
        for k, op in enumerate(per[p]):
            op["invoke"] = t
            op["complete"] = t + rnd.randint(0, 4)
            t = op["complete"] + rnd.randint(0, 2)
            last = k == len(per[p]) - 1
            if last and crashes and op["kind"] != "r" and rnd.random() < 0.4:
                op["maybe"] = rnd.random() < 0.7
                if rnd.random() < 0.5:
                    op["complete"] = None
            out.append(op)
    return out


def _history_of(n: int, ops: Sequence[dict]) -> History:
    data: dict[str, list[list]] = {p: [] for p in process_names(n)}
    for op in ops:
        body = [op["old"], op["value"]] if op["kind"] == "cas" else op["value"]
        ext: dict = {"t": [op["invoke"], op["complete"]]}
        if op.get("maybe"):
            ext["maybe"] = True
        data[op["process"]].append([op["kind"], op["register"], body, ext])
    return History.build(data, processes=process_names(n))


def timed_history(rnd: random.Random, *, min_processes: int = 1, max_processes: int = 4, min_ops: int = 0,
                  max_ops: int = 8, registers: Sequence[str] = DEFAULT_REGISTERS, cas: bool = True,
                  crashes: bool = True, linearizable: bool = False) -> History:
    """A random history with real time (every choice drawn from ``rnd``).

    With ``linearizable``: each operation gets a linearization point inside its
    interval (after its invocation, for one that never returned), the register values
    are simulated in the order of the points, and reads and cas return what they find
    (a ``maybe`` operation takes effect or not at random; one that does not may
    return anything); the history is then linearizable by construction, the points'
    order being a witness.  Otherwise values are drawn from {0, 1, 2} (0 is the
    initial value), and any verdict may come out."""
    n = rnd.randint(min_processes, max_processes)
    count = rnd.randint(min_ops, max_ops)
    ops = _timed_shape(rnd, n, count, registers, cas=cas, crashes=crashes)
    if not linearizable:
        for op in ops:
            op["value"] = rnd.randint(0, 2)
            op["old"] = rnd.randint(0, 2)
        return _history_of(n, ops)
    horizon = max([op["complete"] or op["invoke"] for op in ops], default=0) + 2
    points = []
    for k, op in enumerate(ops):
        end = op["complete"] if op["complete"] is not None else horizon
        points.append((rnd.uniform(op["invoke"], end), k))
    memory: dict[str, int] = {}
    fresh = 0
    for _, k in sorted(points):
        op = ops[k]
        fresh += 1
        took_effect = not op.get("maybe") or rnd.random() < 0.5
        current = memory.get(op["register"], 0)
        if op["kind"] == "r":
            op["value"] = current
            continue
        op["value"] = fresh if rnd.random() < 0.7 else rnd.randint(0, 2)
        op["old"] = current if took_effect else rnd.randint(0, 2)
        if took_effect:
            memory[op["register"]] = op["value"]
    return _history_of(n, ops)


@st.composite
def timed_histories(draw: st.DrawFn, *, min_processes: int = 1, max_processes: int = 4, min_ops: int = 0,
                    max_ops: int = 8, registers: Sequence[str] = DEFAULT_REGISTERS, cas: bool = True,
                    crashes: bool = True, linearizable: bool = False) -> History:
    """:func:`timed_history` driven by a Random that Hypothesis seeds."""
    rnd = random.Random(draw(st.integers(0, 2**32 - 1)))
    return timed_history(rnd, min_processes=min_processes, max_processes=max_processes, min_ops=min_ops,
                         max_ops=max_ops, registers=registers, cas=cas, crashes=crashes,
                         linearizable=linearizable)
