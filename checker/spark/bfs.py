"""Level-synchronous breadth-first search over fingerprint-owned shards, on Spark or in the
driver (``docs/spark.md`` gives the design and its cost model).

* Every state is *owned* by shard ``fp mod N`` of its 64-bit fingerprint ``fp``.  A shard's
  *record* holds the sorted ``numpy.uint64`` array of the fingerprints it owns and the
  aggregate of the terminal states it found (grouped by terminal record: count and least
  path).
* One level is one task per shard (:func:`step`): it reads its record and the *batches* of
  candidate states sent to it, keeps one candidate per fingerprint (the least path: a sort
  of the fingerprints, then array minima per group), admits those the shard does not own
  yet (``searchsorted`` on the sorted array, then a linear ``insert``), expands every
  admitted state -- with the system's compiled kernel, in blocks of ``KERNEL_CHUNK``
  states (``kernel="compiled"``), or with the explorer's state-local successor function
  (:func:`fisheye.checker.explore.expand.expand_bytes`), the reduction included --, drops
  the successors it owns and has seen, keeps one per fingerprint the same way, and writes
  its new record plus **one batch per destination shard**. A batch is arrays: the
  fingerprints (``uint64``), the states (the kernel's rows as a 2-D integer array; or the
  encoded states as an object array) and the paths (a 2-D ``uint16`` array: at one level
  every path has the same length; through the shuffle, rows and paths are narrowed to
  one byte a value when the values fit). Only
  terminal states (few) become Python objects; no per-state Python work happens in Spark
  itself.
* On Spark, a level's records and batches move through an *exchange* (:class:`Exchange`):
  files in a directory every process reaches (:mod:`fisheye.checker.spark.files`), or
  Spark's shuffle (:class:`ShuffleExchange`).  Through the shuffle, a level's tasks are
  the result stage of one job on a PySpark RDD whose output is already in the pair
  format of Spark's shuffle writer; the next level's shuffle is then built in the JVM
  (``PairwiseRDD`` → ``partitionBy`` with the identity partitioner): one shuffle per
  level, no union, no Python in the shuffle, no re-serialisation.  The job's action is a
  JVM-side ``count``; the level's counters come back in an accumulator (result-stage
  updates count once per partition, whatever the retries).
* Narrow levels (fewer candidates than ``driver_width``) run :func:`step` in the driver on
  the same records: a Spark level has a fixed cost (tasks, JVM round trips) that only pays
  on wide levels.  The records move between the driver and Spark when the width crosses
  the threshold.
* Each state carries its *path*: the indices of the successors taken from the initial
  state.  Among duplicates the shortest (the level's), then lexicographically least, path
  wins, so
  results never depend on task timing, and a violation's schedule is a shortest one
  (rebuilt by replaying the path,
  :func:`fisheye.checker.explore.expand.schedule_of_path`).

Through the shuffle, lineage is cut every level: by a reliable checkpoint when the
SparkContext has a checkpoint directory (a lost executor's records are read back from
it), else by a local checkpoint.
"""

from __future__ import annotations

import pickle
import struct
import time
import uuid
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np

from fisheye.checker.explore.codec import collision_probability
from fisheye.checker.explore.codec import fingerprint as fingerprint_bytes
from fisheye.checker.explore.engine import INTERRUPTED, KERNEL_CHUNK, CtrlC
from fisheye.checker.explore.expand import (
    INNER,
    PRUNED,
    Context,
    Expansion,
    TerminalRecord,
    expand_bytes,
    fingerprint,
    initial_bytes,
)
from fisheye.checker.explore.expand import expand as expand_state
from fisheye.checker.explore.kernel import select_kernel
from fisheye.checker.explore.store import FingerprintSet
from fisheye.impl.kernel_api import INNER as K_INNER
from fisheye.impl.kernel_api import PRUNED as K_PRUNED

