"""Witness validators: the reference every engine is judged by.

``problems(history, model, graph, witness)`` returns the list of clauses of the
definition that the witness fails (empty: the witness proves the history consistent).
Each check cites the clause of the 2015 conference text (``fisheye``, ``sc``, ``cc``) or
of the 2014 research report (``fisheye-2014``) it implements.
"""

from __future__ import annotations

import bisect
from collections.abc import Iterable, Sequence

from . import realtime
from .causal import rf_edges, rf_problems
from .graph import ProximityGraph
from .history import History, Op, value_key
from .models import Model
from .order import ClosedOrder, Cycle, close
from .witness import Witness

_MAX_PROBLEMS = 20


def problems(history: History, model: Model | str, graph: ProximityGraph,
             witness: Witness) -> list[str]:
    model = Model(model)
    if realtime.handles(history, model):  # one sequence, with cas, maybe and real time
        return realtime.problems(history, model, graph, witness.sequence)
    if model is Model.SC:
        return sc_problems(history, witness)
    if model is Model.CC:
        return cc_problems(history, witness)
    return fisheye_problems(history, graph, witness, all_operations=model is Model.FISHEYE_2014)


def is_valid(history: History, model: Model | str, graph: ProximityGraph, witness: Witness) -> bool:
    return not problems(history, model, graph, witness)


# ---- shared clauses ------------------------------------------------------------------

def scope(history: History, process: str) -> list[Op]:
    """``H|(p_i + W)``: the operations of ``p_i`` plus the writes of all processes."""
    return [op for op in history.ops if op.process == process or op.is_write]


def legality_problems(history: History, seq: Sequence[int], name: str) -> list[str]:
    """"Legal": each read returns the value of the last preceding write to its register
    in the sequence, or the register's initial value when there is none."""
    ops = history.ops
    current: dict[str, tuple] = {}
    out: list[str] = []
    for u in seq:
        op = ops[u]
        if op.is_write:
            current[op.register] = (op.vkey, op)
        else:
            vk, src = current.get(op.register, (value_key(history.initial_value(op.register)), None))
            if vk != op.vkey:
                was = "the initial value" if src is None else src.label()
                out.append(f"{name} is not legal: {op.label()} follows {was} "
                           f"with no write of {op.value!r} to {op.register} in between")
                if len(out) >= _MAX_PROBLEMS:
                    break
    return out


def permutation_problems(history: History, seq: Sequence[int], expected: Iterable[Op],
                         name: str) -> list[str]:
    """The sequence holds exactly the expected operations, each once."""
    exp = {op.uid for op in expected}
    n = len(history.ops)
    bad = [u for u in seq if not (isinstance(u, int) and 0 <= u < n)]
    if bad:
        return [f"{name} names unknown operations {bad[:5]}"]
    if len(set(seq)) != len(seq):
        dup = next(u for u in seq if list(seq).count(u) > 1)
        return [f"{name} holds {history.ops[dup].label()} twice"]
    missing = exp - set(seq)
    extra = set(seq) - exp
    out = []
    if missing:
        out.append(f"{name} misses {', '.join(history.ops[u].label() for u in sorted(missing)[:5])}")
    if extra:
        out.append(f"{name} holds operations outside its scope: "
                   f"{', '.join(history.ops[u].label() for u in sorted(extra)[:5])}")
    return out


def equivalence_problems(history: History, seq: Sequence[int], name: str) -> list[str]:
    """"Equivalent": for every process, the projection of the sequence onto that process
    is its process order (restricted to the operations the sequence holds)."""
    ops = history.ops
    last: dict[str, int] = {}
    for u in seq:
        op = ops[u]
        if op.index < last.get(op.process, -1):
            prev = history.op(op.process, last[op.process])
            return [f"{name} is not equivalent to the history: it puts {prev.label()} "
                    f"before {op.label()}, against the process order of {op.process}"]
        last[op.process] = op.index
    return []


def respect_problems(history: History, seq: Sequence[int], order: ClosedOrder, process: str,
                     name: str, order_name: str) -> list[str]:
    """``(order)|(p_i + W) ⊆ ->S_i``: every pair of operations of the sequence ordered by
    ``order`` appears in that order in the sequence.

    Exact and linear: for each operation b and each process k, it suffices that the
    last operation of k in the scope preceding b in ``order`` comes before b in the
    sequence (the earlier ones are handled by induction along process order, which the
    order contains)."""
    ops = history.ops
    pos = {u: i for i, u in enumerate(seq)}
    in_scope: dict[str, list[int]] = {}
    for op in history.ops:
        if op.process == process or op.is_write:
            in_scope.setdefault(op.process, []).append(op.index)
    base = {}
    for op in history.ops:
        base.setdefault(op.process, op.uid - op.index)
    out: list[str] = []
    for u in seq:
        b = ops[u]
        for p, k in order.proc_index.items():
            idxs = in_scope.get(p)
            if not idxs:
                continue
            top = order.clock[u][k]
            if p == b.process:
                top = min(top, b.index - 1)
            j = bisect.bisect_right(idxs, top) - 1
            if j < 0:
                continue
            a = base[p] + idxs[j]
            if pos[a] > pos[u]:
                out.append(f"{name} does not respect {order_name}: {ops[a].label()} precedes "
                           f"{b.label()} in {order_name} but follows it in {name}")
                if len(out) >= _MAX_PROBLEMS:
                    return out
    return out


