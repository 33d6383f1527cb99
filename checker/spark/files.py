"""The file exchange: the levels of the Spark search move their data through files in a
directory that the driver and every executor reach (``docs/spark.md``, "The file
exchange"); Spark only schedules the tasks.

Level ``g`` reads generation ``g`` of the files and writes generation ``g + 1``, each
generation in a directory of its own under the run's directory:

* ``shard-K``: shard ``K``'s record -- its terminal groups (pickled: few Python objects),
  then its visited fingerprints as the shard holds them
  (:meth:`~fisheye.checker.explore.store.FingerprintSet.write`: 6 bytes a state once
  split, read back straight into memory maps);
* ``batch-S-K``: the candidate states that source ``S`` sends to shard ``K``, as records
  of at most :data:`~fisheye.checker.spark.bfs.BATCH_STATES` states, each raw arrays
  (``numpy.save`` one after the other): the fingerprints, the paths, the states (the
  kernel's rows; or the encoded states as their lengths and their concatenated bytes).
  No per-state object is pickled.  Records of a bounded size keep the task's buffers
  small and reused, where one record per destination had the gather of a wide level
  fault in hundreds of megabytes of fresh pages each level.

A level is one Spark job of one task per shard over ``parallelize(range(N), N)``: task
``K`` reads its record and the batches addressed to it, runs :func:`bfs.step
<fisheye.checker.spark.bfs.step>`, writes its new record and one batch per destination,
and returns its counters and the number of states it sent to each shard (the action is a
``collect`` of these small tuples).  Every file is written under a temporary name and
renamed into place (``os.replace``), and its name and content depend only on (level,
source, destination): a retried or speculative attempt writes the same files, and no
reader sees half of one.  A generation is deleted once the level that read it has
finished; the run's directory when the exchange is closed (also after an error or
Ctrl-C).
"""

from __future__ import annotations

import os
import pickle
import shutil
import tempfile
import time
import uuid
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any, BinaryIO

import numpy as np

from fisheye.checker.explore.expand import Context
from fisheye.checker.explore.store import FingerprintSet

from .bfs import (
    BATCH,
    N_COUNTERS,
    SHARD,
    broadcast_context,
    freeze_survivors,
    step,
    worker_context,
)

_PROTO = pickle.HIGHEST_PROTOCOL
ROWS, BLOBS = 0, 1      # how a batch file holds its states: kernel rows, or encoded states
PREFIX = "fisheye-exchange-"


# ---- one file ---------------------------------------------------------------------------------

def _write(path: str, fill: Callable[[BinaryIO], None]) -> None:
    """Write ``path`` through ``fill`` under a temporary name in the same directory, then
    rename it into place: a reader sees the whole file or none."""
    tmp = f"{path}.{uuid.uuid4().hex}.tmp"
    try:
        with open(tmp, "wb") as f:
            fill(f)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.remove(tmp)
        except OSError:
            pass
        raise


def write_shard(path: str, visited: FingerprintSet, groups: dict) -> None:
    def fill(f: BinaryIO) -> None:
        pickle.dump(groups, f, _PROTO)
        visited.write(f)
    _write(path, fill)


def read_groups(path: str) -> dict:
    with open(path, "rb") as f:
        return pickle.load(f)


def read_shard(path: str) -> tuple:
    with open(path, "rb") as f:
        groups = pickle.load(f)
        visited = FingerprintSet.read(f)
    return (SHARD, visited, groups)


def append_batch(f: BinaryIO, payload: tuple) -> None:
    """One batch record at the end of ``f``: raw arrays, one after the other."""
    _, fps, states, paths = payload
    blobs = states.dtype == object
    np.save(f, np.array(BLOBS if blobs else ROWS, dtype=np.int8))
    np.save(f, fps)
    np.save(f, paths)
    if blobs:
        items = states.tolist()
        np.save(f, np.fromiter(map(len, items), dtype=np.int64, count=len(items)))
        np.save(f, np.frombuffer(b"".join(items), dtype=np.uint8))
    else:
        np.save(f, states)