Path = tuple[int, ...]
FINGERPRINT_BITS = 64
DRIVER_WIDTH = 4000          # levels with fewer candidates run in the driver (docs/benchmarks.md)
DRIVER_STATES = 4_000_000    # ... as long as the visited fingerprints (8 bytes each) are this few
SHARD, BATCH = 0, 1          # the two kinds of payload a shard task reads and writes
PATH_DTYPE = np.uint16       # a path's steps: indices among a state's reduced successors
BATCH_STATES = 1 << 16       # states per batch record at most: a record is one byte array in an
                             # executor's heap (one of 7.7 M states exhausted a 1 GiB executor)
_PROTO = pickle.HIGHEST_PROTOCOL

# Per-level counters (an accumulator on Spark): admitted states, visited states after the
# level, transitions expanded, states pruned, candidates sent on.
ADMITTED, VISITED, TRANSITIONS, PRUNED_STATES, EMITTED = range(5)
N_COUNTERS = 5


# States cross processes as the explorer's canonical bytes (``ctx.codec``), named by the
# one 64-bit fingerprint of those bytes (``fisheye.checker.explore.codec.fingerprint``).
__all__ = ["admit", "collision_probability", "initial_batch", "least_per_key", "run", "step"]


def _key(path: Path) -> tuple[int, Path]:
    return (len(path), path)


def _least(a: Path, b: Path) -> Path:
    return b if _key(b) < _key(a) else a


# A group of terminal states with the same record: (count, record, least path).
Group = tuple[int, TerminalRecord, Path]


def merge_group(a: Group, b: Group) -> Group:
    return (a[0] + b[0], a[1], _least(a[2], b[2]))


def group_key(rec: TerminalRecord) -> int:
    return fingerprint((rec.kind, rec.history_key, rec.outcome, rec.matches, rec.judged.failed_names(),
                        rec.judged.held))


# ---- one shard, one level (on an executor or in the driver) -------------------------------

def _path_words(paths: np.ndarray) -> list[np.ndarray]:
    """The rows of ``paths`` (equal lengths) packed into ``uint64`` words, first word first,
    each step in as many bits as the largest step of ``paths`` needs: words compare as the
    paths do, lexicographically (a path at depth 21 with at most 8 successors a state takes
    one word)."""
    k, length = paths.shape
    bits = max(int(paths.max()).bit_length(), 1) if paths.size else 1
    per_word = 64 // bits
    words = []
    for c in range(0, length, per_word):
        w = np.zeros(k, dtype=np.uint64)
        for j in range(c, min(c + per_word, length)):
            w <<= np.uint64(bits)
            w |= paths[:, j]
        words.append(w)
    return words


def _narrow(a: np.ndarray) -> np.ndarray:
    """``a`` as the smallest of its integer type, ``uint8`` and ``int8`` that holds its
    values (a batch crosses the shuffle in it; :func:`step` widens it back; the driver's
    records and the files exchange keep the rows as they are: narrowing costs more CPU
    than the bytes it saves there)."""
    if a.dtype == object or not a.size or a.dtype.itemsize == 1:
        return a
    lo, hi = int(a.min()), int(a.max())
    for t in (np.uint8, np.int8):
        info = np.iinfo(t)
        if info.min <= lo and hi <= info.max:
            return a.astype(t)
    return a


def least_per_key(fps: np.ndarray, paths: np.ndarray) -> np.ndarray:
    """For each distinct fingerprint of ``fps``, the index of its candidate with the
    lexicographically least path (``paths``: one row per candidate, all of one length, as
    at one level of the search), in fingerprint order: one sort of the fingerprints, then
    per group the least path, word by word (:func:`_path_words`), by
    ``numpy.minimum.reduceat`` -- no comparison sort on the paths."""
    if not len(fps):
        return np.zeros(0, dtype=np.intp)
    order = np.argsort(fps)
    s = fps[order]
    first = np.empty(len(s), dtype=bool)
    first[0] = True
    np.not_equal(s[1:], s[:-1], out=first[1:])
    if first.all():
        return order
    starts = np.flatnonzero(first)
    group = np.cumsum(first) - 1
    least = np.ones(len(s), dtype=bool)       # candidates whose path ties the group's least so far
    top = np.uint64(np.iinfo(np.uint64).max)
    for w in _path_words(paths[order]):
        low = np.minimum.reduceat(np.where(least, w, top), starts)
        least &= w == low[group]
    at = np.flatnonzero(least)
    keep = np.empty(len(at), dtype=bool)
    keep[0] = True
    np.not_equal(group[at[1:]], group[at[:-1]], out=keep[1:])
    return order[at[keep]]


