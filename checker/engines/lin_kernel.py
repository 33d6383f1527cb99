"""The search of :mod:`.seqsearch` in compiled code, for the case that dominates large
checks: a timed history whose processes are all ordered by real time (``lin``, decided
register by register, and the whole-history fallback).

It is the same depth-first search, move for move (the same candidates in the same
order, the same forced observations, the same skipping of interchangeable last
operations, the same memoisation of configurations), over flat arrays: operation ``f``
of the history's lanes is ``start[i] + k`` for the ``k``-th operation of lane ``i``;
kinds are :data:`W`, :data:`R`, :data:`CAS`; values are small integers (one per
distinct value).  A configuration is remembered as a 128-bit hash of its positions and
values (two 64-bit splitmix hashes XOR-ed per lane position and per register value),
as the Python search does with its Zobrist tables.  The Python search
(:func:`.seqsearch.search`) is the reference; the tests compare the sequences both
return.  Built ahead of time at install (:mod:`.ahead_of_time`: a check then loads it
without importing numba), else compiled by numba at the first use and cached on disk.
"""

from __future__ import annotations

import numpy as np

from .compiled_kernel import _kernel

W, R, CAS = 0, 1, 2
"""Operation kinds in the kernel's arrays."""

FOUND, NONE, OUT_OF_STATES = 1, 0, -1
"""The kernel's outcomes: a sequence, none, or the state limit reached first."""

SEED_A, SEED_B = 0x9E3779B97F4A7C15, 0xD1B54A32D192ED03
"""The two hashes' seeds."""


