"""The arrays of the compiled linearizability search (:func:`.lin_kernel.lin_search`):
a timed history's operations as columns (:class:`Columns`, built once per check), and
the lin engine's steps on them: the registers' parts, the operation no write can
explain, the search of a part (the lanes, the interchangeable operations, the ``maybe``
operations nothing depends on), and the merge of the registers' sequences.  Each is
the array form of a step of :mod:`.seqsearch` or :mod:`.lin`, which stay the reference
(on small histories, where neither numpy nor the kernel is loaded); the tests compare
both on the lin suite and on random histories.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from itertools import repeat
from operator import attrgetter
from typing import Any

import numpy as np

from fisheye.spec.history import History

from . import lin_kernel
from .lin_kernel import CAS, NONE, OUT_OF_STATES, R, W
from .search_budget import Budget, BudgetExhausted


@dataclass(frozen=True)
class Columns:
    """The operations of a timed history as arrays indexed by uid, built once per check
    (:func:`columns`) and sliced by every search of a part of it: ``process`` (index in
    the history's processes), ``invoke``, ``complete`` (``inf``: never returned),
    ``kind`` (:data:`W`, :data:`R`, :data:`CAS`), ``register`` (index in ``registers``,
    sorted), ``new`` (the value written, or read by a read), ``old`` (the value a read or
    cas observes, -1 for a write), ``maybe``; values are numbered ``0 .. n_values - 1``
    (integers and strings of the contract, equal as Python objects iff equal as JSON),
    and ``initial`` holds each register's initial value."""

    process: np.ndarray
    invoke: np.ndarray
    complete: np.ndarray
    kind: np.ndarray
    register: np.ndarray
    new: np.ndarray
    old: np.ndarray
    maybe: np.ndarray
    initial: np.ndarray
    registers: tuple[str, ...]
    n_values: int

    def observed_key(self, uids: np.ndarray) -> np.ndarray:
        """Per operation, its register and the value it observes as one integer."""
        return self.register[uids] * self.n_values + self.old[uids]

    def written_key(self, uids: np.ndarray) -> np.ndarray:
        """Per operation, its register and the value it writes as one integer."""
        return self.register[uids] * self.n_values + self.new[uids]


def columns(history: History) -> Columns:
    """The :class:`Columns` of a timed history (one pass per field over its operations)."""
    ops = history.ops
    n = len(ops)
    registers = tuple(sorted({op.register for op in ops}))
    initial = [history.initial_value(r) for r in registers]
    values_new = list(map(attrgetter("value"), ops))
    values_old = list(map(attrgetter("old"), ops))
    distinct = dict.fromkeys([*initial, *values_new, *values_old])
    distinct.pop(None, None)  # the old of a read or write
    ids = {v: k for k, v in enumerate(distinct)}

    def column(values: Iterable[Any], dtype: type) -> np.ndarray:
        return np.fromiter(values, dtype, n)

    kind = column(map(_KINDS.__getitem__, map(attrgetter("kind"), ops)), np.int64)
    new = column(map(ids.__getitem__, values_new), np.int64)
    cas_old = column(map(ids.get, values_old, repeat(-1)), np.int64)
    complete = column((np.inf if t is None else t for t in map(attrgetter("complete"), ops)), np.float64)
    pindex = {p: i for i, p in enumerate(history.processes)}
    rindex = {r: i for i, r in enumerate(registers)}
    return Columns(
        process=column(map(pindex.__getitem__, map(attrgetter("process"), ops)), np.int64),
        invoke=column(map(attrgetter("invoke"), ops), np.float64),
        complete=complete,
        kind=kind,
        register=column(map(rindex.__getitem__, map(attrgetter("register"), ops)), np.int64),
        new=new,
        old=np.where(kind == R, new, cas_old),
        maybe=column(map(attrgetter("maybe"), ops), np.bool_),
        initial=np.array([ids[v] for v in initial], np.int64),
        registers=registers,
        n_values=len(ids),
    )


_KINDS = {"w": W, "r": R, "cas": CAS}


def droppable_unread_maybes(cols: Columns, uids: np.ndarray) -> np.ndarray:
    """:func:`.seqsearch.droppable_unread_maybes` on columns: a mask over ``uids``."""
    maybe = cols.maybe[uids]
    if not maybe.any():
        return maybe
    must = uids[~maybe & (cols.kind[uids] != W)]
    relevant = cols.observed_key(must)
    candidates = uids[maybe]
    writes = cols.written_key(candidates)
    kept = np.isin(writes, relevant)
    while True:  # a kept maybe cas makes the value it observes relevant
        cas = candidates[kept & (cols.kind[candidates] == CAS)]
        more = cols.observed_key(cas)
        more = more[~np.isin(more, relevant)]
        if more.size == 0:
            break
        relevant = np.concatenate((relevant, more))
        kept = np.isin(writes, relevant)
    dropped = np.zeros(uids.shape[0], np.bool_)
    dropped[np.flatnonzero(maybe)[~kept]] = True
    return dropped


def search_compiled(history: History, uids: Sequence[int], budget: Budget, cols: Columns | None = None
                    ) -> list[int] | None:
    """:func:`search_columns` of ``history``'s operations ``uids`` (distinct), from
    ``cols`` (its columns; built here when not given).  (No ``np.unique`` here or below:
    it imports ``numpy.ma``, 10 ms of a command's start-up.)"""
    if cols is None:
        cols = columns(history)
    return search_columns(cols, np.sort(np.asarray(uids, np.int64)), budget)


def by_register(cols: Columns) -> list[np.ndarray]:
    """The uids of each register (increasing), registers in order of their first
    operation."""
    order = np.argsort(cols.register, kind="stable")
    counts = np.bincount(cols.register, minlength=len(cols.registers))
    parts = np.split(order, np.cumsum(counts)[:-1])
    return sorted((part for part in parts if part.size), key=lambda part: part[0])


def unsourced(cols: Columns) -> int | None:
    """:func:`.lin._unsourced` on columns: the first operation (not ``maybe``) observing a
    value that nothing writes to its register and that is not its initial value."""
    everything = np.arange(cols.kind.shape[0])
    writers = everything[cols.kind != R]
    observers = everything[(cols.kind != W) & ~cols.maybe]
    observed = cols.old[observers]
    orphan = ~np.isin(cols.observed_key(observers), cols.written_key(writers)) & \
        (observed != cols.initial[cols.register[observers]])
    found = observers[orphan]
    return int(found[0]) if found.size else None


def merge_order(cols: Columns, chains: Sequence[Sequence[int]]) -> list[int] | None:
    """:func:`.lin._merge`'s sort on columns: the chains' operations keyed by the latest
    invocation up to each in its chain, each chain in its order; None when that order
    breaks some process order (then :func:`.lin._merge_by_heads` decides)."""
    if not chains:
        return []
    flat = np.concatenate([np.asarray(c, np.int64) for c in chains])
    lengths = np.array([len(c) for c in chains], np.int64)
    chain = np.repeat(np.arange(len(chains)), lengths)
    position = np.arange(flat.shape[0]) - np.repeat(np.cumsum(lengths) - lengths, lengths)
    latest = np.concatenate([np.maximum.accumulate(cols.invoke[np.asarray(c, np.int64)])
                             for c in chains if len(c)])
    out = flat[np.lexsort((position, chain, latest))]
    placed = np.empty(cols.kind.shape[0], np.int64)
    placed[out] = np.arange(out.shape[0])
    by_uid = np.sort(out)  # uids follow process order
    same = cols.process[by_uid[1:]] == cols.process[by_uid[:-1]]
    if (same & (placed[by_uid[1:]] < placed[by_uid[:-1]])).any():
        return None
    return out.tolist()


def search_columns(cols: Columns, uids: np.ndarray, budget: Budget) -> list[int] | None:
    """:func:`.seqsearch.search` of the operations ``uids`` (increasing) of a timed
    history under every real-time pair, from its columns, run by :func:`.lin_kernel.lin_search`: the
    uids of a sequence, or ``None``.  The lanes are the processes' runs of ``uids`` (uids
    follow process order), in order of their first invocation; ``maybe`` operations
    nothing depends on are left out first (:func:`droppable_unread_maybes`).  The
    budget's configurations bound the run; with a timeout, it runs with a growing bound
    (the search is deterministic: each run repeats the last one's configurations first),
    sized from the last run's pace to end by the deadline, which is checked between runs.
    Raises :class:`.search_budget.BudgetExhausted`."""
    keep = uids[~droppable_unread_maybes(cols, uids)]
    if keep.shape[0] == 0:
        return []
    proc = cols.process[keep]
    firsts = np.flatnonzero(np.concatenate(([True], proc[1:] != proc[:-1])))
    ends = np.append(firsts[1:], keep.shape[0])
    order = np.argsort(cols.invoke[keep[firsts]], kind="stable")
    firsts, ends = firsts[order], ends[order]
    lengths = ends - firsts
    start = np.zeros(lengths.shape[0] + 1, np.int64)
    np.cumsum(lengths, out=start[1:])
    # the lanes one after the other: position p of lane i holds keep[firsts[i] + p - start[i]]
    flat = keep[np.arange(start[-1]) - np.repeat(start[:-1] - firsts, lengths)]
    complete, maybe = cols.complete[flat], cols.maybe[flat]
    last = start[1:] - 1
    # interchangeable operations (seqsearch's sig): the last of their lane, never returned
    sig = np.full(flat.shape[0], -1, np.int64)
    sigs: dict[tuple, int] = {}
    for f in last[complete[last] == np.inf].tolist():
        u = flat[f]
        key = (cols.kind[u], cols.register[u], cols.new[u], cols.old[u], cols.maybe[u])
        sig[f] = sigs.setdefault(key, len(sigs))
    # a lane is finished when every operation is placed, or only a maybe that never
    # returned is left; those lanes' last operations form the pool, by invocation
    idle_end = maybe[last] & (complete[last] == np.inf)
    need = lengths - idle_end
    pooled = np.flatnonzero(idle_end)
    pool = pooled[np.argsort(cols.invoke[flat[last[pooled]]], kind="stable")]
    arrays = (start, cols.invoke[flat], complete, cols.kind[flat], cols.register[flat], cols.new[flat],
              cols.old[flat], maybe, sig, need.astype(np.int64), pool.astype(np.int64), cols.initial)
    return _run(arrays, len(sigs), cols.n_values, flat, budget)


def _run(arrays: tuple, n_sigs: int, n_values: int, flat: np.ndarray, budget: Budget) -> list[int] | None:
    """:func:`.lin_kernel.lin_search` on ``arrays`` within ``budget`` (:func:`search_columns`); its
    operation ``f`` is uid ``flat[f]``."""
    limit = budget.left()
    if budget.timeout is not None:
        limit = min(limit, 1 << 16)
    while True:
        began = time.monotonic()
        outcome, states, path = lin_kernel.lin_search(*arrays, n_sigs, n_values, limit)
        if outcome != OUT_OF_STATES:
            budget.states += states
            return None if outcome == NONE else flat[path[path >= 0]].tolist()
        if limit >= budget.left():
            budget.states += states
            budget.tick()  # raises: the configurations ran out
        assert budget.timeout is not None
        remaining = budget.timeout - (time.monotonic() - budget.start)
        pace = states / max(time.monotonic() - began, 1e-6)
        affordable = int(pace * remaining)  # configurations a run can reach by the deadline
        if affordable <= limit:
            raise BudgetExhausted(f"the timeout of {budget.timeout:g} s ran out")
        limit = min(budget.left(), affordable)
