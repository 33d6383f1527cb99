"""Witness validators: the reference every engine is judged by.

``problems(history, model, graph, witness)`` returns the list of clauses of the
definition that the witness fails (empty: the witness proves the history consistent).
Each check cites the clause of the 2015 conference text (``fisheye``, ``sc``, ``cc``) or
of the 2014 research report (``fisheye-2014``) it implements.  ``deadline``: the
validation looks at it between clauses (a clause of a process's view at a time) and raises
:class:`~fisheye.spec.deadline.OutOfTime` once it has passed.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence
from itertools import repeat

from . import realtime
from .causal import rf_edges, rf_problems
from .deadline import Deadline
from .graph import ProximityGraph
from .history import History, Op, same_value
from .models import Model
from .order import ClosedOrder, Cycle, Generated, find_cycle, generate
from .witness import Witness, effective_history, named_operations, remap

_MAX_PROBLEMS = 20


NO_DEADLINE = Deadline()


def problems(history: History, model: Model | str, graph: ProximityGraph,
             witness: Witness, deadline: Deadline = NO_DEADLINE) -> list[str]:
    model = Model(model)
    if realtime.handles(history, model):  # one sequence, with cas, maybe and real time
        return realtime.problems(history, model, graph, witness.sequence)
    if model is Model.SC:
        return sc_problems(history, witness, deadline)
    if history.has_maybe:  # judged on the operations that took effect in the witness
        named = named_operations(witness)
        n = len(history.ops)
        if any(not (isinstance(u, int) and 0 <= u < n) for u in named):
            return [f"the witness names unknown operations {sorted(u for u in named if not 0 <= u < n)[:5]}"]
        effective, old_uid = effective_history(history, (u for u in named if history.ops[u].maybe))
        witness = remap(witness, {u: i for i, u in enumerate(old_uid)})
        history = effective
    deadline.check()
    if model is Model.CC:
        return cc_problems(history, witness, deadline)
    return fisheye_problems(history, graph, witness, all_operations=model is Model.FISHEYE_2014,
                            deadline=deadline)


def is_valid(history: History, model: Model | str, graph: ProximityGraph, witness: Witness) -> bool:
    return not problems(history, model, graph, witness)


# ---- shared clauses ------------------------------------------------------------------

def scope(history: History, process: str) -> list[Op]:
    """``H|(p_i + W)``: the operations of ``p_i`` plus the writes of all processes."""
    return [op for op in history.ops if op.process == process or op.is_write]


def legality_problems(history: History, seq: Sequence[int], name: str,
                      readers: Collection[str] | None = None) -> list[str]:
    """"Legal": each read returns the value of the last preceding write to its register
    in the sequence, or the register's initial value when there is none.  ``readers``:
    judge only the reads of these processes (the others are not part of the sequence's
    restrictions that the witness stands for)."""
    ops = history.ops
    last_write: dict[str, Op] = {}
    out: list[str] = []
    for u in seq:
        op = ops[u]
        if op.kind == "w":  # op.is_write, without a call per operation
            last_write[op.register] = op
        elif readers is None or op.process in readers:
            src = last_write.get(op.register)
            v = history.initial_value(op.register) if src is None else src.value
            if not same_value(v, op.value):
                was = "the initial value" if src is None else src.label()
                out.append(f"{name} is not legal: {op.label()} follows {was} "
                           f"with no write of {op.value!r} to {op.register} in between")
                if len(out) >= _MAX_PROBLEMS:
                    break
    return out


def permutation_problems(history: History, seq: Sequence[int], expected: Collection[int],
                         name: str, *, exact: bool = True) -> list[str]:
    """The sequence holds the operations whose uids are ``expected``, each once, and
    (``exact``) no other."""
    n = len(history.ops)
    # every element a uid (an int in range): tested at C speed, the unknown ones listed only if not
    if not (all(map(isinstance, seq, repeat(int))) and (not seq or (min(seq) >= 0 and max(seq) < n))):
        bad = [u for u in seq if not (isinstance(u, int) and 0 <= u < n)]
        return [f"{name} names unknown operations {bad[:5]}"]
    held = set(seq)
    if len(held) != len(seq):
        seen: set[int] = set()
        dup = next(u for u in seq if u in seen or seen.add(u))
        return [f"{name} holds {history.ops[dup].label()} twice"]
    missing = held.symmetric_difference(expected) if exact else set(expected).difference(held)
    if not missing:
        return []
    extra = missing.difference(expected)
    missing.difference_update(extra)
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
    last: dict[str, int] = dict.fromkeys(history.processes, -1)
    for u in seq:
        op = ops[u]
        if op.index < last[op.process]:
            prev = history.op(op.process, last[op.process])
            return [f"{name} is not equivalent to the history: it puts {prev.label()} "
                    f"before {op.label()}, against the process order of {op.process}"]
        last[op.process] = op.index
    return []


class _Respect:
    """The respect clause of many sequences (one per view) against one acyclic relation
    (process order ∪ generators): its successor lists and in-degrees, counted once."""

    def __init__(self, order: Generated):
        self.order = order
        self.succ = order.succ
        self.indeg = order.indeg
        self.sources = [u for u, d in enumerate(self.indeg) if not d]

    def respected_by(self, seq: Sequence[int]) -> bool:
        """Whether the generators ∪ consecutive pairs of ``seq`` are acyclic (Kahn).  ``seq``
        holds each operation at most once (its permutation clause is checked first), so
        Kahn's algorithm takes its operations in its order, each after the one before:
        the next one due is ``seq[due]``, and the one it releases ``seq[due + 1]``."""
        indeg = self.indeg.copy()
        for b in seq[1:]:
            indeg[b] += 1
        succ = self.succ
        ready = [u for u in self.sources if not indeg[u]]
        done = due = 0
        last = len(seq) - 1
        while ready:
            u = ready.pop()
            done += 1
            for v in succ[u]:
                indeg[v] -= 1
                if not indeg[v]:
                    ready.append(v)
            if due < last and u == seq[due]:
                due += 1
                v = seq[due]
                indeg[v] -= 1
                if not indeg[v]:
                    ready.append(v)
        return done == len(indeg)


def respect_problems(history: History, seq: Sequence[int], generators: Iterable[tuple[int, int]],
                     name: str, order_name: str) -> list[str]:
    """``order|(ops of seq) ⊆ ->seq``, where ``order`` is the transitive closure of process
    order ∪ ``generators`` (assumed acyclic).

    Exact and linear, by the lemma: a sequence respects the closure of a relation ``R``
    restricted to its operations iff ``R ∪ {consecutive pairs of the sequence}`` is
    acyclic (a cycle alternates paths of ``R`` between operations of the sequence with
    steps forward in it, so one of its ``R``-paths goes backwards in the sequence; and a
    pair ordered by the closure but reversed in the sequence closes such a cycle)."""
    chain = list(zip(seq, seq[1:], strict=False))
    cycle = find_cycle(history, [*generators, *chain])
    if cycle is None:
        return []
    ops = history.ops
    pos = {u: i for i, u in enumerate(seq)}
    in_chain = set(chain)
    c = list(cycle.ops)
    steps = list(zip(c, c[1:] + c[:1], strict=True))
    first = next((i for i, e in enumerate(steps) if e in in_chain), None)
    if first is not None:
        steps = steps[first + 1:] + steps[:first + 1]  # start right after a step of seq
        start = steps[0][0]
        for x, y in steps:
            if (x, y) in in_chain:
                a, b = start, x  # an order path start -> ... -> x between two steps of seq
                if a != b and pos[b] < pos[a]:
                    return [f"{name} does not respect {order_name}: {ops[a].label()} precedes "
                            f"{ops[b].label()} in {order_name} but follows it in {name}"]
                start = y
    return [f"{name} does not respect {order_name} (cycle {cycle_text(history, cycle)})"]


def cycle_text(history: History, cycle: Cycle) -> str:
    labels = [history.ops[u].label() for u in cycle.ops]
    return " -> ".join(labels + labels[:1])


# ---- SC: section 2.2 -------------------------------------------------------------------

def sc_problems(history: History, witness: Witness, deadline: Deadline = NO_DEADLINE) -> list[str]:
    """SC: "there exists a history S such that S is sequential, S is legal, H and S are
    equivalent"."""
    if witness.sequence is None:
        return ["the witness has no serialization S (needed for sc)"]
    seq = witness.sequence
    out = permutation_problems(history, seq, range(len(history.ops)), "S")
    if out:
        return out
    deadline.check()
    out = equivalence_problems(history, seq, "S")
    deadline.check()
    return out + legality_problems(history, seq, "S")