def admit(visited: FingerprintSet, fps: np.ndarray, paths: np.ndarray) -> np.ndarray:
    """Admit the candidates (``fps[i]`` reached by ``paths[i]``, paths of one length) never
    visited into ``visited``; returns one index per new fingerprint (its least path), in
    fingerprint order."""
    pick = least_per_key(fps, paths)
    chosen = pick[~visited.known(fps[pick])]
    visited.merge(fps[chosen])
    return chosen


def _objects(items: list[Any]) -> np.ndarray:
    a = np.empty(len(items), dtype=object)
    a[:] = items
    return a


def _unseen(visited: FingerprintSet, keys: np.ndarray, index: int, n: int) -> np.ndarray:
    """Which successors (their ``keys``) shard ``index`` of ``n`` must keep: all but those
    it owns and has already visited."""
    mine = np.flatnonzero(keys % np.uint64(n) == np.uint64(index))
    keep = np.ones(len(keys), dtype=bool)
    keep[mine[visited.known(keys[mine])]] = False
    return keep


def _take(parts: list[np.ndarray], bounds: np.ndarray, idx: np.ndarray) -> np.ndarray:
    """Rows ``idx`` (increasing) of the concatenation of ``parts`` (``bounds``: where each
    part starts, then the total), without concatenating the parts."""
    cuts = np.searchsorted(idx, bounds)
    out = np.empty((len(idx), *parts[0].shape[1:]), dtype=np.result_type(*parts))
    for i, p in enumerate(parts):
        a, b = cuts[i], cuts[i + 1]
        if b > a:       # (mode clip: the indices are valid; "raise" would buffer the output)
            np.take(p, idx[a:b] - bounds[i], axis=0, out=out[a:b], mode="clip")
    return out


def initial_batch(ctx: Context, kernel: str = "python") -> tuple[int, tuple]:
    """The initial state's fingerprint and the batch that carries it (empty path)."""
    kern = select_kernel(ctx, kernel) if kernel == "compiled" else None
    if kern is None:
        blob = initial_bytes(ctx)
        fp, states = fingerprint_bytes(blob), _objects([blob])
    else:
        states = kern.encode(ctx.system.initial())[None, :]
        fp = int(kern.fingerprints(states)[0])
    return fp, (BATCH, np.array([fp], dtype=np.uint64), states, np.zeros((1, 0), dtype=PATH_DTYPE))