def write_batch(path: str, payload: tuple) -> None:
    _write(path, lambda f: append_batch(f, payload))


def read_batches(path: str) -> Iterator[tuple]:
    """The batch records of the file ``path``, in order."""
    with open(path, "rb") as f:
        end = os.fstat(f.fileno()).st_size
        while f.tell() < end:
            kind = int(np.load(f))
            fps, paths = np.load(f), np.load(f)
            if kind == ROWS:
                states = np.load(f)
            else:
                lengths, data = np.load(f), np.load(f).tobytes()
                ends = np.cumsum(lengths).tolist()
                states = np.empty(len(ends), dtype=object)
                states[:] = [data[a:b] for a, b in zip([0, *ends[:-1]], ends, strict=True)]
            yield (BATCH, fps, states, paths)


class _BatchFiles:
    """The batch files a level's task writes, destination after destination: the records
    of one file appended as they come (each under its temporary name until the next
    destination starts, then renamed into place)."""

    def __init__(self) -> None:
        self.path: str | None = None
        self.tmp = ""
        self.f: BinaryIO | None = None

    def append(self, path: str, payload: tuple) -> bool:
        """Append a record to ``path``'s file; True if it is a new file."""
        new = path != self.path
        if new:
            self.close()
            self.path, self.tmp = path, f"{path}.{uuid.uuid4().hex}.tmp"
            self.f = open(self.tmp, "wb")  # noqa: SIM115  (closed by close or abort)
        assert self.f is not None
        append_batch(self.f, payload)
        return new

    def close(self) -> None:
        if self.f is not None and self.path is not None:
            self.f.close()
            os.replace(self.tmp, self.path)
        self.path, self.f = None, None

    def abort(self) -> None:
        if self.f is not None:
            self.f.close()
            try:
                os.remove(self.tmp)
            except OSError:
                pass
        self.path, self.f = None, None


# ---- the level task, on an executor ---------------------------------------------------------------

def generation_dir(root: str, gen: int) -> str:
    return os.path.join(root, f"g{gen}")


def shard_path(root: str, gen: int, k: int) -> str:
    return os.path.join(generation_dir(root, gen), f"shard-{k}")


def batch_path(root: str, gen: int, src: int, dst: int) -> str:
    return os.path.join(generation_dir(root, gen), f"batch-{src}-{dst}")


def read_records(root: str, gen: int, k: int, senders: Iterable[int]) -> Iterator[tuple[int, tuple]]:
    """Shard ``k``'s input at generation ``gen``: its record, then the batches of ``senders``."""
    yield k, read_shard(shard_path(root, gen, k))
    for src in senders:
        for batch in read_batches(batch_path(root, gen, src, k)):
            yield k, batch


@dataclass(frozen=True)
class LevelTask:
    """One level's task, sent to the executors: reads generation ``gen``, writes ``gen + 1``."""

    root: str
    gen: int
    n: int
    senders: tuple[tuple[int, ...], ...]     # senders[k]: the sources of shard k's batches
    expand: bool
    kernel: str
    token: str
    blob: Any
    on_written: Callable[[int, int, list[str]], None] | None = None

    def __call__(self, index: int, _it: Iterable[int]) -> Iterator[tuple[int, list[int], list[int]]]:
        ctx = worker_context(self.token, self.blob)
        counters, sent = [0] * N_COUNTERS, [0] * self.n
        written = []
        out = self.gen + 1
        records = read_records(self.root, self.gen, index, self.senders[index])
        batches = _BatchFiles()
        try:
            for dst, payload in step(ctx, index, self.n, records, counters, self.expand, self.kernel):
                if payload[0] == SHARD:
                    path = shard_path(self.root, out, index)
                    write_shard(path, payload[1], payload[2])
                    written.append(path)
                else:
                    path = batch_path(self.root, out, index, dst)
                    if batches.append(path, payload):
                        written.append(path)
                    sent[dst] += len(payload[1])
            batches.close()
        except BaseException:
            batches.abort()
            raise
        if self.on_written is not None:
            self.on_written(self.gen, index, written)
        freeze_survivors()
        yield index, counters, sent