# ---- CC: section 2.3 -------------------------------------------------------------------

def _causal(history: History, witness: Witness) -> tuple[list[str], list[tuple[int, int]] | None]:
    """The read-from map's problems, or the generators of ~>H (its rf pairs)."""
    out = rf_problems(history, witness.read_from)
    if out:
        return out, None
    return [], rf_edges(witness.read_from)


def _causal_cycle(history: History, causal: Generated) -> list[str]:
    """~>H is a partial order: process order ∪ rf is acyclic."""
    cycle = causal.cycle()
    if cycle is None:
        return []
    return [f"the causal order ~>H (process order + read-from) has a cycle: {cycle_text(history, cycle)}"]


def _sequence_problems(history: History, seq: Sequence[int], respect: _Respect, name: str,
                       order_name: str, deadline: Deadline,
                       readers: Collection[str] | None = None) -> list[str]:
    """Clauses (a)-(c) of a sequence that holds the right operations: (b) equivalent to
    the history, (a) legal (for the reads of ``readers``), (c) respecting the order.  The
    order contains process order, so a sequence that respects it is equivalent: (b) is
    judged on its own only when (c) fails."""
    deadline.check()
    respected = respect.respected_by(seq)
    deadline.check()
    out = [] if respected else equivalence_problems(history, seq, name)
    deadline.check()
    out += legality_problems(history, seq, name, readers)
    if not respected:
        deadline.check()
        out += respect_problems(history, seq, respect.order.pairs, name, order_name)
    return out