def step(ctx: Context, index: int, n: int, records: Iterable[tuple[int, tuple]],
         counters: list[int], expand: bool = True, kernel: str = "python",
         batch_states: int | None = None) -> Iterator[tuple[int, tuple]]:
    """Shard ``index`` of ``n`` at one level: admit, expand, route (module docstring).
    Adds this level's counters to ``counters``; yields ``(destination, payload)``: the
    shard's record first, then the batches, at most ``batch_states`` states each (default
    ``BATCH_STATES``), destination by destination.  ``expand=False`` (the depth bound):
    admit only.  ``kernel="compiled"``: the states are rows of the system's compiled
    kernel, the admitted ones expanded in one batch; else they are the explorer's encoded
    states, expanded one by one.  Either way, admission, deduplication and routing are
    array operations."""
    visited, groups = FingerprintSet(), {}
    batches: list[tuple] = []
    for _dst, payload in records:
        if payload[0] == SHARD:
            _, visited, groups = payload
        else:
            batches.append(payload)
    if not batches:
        yield index, (SHARD, visited, groups)
        counters[VISITED] += len(visited)
        return
    fps, paths = (np.concatenate([b[i] for b in batches]) for i in (1, 3))
    fresh = np.sort(admit(visited, fps, paths))      # (batch order: each batch's rows read once)
    if not expand:
        yield index, (SHARD, visited, groups)
        counters[ADMITTED] += len(fresh)
        counters[VISITED] += len(visited)
        return
    kern = select_kernel(ctx, kernel) if kernel == "compiled" else None
    sources, starts = [b[2] for b in batches], np.cumsum([0] + [len(b[1]) for b in batches])
    paths = paths[fresh].astype(PATH_DTYPE)
    pruned = 0

    def terminal(e: Expansion, x: int) -> int:
        if e.kind == PRUNED:
            return 1
        rec = e.record
        assert rec is not None
        key = group_key(rec)
        g: Group = (1, rec, tuple(paths[x].tolist()))
        groups[key] = merge_group(groups[key], g) if key in groups else g
        return 0

    # The successors, in blocks; those this shard owns and has seen are dropped at once.
    keys_l, kids_l, par_l, stp_l = [], [], [], []
    transitions = 0
    if kern is not None:
        for lo in range(0, len(fresh), KERNEL_CHUNK):      # (a block gathered stays in the cache)
            rows = _take(sources, starts, fresh[lo:lo + KERNEL_CHUNK]).astype(kern.dtype, copy=False)
            out = kern.expand(rows)       # (views of the kernel's buffers: copied below)
            pruned += int(np.count_nonzero(out.status == K_PRUNED))
            for x in np.flatnonzero((out.status != K_PRUNED) & (out.status != K_INNER)).tolist():
                pruned += terminal(expand_state(ctx, kern.decode(rows[x])), lo + x)
            transitions += len(out.keys)
            new = _unseen(visited, out.keys, index, n)
            keys_l.append(out.keys[new])
            kids_l.append(out.children[new])
            par_l.append(out.parent[new] + lo)
            stp_l.append(out.step[new])
    else:
        kids: list[bytes] = []
        par: list[int] = []
        stp: list[int] = []
        for x, blob in enumerate(_take(sources, starts, fresh).tolist()):
            e = expand_bytes(ctx, blob)
            if e.kind == INNER:
                kids.extend(e.children)
                par.extend([x] * len(e.children))
                stp.extend(range(len(e.children)))
            else:
                pruned += terminal(e, x)
        keys = np.fromiter(map(fingerprint_bytes, kids), dtype=np.uint64, count=len(kids))
        transitions += len(keys)
        new = _unseen(visited, keys, index, n)
        keys_l, kids_l = [keys[new]], [_objects(kids)[new]]
        par_l, stp_l = [np.array(par, dtype=np.intp)[new]], [np.array(stp, dtype=np.intp)[new]]
    del batches, sources            # the level's input, freed before the output is built
    out_fps, parent, steps = (np.concatenate(a) if a else np.zeros(0, dtype=np.uint64)
                              for a in (keys_l, par_l, stp_l))
    parent = parent.astype(np.intp, copy=False)
    if len(steps) and int(steps.max()) > np.iinfo(PATH_DTYPE).max:
        raise ValueError(f"a state with more than {np.iinfo(PATH_DTYPE).max + 1} reduced successors")
    child_paths = np.empty((len(parent), paths.shape[1] + 1), dtype=paths.dtype)
    child_paths[:, :-1] = paths[parent]
    child_paths[:, -1] = steps
    pick = least_per_key(out_fps, child_paths)
    dst = (out_fps[pick] % np.uint64(n)).astype(np.intp)
    bounds = np.cumsum([0] + [len(k) for k in keys_l])
    yield index, (SHARD, visited, groups)
    emitted = 0
    limit = BATCH_STATES if batch_states is None else batch_states
    for d in range(n):
        sel = np.sort(pick[dst == d])       # the rows gathered in memory order
        emitted += len(sel)
        for lo in range(0, len(sel), limit):
            part = sel[lo:lo + limit]
            yield d, (BATCH, out_fps[part], _take(kids_l, bounds, part), child_paths[part])
    for k, v in enumerate((len(fresh), len(visited), transitions, pruned, emitted)):
        counters[k] += v


