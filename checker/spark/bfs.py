"""Level-synchronous breadth-first search over a hash-partitioned frontier (issue 6).

The design (``docs/spark.md`` gives it with its cost model):

* every state is *owned* by partition ``fp mod N`` of its 64-bit fingerprint ``fp``
  (:func:`fingerprint`: BLAKE2b of a canonical text of the state, the same on every
  executor);
* the exploration is an RDD of one :class:`Shard` per partition, co-partitioned by that
  rule: the shard's sorted array of visited fingerprints, its counters, the aggregate of
  its terminal states (grouped by terminal record), and its frontier (the states it
  admitted at the last level, pickled as one blob);
* one level = expand every frontier state with the explorer's *state-local* successor
  function (:func:`fisheye.checker.explore.expand.successors`, partial-order reduction
  and pruning included), deduplicate the successors map-side, shuffle each to its owner
  (``partitionBy``), and admit at the owner those absent from its visited array.  The
  union of the old shards with the shuffled successors is a narrow, partitioner-aware
  union (same ``PythonPartitioner`` on both sides): visited sets never move and are never
  collected on the driver; only a few counters per shard reach the driver per level;
* each state carries its *path*: the indices of the successors taken, level by level.
  Among duplicates the shortest, then lexicographically least, path wins, so results do
  not depend on task timing, and a violation's schedule is a shortest one (rebuilt by
  replaying the path, :func:`schedule_of`).

Lineage is cut each level by ``localCheckpoint`` (or by a reliable ``checkpoint`` every
:data:`CHECKPOINT_EVERY` levels when the SparkContext has a checkpoint directory, as it
should on a cluster); a failed task is recomputed by Spark from the cached previous level.
"""

from __future__ import annotations

import hashlib
import json
import pickle
import time
from array import array
from bisect import bisect_left
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from fisheye.checker.explore.expand import (
    INNER,
    PRUNED,
    Context,
    TerminalRecord,
    classify,
    successors,
    terminal_record,
)
from fisheye.checker.explore.expand import fingerprint as canonical_fingerprint
from fisheye.impl.api import Step

Path = tuple[int, ...]
FINGERPRINT_BITS = 64
CHECKPOINT_EVERY = 8  # levels between reliable checkpoints, when a checkpoint dir is set

# Per-shard counters (cumulative): expanded transitions, pruned states.
TRANSITIONS, PRUNED_STATES = 0, 1


_json = json.JSONEncoder(separators=(",", ":"), check_circular=False).encode


def fingerprint(state: Any) -> int:
    """64-bit fingerprint of ``state``, the same on every executor.

    Fast path: BLAKE2b of the state's JSON text (the C encoder).  It succeeds exactly
    when the state is a tree of tuples (named or not), ints, strings, floats, booleans
    and None -- the protocol level's states -- and equal such states have equal texts.
    Anything else (sets, dataclasses...) raises ``TypeError`` and falls back to the
    explorer's canonical encoding (:func:`fisheye.checker.explore.expand.fingerprint`,
    sets sorted).  The two paths hash different texts, so a state's fingerprint does not
    depend on which path another state took."""
    try:
        text = _json(state)
    except (TypeError, ValueError):
        return canonical_fingerprint(state)
    return int.from_bytes(hashlib.blake2b(text.encode(), digest_size=8).digest(), "big")


def collision_probability(states: int, bits: int = FINGERPRINT_BITS) -> float:
    """Birthday-bound estimate that two of ``states`` distinct states share a
    fingerprint (TLC's "calculated" probability): n(n-1) / 2^(bits+1)."""
    return min(1.0, states * (states - 1) / 2.0 ** (bits + 1))


def _better(a: Path, b: Path) -> bool:
    return (len(a), a) < (len(b), b)


def _least(a: Path, b: Path) -> Path:
    return b if _better(b, a) else a


# A group of terminal states with the same record: (count, record, least path).
Group = tuple[int, TerminalRecord, Path]


def merge_group(a: Group, b: Group) -> Group:
    return (a[0] + b[0], a[1], _least(a[2], b[2]))