def _views(history: History, witness: Witness, order: Generated,
           order_name: str, deadline: Deadline) -> list[str]:
    """Clauses (a)-(c) for every process: ``S_i`` sequential, legal, equivalent to
    ``H|(p_i + W)``, respecting the order (the closure of ``order``, acyclic).  A process
    not listed in ``witness.views`` has for ``S_i`` the witness's ``sequence`` restricted
    to ``p_i + W`` (see :class:`Witness`); that sequence is checked once, which implies
    the clauses for each of its restrictions."""
    out: list[str] = []
    writes = {op.uid for op in history.ops if op.is_write}
    uids_of = {p: [op.uid for op in ops] for p, ops in history.by_process.items()}
    respect = _Respect(order)
    deadline.check()
    implied = [p for p in history.processes if p not in witness.views]
    if implied:
        if witness.sequence is None:
            return [f"the witness has no sequential history S_{p}" for p in implied[:_MAX_PROBLEMS]]
        seq = witness.sequence
        name = "S (the view of every process not listed in 'views')"
        expected = writes.union(*(uids_of[p] for p in implied))
        pb = permutation_problems(history, seq, expected, name, exact=False)
        if pb:
            return pb
        out += _sequence_problems(history, seq, respect, name, order_name, deadline, set(implied))
    for p in history.processes:
        if p not in witness.views or len(out) >= _MAX_PROBLEMS:
            continue
        name = f"S_{p}"
        seq = witness.views[p]
        deadline.check()
        # (a) sequential (a list is a total order) and (b) equivalent to H|(p_i + W)
        pb = permutation_problems(history, seq, writes.union(uids_of[p]), name)
        if pb:
            out += pb
            continue
        out += _sequence_problems(history, seq, respect, name, order_name, deadline)
    return out


def cc_problems(history: History, witness: Witness, deadline: Deadline = NO_DEADLINE) -> list[str]:
    """CC: a causal order ~>H, and for each p_i a sequential legal S_i equivalent to
    H|(p_i + W) that respects ~>H."""
    out, gens = _causal(history, witness)
    if gens is None:
        return out
    causal = generate(history, gens)
    out = _causal_cycle(history, causal)
    if out:
        return out
    deadline.check()
    return _views(history, witness, causal, "~>H", deadline)


# ---- fisheye: section 3.2 (2015) and 3.2 (2014) -----------------------------------------

def fisheye_problems(history: History, graph: ProximityGraph, witness: Witness,
                     *, all_operations: bool, deadline: Deadline = NO_DEADLINE) -> list[str]:
    """G-fisheye (SC,CC): a causal order ~>H; a star order *~>H,G ⊇ ~>H such that for
    every edge (p,q) of G, the star order restricted to the writes of p and q (2015) —
    to all operations of p and q (2014) — is total; and for each p_i a sequential,
    legal S_i, equivalent to H|(p_i + W), with (*~>H,G)|(p_i + W) ⊆ ->S_i."""
    out, gens = _causal(history, witness)
    if gens is None:
        return out
    n = len(history.ops)
    bad = [(a, b) for a, b in witness.star if not (0 <= a < n and 0 <= b < n)]
    if bad:
        return _causal_cycle(history, generate(history, gens)) or [
            f"the star order names unknown operations {bad[:3]}"]
    star_order = generate(history, gens + list(witness.star))
    cycle = star_order.cycle()
    if cycle is not None:  # ~>H's generators are among the star order's: it may be the culprit
        return _causal_cycle(history, generate(history, gens)) or [
            f"the star order is not a partial order: it has the cycle {cycle_text(history, cycle)}"]
    deadline.check()
    if star_order.is_total():  # then every restriction is total (common: sc witnesses)
        return _views(history, witness, star_order, "the star order", deadline)
    deadline.check()
    # "a precedes b" for consecutive members: by a search (bounded by the rank: linear per
    # edge of G, immediate when the witness names the pair) when G has at most as many
    # edges as processes, else by vector clocks (n * |processes|, once): the cheaper bound
    if len(graph.edges) <= len(history.processes):
        precedes = star_order.reaches
    else:
        clocks = star_order.closed()
        assert isinstance(clocks, ClosedOrder)  # the relation is acyclic
        precedes = clocks.precedes
    rank = star_order.rank
    what = "operations" if all_operations else "writes"
    members_of = {p: [op.uid for op in ops if all_operations or op.is_write]
                  for p, ops in history.by_process.items()}
    ops = history.ops
    for p, q in graph.edges:
        deadline.check()
        # each process's members are in process order, hence in rank order: merge them
        members = sorted(members_of[p] + members_of[q], key=rank.__getitem__)
        # A set is totally ordered iff consecutive elements of a topological sort are
        # (and consecutive members of one process are, by process order).
        for a, b in zip(members, members[1:], strict=False):
            if ops[a].process != ops[b].process and not precedes(a, b):
                out.append(f"the star order restricted to the {what} of {p} and {q} is not "
                           f"total: {ops[a].label()} and {ops[b].label()} "
                           f"are unordered [edge {p}-{q}]")
                break
        if len(out) >= _MAX_PROBLEMS:
            break
    if out:
        return out
    return _views(history, witness, star_order, "the star order", deadline)
