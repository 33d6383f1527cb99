"""Conflict analysis for the star search: which chosen orientations a refuted
saturation depended on.

Setting (:mod:`.direct_star`): the star order is saturated from a root (the causal
order ``~>H`` and what it forces, section 3.2) plus a set of *chosen orientations* of
pairs of some ``M_pq``, each an edge labelled ``("choice", literal)``.  Saturation
derives forced orderings, each from a premise "``u`` precedes ``v``" in the order of
one graph (the star order or the order ``O_i`` of a view):

* ``("forced", S_i, r)``, edge ``w' -> vs(r)``: ``w'`` precedes ``r`` in ``O_i``;
* ``("fr", S_i, r, w)``, edge ``r -> w''``: ``w = vs(r)`` precedes ``w''`` in ``O_i``;
* ``("edge", S_i, p, q, what)``, star edge ``a -> b``: ``a`` precedes ``b`` in ``O_i``;
* ``("rf",)``, ``("view", S_i)``, ``("init", S_i)`` (a read of the initial value
  before a write to its register) and the process order need no premise.

Every rule only fires more on a larger order, so a premise holds whenever the edges
of a path that establishes it hold.  A :class:`~.direct_order.Trail` says when each
edge entered each graph; a premise derived at stamp ``t`` has a path made of edges of
stamps below ``t`` (those were the closure the rule read), so following premises back
terminates.  The chosen orientations met on the way are the *explanation*: any set of
choices containing them closes the same cycle (or the same illegal view), a clause the
search learns.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections import Counter
from collections.abc import Sequence

import numpy as np

from .direct_order import STAR, Conflict, DOrder, Edges, Index, Trail, flat_pairs

_NO_BOUND = np.empty((0, 0), np.int64)


class Analyser:
    """Conflict analysis against a fixed root: ``root_star`` (the star edges before any
    choice) and ``root_views`` (each view's edges then); root edges hold without any
    choice.

    ``pairs`` (literal ``v`` is "``pairs[v-1][0]`` before ``pairs[v-1][1]``", ``-v`` the
    reverse) and ``chains`` (per variable, the two chains of its ``M_pq``, uids in
    process order) let a chosen orientation be *generalised*: on a cycle
    ``... a' ->po ... a -> c ->po ... c' ...``, the chosen ``a -> c`` can be replaced
    by ``a' -> c'`` for the first member ``a'`` of ``a``'s chain and the last member
    ``c'`` of ``c``'s chain on those process-order runs: the same cycle closes with the
    weaker orientation (every merge with ``a`` before ``c`` has ``a'`` before ``c'``),
    so the learned clause excludes more."""

    def __init__(self, ix: Index, root_star: Edges, root_views: Sequence[Edges],
                 pairs: Sequence[tuple[int, int]] = (), chains: Sequence[tuple[list[int], list[int]]] = (),
                 root_order: DOrder | None = None):
        self.ix = ix
        self.root_order = root_order
        self._root_clock: list[list[int]] | None = None
        self.root = {STAR: root_star, **dict(enumerate(root_views))}
        self.view_of = {f"S_{p}": k for k, p in enumerate(ix.procs)}
        self._root_csr: dict[int, tuple[np.ndarray, np.ndarray]] = {}
        self.pairs = pairs
        self.chains = chains
        self.var = {pair: v for v, pair in enumerate(pairs, 1)}
        # the chosen orientations (their own literals, before generalisation) that the
        # last call of :meth:`literals` met: the edges a check leaves out to go on
        self.met: set[int] = set()

    def literals(self, conflict: Conflict, trail: Trail, graph: int) -> list[set[int]]:
        """The chosen orientations (literals) that ``conflict``, found in ``graph``
        (:data:`~.direct_order.STAR` or a view), depends on: a clause, then its
        *pivot variants*; :attr:`met` receives the chosen orientations the
        explanation goes through, as chosen (a generalised literal may be no chosen
        edge).  Where the cycle goes ``x -> a ->po* a'' -> y`` through two
        chosen orientations around a run of one chain ``A``, every member ``a'`` of
        ``A`` closes the same cycle as ``x -> a' -> y``: one clause per ``a'`` (else
        the search would move the members of ``A`` out of the window one by one)."""
        self.met = set()
        steps = [r for r in conflict.reasons if len(r.ops) >= 2 and r.rule != "legality"]
        if not steps:
            return [set()]
        nodes = [r.ops[0] for r in steps]
        cyclic = conflict.reasons[-1].rule != "legality"
        if not cyclic:
            nodes.append(steps[-1].ops[1])
        out: Counter[int] = Counter()
        todo: list[tuple[int, int, int]] = []
        logs: list[tuple[int, bool, list]] = []
        self._walk(graph, nodes, cyclic, trail, out, todo, logs)
        self._close(todo, trail, out, logs)
        base = set(out)
        clauses = [base]
        for m, cyc, log in logs:
            clauses += self._pivots(base, out, m, cyc, log)
        return clauses

    def _pivots(self, base: set[int], out: Counter[int], m: int, cyclic: bool, log: list) -> list[set[int]]:
        """The pivot variants of ``base`` for one path (or cycle) of ``m`` nodes."""
        clauses: list[set[int]] = []
        for k, r1 in enumerate(log):
            if k + 1 < len(log):
                r2 = log[k + 1]
            elif cyclic and len(log) > 1:
                r2 = log[0]
            else:
                break
            _, hi1, x1, _, g1, _, chain1 = r1
            i2, _, _, y2, g2, chain2, _ = r2
            if hi1 % m != i2 % m or g1 == g2 or out[g1] != 1 or out[g2] != 1:
                continue
            if chain1[0] != chain2[0] or len(chain1) != len(chain2):
                continue
            rest = base - {g1, g2}
            for a2 in self._between(chain1, x1, y2):
                l1, l2 = self._lit(x1, a2), self._lit(a2, y2)
                if l1 is False or l2 is False:
                    continue
                extra = {lit for lit in (l1, l2) if lit is not True}
                if extra != {g1, g2}:
                    clauses.append(rest | extra)
        return clauses

    def _between(self, chain: list[int], x: int, y: int) -> list[int]:
        """The members ``a`` of ``chain`` (one process's, in process order) that the
        root orders neither before ``x`` nor after ``y``: the others make "``x`` before
        ``a``" or "``a`` before ``y``" false.  The first kind is a prefix of the chain,
        the second a suffix (rows of the clocks grow along the process order)."""
        ix = self.ix
        if self._root_clock is None:
            assert self.root_order is not None
            self._root_clock = self.root_order.clock
        clock = self._root_clock
        k = ix.proc_of[chain[0]]
        lo = bisect_right(chain, ix.base[k] + clock[x][k])  # a precedes or is x
        ky, iy = ix.proc_of[y], ix.idx[y]
        hi = bisect_left(chain, iy, lo=lo, key=lambda a: clock[a][ky])  # y precedes or is a
        return chain[lo:hi]

    def _lit(self, x: int, y: int) -> int | bool:
        """"``x`` before ``y``" as a literal, or ``True`` / ``False`` when the root
        orders them."""
        var = self.var
        v = var.get((x, y))
        if v is not None:
            return v
        v = var.get((y, x))
        if v is not None:
            return -v
        if self._root_clock is None:
            assert self.root_order is not None
            self._root_clock = self.root_order.clock
        return x != y and self.ix.idx[x] <= self._root_clock[y][self.ix.proc_of[x]]

    def contradiction(self, view: int, a: int, b: int, trail: Trail) -> set[int]:
        """The literals of the cycle "``a`` precedes ``b`` in the order of ``view``, and
        ``b`` precedes ``a`` in the star order" (the view forces ``a -> b`` into a star
        order that is total on their ``M_pq``)."""
        return self._premises(((view, a, b), (STAR, b, a)), trail)

    def implied(self, view: int, a: int, b: int, trail: Trail) -> set[int]:
        """The literals that "``a`` precedes ``b`` in the order of ``view``" rests on:
        with them, the view forces ``a -> b`` into the star order (when ``a`` and ``b``
        are in one ``M_pq``), a reason for the search to orient that pair so."""
        return self._premises(((view, a, b),), trail)

    def _premises(self, paths: Sequence[tuple[int, int, int]], trail: Trail) -> set[int]:
        """The literals of the paths ``(graph, u, v)``, found among every edge so far."""
        end = trail.stamp + 1
        out: Counter[int] = Counter()
        todo: list[tuple[int, int, int]] = []
        for g, u, v in paths:
            self._walk(g, self._path(g, u, v, end, trail), False, trail, out, todo, bound=end)
        self._close(todo, trail, out)
        return set(out)

    def _record(self, g: int, a: int, b: int, trail: Trail, bound: float = float("inf")
                ) -> tuple[int, tuple] | None:
        """How edge ``a -> b`` entered graph ``g`` before stamp ``bound`` (the stamp
        below which the path that uses it was found): ``None`` for process order and
        root edges, else (stamp, reason); a star edge copied into a view, or one the
        view derived only later than ``bound`` (its path used the star order's copy),
        as the star edge."""
        ix = self.ix
        if ix.proc_of[a] == ix.proc_of[b] and ix.idx[a] < ix.idx[b]:
            return None
        while True:
            if (a, b) in self.root[g]:
                return None
            rec = trail.born.get(g, {}).get((a, b))
            if rec is None or (g != STAR and (rec[1][0] in ("edge", "choice") or rec[0] >= bound)):
                if g == STAR:
                    raise AssertionError(f"edge {a}->{b} of the star order has no record")
                g = STAR
                continue
            return rec if g == STAR or rec[1][0] not in ("edge", "choice") else None

    def _walk(self, g: int, nodes: Sequence[int], cyclic: bool, trail: Trail, out: Counter[int],
              todo: list[tuple[int, int, int]], logs: list | None = None, bound: float = float("inf")
              ) -> None:
        """The steps of a path (or cycle) ``nodes`` in graph ``g``, found among the edges
        of stamp below ``bound``: chosen orientations,
        generalised along the process-order runs around them, go to ``out``; derived
        edges go to ``todo`` (their premises are followed by :meth:`_close`); ``logs``
        receives (length, cyclic, log): the log lists each chosen orientation (step, end
        of the run after it, generalised ends, literal, chains of its ends)."""
        ix = self.ix
        m = len(nodes)
        log: list | None = None
        if logs is not None:
            log = []
            logs.append((m, cyclic, log))
        steps = m if cyclic else m - 1

        def po(i: int) -> bool:
            a, b = nodes[i % m], nodes[(i + 1) % m]
            return ix.proc_of[a] == ix.proc_of[b] and ix.idx[a] < ix.idx[b]

        chosen: list[tuple[int, int, int, int]] = []  # (step, run start, run end, literal)
        for i in range(steps):
            a, b = nodes[i], nodes[(i + 1) % m]
            if po(i):
                continue
            rec = self._record(g, a, b, trail, bound)
            if rec is None:
                continue
            info = rec[1]
            if info[0] != "choice":
                todo.append((g if info[0] in ("forced", "fr", "view", "init") else STAR, a, b))
                continue
            self.met.add(info[1])
            if not self.pairs:
                out[info[1]] += 1
                continue
            lo, hi = i, i + 1  # nodes[lo] ->po* a, b ->po* nodes[hi]
            while (lo > 0 or cyclic) and lo > i - m + 2 and po(lo - 1):
                lo -= 1
            while (hi < m - 1 or cyclic) and hi < lo + m - 1 and po(hi):
                hi += 1
            chosen.append((i, lo, hi, info[1]))
        starts = {i % m for i, _, _, _ in chosen}
        for i, lo, hi, lit in chosen:
            # a run between two chosen orientations serves the later one only: both
            # widening into it could cross
            end = nodes[(i + 1) % m] if hi % m in starts else nodes[hi % m]
            x, y, glit, ca, cb = self._general(lit, nodes[lo % m], nodes[i], nodes[(i + 1) % m], end)
            out[glit] += 1
            if log is not None:
                log.append((i, hi, x, y, glit, ca, cb))

    def _general(self, lit: int, a0: int, a: int, b: int, b1: int
                 ) -> tuple[int, int, int, list[int], list[int]]:
        """The weakest literal "``a'`` before ``c'``" for ``a0 <=po a' <=po a`` and
        ``b <=po c' <=po b1`` in the chains of ``lit``'s variable (``lit`` itself when
        that pair is not a variable, e.g. ordered at the root), with the two ends and
        their chains."""
        first, second = self.chains[abs(lit) - 1]
        ca, cb = (first, second) if lit > 0 else (second, first)
        i = bisect_left(ca, a0)
        j = bisect_right(cb, b1) - 1
        x, y = ca[i], cb[j]
        v = self.var.get((x, y))
        if v is not None:
            return x, y, v, ca, cb
        v = self.var.get((y, x))
        if v is not None:
            return x, y, -v, ca, cb
        first, second = self.pairs[abs(lit) - 1]
        return (first, second, lit, ca, cb) if lit > 0 else (second, first, lit, ca, cb)

    def _close(self, todo: list[tuple[int, int, int]], trail: Trail, out: Counter[int],
               logs: list | None = None) -> None:
        """Follow the derived edges ``(graph, a, b)`` of ``todo`` back to the literals."""
        seen: set[tuple[int, int, int]] = set()
        while todo:
            item = todo.pop()
            if item in seen:
                continue
            seen.add(item)
            g, a, b = item
            rec = self._record(g, a, b, trail)
            if rec is None:
                continue
            t, info = rec
            kind = info[0]
            if kind == "choice":
                out[info[1]] += 1
                self.met.add(info[1])
            elif kind in ("rf", "view", "po", "init"):
                continue
            elif kind == "edge":
                j = self.view_of[info[1]]
                self._walk(j, self._path(j, a, b, t, trail), False, trail, out, todo, logs, t)
            elif kind == "forced":
                self._walk(g, self._path(g, a, info[2], t, trail), False, trail, out, todo, logs, t)
            elif kind == "fr":
                self._walk(g, self._path(g, info[3], b, t, trail), False, trail, out, todo, logs, t)
            else:
                raise AssertionError(f"unknown reason {info!r}")

    def _path(self, g: int, u: int, v: int, t: int, trail: Trail) -> list[int]:
        """The nodes of a path ``u -> ... -> v`` in graph ``g`` made of root
        edges, process order and edges of stamp below ``t`` (fewest non-root edges:
        0-1 breadth-first search, compiled: :func:`.closure_kernel.premise_path`).  A
        view respects the star order: its paths may use the star order's edges too."""
        from .closure_kernel import adjacency, premise_path

        if u == v:
            return [u]
        ix = self.ix
        root = self._root_csr.get(g)
        if root is None:
            root = self._root_csr[g] = adjacency(ix.n, flat_pairs(self.root[g]))
        late = trail.late((g,) if g == STAR else (g, STAR), ix.n)
        # the root star order: every graph holds it (its clocks bound the search)
        bound = self.root_order.array if self.root_order is not None else _NO_BOUND
        path = premise_path(ix.n, ix.po_next_array, *root, *late, bound, ix.proc_array, ix.idx_array, t, u, v)
        if not len(path):
            raise AssertionError(f"no premise path {u}->{v} in graph {g} before stamp {t}")
        return path.tolist()
