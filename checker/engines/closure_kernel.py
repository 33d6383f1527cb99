"""The direct engine's unit of work in compiled code: the transitive closure of
process order ∪ a set of pairs, as vector clocks, or the cycle that prevents it.

A history's operations are numbered process by process (``u`` and ``u + 1`` are
consecutive in process order when ``po_next[u]``), so the closure is computed by Kahn's
algorithm pushing clocks along the edges: when ``u`` is placed, every successor's clock
becomes the element-wise maximum of its own and ``u``'s (``clock[b][k]``: the last index
of process ``k`` that precedes or equals ``b``, section 2.1's ``~>`` restricted to the
relation given).  When Kahn's algorithm stops early, the operations it could not place
lie on or after a cycle; a depth-first search among them returns the same cycle as
:func:`fisheye.spec.order.find_cycle` (the spec's reference, which the tests compare
with): the same successor order (the pairs in the order given, then process order) and
the same start (the smallest such operation first).

Compiled for histories of :data:`.compiled.COMPILED_FROM` operations or more: the search
computes thousands of closures per check, and in Python each costs a few milliseconds at a
thousand operations.  Every kernel here is built ahead of time at install
(:mod:`.ahead_of_time`), so a check loads plain machine code and imports no numba (numba's
import and the loading of these kernels from its cache cost about 0.3 s of CPU per
check); where that build is missing or stale, numba compiles them at the first such check
and caches them on disk.  Below the threshold the same functions run as Python
(:class:`.compiled_kernel.Kernel`), the readable reference the compiled code is built
from.  :func:`.compiled_kernel.compiled_for` chooses, per check.
"""

from __future__ import annotations

from functools import partial

import numpy as np

from .compiled_kernel import _kernel as _any_kernel

_kernel = partial(_any_kernel, ahead_of_time=True)