# ---- the exchange, in the driver --------------------------------------------------------------

def check_directory(path: str) -> str | None:
    """What is wrong with ``path`` as the directory of a file exchange (None: nothing)."""
    if not os.path.isdir(path):
        return "no such directory" if not os.path.exists(path) else "not a directory"
    if not os.access(path, os.W_OK | os.X_OK):
        return "not writable"
    return None


class FileExchange:
    """The levels through files under a directory of their own, created in ``directory``
    (default: the system's temporary directory; on a cluster, one that the driver and
    every executor share) and removed by :meth:`close`."""

    name = "files"
    on_written: Callable[[int, int, list[str]], None] | None = None
    """Called by a level's task once its files are in place, with the generation it read,
    its shard and the paths written (None: nothing; tests inject a task failure here)."""

    def __init__(self, sc: Any, ctx: Context, n: int, kernel: str = "python", directory: str | None = None):
        self.sc, self.ctx, self.n, self.kernel = sc, ctx, n, kernel
        self.root = tempfile.mkdtemp(prefix=PREFIX, dir=directory)
        self.token = uuid.uuid4().hex
        self.blob: Any = None
        self.gen = 0
        self.senders: tuple[tuple[int, ...], ...] = ((),) * n

    def push(self, records: dict[int, list[tuple]]) -> None:
        if self.blob is None:
            self.blob = broadcast_context(self.sc, self.ctx)
        self.gen += 1
        os.mkdir(generation_dir(self.root, self.gen))
        senders = []
        for k in range(self.n):
            shard = next((p for p in records.get(k, ()) if p[0] == SHARD), (SHARD, FingerprintSet(), {}))
            write_shard(shard_path(self.root, self.gen, k), shard[1], shard[2])
            batches = [p for p in records.get(k, ()) if p[0] == BATCH]
            for j, payload in enumerate(batches):
                write_batch(batch_path(self.root, self.gen, j, k), payload)
            senders.append(tuple(range(len(batches))))
        self.senders = tuple(senders)

    def level(self, expand: bool = True) -> list[int]:
        os.mkdir(generation_dir(self.root, self.gen + 1))
        task = LevelTask(self.root, self.gen, self.n, self.senders, expand, self.kernel, self.token,
                         self.blob, self.on_written)
        results = sorted(self.sc.parallelize(range(self.n), self.n).mapPartitionsWithIndex(task).collect())
        assert [k for k, _c, _s in results] == list(range(self.n))
        counters = [sum(c[i] for _k, c, _s in results) for i in range(N_COUNTERS)]
        self.senders = tuple(tuple(src for src, _c, s in results if s[k]) for k in range(self.n))
        shutil.rmtree(generation_dir(self.root, self.gen))
        self.gen += 1
        return counters

    def pull(self) -> dict[int, list[tuple]]:
        records = {k: [p for _k, p in read_records(self.root, self.gen, k, self.senders[k])]
                   for k in range(self.n)}
        shutil.rmtree(generation_dir(self.root, self.gen))
        return records

    def groups(self) -> Any:
        pairs = [item for k in range(self.n)
                 for item in read_groups(shard_path(self.root, self.gen, k)).items()]
        return self.sc.parallelize(pairs, self.n)

    def close(self) -> None:
        """Remove the run's directory (a task cancelled a moment ago may still be writing
        its last file: retried briefly); unpersist the context's broadcast."""
        for _ in range(50):
            shutil.rmtree(self.root, ignore_errors=True)
            if not os.path.exists(self.root):
                break
            time.sleep(0.1)
        if self.blob is not None:
            self.blob.unpersist()
            self.blob = None
