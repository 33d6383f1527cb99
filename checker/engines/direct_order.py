"""Shared machinery of the direct engine: a dense index of the history, labelled edge
sets (each forced ordering carries the reason that forced it), closures, paths and
cycles turned into certificates, and the search budget.

Every order the direct engine builds contains the process order; it is closed as
:func:`fisheye.spec.order.close` does (vector clocks: ``clock[b][k]`` is the last index
of process ``k`` that precedes or equals ``b``), in compiled code
(:mod:`.closure_kernel`).
"""

from __future__ import annotations

import time
from array import array
from collections import ChainMap, deque
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import chain, repeat

import numpy as np

from fisheye.spec.history import History, value_key
from fisheye.spec.order import Cycle

from ..result import Reason

Info = tuple
"""Why an ordering holds, rendered into a :class:`Reason` only for certificates:
``("rf",)``, ``("view", S)``, ``("forced", S, r)``, ``("fr", S, r, w)``, ``("init", S, r)``,
``("edge", S, p, q, what)``, ``("probe",)``, ``("choice",)`` or ``("choice", literal)``
(an orientation chosen by the star search, :mod:`.direct_star`)."""

Edges = dict[tuple[int, int], Info]
"""A relation on uids, each pair with the reason it holds."""


def depth_limit(ix: Index, edges: int) -> int:
    """Nested search choices allowed: each level keeps its edge set and order alive
    (about 150 bytes per edge and operation), so the limit keeps the search's memory
    near 150 MB whatever the history's size."""
    return max(2, 1_000_000 // (edges + 4 * ix.n + 1))


class BudgetExhausted(Exception):
    """The search ran out of nodes or time: the verdict is *unknown*."""


@dataclass
class Budget:
    """A node budget and an optional deadline (``timeout`` seconds from creation).
    ``tick`` is called once per closure computed, the unit of work of the engine.
    ``progress``, when given, receives a line every ``every`` seconds (``stage`` names
    what is being decided)."""

    max_nodes: int = 200_000
    timeout: float | None = None
    nodes: int = 0
    start: float = field(default_factory=time.monotonic)
    progress: Callable[[str], None] | None = None
    stage: str = ""
    every: float = 2.0
    _last: float = 0.0
    parent: Budget | None = None

    def tick(self, cost: int = 1) -> None:
        self.nodes += cost
        if self.parent is not None:
            self.parent.nodes += cost  # what the whole check has spent (the progress lines)
        if self.nodes > self.max_nodes:
            raise BudgetExhausted(f"the direct engine's search budget of {self.max_nodes} nodes "
                                  f"(closures computed) ran out")
        if self.timeout is None and self.progress is None:
            return
        now = time.monotonic()
        if self.timeout is not None and now - self.start > self.timeout:
            raise BudgetExhausted(f"the timeout of {self.timeout:g} s ran out")
        if self.progress is not None and now - max(self._last, self.start) >= self.every:
            self._last = now
            root = self
            while root.parent is not None:
                root = root.parent
            root._last = now
            self.progress(f"{root.stage}: {now - self.start:.0f} s, {root.nodes:,} search nodes so far")

    def sub(self, max_nodes: int) -> Budget:
        """A smaller budget for a first try, sharing the deadline and the progress."""
        return Budget(max_nodes=min(max_nodes, self.max_nodes), timeout=self.timeout, start=self.start,
                      progress=self.progress, stage=self.stage, every=self.every, _last=self._last,
                      parent=self)


class Trail:
    """When each edge entered each graph of a saturation (graph ``STAR``: the star
    order; ``k``: the view of process ``k``), and why: the order in which forced
    orderings were derived, which conflict analysis (:mod:`.direct_learn`) follows
    back.  Every batch of edges gets the next stamp; an edge keeps its first stamp and
    reason.  A batch is computed from the closure of the edges of smaller stamps."""

    __slots__ = ("stamp", "born", "_kept", "_cols", "_late")

    def __init__(self) -> None:
        self.stamp = 0
        self.born: dict[int, dict[tuple[int, int], tuple[int, Info]]] = {}
        # per graph, large batches of new edges kept as given, with their stamp
        self._kept: dict[int, list[tuple[int, Mapping[tuple[int, int], Info]]]] = {}
        # per graph, the same edges as three growing columns (source, target, stamp)
        self._cols: dict[int, tuple[array, array, array]] = {}
        self._late: dict[tuple[int, ...], tuple[tuple[int, ...], tuple[np.ndarray, ...]]] = {}

    def late(self, graphs: tuple[int, ...], n: int) -> tuple[np.ndarray, ...]:
        """The edges born in ``graphs`` (one graph after the other, each in the order
        they came) as successor lists with their stamps
        (:func:`.closure_kernel.late_adjacency`), for the compiled search of premise
        paths; kept per ``graphs`` while the trail does not grow."""
        from .closure_kernel import late_adjacency

        cols = [self._cols.get(g, _NO_COLUMNS) for g in graphs]
        size = tuple(len(c[0]) for c in cols)
        got = self._late.get(graphs)
        if got is None or got[0] != size:
            flat = [np.concatenate([np.frombuffer(c[i], np.int64) for c in cols]) for i in range(3)]
            got = self._late[graphs] = size, late_adjacency(n, *flat)
        return got[1]

    def add(self, graph: int, new: Mapping[tuple[int, int], Info], pairs: np.ndarray | None = None) -> None:
        """Record the edges ``new`` born in ``graph`` now (``pairs``: the same edges as an
        array of shape ``(k, 2)``, when the caller has it).  A batch of :data:`KEPT_FROM`
        edges or more, all new, is kept as given (not copied: the caller leaves it as it is)."""
        t = self.stamp
        self.stamp += 1
        born = self.born.setdefault(graph, {})
        kept = self._kept.setdefault(graph, [])
        cols = self._cols.get(graph)
        if cols is None:
            cols = self._cols[graph] = (array("q"), array("q"), array("q"))
        src, dst, stamps = cols
        if born or kept:
            fresh = [e for e in new if e not in born and not any(e in m for _, m in kept)]
        else:
            fresh = list(new)
        if len(fresh) >= KEPT_FROM and len(fresh) == len(new):
            kept.append((t, new))
        else:
            born.update(zip(fresh, zip(repeat(t), map(new.__getitem__, fresh)), strict=True))
        flat = pairs.ravel() if pairs is not None and len(fresh) == len(pairs) else flat_pairs(fresh)
        src.frombytes(flat[0::2].tobytes())
        dst.frombytes(flat[1::2].tobytes())
        stamps.frombytes(np.full(len(fresh), t, np.int64).tobytes())


    def record(self, graph: int, a: int, b: int) -> tuple[int, Info] | None:
        """The stamp and reason of the edge ``a -> b`` of ``graph`` (None: not recorded)."""
        got = self.born.get(graph, {}).get((a, b))
        if got is None:
            for t, batch in self._kept.get(graph, ()):
                info = batch.get((a, b))
                if info is not None:
                    return t, info
        return got


KEPT_FROM = 4096
"""Fewest edges of a batch that :meth:`Trail.add` keeps as given (a star search's
orientation: 90,000 edges per check on 100,000 operations) rather than copies."""

_NO_COLUMNS = (array("q"), array("q"), array("q"))


STAR = -1
"""The graph of the star order in a :class:`Trail`."""


@dataclass(frozen=True)
class Conflict:
    """Why a (partial) set of choices has no solution: the certificate's reasons, and
    (for the search's own use) the edges in force when the cycle closed."""

    reasons: tuple[Reason, ...]
    edges: Mapping[tuple[int, int], Info] | None = field(default=None, compare=False, repr=False)
    # (the search's own use) a refused extension (:func:`extend_or_conflict`): the pairs of
    # the cyclic relation and those whose addition closed the cycle, flat; and, when the
    # cycle was found so, the search for its cycles, for more of them (CycleSearch)
    relation: tuple[np.ndarray, np.ndarray] | None = field(default=None, compare=False, repr=False)
    cycles: CycleSearch | None = field(default=None, compare=False, repr=False)


class CycleSearch:
    """The cycles of ``po ∪ pairs`` (``flat``), found one by one as pairs are taken out:
    the state of :func:`.closure_kernel.cycle_search` (one pass of Kahn's algorithm) and
    the work space and marks of :func:`.closure_kernel.cycle_after_removal`, kept from
    one cycle to the next."""

    def __init__(self, ix: Index, flat: np.ndarray):
        from .closure_kernel import cycle_search

        self.n = ix.n
        self.start, self.adj, self.indeg, self.po_next, self.slot, self.component = cycle_search(
            ix.n, ix.P, ix.proc_array, ix.idx_array, ix.po_next_array, flat)
        self.space = (np.full(ix.n + 1, -1, np.int64), np.empty(ix.n + 1, np.int64),
                      np.empty(ix.n + 1, np.int64), np.zeros(1, np.int64), np.zeros(len(flat) // 2, np.bool_))

    def cycle(self, gone: np.ndarray, gone_src: np.ndarray, new: np.ndarray, new_ids: np.ndarray
              ) -> np.ndarray:
        """:func:`.closure_kernel.cycle_through`'s cycle of the relation less the pairs
        taken out so far and now the pairs ``gone`` (their numbers in ``flat``; sources
        ``gone_src``), through the pairs ``new`` (shape ``(k, 2)``; their numbers
        ``new_ids``); empty when it has none."""
        from .closure_kernel import cycle_after_removal

        return cycle_after_removal(self.n, self.start, self.adj, self.indeg, self.po_next, gone_src,
                                   self.slot[gone], new[:, 0].copy(), new[:, 1].copy(), new_ids, *self.space,
                                   self.component)


class Index:
    """Dense integer views of a history, computed once per check."""

    def __init__(self, history: History, labels: Sequence[str] | None = None, budget: Budget | None = None):
        """``labels``: how certificates name the operations (default: their own
        labels; a sub-history's operations keep the names they have in the whole);
        ``budget``: its deadline is looked at between the passes over the history."""
        tick = (lambda: None) if budget is None else (lambda: budget.tick(0))
        self.h = history
        self.labels = labels
        self._label: dict[int, str] = {}
        ops = history.ops
        self.n = len(ops)
        self.procs = history.processes
        self.P = len(self.procs)
        pidx = {p: k for k, p in enumerate(self.procs)}
        self.proc_of = [pidx[op.process] for op in ops]
        # po_next[u]: u + 1 is the next operation of u's process
        self.po_next = [self.proc_of[u] == self.proc_of[u + 1] for u in range(self.n - 1)]
        self.idx = [op.index for op in ops]
        self.base = [0] * self.P
        self.length = [0] * self.P
        for op in ops:
            k = pidx[op.process]
            if op.index == 0:
                self.base[k] = op.uid
            self.length[k] = op.index + 1
        tick()
        self.reg = [op.register for op in ops]
        self.is_write = [op.is_write for op in ops]
        tick()
        # per (process index, register): po indices of the writes, increasing
        self.xw: dict[tuple[int, str], list[int]] = {}
        # per process index: po indices of its writes
        self.wlist: list[list[int]] = [[] for _ in range(self.P)]
        self.reads_of: list[list[int]] = [[] for _ in range(self.P)]
        for op in ops:
            k = pidx[op.process]
            if op.is_write:
                self.xw.setdefault((k, op.register), []).append(op.index)
                self.wlist[k].append(op.index)
            else:
                self.reads_of[k].append(op.uid)
        self.reads = [op.uid for op in ops if op.is_read]
        tick()
        # the same, as arrays for the compiled closure (:mod:`.closure_kernel`)
        self.proc_array = np.array(self.proc_of, np.int64)
        self.idx_array = np.array(self.idx, np.int64)
        self.po_next_array = np.array([*self.po_next, False], np.bool_)
        # per register: (process index, uid of its first operation, po indices of its
        # writes to the register) for every process that writes it, in process order
        self.writers: dict[str, list[tuple[int, int, list[int]]]] = {}
        for (k, reg), lst in sorted(self.xw.items(), key=lambda kv: kv[0][0]):
            self.writers.setdefault(reg, []).append((k, self.base[k], lst))
        # registers as integers, and the writers of each in compressed form (the compiled
        # rules of the views, :func:`.closure_kernel.view_rules`)
        reg_id = {x: i for i, x in enumerate(dict.fromkeys(self.reg))}
        self.reg_array = np.array([reg_id[x] for x in self.reg], np.int64)
        wr_start, wr_proc, wr_base, wl_start, wl = [0], [], [], [0], []
        for x in reg_id:
            for k, base, lst in self.writers.get(x, ()):
                wr_proc.append(k)
                wr_base.append(base)
                wl += lst
                wl_start.append(len(wl))
            wr_start.append(len(wr_proc))
        self.writer_arrays = tuple(np.array(a, np.int64) for a in (wr_start, wr_proc, wr_base, wl_start, wl))
        self.writers_per_register = max((wr_start[x + 1] - wr_start[x] for x in range(len(wr_start) - 1)),
                                        default=0)
        tick()
        # candidate sources (as fisheye.spec.causal.candidate_sources, in linear time):
        # same register and value, not after the read in its own process; None when the
        # value is the register's initial value
        by_value: dict[tuple[str, object], list[int]] = {}
        for op in ops:
            if not op.uid & 0xFFFF:
                tick()
            if op.is_write:
                by_value.setdefault((op.register, op.vkey), []).append(op.uid)
        tick()
        self.cands: dict[int, list[int | None]] = {}
        for i, r in enumerate(self.reads):
            if not i & 0xFFFF:
                tick()
            op = ops[r]
            c: list[int | None] = [None] if op.vkey == value_key(history.initial_value(op.register)) else []
            c += [w for w in by_value.get((op.register, op.vkey), ())
                  if not (ops[w].process == op.process and ops[w].index > op.index)]
            self.cands[r] = c

    def label(self, u: int) -> str:
        """How certificates name the operation ``u`` (each label formatted once: a
        search explains thousands of cycles through the same operations)."""
        if self.labels is not None:
            return self.labels[u]
        got = self._label.get(u)
        if got is None:
            got = self._label[u] = self.h.ops[u].label()
        return got

    def uid(self, k: int, i: int) -> int:
        return self.base[k] + i

    def precedes(self, order: DOrder, a: int, b: int) -> bool:
        """``a`` strictly before ``b`` in ``order`` (clock test)."""
        return a != b and self.idx[a] <= order.clock[b][self.proc_of[a]]


class DOrder:
    """``closure(po ∪ pairs)`` as vector clocks: ``array[b, k]`` (and ``clock[b][k]``,
    the same as lists, made when first read) is the last index of process ``k`` that
    precedes or equals ``b``; ``pairs``: the generating non-po pairs, flat
    (``a0, b0, a1, b1, ...``).  Immutable once made."""

    __slots__ = ("array", "pairs", "_clock", "_base", "_raised")

    def __init__(self, array: np.ndarray, pairs: np.ndarray, base: DOrder | None = None,
                 raised: np.ndarray | None = None):
        self.array = array
        self.pairs = pairs
        self._clock: list[list[int]] | None = None
        # an order this one extends whose rows are already lists: only the rows that
        # differ from its are converted
        self._base = base if base is not None and base._clock is not None else None
        # the rows that grew from ``base``, known when the closure was extended row by row
        # (the identity of ``base`` only: holding it would keep every order of a chain alive)
        self._raised = None if raised is None or base is None else (id(base), raised)

    def raised_since(self, base: DOrder) -> np.ndarray | None:
        """The rows of this order that differ from those of ``base``, the order it was
        made from, when known (else None)."""
        if self._raised is None or self._raised[0] != id(base):
            return None
        return self._raised[1]

    @property
    def clock(self) -> list[list[int]]:
        if self._clock is None:
            base = self._base
            if base is not None:
                rows = list(base.clock)
                arr = self.array
                for u in np.flatnonzero((arr != base.array).any(axis=1)).tolist():
                    rows[u] = arr[u].tolist()
                self._clock = rows
            else:
                self._clock = self.array.tolist()
            self._base = None
        return self._clock

    def rank(self) -> list[int]:
        """A topological rank: ``a < b`` implies ``rank[a] < rank[b]``."""
        return self.array.sum(axis=1).tolist()


Pairs = Iterable[tuple[int, int]] | np.ndarray
"""Pairs of uids: an iterable of pairs, or already flat (``a0, b0, a1, b1, ...``)."""


def flat_edges(edges: Mapping[tuple[int, int], Info]) -> Edges:
    """``edges`` as one dict, in the order and with the reasons a lookup in it gives: a
    :class:`~collections.ChainMap` (nested or not) merged map by map, the last first
    (a saturation layers the edges it derives over those it starts from; iterating
    the layers on every lookup, or over every key, would cost more than merging once);
    a dict is returned as it is."""
    if not isinstance(edges, ChainMap):
        return edges if isinstance(edges, dict) else dict(edges)
    out: Edges = {}
    for layer in reversed(edges.maps):
        out.update(flat_edges(layer))
    return out


def flat_pairs(edges: Pairs) -> np.ndarray:
    if isinstance(edges, np.ndarray):
        return edges
    return np.fromiter(chain.from_iterable(edges), np.int64)


def _close(ix: Index, flat: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    from .closure_kernel import closure  # imported when first needed: numba loads in about 0.4 s

    return closure(ix.n, ix.P, ix.proc_array, ix.idx_array, ix.po_next_array, flat)


def full_order(ix: Index, edges: Pairs) -> DOrder | None:
    """``closure(po ∪ edges)``, or None when it has a cycle (compiled Kahn's algorithm,
    :func:`.closure_kernel.closure`)."""
    flat = flat_pairs(edges)
    array, cycle = _close(ix, flat)
    return None if len(cycle) else DOrder(array, flat)


def extend_order(ix: Index, base: DOrder, new: Pairs) -> DOrder | None:
    """``base`` extended with the pairs ``new``; None on a cycle.  A new pair that
    ``base`` already orders the other way is a cycle at once; when ``base`` already
    implies every new pair, the result is ``base``; else the closure of ``base``'s
    pairs and ``new`` is computed again (compiled: cheaper than propagating the
    change in Python)."""
    got = _extend(ix, base, flat_pairs(new), False)
    return got if isinstance(got, DOrder) else None


def extend_or_conflict(ix: Index, edges: Mapping[tuple[int, int], Info], base: DOrder, new: Pairs
                       ) -> DOrder | Conflict:
    """:func:`extend_order`, or on a cycle ``conflict_of(ix, edges, base, new)``
    (``edges``: the reasons of ``base``'s pairs and of ``new``), its cycle found by the
    same pass of Kahn's algorithm as the closure (:func:`.closure_kernel.closure_through`),
    or, where a new pair is reversed at once, by a :class:`CycleSearch` that the
    conflict keeps."""
    add = flat_pairs(new)
    got = _extend(ix, base, add, True)
    if isinstance(got, DOrder):
        return got
    relation = np.concatenate((base.pairs, add)), add
    if got is None:  # conflict_of's cycle, by a search that can go on to the relation's others
        search = CycleSearch(ix, relation[0])
        none = np.empty(0, np.int64)
        cycle = search.cycle(none, none, add.reshape(-1, 2), len(base.pairs) // 2 + np.arange(len(add) // 2))
        return Conflict(cycle_reasons(ix, edges, Cycle(tuple(cycle.tolist()))), edges, relation, search)
    return Conflict(cycle_reasons(ix, edges, got), edges, relation)


FEW_PAIRS = 16
RAISED_SHARE = 4
"""A batch of at most ``n / FEW_PAIRS`` new pairs extends a closure from its clocks,
raising only the rows that grow (:func:`.closure_kernel.extend_closure`), and falls back
on a fresh closure when more than ``n / RAISED_SHARE`` rows would be raised.  Measured
on the star search of the fisheye-2014 Algorithm 2 run of 100,000 operations: half of
the saturation passes add under 100 pairs and raise under 1 % of the rows (2-3 ms
against 5 ms for a fresh closure); every batch of 12,000 pairs or more (a view's own
root edges) raised more than a quarter of them, and none below 6,000 did."""


def _extend(ix: Index, base: DOrder, add: np.ndarray, through: bool) -> DOrder | Cycle | None:
    """:func:`extend_order`; with ``through``, a cycle the closure finds is returned
    (that of :func:`.closure_kernel.cycle_through`); None: a cycle not computed.
    A small batch raises the rows of ``base`` that grow (:data:`FEW_PAIRS`); a
    cycle, or a batch that raises too many rows, takes a fresh closure (which finds
    the cycle)."""
    if not len(add):
        return base
    from .closure_kernel import new_pairs_state

    a, b = add[0::2].copy(), add[1::2].copy()
    known = new_pairs_state(base.array, ix.proc_array, ix.idx_array, a, b)
    if known == 1:
        return None  # some b precedes or equals its a: a cycle
    if known == 0:
        return base
    flat = np.concatenate((base.pairs, add))
    if len(a) * FEW_PAIRS <= ix.n:
        from .closure_kernel import extend_closure

        array, raised, status = extend_closure(ix.n, ix.P, ix.proc_array, ix.idx_array, ix.po_next_array,
                                               base.array, flat, a, b, ix.n // RAISED_SHARE)
        if status == 0:
            return DOrder(array, flat, base, raised)
        if status == 1 and not through:
            return None
    if through:
        from .closure_kernel import closure_through

        array, cycle = closure_through(ix.n, ix.P, ix.proc_array, ix.idx_array, ix.po_next_array, flat, a, b)
        if len(cycle):
            return Cycle(tuple(cycle.tolist()))
    else:
        array, cycle = _close(ix, flat)
        if len(cycle):
            return None
    return DOrder(array, flat, base)


def redundant(ix: Index, edges: Iterable[tuple[int, int]], order: DOrder) -> set[tuple[int, int]]:
    """The pairs of ``edges`` that :func:`redundant_mask` marks."""
    pairs = list(edges)
    if not pairs:
        return set()
    skip = redundant_mask(ix, flat_pairs(pairs), order)
    return {pairs[i] for i in np.flatnonzero(skip).tolist()}


def redundant_mask(ix: Index, flat: np.ndarray, order: DOrder) -> np.ndarray:
    """Per pair of ``flat`` (``a0, b0, a1, b1, ...``): does ``closure(po ∪ pairs)``
    (``order``) imply it through a neighbour in process order: ``a``'s successor
    precedes or is ``b``, or ``a`` precedes or is ``b``'s predecessor.  Leaving them all
    out keeps the closure: the path that implies such a pair runs strictly inside the
    interval from ``a`` to ``b`` (without ``a``, or without ``b``), so any left-out pair
    on it has a smaller interval, and induction on the interval's size ends at pairs
    kept.  The closures of the star search re-read their generating pairs, so fewer
    pairs make them cheaper."""
    a, b = flat[0::2], flat[1::2]
    arr, po_next, idx = order.array, ix.po_next_array, ix.idx_array
    k = ix.proc_array[a]
    after_a = np.minimum(a + 1, ix.n - 1)  # a's successor, where po_next[a]
    before_b = np.maximum(b - 1, 0)  # b's predecessor, where b > 0 and po_next[b - 1]
    skip = po_next[a] & ((after_a == b) | (idx[after_a] <= arr[b, k]))
    skip |= (b > 0) & po_next[before_b] & ((before_b == a) | (idx[a] <= arr[before_b, k]))
    return skip


def conflict_of(ix: Index, edges: Mapping[tuple[int, int], Info], base: DOrder | None = None,
                new: Pairs = ()) -> Conflict:
    """The certificate of a cyclic ``po ∪ edges``: the cycle, each edge with its reason.
    ``base`` and ``new``: ``edges`` is ``base``'s generating edges plus the batch
    ``new`` that :func:`extend_order` refused; the cycle is then one through a pair of
    the batch, as short as a breadth-first search makes it
    (:func:`.closure_kernel.cycle_through`), not any cycle of the whole relation."""
    if base is None:
        return Conflict(cycle_reasons(ix, edges, find_cycle(ix, edges.keys())), edges)
    from .closure_kernel import cycle_through

    add = flat_pairs(new)
    cycle = cycle_through(ix.n, ix.P, ix.proc_array, ix.idx_array, ix.po_next_array,
                          np.concatenate((base.pairs, add)), add[0::2].copy(), add[1::2].copy())
    if not len(cycle):
        raise AssertionError("conflict_of on an acyclic relation")
    return Conflict(cycle_reasons(ix, edges, Cycle(tuple(cycle.tolist()))), edges)


def find_cycle(ix: Index, edges: Pairs) -> Cycle:
    """A cycle of ``po ∪ edges``, known to be cyclic: the one
    :func:`fisheye.spec.order.find_cycle` reports (compiled, linear time)."""
    _, cycle = _close(ix, flat_pairs(edges))
    if not len(cycle):
        raise AssertionError("find_cycle on an acyclic relation")
    return Cycle(tuple(cycle.tolist()))


def render(ix: Index, a: int, b: int, info: Info) -> Reason:
    """The plain-words reason of the ordering ``a < b``."""
    la, lb = ix.label(a), ix.label(b)
    kind = info[0]
    if kind == "rf":
        return Reason(f"{la} < {lb}: the read reads from this write", "rf", (a, b))
    if kind == "view":
        return Reason(f"{la} < {lb} in {info[1]}: the read returns the value of this write there",
                      "view", (a, b))
    if kind == "forced":
        r = ix.label(info[2])
        return Reason(f"{la} < {lb} in {info[1]}: {r} reads {lb} after {la}, so {la} must precede {lb}",
                      "forced", (a, b, info[2]))
    if kind == "fr":
        w = ix.label(info[3])
        return Reason(f"{la} < {lb} in {info[1]}: {la} reads {w}, which precedes {lb}, so the read must "
                      f"come before {lb}", "forced", (a, b, info[3]))
    if kind == "init":
        return Reason(f"{la} < {lb} in {info[1]}: {la} returns the initial value of {ix.reg[a]}",
                      "forced", (a, b))
    if kind == "edge":
        _, view, p, q, what = info
        return Reason(f"{la} < {lb} in the star order: {view} must order them so, and the star order is "
                      f"total on the {what} of {p} and {q} [edge {p}-{q}]", "edge", (a, b))
    if kind == "probe":
        return Reason(f"{la} < {lb}: probe choice", "probe", (a, b))
    if kind == "choice":
        return Reason(f"{la} < {lb}: search choice", "choice", (a, b))
    if kind == "po":
        return Reason(f"{la} < {lb}: process order of {ix.h.ops[a].process}", "po", (a, b))
    return Reason(f"{la} < {lb}", "order", (a, b))


def rf_edges(ix: Index, rf: Mapping[int, int | None]) -> Edges:
    return {(w, r): ("rf",) for r, w in rf.items() if w is not None}


def edge_reason(ix: Index, edges: Mapping[tuple[int, int], Info], a: int, b: int) -> Reason:
    if (a, b) in edges:
        return render(ix, a, b, edges[(a, b)])
    if ix.proc_of[a] == ix.proc_of[b] and ix.idx[a] < ix.idx[b]:
        return render(ix, a, b, ("po",))
    return render(ix, a, b, ("order",))


def cycle_reasons(ix: Index, edges: Mapping[tuple[int, int], Info], cycle: Cycle) -> tuple[Reason, ...]:
    """A cycle of forced orderings, each edge with its reason."""
    ops = list(cycle.ops)
    return tuple(edge_reason(ix, edges, a, b) for a, b in zip(ops, ops[1:] + ops[:1], strict=True))


def path_reasons(ix: Index, edges: Mapping[tuple[int, int], Info], a: int, b: int) -> tuple[Reason, ...]:
    """A path ``a -> ... -> b`` in process order ∪ ``edges`` (BFS), each step with its
    reason; empty if there is none (should not happen when the order says a < b)."""
    succ: dict[int, list[int]] = {}
    for x, y in edges:
        succ.setdefault(x, []).append(y)
    parent: dict[int, int] = {a: a}
    queue = deque([a])
    while queue:
        u = queue.popleft()
        if u == b:
            break
        nxt = list(succ.get(u, ()))
        if u + 1 < ix.n and ix.proc_of[u + 1] == ix.proc_of[u]:
            nxt.append(u + 1)
        for v in nxt:
            if v not in parent:
                parent[v] = u
                queue.append(v)
    if b not in parent:
        return ()
    path = [b]
    while path[-1] != a:
        path.append(parent[path[-1]])
    path.reverse()
    return tuple(edge_reason(ix, edges, x, y) for x, y in zip(path, path[1:], strict=False))


def order_key(order: DOrder) -> bytes:
    """A 128-bit digest of a closure (memoisation of refuted search nodes without keeping
    the clocks alive)."""
    from hashlib import blake2b

    return blake2b(order.array.tobytes(), digest_size=16).digest()


def fair_topo(ix: Index, order: DOrder) -> list[int]:
    """A topological order of ``order`` that interleaves the processes by progress (the
    ready operation whose position ``index / length`` in its process is smallest comes
    first): a guess of real time, used to orient the pairs a search must choose."""
    import heapq

    P = ix.P
    # immediate predecessors are enough: u is ready once, for every process k, the
    # operations of k up to clock[u][k] are placed
    placed = [0] * P  # number of placed operations of each process
    heap: list[tuple[float, int, int]] = []
    waiting: dict[tuple[int, int], list[int]] = {}

    def try_ready(u: int) -> None:
        c = order.clock[u]
        k_u = ix.proc_of[u]
        for k in range(P):
            need = c[k] + 1 if k != k_u else ix.idx[u]
            if placed[k] < need:
                waiting.setdefault((k, need), []).append(u)
                return
        heapq.heappush(heap, (ix.idx[u] / ix.length[k_u], k_u, u))

    for k in range(P):
        if ix.length[k]:
            try_ready(ix.base[k])
    out: list[int] = []
    while heap:
        _, k, u = heapq.heappop(heap)
        out.append(u)
        placed[k] += 1
        if placed[k] < ix.length[k]:
            try_ready(u + 1)
        for v in waiting.pop((k, placed[k]), ()):
            try_ready(v)
    return out


def conflict_choice(probe: object, default: tuple[int, int], ix: Index | None = None) -> tuple[int, int]:
    """The pair to branch on after a failed probe: a probe choice on the refuted cycle,
    reversed (at least one of them must flip); else a probe choice on the path that made
    a forced step of the cycle hold (its premise ``w' < r``); else ``default``.  Any
    open pair keeps the search complete; this one focuses it on the conflict."""
    if not isinstance(probe, Conflict):
        return default
    for r in probe.reasons:
        if r.rule == "probe" and len(r.ops) == 2:
            return r.ops[1], r.ops[0]
    if ix is not None and probe.edges is not None:
        for r in probe.reasons:
            if r.rule == "forced" and len(r.ops) == 3 and ix.is_write[r.ops[0]]:
                for step in path_reasons(ix, probe.edges, r.ops[0], r.ops[2]):
                    if step.rule == "probe":
                        return step.ops[1], step.ops[0]
    return default
