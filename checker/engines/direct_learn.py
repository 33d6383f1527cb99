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
* ``("rf",)``, ``("view", S_i)`` and the process order need no premise.

Every rule only fires more on a larger order, so a premise holds whenever the edges
of a path that establishes it hold.  A :class:`~.direct_order.Trail` says when each
edge entered each graph; a premise derived at stamp ``t`` has a path made of edges of
stamps below ``t`` (those were the closure the rule read), so following premises back
terminates.  The chosen orientations met on the way are the *explanation*: any set of
choices containing them closes the same cycle (or the same illegal view), a clause the
search learns.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Mapping, Sequence

from .direct_order import STAR, Conflict, Edges, Index, Trail


class Analyser:
    """Conflict analysis against a fixed root: ``root_star`` (the star edges before any
    choice) and ``root_views`` (each view's edges then); root edges hold without any
    choice."""

    def __init__(self, ix: Index, root_star: Edges, root_views: Sequence[Edges]):
        self.ix = ix
        self.root = {STAR: root_star, **dict(enumerate(root_views))}
        self.view_of = {f"S_{p}": k for k, p in enumerate(ix.procs)}
        self._succ: dict[int, dict[int, list[int]]] = {}

    def _root_succ(self, g: int) -> dict[int, list[int]]:
        got = self._succ.get(g)
        if got is None:
            got = {}
            for a, b in self.root[g]:
                got.setdefault(a, []).append(b)
            self._succ[g] = got
        return got

    def literals(self, conflict: Conflict, trail: Trail) -> set[int]:
        """The chosen orientations (literals) that ``conflict`` depends on."""
        edges: Mapping[tuple[int, int], tuple] = conflict.edges or {}
        todo: list[tuple[int, int, int]] = []
        for r in conflict.reasons:
            if len(r.ops) < 2 or r.rule == "legality":
                continue
            a, b = r.ops[0], r.ops[1]
            info = edges.get((a, b))
            if info is None or info[0] in ("rf", "po", "view"):
                continue  # process order, read-from: no choice
            todo.append((self.view_of[info[1]] if info[0] in ("forced", "fr") else STAR, a, b))
        return self._close(todo, trail)

    def contradiction(self, view: int, a: int, b: int, trail: Trail) -> set[int]:
        """The literals of the cycle "``a`` precedes ``b`` in the order of ``view``, and
        ``b`` precedes ``a`` in the star order" (the view forces ``a -> b`` into a star
        order that is total on their ``M_pq``)."""
        end = trail.stamp + 1
        todo = [(view, x, y) for x, y in self._path(view, a, b, end, trail)]
        todo += [(STAR, x, y) for x, y in self._path(STAR, b, a, end, trail)]
        return self._close(todo, trail)

    def _close(self, todo: list[tuple[int, int, int]], trail: Trail) -> set[int]:
        """Follow the edges ``(graph, a, b)`` of ``todo`` back to the literals."""
        out: set[int] = set()
        seen: set[tuple[int, int, int]] = set()
        born = trail.born
        while todo:
            item = todo.pop()
            if item in seen:
                continue
            seen.add(item)
            g, a, b = item
            if (a, b) in self.root[g]:
                continue
            rec = born.get(g, {}).get((a, b))
            if rec is None:
                if g != STAR:  # a star edge copied into the view
                    todo.append((STAR, a, b))
                    continue
                raise AssertionError(f"edge {a}->{b} of the star order has no record")
            t, info = rec
            kind = info[0]
            if kind == "choice":
                out.add(info[1])
            elif kind in ("rf", "view", "po"):
                continue
            elif kind == "edge" and g != STAR:
                todo.append((STAR, a, b))
            elif kind == "edge":
                j = self.view_of[info[1]]
                todo.extend((j, x, y) for x, y in self._path(j, a, b, t, trail))
            elif kind == "forced":
                todo.extend((g, x, y) for x, y in self._path(g, a, info[2], t, trail))
            elif kind == "fr":
                todo.extend((g, x, y) for x, y in self._path(g, info[3], b, t, trail))
            else:
                raise AssertionError(f"unknown reason {info!r}")
        return out

    def _path(self, g: int, u: int, v: int, t: int, trail: Trail) -> list[tuple[int, int]]:
        """The non-root edges of a path ``u -> ... -> v`` in graph ``g`` made of root
        edges, process order and edges of stamp below ``t`` (fewest non-root edges:
        0-1 breadth-first search)."""
        ix = self.ix
        if u == v:
            return []
        root = self._root_succ(g)
        late: dict[int, list[int]] = {}
        for (a, b), (s, _) in trail.born.get(g, {}).items():
            if s < t:
                late.setdefault(a, []).append(b)
        n, proc_of = ix.n, ix.proc_of
        dist: dict[int, int] = {u: 0}
        parent: dict[int, tuple[int, bool]] = {}
        dq: deque[int] = deque([u])
        done: set[int] = set()
        while dq:
            x = dq.popleft()
            if x in done:
                continue
            done.add(x)
            if x == v:
                break
            d = dist[x]
            free = list(root.get(x, ()))
            if x + 1 < n and proc_of[x + 1] == proc_of[x]:
                free.append(x + 1)
            for y in free:
                if dist.get(y, d + 1) > d:
                    dist[y] = d
                    parent[y] = (x, False)
                    dq.appendleft(y)
            for y in late.get(x, ()):
                if dist.get(y, d + 2) > d + 1:
                    dist[y] = d + 1
                    parent[y] = (x, True)
                    dq.append(y)
        if v not in parent:
            raise AssertionError(f"no premise path {u}->{v} in graph {g} before stamp {t}")
        out = []
        y = v
        while y != u:
            x, costly = parent[y]
            if costly:
                out.append((x, y))
            y = x
        return out