@_kernel("uint64(uint64)", ahead_of_time=True)
def _mix(x: int) -> int:
    """splitmix64's finaliser (Steele, Lea and Flood, 2014)."""
    x = (x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    x = (x ^ (x >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return x ^ (x >> np.uint64(31))


@_kernel("Tuple((int64, int64, int64[:]))(int64[:], float64[:], float64[:], int64[:], int64[:], "
         "int64[:], int64[:], boolean[:], int64[:], int64[:], int64[:], int64[:], int64, int64, int64)",
         ahead_of_time=True)
def lin_search(start: np.ndarray, inv: np.ndarray, comp: np.ndarray, kind: np.ndarray, reg: np.ndarray,
               new: np.ndarray, old: np.ndarray, maybe: np.ndarray, sig: np.ndarray, need: np.ndarray,
               pool: np.ndarray, init: np.ndarray, n_sigs: int, n_values: int, limit: int
               ) -> tuple[int, int, np.ndarray]:
    """(outcome, configurations explored, the sequence as operation indices, -1 for a
    dropped ``maybe``).  ``need[i]``: operations of lane ``i`` that must be placed or
    dropped (its last is left out when it is a ``maybe`` that never returned: the
    ``pool`` lanes, by that operation's invocation); ``sig[f]``: the class of
    interchangeable last operations of ``f`` or -1 (``n_sigs`` classes); values are
    ``0 .. n_values - 1``; ``limit``: configurations at most."""
    inf = np.inf
    P = need.shape[0]
    total = start[P]
    lengths = start[1:] - start[:-1]
    vals = init.copy()
    pos = np.zeros(P, np.int64)
    sig_mark = np.zeros(max(n_sigs, 1), np.int64)
    cands = np.empty(P, np.int64)
    depth_max = total + 2
    # per frame: hash (two halves), first unfinished lane, first pool lane not placed,
    # lanes left, the lane its move advanced, the register it changed and its value
    # before, and its moves mv[m_lo[d]:m_hi[d]] (tried from the end)
    f_ha = np.zeros(depth_max, np.uint64)
    f_hb = np.zeros(depth_max, np.uint64)
    f_lo = np.zeros(depth_max, np.int64)
    f_plo = np.zeros(depth_max, np.int64)
    f_left = np.zeros(depth_max, np.int64)
    f_via = np.full(depth_max, -1, np.int64)
    f_reg = np.full(depth_max, -1, np.int64)
    f_was = np.zeros(depth_max, np.int64)
    m_lo = np.zeros(depth_max, np.int64)
    m_hi = np.zeros(depth_max, np.int64)
    mv = np.empty(max(2 * P + 2, 16), np.int64)  # 2 * lane + place
    path = np.empty(depth_max, np.int64)
    seen = set()

    ha = np.uint64(0)
    hb = np.uint64(0)
    for i in range(P):
        ha ^= _mix(np.uint64(start[i] + i) ^ np.uint64(SEED_A))
        hb ^= _mix(_mix(np.uint64(start[i] + i) ^ np.uint64(SEED_B)))
    for r in range(vals.shape[0]):
        ha ^= _mix(np.uint64(r * n_values + vals[r]) ^ np.uint64(SEED_B))
        hb ^= _mix(_mix(np.uint64(r * n_values + vals[r]) ^ np.uint64(SEED_A)))
    seen.add((ha, hb))
    left = 0
    for i in range(P):
        if need[i] > 0:
            left += 1
    if left == 0:
        return FOUND, 0, np.empty(0, np.int64)
    lo = 0
    while lo < P and pos[lo] >= need[lo]:
        lo += 1
    stamp = 0
    states = 0
    d = 0
    top = 0  # mv[:top] in use
    f_ha[0], f_hb[0], f_lo[0], f_plo[0], f_left[0] = ha, hb, lo, 0, left
    fresh = True  # frame d's moves are still to compute
    while d >= 0:
        if fresh:
            fresh = False
            # the moves of frame d (seqsearch's moves_all_pairs and judge)
            lo, plo = f_lo[d], f_plo[d]
            if top + 2 * P + 2 > mv.shape[0]:
                grown = np.empty(2 * mv.shape[0] + 2 * P + 2, np.int64)
                grown[:top] = mv[:top]
                mv = grown
            m_lo[d] = top
            bound = inf
            nc = 0
            for i in range(lo, P):
                k = pos[i]
                if k >= need[i]:
                    continue
                ik = inv[start[i] + k]
                if ik > bound:
                    if k == 0:
                        break
                    continue
                c = comp[start[i] + k]
                if c < bound:
                    bound = c
                cands[nc] = i
                nc += 1
            stamp += 1
            for j in range(nc + pool.shape[0] - plo):
                if j < nc:
                    i = cands[j]
                    k = pos[i]
                    if inv[start[i] + k] > bound:
                        continue
                else:
                    i = pool[plo + j - nc]
                    if inv[start[i] + lengths[i] - 1] > bound:
                        break
                    k = pos[i]
                    if k != need[i]:
                        continue
                f = start[i] + k
                cur = vals[reg[f]]
                ok = True
                if kind[f] != W and old[f] != cur:
                    ok = False
                elif kind[f] == R or (kind[f] == CAS and new[f] == cur):
                    top = m_lo[d]
                    mv[top] = 2 * i + 1
                    top += 1
                    break
                s = sig[f]
                if s >= 0:
                    if sig_mark[s] == stamp:
                        continue
                    sig_mark[s] = stamp
                if ok:
                    mv[top] = 2 * i + 1
                    top += 1
                if maybe[f] and comp[f] != inf:
                    mv[top] = 2 * i
                    top += 1
            m_hi[d] = top
        if m_hi[d] == m_lo[d]:
            # leave frame d: undo its move
            top = m_lo[d]
            i = f_via[d]
            if i >= 0:
                pos[i] -= 1
                if f_reg[d] >= 0:
                    vals[f_reg[d]] = f_was[d]
            d -= 1
            continue
        m_hi[d] -= 1
        move = mv[m_hi[d]]
        i, place = move >> 1, (move & 1) == 1
        k = pos[i]
        f = start[i] + k
        ha, hb = f_ha[d], f_hb[d]
        za = np.uint64(start[i] + i + k)
        ha ^= _mix(za ^ np.uint64(SEED_A)) ^ _mix((za + np.uint64(1)) ^ np.uint64(SEED_A))
        hb ^= _mix(_mix(za ^ np.uint64(SEED_B))) ^ _mix(_mix((za + np.uint64(1)) ^ np.uint64(SEED_B)))
        r = -1
        if place and kind[f] != R and new[f] != vals[reg[f]]:
            r = reg[f]
            before = np.uint64(r * n_values + vals[r])
            after = np.uint64(r * n_values + new[f])
            ha ^= _mix(before ^ np.uint64(SEED_B)) ^ _mix(after ^ np.uint64(SEED_B))
            hb ^= _mix(_mix(before ^ np.uint64(SEED_A))) ^ _mix(_mix(after ^ np.uint64(SEED_A)))
        key = (ha, hb)
        if key in seen:
            continue
        seen.add(key)
        states += 1
        if states > limit:
            return OUT_OF_STATES, states - 1, np.empty(0, np.int64)
        path[d] = f if place else -1
        nleft = f_left[d] - 1 if k + 1 == need[i] else f_left[d]
        pos[i] = k + 1
        if nleft == 0:
            return FOUND, states, path[:d + 1].copy()
        nd = d + 1
        f_via[nd] = i
        f_reg[nd] = r
        if r >= 0:
            f_was[nd] = vals[r]
            vals[r] = new[f]
        nlo = f_lo[d]
        while nlo < P and pos[nlo] >= need[nlo]:
            nlo += 1
        nplo = f_plo[d]
        while nplo < pool.shape[0] and pos[pool[nplo]] >= lengths[pool[nplo]]:
            nplo += 1
        f_ha[nd], f_hb[nd], f_lo[nd], f_plo[nd], f_left[nd] = ha, hb, nlo, nplo, nleft
        d = nd
        fresh = True
    return NONE, states, np.empty(0, np.int64)