def group_key(rec: TerminalRecord) -> int:
    return canonical_fingerprint((rec.kind, rec.history_key, rec.outcome, rec.matches, rec.broadcast))


@dataclass
class Shard:
    """One partition of the exploration (see the module docstring)."""

    visited: array                   # sorted fingerprints of the states this partition owns
    counters: tuple[int, int]        # (transitions, pruned), cumulative
    groups: dict[int, Group]         # terminal states of this partition, by group key
    frontier: bytes                  # pickle of list[(fp, pickled state, path)], sorted by fp
    new: int                         # len(frontier)


def _owner(fp: int) -> int:
    """The partition function: ``Partitioner`` takes it modulo the partition count."""
    return fp


# ---- tasks (run on executors) ------------------------------------------------------------

def _expand(ctx: Context, index: int, shards: Iterable[Shard]) -> Iterator[tuple[int, tuple]]:
    """Successors of shard ``index``'s frontier, deduplicated map-side (exact states,
    Python's own hashing), then fingerprinted and pickled once each (the owner keeps
    the bytes without unpickling them); the frontier's terminal records and the
    counters are keyed to stay home."""
    best: dict[Any, Path] = {}
    transitions = pruned = 0
    loads = pickle.loads
    for shard in shards:
        for fp, blob, path in loads(shard.frontier):
            state = loads(blob)
            succ = successors(ctx, state)        # empty for a pruned state
            if not succ:
                kind = classify(ctx, state, 0)
                if kind == PRUNED:
                    pruned += 1
                elif kind != INNER:
                    yield fp, ("T", terminal_record(ctx, state, kind), path)
                continue
            transitions += len(succ)
            for i, (_step, nxt) in enumerate(succ):
                p2 = path + (i,)
                old = best.get(nxt)
                if old is None or _better(p2, old):
                    best[nxt] = p2
    yield index, ("N", (transitions, pruned), ())
    dumps, proto = pickle.dumps, pickle.HIGHEST_PROTOCOL
    for nxt, p2 in best.items():
        yield fingerprint(nxt), ("C", dumps(nxt, proto), p2)


def _admit(records: Iterable[Any], admit: bool = True) -> Iterator[Shard]:
    """The owner's side: keep the successors never seen, fold in findings and counters."""
    visited: array = array("Q")
    counters = [0, 0]
    groups: dict[int, Group] = {}
    cands: dict[int, tuple[Any, Path]] = {}
    for rec in records:
        if isinstance(rec, Shard):
            visited, groups = rec.visited, dict(rec.groups)
            counters = [a + b for a, b in zip(counters, rec.counters, strict=True)]
            continue
        fp, (tag, a, path) = rec
        if tag == "C":
            old = cands.get(fp)
            if old is None or _better(path, old[1]):
                cands[fp] = (a, path)
        elif tag == "T":
            key = group_key(a)
            g: Group = (1, a, path)
            groups[key] = merge_group(groups[key], g) if key in groups else g
        else:
            counters = [x + y for x, y in zip(counters, a, strict=True)]
    fresh: list[int] = []
    if admit:
        n = len(visited)
        for fp in sorted(cands):
            i = bisect_left(visited, fp)
            if i == n or visited[i] != fp:
                fresh.append(fp)
        if fresh:
            visited = array("Q", sorted([*visited, *fresh]))  # two sorted runs: a linear merge
    frontier = [(fp, *cands[fp]) for fp in fresh]
    yield Shard(visited, (counters[0], counters[1]), groups,
                pickle.dumps(frontier, protocol=pickle.HIGHEST_PROTOCOL), len(fresh))


def _admit_findings_only(records: Iterable[Any]) -> Iterator[Shard]:
    return _admit(records, admit=False)


def _counts(shard: Shard) -> tuple[int, int, int, int]:
    return (shard.new, len(shard.visited), *shard.counters)


# ---- the driver --------------------------------------------------------------------------

@dataclass(frozen=True)
class LevelStat:
    level: int
    frontier: int       # states admitted at this level
    states: int         # distinct states so far
    transitions: int    # transitions expanded so far
    seconds: float      # since the start of the search