# ---- Spark plumbing -------------------------------------------------------------------------

_CONTEXTS: dict[str, Context] = {}


def worker_context(token: str, blob: Any) -> Context:
    """The run's context, unpickled once per Python worker process (its caches survive
    from task to task and level to level)."""
    ctx = _CONTEXTS.get(token)
    if ctx is None:
        from pyspark import cloudpickle

        if len(_CONTEXTS) >= 4:
            _CONTEXTS.clear()
        ctx = _CONTEXTS[token] = cloudpickle.loads(blob.value)
    return ctx


def freeze_survivors() -> None:
    """Move what the task leaves alive (the context and the caches of its successor
    function) to the collector's permanent generation.  A reused PySpark worker runs a
    full ``gc.collect()`` after every task, whose cost grows with those caches: measured,
    it doubled the workers' CPU time (docs/benchmarks.md)."""
    import gc

    gc.freeze()


def _as_shuffle_pairs(pairs: Iterable[tuple[int, tuple]]) -> Iterator[bytes]:
    """``(destination, payload)`` in the format of PySpark's shuffle writer (what
    ``partitionBy`` produces in Python): the key as a packed long, then a pickled list."""
    pack, dumps = struct.Struct("!q").pack, pickle.dumps
    for dst, payload in pairs:
        if payload[0] == BATCH:
            payload = (BATCH, payload[1], _narrow(payload[2]), _narrow(payload[3]))
        yield pack(dst)
        yield dumps([(dst, payload)], _PROTO)


def _identity(key: int) -> int:
    return key


class _VectorSum:
    """AccumulatorParam of fixed-length integer vectors."""

    def zero(self, value: list[int]) -> list[int]:
        return [0] * len(value)

    def addInPlace(self, a: list[int], b: list[int]) -> list[int]:  # noqa: N802 (PySpark's name)
        return [x + y for x, y in zip(a, b, strict=True)]


class Exchange(Protocol):
    """How a level's inputs and outputs move between the shards' tasks on Spark: the JVM's
    shuffle (:class:`ShuffleExchange`) or files every process reaches
    (:class:`fisheye.checker.spark.files.FileExchange`).  :func:`run` drives either."""

    name: str

    def push(self, records: dict[int, list[tuple]]) -> None:
        """Records held by the driver (by destination shard) become the next level's input."""

    def level(self, expand: bool = True) -> list[int]:
        """Run one level on Spark (``expand=False``: admit only); returns its counters."""

    def pull(self) -> dict[int, list[tuple]]:
        """The last level's output, brought to the driver."""

    def groups(self) -> Any:
        """RDD of ``(key, group)``: the terminal groups of every shard."""

    def close(self) -> None:
        """Release what the exchange holds (idempotent)."""


def broadcast_context(sc: Any, ctx: Context) -> Any:
    """The context, broadcast to the executors (unpickled once per worker: :func:`_context`)."""
    from pyspark import cloudpickle

    return sc.broadcast(cloudpickle.dumps(ctx))