@_kernel("Tuple((int64[:], int64[:]))(int64, int64[:])")
def adjacency(n: int, flat: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Successor lists in compressed form (``adj[start[u]:start[u + 1]]``), each in the
    order the pairs were given (``flat``: ``a0, b0, a1, b1, ...``)."""
    m = flat.shape[0] // 2
    start = np.zeros(n + 1, np.int64)
    for e in range(m):
        start[flat[2 * e] + 1] += 1
    for u in range(n):
        start[u + 1] += start[u]
    fill = start[:-1].copy()
    adj = np.empty(m, np.int64)
    for e in range(m):
        a = flat[2 * e]
        adj[fill[a]] = flat[2 * e + 1]
        fill[a] += 1
    return start, adj


@_kernel("int64[:](int64, int64[:], int64[:], boolean[:], int64[:])")
def _cycle(n: int, start: np.ndarray, adj: np.ndarray, po_next: np.ndarray, indeg: np.ndarray) -> np.ndarray:
    """A simple cycle among the operations Kahn's algorithm left (``indeg > 0``):
    iterative depth-first search from the smallest, successors in order."""
    color = np.zeros(n, np.int8)  # 0 white, 1 on the path, 2 done
    path = np.empty(n, np.int64)
    pos = np.empty(n, np.int64)  # per path entry: next successor slot to try
    for s in range(n):
        if indeg[s] <= 0 or color[s]:
            continue
        depth = 0
        path[0] = s
        pos[0] = start[s]
        color[s] = 1
        while depth >= 0:
            u = path[depth]
            last = start[u + 1] + (1 if po_next[u] else 0)
            j = pos[depth]
            if j < last:
                pos[depth] = j + 1
                v = adj[j] if j < start[u + 1] else u + 1
                if indeg[v] <= 0:
                    continue
                if color[v] == 1:
                    i = 0
                    while path[i] != v:
                        i += 1
                    return path[i:depth + 1].copy()
                if color[v] == 0:
                    color[v] = 1
                    depth += 1
                    path[depth] = v
                    pos[depth] = start[v]
            else:
                color[u] = 2
                depth -= 1
    return np.empty(0, np.int64)


@_kernel("Tuple((int64[:, :], int64[:], int64))"
           "(int64, int64, int64[:], int64[:], boolean[:], int64[:], int64[:], boolean)")
def _kahn(n: int, width: int, proc: np.ndarray, idx: np.ndarray, po_next: np.ndarray, start: np.ndarray,
          adj: np.ndarray, clocks: bool) -> tuple[np.ndarray, np.ndarray, int]:
    """Kahn's algorithm pushing clocks along the edges: ``(clock, indeg, placed)``; the
    operations with ``indeg > 0`` at the end lie on or after a cycle.  Without
    ``clocks``, only the order of placing (the clocks are then empty): enough to find
    the operations a cycle search needs."""
    indeg = np.zeros(n, np.int64)
    for j in range(adj.shape[0]):
        indeg[adj[j]] += 1
    for u in range(n - 1):
        if po_next[u]:
            indeg[u + 1] += 1
    clock = np.full((n if clocks else 0, width), -1, np.int64)
    stack = np.empty(n, np.int64)
    top = 0
    for u in range(n):
        if indeg[u] == 0:
            stack[top] = u
            top += 1
    placed = 0
    while top:
        top -= 1
        u = stack[top]
        placed += 1
        if clocks:
            clock[u, proc[u]] = idx[u]
        last = start[u + 1] + (1 if po_next[u] else 0)
        for j in range(start[u], last):
            v = adj[j] if j < start[u + 1] else u + 1
            if clocks:
                for k in range(width):
                    if clock[u, k] > clock[v, k]:
                        clock[v, k] = clock[u, k]
            indeg[v] -= 1
            if indeg[v] == 0:
                stack[top] = v
                top += 1
    return clock, indeg, placed


@_kernel("Tuple((int64[:, :], int64[:]))(int64, int64, int64[:], int64[:], boolean[:], int64[:])")
def closure(n: int, width: int, proc: np.ndarray, idx: np.ndarray, po_next: np.ndarray,
            flat: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(clock, cycle)``: the clocks of ``closure(po ∪ pairs)`` and an empty cycle, or
    (when there is a cycle) unspecified clocks and the operations of one cycle in order.
    ``width``: the number of processes; ``po_next`` has ``n`` entries (the last False)."""
    start, adj = adjacency(n, flat)
    clock, indeg, placed = _kahn(n, width, proc, idx, po_next, start, adj, True)
    if placed == n:
        return clock, np.empty(0, np.int64)
    return clock, _cycle(n, start, adj, po_next, indeg)


@_kernel("int64[:](int64, int64[:], int64[:], boolean[:], int64[:], int64[:], int64[:], int64[:], int64[:], "
         "int64[:], int64[:], int64[:], boolean[:], int64[:])")
def _cycle_through_new(n: int, start: np.ndarray, adj: np.ndarray, po_next: np.ndarray, indeg: np.ndarray,
                       new_src: np.ndarray, new_dst: np.ndarray, new_ids: np.ndarray, seen: np.ndarray,
                       parent: np.ndarray, queue: np.ndarray, stamp: np.ndarray, hopeless: np.ndarray,
                       component: np.ndarray) -> np.ndarray:
    """Among the operations Kahn's algorithm left (``indeg > 0``), the cycle of
    :func:`cycle_through`: a breadth-first search from the end of each new pair, in the
    order given, until one reaches back to its start; else :func:`_cycle`.  ``seen``
    (``n`` entries), ``parent`` and ``queue``: work space, ``seen`` holding per
    operation the try that last reached it (a number below ``stamp[0]``: the tries of
    a call are numbered from ``stamp[0]``, which then moves past them).  ``hopeless``,
    unless empty: per pair id (``new_ids[i]`` for the ``i``-th new pair), whether a
    try of an earlier call on the same relation, less pairs taken out since, found no
    way back; it finds none now either (taking pairs out only removes paths), so it is
    skipped, and a try that finds none is marked.  ``component``, unless empty: per
    operation its strongly connected component in a relation that held every pair of
    this one (:func:`components`): a cycle lies in one, so a new pair across two is
    skipped (and marked), and a search stays in its pair's (the same searches, less
    what they could not use: every path from the end of a pair back to its start lies
    in their component, and so does every operation that reaches one of them first)."""
    marks = hopeless.shape[0] > 0
    within = component.shape[0] > 0
    first = stamp[0]
    stamp[0] += new_src.shape[0]
    for i in range(new_src.shape[0]):
        a, b = new_src[i], new_dst[i]
        if indeg[a] <= 0 or indeg[b] <= 0 or (marks and hopeless[new_ids[i]]):
            continue
        if within and component[a] != component[b]:
            if marks:
                hopeless[new_ids[i]] = True
            continue
        tag = first + i
        head, tail = 0, 1
        queue[0] = b
        seen[b] = tag
        found = a == b
        while head < tail and not found:
            x = queue[head]
            head += 1
            last = start[x + 1] + (1 if po_next[x] else 0)
            for j in range(start[x], last):
                y = adj[j] if j < start[x + 1] else x + 1
                if indeg[y] <= 0 or seen[y] == tag or (within and component[y] != component[a]):
                    continue
                seen[y] = tag
                parent[y] = x
                if y == a:
                    found = True
                    break
                queue[tail] = y
                tail += 1
        if found:
            length = 1
            y = a
            while y != b:
                y = parent[y]
                length += 1
            out = np.empty(length, np.int64)  # a, b, ..., the predecessor of a
            out[0] = a
            y = a
            for k in range(length - 1, 0, -1):
                y = parent[y]
                out[k] = y
            return out
        if marks:
            hopeless[new_ids[i]] = True
    return _cycle(n, start, adj, po_next, indeg)


@_kernel("int64[:](int64, int64[:], int64[:], boolean[:], int64[:], int64[:], int64[:])")
def _cycle_through_once(n: int, start: np.ndarray, adj: np.ndarray, po_next: np.ndarray, indeg: np.ndarray,
                        new_src: np.ndarray, new_dst: np.ndarray) -> np.ndarray:
    """:func:`_cycle_through_new` with fresh work space, nothing marked."""
    return _cycle_through_new(n, start, adj, po_next, indeg, new_src, new_dst, np.empty(0, np.int64),
                              np.full(n, -1, np.int64), np.empty(n, np.int64), np.empty(n, np.int64),
                              np.zeros(1, np.int64), np.empty(0, np.bool_), np.empty(0, np.int64))


@_kernel("int64[:](int64, int64, int64[:], int64[:], boolean[:], int64[:], int64[:], int64[:])")
def cycle_through(n: int, width: int, proc: np.ndarray, idx: np.ndarray, po_next: np.ndarray,
                  flat: np.ndarray, new_src: np.ndarray, new_dst: np.ndarray) -> np.ndarray:
    """A cycle of ``po ∪ pairs`` (``flat``) through one of the pairs ``new_src[i] ->
    new_dst[i]`` (added to an acyclic relation), as short as a breadth-first search
    among the operations Kahn's algorithm leaves makes it: the first new pair, in the
    order given, whose end reaches back to its start; empty when acyclic."""
    start, adj = adjacency(n, flat)
    _, indeg, placed = _kahn(n, width, proc, idx, po_next, start, adj, False)
    if placed == n:
        return np.empty(0, np.int64)
    return _cycle_through_once(n, start, adj, po_next, indeg, new_src, new_dst)


@_kernel("int64[:](int64, int64[:], int64[:], boolean[:], int64[:])")
def components(n: int, start: np.ndarray, adj: np.ndarray, po_next: np.ndarray, indeg: np.ndarray
               ) -> np.ndarray:
    """The strongly connected components of the operations Kahn's algorithm left
    (``indeg > 0``) and the pairs and process order among them: per operation its
    component's number, -1 for an operation placed (Tarjan's algorithm, iterative,
    successors in order)."""
    order = np.full(n, -1, np.int64)  # when the search first reached each operation
    low = np.zeros(n, np.int64)
    component = np.full(n, -1, np.int64)
    held = np.zeros(n, np.bool_)  # on Tarjan's stack
    stack = np.empty(n, np.int64)
    path = np.empty(n, np.int64)  # the depth-first path, and per entry its next successor slot
    slot = np.empty(n, np.int64)
    top = 0
    count = 0
    found = 0
    for s in range(n):
        if indeg[s] <= 0 or order[s] >= 0:
            continue
        depth = 1
        path[0] = s
        slot[0] = start[s]
        order[s] = low[s] = count
        count += 1
        stack[top] = s
        top += 1
        held[s] = True
        while depth:
            u = path[depth - 1]
            last = start[u + 1] + (1 if po_next[u] else 0)
            j = slot[depth - 1]
            if j < last:
                slot[depth - 1] = j + 1
                v = adj[j] if j < start[u + 1] else u + 1
                if indeg[v] <= 0:
                    continue
                if order[v] < 0:
                    order[v] = low[v] = count
                    count += 1
                    stack[top] = v
                    top += 1
                    held[v] = True
                    path[depth] = v
                    slot[depth] = start[v]
                    depth += 1
                elif held[v] and order[v] < low[u]:
                    low[u] = order[v]
            else:
                if low[u] == order[u]:
                    while True:
                        top -= 1
                        w = stack[top]
                        held[w] = False
                        component[w] = found
                        if w == u:
                            break
                    found += 1
                depth -= 1
                if depth and low[u] < low[path[depth - 1]]:
                    low[path[depth - 1]] = low[u]
    return component


@_kernel("Tuple((int64[:], int64[:], int64[:], boolean[:], int64[:], int64[:]))"
         "(int64, int64, int64[:], int64[:], boolean[:], int64[:])")
def cycle_search(n: int, width: int, proc: np.ndarray, idx: np.ndarray, po_next: np.ndarray,
                 flat: np.ndarray) -> tuple[np.ndarray, ...]:
    """The state of a search for the cycles of ``po ∪ pairs`` (``flat``) as pairs are
    taken out (:func:`cycle_after_removal`): ``(start, adj, indeg, po_next, slot,
    component)``
    over ``n + 1`` operations, the last a placeholder that no pair leaves and nothing
    reaches (a pair taken out points to it: its ``indeg`` stays 0, so every search
    skips it); ``indeg`` as :func:`_kahn` leaves it (Kahn's algorithm without clocks);
    ``slot``: each pair's place in ``adj`` (:func:`adjacency` fills them in order);
    ``component``: the strongly connected components of what Kahn's algorithm left
    (:func:`components`)."""
    start, adj = adjacency(n + 1, flat)
    ext = np.zeros(n + 1, np.bool_)
    ext[:n] = po_next
    _, indeg, _ = _kahn(n + 1, width, proc, idx, ext, start, adj, False)
    m = flat.shape[0] // 2
    slot = np.empty(m, np.int64)
    fill = start[:-1].copy()
    for e in range(m):
        a = flat[2 * e]
        slot[e] = fill[a]
        fill[a] += 1
    return start, adj, indeg, ext, slot, components(n + 1, start, adj, ext, indeg)


@_kernel("int64[:](int64, int64[:], int64[:], int64[:], boolean[:], int64[:], int64[:], int64[:], int64[:], "
         "int64[:], int64[:], int64[:], int64[:], int64[:], boolean[:], int64[:])")
def cycle_after_removal(n: int, start: np.ndarray, adj: np.ndarray, indeg: np.ndarray, po_next: np.ndarray,
                        src: np.ndarray, slots: np.ndarray, new_src: np.ndarray, new_dst: np.ndarray,
                        new_ids: np.ndarray, seen: np.ndarray, parent: np.ndarray, queue: np.ndarray,
                        stamp: np.ndarray, hopeless: np.ndarray, component: np.ndarray) -> np.ndarray:
    """:func:`cycle_through` of the relation of :func:`cycle_search` less the pairs
    taken out so far, after taking out the pairs at the adjacency ``slots`` (sources
    ``src``): the state (``adj``, ``indeg``) is updated in place, and Kahn's algorithm
    resumes instead of starting over.  A pair taken out whose source Kahn's algorithm
    left counted once in its end's ``indeg``, which drops by one; the operations that
    reach 0 are placed, as :func:`_kahn` would place them.  The operations left are
    those of a fresh pass (the operations Kahn's algorithm places do not depend on the
    order it places them in), each ``indeg`` the count of its pairs from those left,
    and successors come in the same order less the pairs taken out, so the cycle is
    :func:`cycle_through`'s on the relation less those pairs.  ``new_ids`` to
    ``hopeless``: :func:`_cycle_through_new`'s ids of the new pairs, work space (``n +
    1`` entries each, ``seen`` all -1 and ``stamp`` 0 at the first call) and marks,
    kept by the caller from one call to the next on the same state; ``component``:
    :func:`cycle_search`'s (pairs taken out only split components: they still bound
    every cycle)."""
    hole = n  # the placeholder of :func:`cycle_search`
    stack = queue  # free until the breadth-first searches
    top = 0
    drop = np.empty(slots.shape[0], np.int64)
    m = 0
    for i in range(slots.shape[0]):
        s = slots[i]
        b = adj[s]
        if b == hole:
            continue
        if indeg[src[i]] > 0:
            drop[m] = b
            m += 1
        adj[s] = hole
    for i in range(m):
        b = drop[i]
        indeg[b] -= 1
        if indeg[b] == 0:
            stack[top] = b
            top += 1
    while top:
        top -= 1
        u = stack[top]
        last = start[u + 1] + (1 if po_next[u] else 0)
        for j in range(start[u], last):
            v = adj[j] if j < start[u + 1] else u + 1
            if v == hole:
                continue
            indeg[v] -= 1
            if indeg[v] == 0:
                stack[top] = v
                top += 1
    return _cycle_through_new(n + 1, start, adj, po_next, indeg, new_src, new_dst, new_ids, seen, parent,
                              queue, stamp, hopeless, component)


@_kernel("int64(int64[:, :], int64[:], int64[:], int64[:], int64[:])")
def new_pairs_state(clock: np.ndarray, proc: np.ndarray, idx: np.ndarray, new_src: np.ndarray,
                    new_dst: np.ndarray) -> int:
    """What the clocks ``clock`` say of the new pairs ``new_src[i] -> new_dst[i]``: 1
    when some pair's end precedes or is its start (a cycle), else 0 when every pair
    is implied already, else 2."""
    implied = True
    for i in range(new_src.shape[0]):
        a, b = new_src[i], new_dst[i]
        if clock[a, proc[b]] >= idx[b]:
            return 1
        if implied and clock[b, proc[a]] < idx[a]:
            implied = False
    return 0 if implied else 2


@_kernel("Tuple((int64[:, :], boolean[:], int64))"
         "(int64, int64, int64[:], int64[:], boolean[:], int64[:, :], int64[:], int64[:], int64[:], int64)")
def extend_closure(n: int, width: int, proc: np.ndarray, idx: np.ndarray, po_next: np.ndarray,
                   base: np.ndarray, flat: np.ndarray, new_src: np.ndarray, new_dst: np.ndarray,
                   limit: int) -> tuple[np.ndarray, np.ndarray, int]:
    """``(clock, raised, status)``: the clocks of ``closure(po ∪ pairs)`` (``flat``) computed from
    ``base``, the clocks of the same relation less the new pairs ``new_src[i] ->
    new_dst[i]`` (acyclic), raising only the rows that grow: a queue starts with the new
    pairs' starts, each operation taken from it raises its successors' rows to its own
    (through a new pair too), and each row raised is queued (an operation at most once
    at a time), status 0; ``raised`` marks the rows that grew.  The rows
    reached this way are the least clocks above ``base`` that every pair and process
    order respect, that is the closure's.  Status 1: the relation has a cycle (every
    cycle holds a new pair, whose end then precedes or is its start: the clocks say
    so); status 2: more than ``limit`` rows were taken from the queue, the clocks
    unfinished, and the relation may have a cycle or not (around a cycle the rows keep
    rising until they hold every operation on it; the caller runs :func:`closure`
    instead, whose pass of Kahn's algorithm costs about ``n`` such steps).  Cheaper
    than :func:`closure` when the new pairs raise few rows, as the later passes of a
    saturation's rules do."""
    start, adj = adjacency(n, flat)
    clock = base.copy()
    raised = np.zeros(n, np.bool_)
    queued = np.zeros(n, np.bool_)
    queue = np.empty(n, np.int64)  # a ring: each operation in it at most once
    # the queue starts with the new pairs' sources: from each, the pass below raises the
    # end of its new pair (its other successors' rows hold its own already)
    head = 0
    size = 0
    for i in range(new_src.shape[0]):
        a = new_src[i]
        if not queued[a]:
            queued[a] = True
            queue[size] = a
            size += 1
    taken = 0
    while size:
        u = queue[head]
        head = (head + 1) % n
        size -= 1
        queued[u] = False
        taken += 1
        if taken > limit:
            return clock, raised, 2
        last = start[u + 1] + (1 if po_next[u] else 0)
        for j in range(start[u], last):
            v = adj[j] if j < start[u + 1] else u + 1
            up = False
            for k in range(width):
                if clock[u, k] > clock[v, k]:
                    clock[v, k] = clock[u, k]
                    up = True
            if up:
                raised[v] = True
            if up and not queued[v]:
                queued[v] = True
                queue[(head + size) % n] = v
                size += 1
    for i in range(new_src.shape[0]):
        if clock[new_src[i], proc[new_dst[i]]] >= idx[new_dst[i]]:
            return clock, raised, 1
    return clock, raised, 0


@_kernel("Tuple((int64[:, :], int64[:]))"
           "(int64, int64, int64[:], int64[:], boolean[:], int64[:], int64[:], int64[:])")
def closure_through(n: int, width: int, proc: np.ndarray, idx: np.ndarray, po_next: np.ndarray,
                    flat: np.ndarray, new_src: np.ndarray, new_dst: np.ndarray
                    ) -> tuple[np.ndarray, np.ndarray]:
    """:func:`closure`, with the cycle (when there is one) of :func:`cycle_through`
    for the new pairs ``new_src[i] -> new_dst[i]``: one adjacency and one pass of
    Kahn's algorithm for both (the operations it leaves do not depend on the clocks)."""
    start, adj = adjacency(n, flat)
    clock, indeg, placed = _kahn(n, width, proc, idx, po_next, start, adj, True)
    if placed == n:
        return clock, np.empty(0, np.int64)
    return clock, _cycle_through_once(n, start, adj, po_next, indeg, new_src, new_dst)


@_kernel("int64[:, :](int64[:, :], int64)")
def _doubled(rows: np.ndarray, m: int) -> np.ndarray:
    out = np.empty((2 * rows.shape[0], rows.shape[1]), np.int64)
    out[:m] = rows[:m]
    return out


@_kernel("int64(int64[:, :], int64[:], int64, int64, int64, int64, int64, int64, int64)")
def _first_following(clock: np.ndarray, wl: np.ndarray, base: int, lo: int, hi: int, j: int, k: int,
                     pw: int, iw: int) -> int:
    """The first entry ``a`` of ``wl[lo:hi]`` (process-order indices of writes of
    process ``k``, uids from ``base``) whose write follows or is the operation of index
    ``iw`` of process ``pw`` (``clock[base + wl[a], pw] >= iw``), ``hi`` if none.  Those
    entries are a suffix (rows of the clocks grow along the process order), so this is
    a bisection; it starts where the answer most often is, just after ``j`` (the last
    entry that precedes the read being saturated): a probe at ``j``, then steps
    doubling from ``j + 1``, then a bisection between the last two probes.  On ``k``'s
    own writes (``k == pw``) a write's clock entry is its index: no clock is read."""
    if k == pw:
        a, b = lo, hi
        while a < b:
            mid = (a + b) // 2
            if wl[mid] >= iw:
                b = mid
            else:
                a = mid + 1
        return a
    if j >= lo and clock[base + wl[j], pw] >= iw:
        a, b = lo, j
    else:
        a = j + 1
        step = 1
        while True:
            probe = a + step - 1
            if probe >= hi:
                b = hi
                break
            if clock[base + wl[probe], pw] >= iw:
                b = probe
                break
            a = probe + 1
            step *= 2
    while a < b:
        mid = (a + b) // 2
        if clock[base + wl[mid], pw] >= iw:
            b = mid
        else:
            a = mid + 1
    return a


VIEW, FORCED, FROM_READ, LEGALITY, INITIAL = 0, 1, 2, 3, 4
"""Kinds of the orderings :func:`view_rules` derives."""
EVERY_ROW = np.empty(0, np.bool_)
""":func:`view_rules`' ``raised`` for a full pass."""
NO_ANSWERS = np.empty((0, 0), np.int64)
""":func:`view_rules`' ``answers`` when none are kept."""
UNKNOWN = np.iinfo(np.int64).max
"""A from-read answer not computed yet (a pass since the last computes it)."""


@_kernel("Tuple((int64[:, :], int64))(int64[:, :], int64[:], int64[:], int64[:], int64[:], "
           "int64[:], int64[:], int64[:], int64[:], int64[:], int64[:], boolean, boolean, boolean[:], "
           "int64[:, :])")
def view_rules(clock: np.ndarray, reads: np.ndarray, sources: np.ndarray, reg: np.ndarray,
               proc_of: np.ndarray, idx: np.ndarray, wr_start: np.ndarray, wr_proc: np.ndarray,
               wr_base: np.ndarray, wl_start: np.ndarray, wl: np.ndarray, from_read: bool,
               initial: bool, raised: np.ndarray, answers: np.ndarray) -> tuple[np.ndarray, int]:
    """One pass of the saturation rules of a view (the module docstring of
    :mod:`.direct_cc`), or of the one sequence of sc (:mod:`.direct_sc`), on the
    closure ``clock``: rows ``(kind, a, b, r, w)`` of the orderings ``a -> b`` it forces
    that ``clock`` lacks, and how many.  ``reads`` and ``sources``: the reads and their
    sources in the view (-1: the initial value); the writers of register ``x`` are the
    entries ``wr_start[x]:wr_start[x + 1]``, each a process ``wr_proc[e]`` whose writes to
    ``x`` have the process-order indices ``wl[wl_start[e]:wl_start[e + 1]]`` (uids from
    ``wr_base[e]``).  ``from_read``: a read precedes the first write of each writer that
    its source precedes; ``initial``: a read of the initial value precedes the first
    write of each writer (sc's third rule).  A read of the initial value that a write
    precedes stops the pass with a single row of kind LEGALITY.

    A pass *since* the last (``raised`` not empty: ``clock`` is the last pass's closure
    with the orderings it derived, ``raised`` the rows that grew) visits only what can
    derive anew; it derives exactly what a full pass would.  Every rule tests "``u``
    does not precede ``v``" on a premise read off rows of the clocks (which writes
    precede the read, or follow its source); where the premise is unchanged, the test
    only turns false as the order grows, and it was false already where it held at
    the last pass (what it derived was added).  The premises are read off the read's
    row (a read whose row was not raised: nothing anew), except the from-read rule's
    first following write ``a``,
    which can only move earlier, past raised writes of its writer's list that the
    source now precedes: ``answers[t, e - wr_start[x]]`` keeps ``a`` for the ``t``-th
    read and writer ``e`` (written by every pass that computes it, full or not;
    :data:`UNKNOWN` where not computed yet, and shape ``(0, 0)`` where not kept: a pass
    since the last then computes the rules of the read in full)."""
    out = np.empty((reads.shape[0] + 8, 5), np.int64)  # doubled when full
    m = 0
    since = raised.shape[0] > 0
    kept = answers.shape[0] > 0
    for t in range(reads.shape[0]):
        r = reads[t]
        w = sources[t]
        x = reg[r]
        fresh = not since or raised[r]  # every premise of the read may change
        if not fresh and (w < 0 or not from_read):
            continue
        if fresh and w >= 0 and idx[w] > clock[r, proc_of[w]]:
            if m == out.shape[0]:
                out = _doubled(out, m)
            out[m, 0], out[m, 1], out[m, 2], out[m, 3], out[m, 4] = VIEW, w, r, r, w
            m += 1
            continue
        fr = from_read and w >= 0
        pw = proc_of[w] if w >= 0 else 0
        iw = idx[w] if w >= 0 else 0
        for e in range(wr_start[x], wr_start[x + 1]):
            k, base, lo, hi = wr_proc[e], wr_base[e], wl_start[e], wl_start[e + 1]
            if not fresh and kept and answers[t, e - wr_start[x]] <= hi:
                # only the from-read rule's write may change: the writes that ``w``
                # precedes are a suffix of the list, which grows only by raised writes,
                # so by the write just before it if at all (``w``'s own writes: no clock)
                # (the from-read row below is written out as in the full pass: one code path
                # for both made every full pass 10 % slower)
                a = answers[t, e - wr_start[x]]
                if k == pw or a == lo or not raised[base + wl[a - 1]] or clock[base + wl[a - 1], pw] < iw:
                    continue
                a -= 1
                while a > lo and clock[base + wl[a - 1], pw] >= iw:
                    a -= 1
                answers[t, e - wr_start[x]] = a
                wn = base + wl[a]
                if idx[r] > clock[wn, proc_of[r]]:
                    if m == out.shape[0]:
                        out = _doubled(out, m)
                    out[m, 0], out[m, 1], out[m, 2], out[m, 3], out[m, 4] = FROM_READ, r, wn, r, w
                    m += 1
                continue
            ck = clock[r, k]
            # j: the last write of k to x that precedes r (lo - 1: none)
            a, b = lo, hi
            while a < b:
                mid = (a + b) // 2
                if wl[mid] <= ck:
                    a = mid + 1
                else:
                    b = mid
            j = a - 1
            wp = base + wl[j] if j >= lo else w
            if initial and w < 0 and j < lo and lo < hi and idx[r] > clock[base + wl[lo], proc_of[r]]:
                if m == out.shape[0]:
                    out = _doubled(out, m)
                out[m, 0], out[m, 1], out[m, 2], out[m, 3], out[m, 4] = INITIAL, r, base + wl[lo], r, -1
                m += 1
            if wp != w:
                if w < 0:
                    out[0, 0], out[0, 1], out[0, 2], out[0, 3], out[0, 4] = LEGALITY, wp, r, r, -1
                    return out, 1
                if idx[wp] > clock[w, k]:
                    if m == out.shape[0]:
                        out = _doubled(out, m)
                    out[m, 0], out[m, 1], out[m, 2], out[m, 3], out[m, 4] = FORCED, wp, w, r, w
                    m += 1
            if fr:
                # the first write of k to x that follows or is w, then past w itself
                a = _first_following(clock, wl, base, lo, hi, j, k, pw, iw)
                if a < hi and base + wl[a] == w:
                    a += 1
                if kept:
                    answers[t, e - wr_start[x]] = a
                if a < hi:
                    wn = base + wl[a]
                    if idx[r] > clock[wn, proc_of[r]]:
                        if m == out.shape[0]:
                            out = _doubled(out, m)
                        out[m, 0], out[m, 1], out[m, 2], out[m, 3], out[m, 4] = FROM_READ, r, wn, r, w
                        m += 1
    return out, m


@_kernel("int64[:](int64, int64[:, :], int64[:], int64[:], int64[:])")
def guided_order(width: int, hard: np.ndarray, rank: np.ndarray, base: np.ndarray, length: np.ndarray
                 ) -> np.ndarray:
    """A topological order of the order with clocks ``hard`` that takes, at each step,
    among the processes' next operations that ``hard`` lets come, the one of smallest
    ``rank`` (then the first process).  Processes ``k`` hold the operations ``base[k]
    ... base[k] + length[k] - 1``."""
    n = hard.shape[0]
    placed = np.zeros(width, np.int64)
    out = np.empty(n, np.int64)
    for step in range(n):
        best_k = -1
        best_u = -1
        for k in range(width):
            if placed[k] >= length[k]:
                continue
            u = base[k] + placed[k]
            ready = True
            for j in range(width):
                if j != k and placed[j] <= hard[u, j]:
                    ready = False
                    break
            if ready and (best_u < 0 or rank[u] < rank[best_u]):
                best_k, best_u = k, u
        out[step] = best_u
        placed[best_k] += 1
    return out


@_kernel("Tuple((int64[:], int64[:], int64[:]))(int64, int64[:], int64[:], int64[:])")
def late_adjacency(n: int, src: np.ndarray, dst: np.ndarray, stamp: np.ndarray
                   ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The late edges ``src[i] -> dst[i]`` as successor lists (``adj[start[x]:start[x +
    1]]``, each in the order given) with the stamp of each entry: built once per state
    of a trail, read by every :func:`premise_path` of that state."""
    m = src.shape[0]
    start = np.zeros(n + 1, np.int64)
    for i in range(m):
        start[src[i] + 1] += 1
    for x in range(n):
        start[x + 1] += start[x]
    fill = start[:-1].copy()
    adj = np.empty(m, np.int64)
    adj_stamp = np.empty(m, np.int64)
    for i in range(m):
        adj[fill[src[i]]] = dst[i]
        adj_stamp[fill[src[i]]] = stamp[i]
        fill[src[i]] += 1
    return start, adj, adj_stamp


@_kernel("int64[:](int64, boolean[:], int64[:], int64[:], int64[:], int64[:], int64[:], "
           "int64[:, :], int64[:], int64[:], int64, int64, int64)")
def premise_path(n: int, po_next: np.ndarray, root_start: np.ndarray, root_adj: np.ndarray,
                 start: np.ndarray, adj: np.ndarray, adj_stamp: np.ndarray, root: np.ndarray,
                 proc: np.ndarray, idx: np.ndarray, t: int, u: int, v: int) -> np.ndarray:
    """The operations of a path ``u -> ... -> v`` made of free steps (root edges
    ``root_adj[root_start[x]:root_start[x + 1]]``, then process order) and *late* edges
    (``adj[start[x]:start[x + 1]]`` of stamp ``adj_stamp < t``, :func:`late_adjacency`)
    with the fewest late edges (0-1 breadth-first search, successors in the order
    given); empty if none.  ``root``, unless empty: the clocks of an order the path's
    graph contains; the search then keeps to the operations it leaves between ``u`` and
    ``v`` (neither before ``u`` nor after ``v``: in an acyclic graph holding it, no path
    from ``u`` to ``v`` leaves them)."""
    m = adj.shape[0]
    bounded = root.shape[0] > 0
    big = n + m + 1
    dist = np.full(n, big, np.int64)
    parent = np.full(n, -1, np.int64)
    done = np.zeros(n, np.bool_)
    size = 2 * (2 * n + root_adj.shape[0] + m) + 2
    dq = np.empty(size, np.int64)
    front = size // 2
    back = front  # dq[front:back]
    dq[back] = u
    back += 1
    dist[u] = 0
    while front < back:
        x = dq[front]
        front += 1
        if done[x]:
            continue
        done[x] = True
        if x == v:
            break
        d = dist[x]
        last = root_start[x + 1] + (1 if po_next[x] else 0)
        for j in range(root_start[x], last):
            y = root_adj[j] if j < root_start[x + 1] else x + 1
            if bounded and y != v and (idx[v] <= root[y, proc[v]] or idx[y] <= root[u, proc[y]]):
                continue
            if dist[y] > d:
                dist[y] = d
                parent[y] = x
                front -= 1
                dq[front] = y
        for j in range(start[x], start[x + 1]):
            if adj_stamp[j] >= t:
                continue
            y = adj[j]
            if bounded and y != v and (idx[v] <= root[y, proc[v]] or idx[y] <= root[u, proc[y]]):
                continue
            if dist[y] > d + 1:
                dist[y] = d + 1
                parent[y] = x
                dq[back] = y
                back += 1
    if u != v and parent[v] < 0:
        return np.empty(0, np.int64)
    length = 1
    y = v
    while y != u:
        y = parent[y]
        length += 1
    out = np.empty(length, np.int64)
    y = v
    for i in range(length - 1, -1, -1):
        out[i] = y
        y = parent[y]
    return out