def cycle_text(history: History, cycle: Cycle) -> str:
    labels = [history.ops[u].label() for u in cycle.ops]
    return " -> ".join(labels + labels[:1])


# ---- SC: section 2.2 -------------------------------------------------------------------

def sc_problems(history: History, witness: Witness) -> list[str]:
    """SC: "there exists a history S such that S is sequential, S is legal, H and S are
    equivalent"."""
    if witness.sequence is None:
        return ["the witness has no serialization S (needed for sc)"]
    seq = witness.sequence
    out = permutation_problems(history, seq, history.ops, "S")
    if out:
        return out
    return equivalence_problems(history, seq, "S") + legality_problems(history, seq, "S")


# ---- CC: section 2.3 -------------------------------------------------------------------

def _causal(history: History, witness: Witness) -> tuple[list[str], ClosedOrder | None]:
    out = rf_problems(history, witness.read_from)
    if out:
        return out, None
    hb = close(history, rf_edges(witness.read_from))
    if isinstance(hb, Cycle):
        return [f"the causal order ~>H (process order + read-from) has a cycle: "
                f"{cycle_text(history, hb)}"], None
    return [], hb


def _views(history: History, witness: Witness, order: ClosedOrder, order_name: str) -> list[str]:
    out: list[str] = []
    for p in history.processes:
        name = f"S_{p}"
        if p not in witness.views:
            out.append(f"the witness has no sequential history {name}")
            continue
        seq = witness.views[p]
        # (a) sequential (a list is a total order) and (b) equivalent to H|(p_i + W)
        pb = permutation_problems(history, seq, scope(history, p), name)
        if pb:
            out += pb
            continue
        out += equivalence_problems(history, seq, name)
        # (a) legal
        out += legality_problems(history, seq, name)
        # (c) respects the order
        out += respect_problems(history, seq, order, p, name, order_name)
        if len(out) >= _MAX_PROBLEMS:
            break
    return out


def cc_problems(history: History, witness: Witness) -> list[str]:
    """CC: a causal order ~>H, and for each p_i a sequential legal S_i equivalent to
    H|(p_i + W) that respects ~>H."""
    out, hb = _causal(history, witness)
    if hb is None:
        return out
    return _views(history, witness, hb, "~>H")


# ---- fisheye: section 3.2 (2015) and 3.2 (2014) -----------------------------------------

def fisheye_problems(history: History, graph: ProximityGraph, witness: Witness,
                     *, all_operations: bool) -> list[str]:
    """G-fisheye (SC,CC): a causal order ~>H; a star order *~>H,G ⊇ ~>H such that for
    every edge (p,q) of G, the star order restricted to the writes of p and q (2015) —
    to all operations of p and q (2014) — is total; and for each p_i a sequential,
    legal S_i, equivalent to H|(p_i + W), with (*~>H,G)|(p_i + W) ⊆ ->S_i."""
    out, hb = _causal(history, witness)
    if hb is None:
        return out
    n = len(history.ops)
    bad = [(a, b) for a, b in witness.star if not (0 <= a < n and 0 <= b < n)]
    if bad:
        return [f"the star order names unknown operations {bad[:3]}"]
    star = close(history, rf_edges(witness.read_from) + list(witness.star))
    if isinstance(star, Cycle):
        return [f"the star order is not a partial order: it has the cycle {cycle_text(history, star)}"]
    rank = {u: i for i, u in enumerate(star.topo)}
    what = "operations" if all_operations else "writes"
    for p, q in graph.edges:
        members = sorted((op.uid for op in history.ops
                          if op.process in (p, q) and (all_operations or op.is_write)),
                         key=rank.__getitem__)
        # A set is totally ordered iff consecutive elements of a topological sort are.
        for a, b in zip(members, members[1:], strict=False):
            if not star.precedes(a, b):
                out.append(f"the star order restricted to the {what} of {p} and {q} is not "
                           f"total: {history.ops[a].label()} and {history.ops[b].label()} "
                           f"are unordered [edge {p}-{q}]")
                break
    if out:
        return out
    return _views(history, witness, star, "the star order")