class ShuffleExchange:
    """The levels through Spark's shuffle: each level's output RDD (pair format), persisted
    and checkpointed, and the JVM-built shuffle that feeds the next level."""

    name = "shuffle"

    def __init__(self, sc: Any, ctx: Context, n: int, kernel: str = "python"):
        self.sc, self.n, self.ctx, self.kernel = sc, n, ctx, kernel
        self.token = uuid.uuid4().hex
        self.blob: Any = None         # the context, broadcast once the first level runs on Spark
        self.out: Any = None          # the last level's output (PipelinedRDD in pair format)

    def _shuffled(self) -> Any:
        """The last level's output, routed to its destination shards (JVM only)."""
        from pyspark.core.rdd import RDD
        from pyspark.serializers import BatchedSerializer

        sc = self.sc
        jvm = sc._jvm
        pairs = jvm.PairwiseRDD(self.out._jrdd.rdd()).asJavaPairRDD()
        part = jvm.PythonPartitioner(self.n, id(_identity))
        jrdd = jvm.PythonRDD.valueOfPair(pairs.partitionBy(part))
        return RDD(jrdd, sc, BatchedSerializer(sc._unbatched_serializer))

    def push(self, records: dict[int, list[tuple]]) -> None:
        from pyspark import StorageLevel
        from pyspark.core.rdd import RDD

        if self.blob is None:
            self.blob = broadcast_context(self.sc, self.ctx)
            self.level_storage = self.sc._getJavaStorageLevel(StorageLevel.MEMORY_AND_DISK)
            self.reliable = self.sc.getCheckpointDir() is not None
        data = [[(d, p) for p in records.get(d, [])] for d in range(self.n)]
        rdd = self.sc.parallelize(data, self.n)
        self.out = None
        self._input: RDD = rdd.flatMap(lambda x: x)     # pipelined into the level's task

    def level(self, expand: bool = True) -> list[int]:
        acc = self.sc.accumulator([0] * N_COUNTERS, _VectorSum())
        src = self._shuffled() if self.out is not None else self._input
        token, blob, n, kernel = self.token, self.blob, self.n, self.kernel

        def task(index: int, it: Iterable[tuple[int, tuple]]) -> Iterator[bytes]:
            counters = [0] * N_COUNTERS
            ctx = worker_context(token, blob)
            yield from _as_shuffle_pairs(step(ctx, index, n, it, counters, expand, kernel))
            acc.add(counters)
            freeze_survivors()

        out = src.mapPartitionsWithIndex(task)
        out._bypass_serializer = True
        j = out._jrdd
        j.persist(self.level_storage)
        if self.reliable:
            j.rdd().checkpoint()
        else:
            j.rdd().localCheckpoint()
        j.count()                                  # the action: JVM-side, runs the level
        if self.out is not None:
            self.out._jrdd.unpersist(False)
        self.out = out
        return list(acc.value)

    def pull(self) -> dict[int, list[tuple]]:
        records: dict[int, list[tuple]] = {}
        for d, payload in self._shuffled().collect():
            records.setdefault(d, []).append(payload)
        if self.out is not None:
            self.out._jrdd.unpersist(False)
        self.out = None
        return records

    def groups(self) -> Any:
        def shard_groups(it: Iterable[tuple[int, tuple]]) -> Iterator[tuple[int, Group]]:
            for _d, payload in it:
                if payload[0] == SHARD:
                    yield from payload[2].items()
        return self._shuffled().mapPartitions(shard_groups)

    def close(self) -> None:
        if self.out is not None:
            self.out._jrdd.unpersist(False)
            self.out = None
        if self.blob is not None:
            self.blob.unpersist()
            self.blob = None


# ---- the driver --------------------------------------------------------------------------

@dataclass(frozen=True)
class LevelStat:
    level: int
    frontier: int       # states admitted at this level
    states: int         # distinct states so far
    transitions: int    # transitions expanded so far
    seconds: float      # since the start of the search
    where: str = "spark"  # "spark" or "driver"


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
    groups: Any = field(default=None, compare=False, repr=False)   # RDD of Group
    release: Callable[[], None] = field(default=lambda: None, compare=False, repr=False)
    exchange: str = "shuffle"       # how the Spark levels moved their data (Exchange.name)

    @property
    def collision_probability(self) -> float:
        return collision_probability(self.states)


