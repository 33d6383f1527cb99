"""One search for the sequential models: a legal sequence of (a subset of) a history's
operations respecting process order and the real-time order between neighbours
(:mod:`fisheye.spec.realtime`).

It is Wing and Gong's linearizability search (*Testing and verifying concurrent
objects*, 1993) with Lowe's memoisation of configurations (*Testing for
linearizability*, 2017; Porcupine does the same): a configuration is how far each
process has got (process order makes the set of placed operations a prefix per
process) and the registers' values; a configuration met twice is explored once.

Moves from a configuration, for the next operation ``b`` of a process ``p``:

* ``b`` may be placed when no *unplaced* operation of a neighbour of ``p`` completed
  before ``b`` was invoked.  Completions grow along process order, so it suffices to
  look at each neighbour's next operation: ``b.invoke <= min(complete(next(q)))``.
* a ``maybe`` operation may also be *dropped* (it did not take effect).  One that
  never returned blocks nothing, so it is simply left unplaced at the end.

Reductions, each preserving the answer:

* a read (or a cas that writes the value it reads) that may be placed and returns
  the current value is placed at once, without branching: moving it to the front of
  any solution keeps the solution legal and can only relax real-time constraints;
* among operations that are the last of their process and block nothing in real time
  (never returned, or a history without times) that do the same thing (same kind,
  register, values, ``maybe``) and may both be placed, only the first is tried: they
  are interchangeable from then on;
* ``maybe`` operations that nothing that must take effect depends on are dropped up
  front (:func:`droppable_unread_maybes`).
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from typing import Any

from fisheye.spec.history import History, Op, Value, value_key
from fisheye.spec.realtime import RealTimePairs

from . import compiled
from .search_budget import Budget

INF = float("inf")


def droppable_unread_maybes(history: History, uids: Iterable[int]) -> set[int]:
    """The ``maybe`` operations among ``uids`` that no operation that must take effect
    depends on: left out of every solution, the others still have one.

    The *relevant* values of a register are those its operations that must take
    effect observe, plus the ``old`` of every relevant ``maybe`` cas; a ``maybe``
    operation is relevant when it writes a relevant value.  Removing all irrelevant
    ones from a solution keeps it legal: the last writer before a kept observer wrote
    the value it observes, a relevant value, so that writer is kept too; real time and
    process order only lose constraints."""
    ops = history.ops
    chosen = list(uids)
    # values are integers and strings: equal as Python objects iff equal as JSON
    maybes: dict[tuple[str, Value], list[int]] = {}  # by (register, value written)
    relevant: list[tuple[str, Value]] = []
    for u in chosen:
        op = ops[u]
        if op.maybe:
            maybes.setdefault((op.register, op.value), []).append(u)
        elif op.kind != "w":
            relevant.append((op.register, op.value if op.kind == "r" else op.old))  # type: ignore[arg-type]
    if not maybes:
        return set()
    kept: set[int] = set()
    seen: set[tuple[str, Value]] = set()
    while relevant:  # the relevant values, each followed once to the maybes writing it
        key = relevant.pop()
        if key in seen:
            continue
        seen.add(key)
        for u in maybes.get(key, ()):
            kept.add(u)
            if ops[u].kind == "cas":
                relevant.append((ops[u].register, ops[u].old))  # type: ignore[arg-type]
    return {u for us in maybes.values() for u in us if u not in kept}


def search(history: History, uids: Sequence[int], pairs: RealTimePairs, budget: Budget,
           columns: Any = None) -> list[int] | None:
    """A sequence (uids) of the operations ``uids`` meeting clauses 1-4 of
    :mod:`fisheye.spec.realtime` restricted to them, or ``None`` when there is none.
    ``columns``: the history's :class:`.lin_arrays.Columns` when the caller has them
    (the compiled search starts from them).  Raises :class:`BudgetExhausted`."""
    # the common case of large checks (lin, register by register), compiled
    if pairs.every_pair and history.timed and len(uids) >= compiled.COMPILED_FROM:
        from .lin_arrays import search_compiled

        return search_compiled(history, uids, budget, columns)
    ops = history.ops
    skip = droppable_unread_maybes(history, uids)
    keep = sorted(u for u in uids if u not in skip)
    present = {ops[u].process for u in keep}
    procs = [p for p in history.processes if p in present]
    pindex = {p: i for i, p in enumerate(procs)}
    lanes: list[list[Op]] = [[] for _ in procs]
    for u in keep:
        lanes[pindex[ops[u].process]].append(ops[u])
    # lanes in order of their first invocation (the scan below stops at the first lane
    # not yet started)
    order = sorted(range(len(procs)), key=lambda i: (lanes[i][0].invoke or 0, i))
    procs = [procs[i] for i in order]
    lanes = [lanes[i] for i in order]
    pindex = {p: i for i, p in enumerate(procs)}
    regs = sorted({ops[u].register for u in keep})
    rindex = {r: i for i, r in enumerate(regs)}
    P = len(procs)
    complete_g = pairs.every_pair
    if complete_g:
        nbrs: list[tuple[int, ...]] | None = None
    else:
        nbrs = [tuple(pindex[q] for q in pairs.of_process(p) if q in pindex) for p in procs]

    timed = any(lane[0].invoke is not None for lane in lanes)
    # real time holds a lane back only through a neighbour's next operation: without
    # real-time pairs between the processes (sc) there is nothing to compare
    held = timed and nbrs is not None and any(nbrs)
    # per lane, arrays for speed
    inv = [[op.invoke if op.invoke is not None else 0 for op in lane] for lane in lanes]
    comp = [[(INF if op.complete is None else op.complete) if op.invoke is not None else INF
             for op in lane] for lane in lanes]
    kind = [[op.kind for op in lane] for lane in lanes]
    reg = [[rindex[op.register] for op in lane] for lane in lanes]
    new = [[op.vkey for op in lane] for lane in lanes]
    old = [[value_key(op.observed) if op.observes else None for op in lane] for lane in lanes]  # type: ignore[arg-type]
    maybe = [[op.maybe for op in lane] for lane in lanes]
    lengths = [len(lane) for lane in lanes]
    # a lane is finished when every operation is placed, or only a maybe that never
    # returned is left (one that returned must be placed or dropped explicitly)
    need = [n - 1 if n and lanes[i][-1].maybe and comp[i][-1] == INF else n for i, n in enumerate(lengths)]
    # interchangeable operations: the last of their process (nothing waits for them) and
    # never blocking anything in real time (never returned, or no times at all)
    sig = [[(op.kind, op.register, op.vkey, old[i][k], op.maybe)
            if comp[i][k] == INF and k == len(lane) - 1 else None
            for k, op in enumerate(lane)] for i, lane in enumerate(lanes)]

    init = tuple(value_key(history.initial_value(r)) for r in regs)
    # lanes whose last operation is a maybe that never returned: that operation is
    # scanned apart (a pool), so that the lane scan can skip finished lanes
    pool = sorted((i for i in range(P) if need[i] < lengths[i]), key=lambda i: (inv[i][-1], i))

    # configurations met, keyed by the values and a 128-bit Zobrist hash of the positions
    # (updated in O(1) per move; the positions themselves cost O(processes) to copy,
    # hash and keep, and a history with indeterminate operations has a process per
    # crash).  Two distinct configurations share a key with probability below
    # n² / 2^129 for n configurations (under 10^-20 for 10^9), as TLC's fingerprints.
    rnd = random.Random(len(keep))
    zobrist = [[rnd.getrandbits(128) for _ in range(n + 1)] for n in lengths]
    start_hash = 0
    for i in range(P):
        start_hash ^= zobrist[i][0]
    seen: set[tuple[int, tuple]] = {(start_hash, init)}
    path: list[int | None] = []  # uid placed, or None for a drop

    def judge(i: int, k: int, vals: tuple, out: list[tuple[int, bool]], pend_sigs: set) -> bool:
        """Add the moves of operation k of lane i to ``out``; True: forced, alone."""
        kd = kind[i][k]
        cur = vals[reg[i][k]]
        if kd != "w" and old[i][k] != cur:
            ok = False
        else:
            ok = True
            if kd == "r" or (kd == "cas" and new[i][k] == cur):
                out.clear()
                out.append((i, True))  # forced: a state-preserving legal observation
                return True
        s = sig[i][k]
        if s is not None:
            if s in pend_sigs:
                return False
            pend_sigs.add(s)
        if ok:
            out.append((i, True))
        if maybe[i][k] and comp[i][k] != INF:
            out.append((i, False))
        return False

    def moves_all_pairs(pos: list[int], vals: tuple, lo: int, plo: int) -> list[tuple[int, bool]]:
        """Every pair of processes is ordered by real time (lin): one bound for all.
        ``pool[:plo]`` have all been placed."""
        bound = INF
        cands: list[int] = []
        for i in range(lo, P):
            k = pos[i]
            if k >= need[i]:
                continue
            ik = inv[i][k]
            if ik > bound:
                if k == 0:
                    break  # this lane and every later one start after the bound
                continue
            c = comp[i][k]
            if c < bound:
                bound = c
            cands.append(i)
        out: list[tuple[int, bool]] = []
        pend_sigs: set = set()
        for i in cands:
            k = pos[i]
            if inv[i][k] <= bound and judge(i, k, vals, out, pend_sigs):
                return out
        for j in range(plo, len(pool)):
            i = pool[j]
            if inv[i][-1] > bound:
                break
            k = pos[i]
            if k == need[i] and judge(i, k, vals, out, pend_sigs):
                return out
        return out

    def moves(pos: list[int], vals: tuple, lo: int, plo: int) -> list[tuple[int, bool]]:
        """(lane, place?) pairs possible from here; a single forced move alone.  The
        search tries the last first: with real time, the earliest to complete (a
        history that is linearizable is then found without backtracking, mostly)."""
        if timed and complete_g:
            return moves_all_pairs(pos, vals, lo, plo)
        out = _moves_general(pos, vals)
        if timed and len(out) > 1:
            out.sort(key=lambda m: (comp[m[0]][pos[m[0]]], inv[m[0]][pos[m[0]]]), reverse=True)
        return out

    def _moves_general(pos: list[int], vals: tuple) -> list[tuple[int, bool]]:
        if held:
            nxt_comp = [comp[i][pos[i]] if pos[i] < lengths[i] else INF for i in range(P)]
        out: list[tuple[int, bool]] = []
        pend_sigs: set = set()
        for i in range(P):
            k = pos[i]
            if k >= lengths[i]:
                continue
            if held:
                assert nbrs is not None
                if nbrs[i] and inv[i][k] > min(nxt_comp[q] for q in nbrs[i]):
                    continue
            if judge(i, k, vals, out, pend_sigs):
                return out
        return out

    def advance(pos: list[int], lo: int) -> int:
        while lo < P and pos[lo] >= need[lo]:
            lo += 1
        return lo

    def advance_pool(pos: list[int], plo: int) -> int:
        while plo < len(pool) and pos[pool[plo]] >= lengths[pool[plo]]:
            plo += 1
        return plo

    # iterative depth-first search over one position vector changed in place (a move
    # advances one lane; leaving its frame moves the lane back); a frame: values, hash,
    # first unfinished lane, first pool lane whose last operation is not placed, lanes
    # left unfinished, moves still to try, the lane its move advanced
    pos = [0] * P
    vals = init
    left = sum(1 for i in range(P) if need[i] > 0)
    if left == 0:
        return []
    lo = advance(pos, 0)
    stack: list[tuple[tuple, int, int, int, int, list[tuple[int, bool]], int]] = [
        (vals, start_hash, lo, 0, left, moves(pos, vals, lo, 0), -1)]
    while stack:
        vals, h, lo, plo, left, todo, via = stack[-1]
        if not todo:
            stack.pop()
            if via >= 0:
                pos[via] -= 1
                path.pop()
            continue
        i, place = todo.pop()
        k = pos[i]
        nvals = vals
        if place and kind[i][k] != "r":
            r = reg[i][k]
            nvals = vals[:r] + (new[i][k],) + vals[r + 1:]
        z = zobrist[i]
        nh = h ^ z[k] ^ z[k + 1]
        key = (nh, nvals)
        if key in seen:
            continue
        seen.add(key)
        budget.tick()
        path.append(lanes[i][k].uid if place else None)
        pos[i] = k + 1
        nleft = left - 1 if k + 1 == need[i] else left
        if nleft == 0:
            return [u for u in path if u is not None]
        nlo, nplo = advance(pos, lo), advance_pool(pos, plo)
        stack.append((nvals, nh, nlo, nplo, nleft, moves(pos, nvals, nlo, nplo), i))
    return None