@dataclass(frozen=True)
class SparkRun:
    states: int
    transitions: int
    pruned: int
    max_depth: int
    levels: tuple[LevelStat, ...]
    complete: bool
    stopped: str | None
    seconds: float
    partitions: int
    groups: Any = field(default=None, compare=False, repr=False)   # RDD of Group, persisted
    shards: Any = field(default=None, compare=False, repr=False)   # the last level, persisted

    @property
    def collision_probability(self) -> float:
        return collision_probability(self.states)


def run(spark: Any, ctx: Context, *, partitions: int, max_states: int | None = None,
        timeout: float | None = None,
        progress: Callable[[LevelStat], None] | None = None) -> SparkRun:
    """Explore the reduced state graph of ``ctx`` to a fixpoint (or a budget)."""
    from pyspark import StorageLevel

    sc = spark.sparkContext
    start = time.perf_counter()
    n = partitions
    checkpointing = sc.getCheckpointDir() is not None
    init = ctx.system.initial()
    seed = (sc.parallelize([(fingerprint(init), ("C", pickle.dumps(init, pickle.HIGHEST_PROTOCOL), ()))], 1)
            .partitionBy(n, _owner))
    shards = seed.mapPartitions(_admit, preservesPartitioning=True)
    shards.persist(StorageLevel.MEMORY_AND_DISK)
    level, frontier, states, transitions, pruned = 0, 0, 0, 0, 0
    max_depth = 0
    levels: list[LevelStat] = []
    stopped: str | None = None
    counts = shards.map(_counts).collect()
    while True:
        frontier = sum(c[0] for c in counts)
        states = sum(c[1] for c in counts)
        transitions = sum(c[2] for c in counts)
        pruned = sum(c[3] for c in counts)
        if frontier:
            max_depth = level
        stat = LevelStat(level, frontier, states, transitions, time.perf_counter() - start)
        levels.append(stat)
        if progress is not None:
            progress(stat)
        if frontier == 0:
            break
        if max_states is not None and states >= max_states:
            stopped = f"max-states budget ({max_states:,}) reached"
            break
        if timeout is not None and time.perf_counter() - start >= timeout:
            stopped = f"timeout ({timeout:g} s) reached"
            break
        level += 1
        succ = (shards.mapPartitionsWithIndex(lambda i, it: _expand(ctx, i, it))
                .partitionBy(n, _owner))
        nxt = shards.union(succ).mapPartitions(_admit, preservesPartitioning=True)
        nxt.persist(StorageLevel.MEMORY_AND_DISK)
        if not checkpointing:
            nxt.localCheckpoint()
        elif level % CHECKPOINT_EVERY == 0:
            nxt.checkpoint()
        shards, parent = nxt, shards
        counts = shards.map(_counts).collect()   # materialises (and checkpoints) the level
        parent.unpersist()
    persisted = shards
    if stopped is not None:
        # Cut short: the frontier's own terminal states are still reported, nothing admitted.
        tail = (shards.mapPartitionsWithIndex(lambda i, it: _expand(ctx, i, it))
                .filter(lambda kv: kv[1][0] == "T").partitionBy(n, _owner))
        shards = shards.union(tail).mapPartitions(_admit_findings_only, preservesPartitioning=True)
    groups = (shards.flatMap(lambda s: s.groups.items())
              .reduceByKey(merge_group, n)
              .values())
    groups.persist(StorageLevel.MEMORY_AND_DISK)
    return SparkRun(states=states, transitions=transitions, pruned=pruned, max_depth=max_depth,
                    levels=tuple(levels), complete=stopped is None, stopped=stopped,
                    seconds=time.perf_counter() - start, partitions=n, groups=groups, shards=persisted)


def schedule_of(ctx: Context, path: Path) -> list[Step]:
    """Replay a path (successor indices) from the initial state into its schedule."""
    state = ctx.system.initial()
    steps: list[Step] = []
    for i in path:
        step, state = successors(ctx, state)[i]
        steps.append(step)
    return steps