def run(sc: Any, ctx: Context, *, partitions: int, max_states: int | None = None,
        max_depth: int | None = None, timeout: float | None = None, driver_width: int = DRIVER_WIDTH,
        driver_states: int = DRIVER_STATES,
        progress: Callable[[LevelStat], None] | None = None, kernel: str = "python",
        exchange: Exchange | None = None) -> SparkRun:
    """Explore the reduced state graph of ``ctx`` to a fixpoint (or a budget): levels with
    at least ``driver_width`` candidates on Spark, the others in the driver.  With
    ``max_depth``, the states at that depth are admitted but not expanded (as the local
    engine does).  ``kernel``: ``compiled`` runs the system's compiled kernel on the
    batches (states travel as its rows, named by its fingerprints), ``python`` the
    reference.  ``exchange``: how the Spark levels move their data (default: a
    :class:`ShuffleExchange`, which the run's ``release`` closes; one given here is the
    caller's to close)."""
    own = ShuffleExchange(sc, ctx, partitions, kernel) if exchange is None else None
    try:
        return _levels(sc, ctx, own or exchange, partitions, max_states, max_depth, timeout, driver_width,
                       driver_states, progress, kernel, own.close if own else lambda: None)
    except BaseException:
        if own is not None:
            own.close()
        raise


def _levels(sc: Any, ctx: Context, spark: Any, n: int, max_states: int | None, bound: int | None,
            timeout: float | None, driver_width: int, driver_states: int,
            progress: Callable[[LevelStat], None] | None, kernel: str,
            release: Callable[[], None]) -> SparkRun:
    """:func:`run`'s loop: the levels, in the driver or on Spark through ``spark``."""
    start = time.perf_counter()
    fp, first = initial_batch(ctx, kernel)
    local: dict[int, list[tuple]] | None = {fp % n: [first]}
    level, width = 0, 1
    states = transitions = pruned = max_depth = 0
    levels: list[LevelStat] = []
    stopped: str | None = None
    with CtrlC(on_signal=lambda: sc.cancelAllJobs()) as ctrl_c:   # Ctrl-C: a partial report
        while True:
            on_spark = width >= driver_width
            if on_spark and local is not None:
                spark.push(local)
                local = None
            elif not on_spark and local is None and states <= driver_states:
                local = spark.pull()
            bounded = bound is not None and level >= bound
            if local is None:
                try:
                    c = spark.level(expand=not bounded)
                except Exception:
                    if not ctrl_c.seen:
                        raise
                    stopped = INTERRUPTED       # the level's job cancelled: the levels before it
                    break
            else:
                c = [0] * N_COUNTERS
                nxt: dict[int, list[tuple]] = {}
                for d in range(n):
                    for dst, payload in step(ctx, d, n, ((d, p) for p in local.get(d, ())), c, not bounded,
                                             kernel):
                        nxt.setdefault(dst, []).append(payload)
                local = nxt
            states = c[VISITED]
            transitions += c[TRANSITIONS]
            pruned += c[PRUNED_STATES]
            if c[ADMITTED]:
                max_depth = level
            stat = LevelStat(level, c[ADMITTED], states, transitions, time.perf_counter() - start,
                             "driver" if local is not None else "spark")
            levels.append(stat)
            if progress is not None:
                progress(stat)
            width = c[EMITTED]
            if bounded:
                if c[ADMITTED]:
                    stopped = f"depth bound ({bound}) reached"
                break
            if width == 0:
                break
            if max_states is not None and states >= max_states:
                stopped = f"max-states budget ({max_states:,}) reached"
                break
            if timeout is not None and time.perf_counter() - start >= timeout:
                stopped = f"timeout ({timeout:g} s) reached"
                break
            if ctrl_c.seen:
                stopped = INTERRUPTED
                break
            level += 1
    if local is not None:
        merged: dict[int, Group] = {}
        for payloads in local.values():
            for payload in payloads:
                if payload[0] == SHARD:
                    for k, g in payload[2].items():
                        merged[k] = merge_group(merged[k], g) if k in merged else g
        groups = sc.parallelize(list(merged.values()), n)
    else:
        groups = spark.groups().reduceByKey(merge_group, n).values()
    return SparkRun(states=states, transitions=transitions, pruned=pruned, max_depth=max_depth,
                    levels=tuple(levels), complete=stopped is None, stopped=stopped,
                    seconds=time.perf_counter() - start, partitions=n, groups=groups,
                    release=release, exchange=spark.name)
