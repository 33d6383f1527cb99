"""Where the local search keeps what it has seen: the visited set, the parent log and the
frontier, each with a memory-lean form for long runs.

* :class:`FingerprintSet` -- the visited set as 64-bit fingerprints
  (:func:`fisheye.checker.explore.codec.fingerprint` of the encoded state), sorted: a
  ``numpy.uint64`` array while small (8 bytes a state), then, from :data:`SPLIT_FROM`
  states, split (:mod:`fisheye.checker.engines.lookup_kernel`): a bucket directory that
  holds the top bits of every key once, and 6 bytes a state for the rest (at most 6.03
  bytes a state from 17 M states on).  A level is merged into a split set in place (its
  arrays grown, then filled from the back), so that the merge holds the level's keys
  besides the set, not a second copy of it; a small set is merged in memory.
  Two distinct states with one fingerprint would make the search skip the second: the
  report gives the birthday bound on that probability.  :class:`ExactSet` keeps the
  encoded states themselves instead (no collision possible; for small runs).
* :class:`DiskLog` / :class:`MemoryLog` -- the parent log: for every admitted state, its
  key, its parent's key and the index of the step taken (as TLC does), level by level, on
  disk (18 bytes per state) or in memory; a schedule is rebuilt by walking it backwards
  once for all the violations a report lists.
* :class:`Frontier` -- the encoded states of one level, in discovery order, written to
  disk in chunks above a memory budget.
"""

from __future__ import annotations

import os
import pickle
import struct
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

import numpy as np

from ..engines.lookup_kernel import SplitBuilder, SplitKeys, merge_split, read_vector_header, split_keys
from .codec import fingerprint

NO_PARENT = 0xFFFF
SAVE_PIECE = 1 << 22
"""Keys of the visited set written or read at a time by a checkpoint (32 MiB)."""
SPLIT_FROM = 1 << 22
"""Visited keys from which the set is held split
(:class:`~fisheye.checker.engines.lookup_kernel.SplitKeys`): 6 bytes a key and a bucket
directory instead of 8 bytes, and a lookup searches its bucket alone instead of the whole
array: beyond the processor's caches (32 MiB), where it is 3-4x faster."""


def members(table: np.ndarray, keys: np.ndarray, *, ordered: bool = False) -> np.ndarray:
    """Which of ``keys`` are in the sorted array ``table``: one binary search
    per key, the keys taken in increasing order (``ordered``: they already are).  In
    order, consecutive searches share most of their path, which stays in the cache: on a
    visited set of 7*10^7 fingerprints (560 MB), 16,000 keys are looked up 2.9x faster
    with the sort included, 10^6 keys 11x (machine B)."""
    if not table.size or not keys.size:
        return np.zeros(keys.size, dtype=bool)
    if ordered or keys.size < 2:
        pos = np.searchsorted(table, keys)
        np.minimum(pos, table.size - 1, out=pos)
        return table[pos] == keys
    order = np.argsort(keys)
    out = np.empty(keys.size, dtype=bool)
    out[order] = members(table, keys[order], ordered=True)
    return out


class FingerprintSet:
    """Visited states as their sorted 64-bit fingerprints (see module doc): a ``uint64``
    array below :data:`SPLIT_FROM` keys, :class:`~fisheye.checker.engines.lookup_kernel.SplitKeys`
    from there on."""

    exact = False

    def __init__(self) -> None:
        self.small = np.zeros(0, dtype=np.uint64)
        self.split: SplitKeys | None = None

    key = staticmethod(fingerprint)

    @classmethod
    def of(cls, keys: np.ndarray) -> FingerprintSet:
        """The set of the sorted, distinct ``keys``."""
        out = cls()
        out._assign(keys)
        return out

    def __len__(self) -> int:
        return int(self.small.size) if self.split is None else len(self.split)

    def keys(self) -> np.ndarray:
        """Every key, sorted (a new array when the set is split)."""
        return self.small if self.split is None else self.split.keys()

    def known(self, keys: Sequence[int] | np.ndarray) -> Any:
        """Which of ``keys`` were merged in at an earlier level (one vectorised lookup):
        a list of booleans, or a boolean array for an array of keys."""
        arr = isinstance(keys, np.ndarray)
        if not len(self) or not len(keys):
            return np.zeros(len(keys), dtype=bool) if arr else [False] * len(keys)
        a = keys if arr else np.array(keys, dtype=np.uint64)
        if self.split is None:
            hit = members(self.small, a)
        else:
            order = np.argsort(a)
            hit = np.empty(a.size, dtype=bool)
            hit[order] = self.split.search(a[order])[1]
        return hit if arr else hit.tolist()

    def _assign(self, table: np.ndarray) -> None:
        """Hold the sorted, distinct keys ``table``, split from :data:`SPLIT_FROM` on."""
        if table.size >= SPLIT_FROM:
            self.small, self.split = np.zeros(0, dtype=np.uint64), None
            self.split = split_keys(table)
        else:
            self.small, self.split = table, None

    def merge(self, keys: Iterable[int] | np.ndarray) -> None:
        """Add ``keys``, none of which is in the set yet."""
        new = np.array(keys, dtype=np.uint64) if isinstance(keys, np.ndarray) else \
            np.fromiter(keys, dtype=np.uint64)
        if not new.size:
            return
        new.sort()
        if self.split is None:
            if self.small.size + new.size < SPLIT_FROM:
                self.small = np.insert(self.small, np.searchsorted(self.small, new), new)
                return
            self.split, self.small = split_keys(self.small), np.zeros(0, dtype=np.uint64)
        self.split = merge_split(self.split, new)

    def write(self, f: Any) -> None:
        """The set as it is held, to the binary stream ``f`` (:meth:`read` reads it back):
        8 bytes a key while small, 6 and the directory once split."""
        np.save(f, np.array([self.split is not None], dtype=np.int8))
        if self.split is None:
            np.save(f, self.small)
        else:
            self.split.write(f)

    @classmethod
    def read(cls, f: Any) -> FingerprintSet:
        out = cls()
        if int(np.load(f)[0]):
            out.split = SplitKeys.read(f)
        else:
            out.small = np.load(f)
        return out

    @property
    def nbytes(self) -> int:
        """The bytes that hold the visited keys (the directory's included)."""
        return int(self.small.nbytes) if self.split is None else self.split.nbytes

    def save(self, path: str) -> None:
        """The keys in a ``.npy`` file of sorted ``uint64`` (written a piece at a time)."""
        if self.split is None:
            with open(path, "wb") as f:
                np.save(f, self.small)
            return
        out = np.lib.format.open_memmap(path, mode="w+", dtype=np.uint64, shape=(len(self),))
        for first in range(0, len(self), SAVE_PIECE):
            out[first:first + SAVE_PIECE] = self.split.keys(first, min(len(self), first + SAVE_PIECE))
        out.flush()
        del out

    def load(self, path: str) -> None:
        """The keys :meth:`save` wrote (read a piece at a time)."""
        with open(path, "rb") as f:
            try:
                size = read_vector_header(f, np.uint64)
            except ValueError as e:
                raise ValueError(f"{path}: not a visited set ({e})") from None
            self.small, self.split = np.zeros(0, dtype=np.uint64), None

            def piece(count: int) -> np.ndarray:
                keys = np.fromfile(f, dtype=np.uint64, count=count)
                if keys.size < count:
                    raise ValueError(f"{path}: not a visited set (truncated: {size:,} keys announced)")
                return keys

            if size < SPLIT_FROM:
                self._assign(piece(size))
                return
            builder = SplitBuilder(size)                   # (a piece at a time)
            while builder.filled < size:
                builder.add(piece(min(SAVE_PIECE, size - builder.filled)))
            self.split = builder.build()


class SortedRuns:
    """A growing set of 64-bit keys as a few sorted arrays whose sizes at least double
    from the newest to the oldest (two runs of comparable size are merged), so that adding
    n keys in blocks costs O(n log n) and a lookup is one ``searchsorted`` per run: the
    keys admitted so far at one level of a compiled search."""

    def __init__(self) -> None:
        self.runs: list[np.ndarray] = []

    def __len__(self) -> int:
        return sum(int(r.size) for r in self.runs)

    def known(self, keys: np.ndarray) -> np.ndarray:
        order = np.argsort(keys)
        ordered = keys[order]
        hit = np.zeros(keys.size, dtype=bool)
        for r in self.runs:
            hit |= members(r, ordered, ordered=True)
        out = np.empty_like(hit)
        out[order] = hit
        return out

    def add(self, keys: np.ndarray) -> None:
        """Add keys none of which is in the set yet."""
        if not keys.size:
            return
        run = np.sort(keys)
        while self.runs and self.runs[-1].size <= 2 * run.size:
            last = self.runs.pop()
            run = np.insert(last, np.searchsorted(last, run), run)
        self.runs.append(run)

    def sorted(self) -> np.ndarray:
        """Every key, in one sorted array."""
        if not self.runs:
            return np.zeros(0, dtype=np.uint64)
        out = np.concatenate(self.runs)
        out.sort()
        return out


class ExactSet:
    """Visited states as their exact encodings (no fingerprint collision possible)."""

    exact = True

    def __init__(self) -> None:
        self.old: set[bytes] = set()

    @staticmethod
    def key(data: bytes) -> bytes:
        return data

    def __len__(self) -> int:
        return len(self.old)

    def known(self, keys: Sequence[bytes]) -> list[bool]:
        old = self.old
        return [k in old for k in keys]

    def merge(self, keys: Iterable[bytes]) -> None:
        self.old.update(keys)

    @property
    def nbytes(self) -> int:
        return sum(len(k) + 33 for k in self.old) + 16 * len(self.old)

    def save(self, path: str) -> None:
        with open(path, "wb") as f:
            pickle.dump(self.old, f, protocol=pickle.HIGHEST_PROTOCOL)

    def load(self, path: str) -> None:
        with open(path, "rb") as f:
            self.old = pickle.load(f)


# ---- parent logs ---------------------------------------------------------------------------

_LOG_DTYPE = np.dtype([("key", "<u8"), ("parent", "<u8"), ("step", "<u2")])


class DiskLog:
    """The parent log of a fingerprint search: one file per level in ``directory``."""

    def __init__(self, directory: str):
        self.dir = directory
        os.makedirs(directory, exist_ok=True)
        self._reset()

    def _reset(self) -> None:
        self._keys: list[int] = []
        self._parents: list[int] = []
        self._steps: list[int] = []
        self._open: str | None = None       # the level file being written (``.tmp``)
        self._written = 0                   # states in it

    def add(self, key: int, parent: int, step: int) -> None:
        self._keys.append(key)
        self._parents.append(parent)
        self._steps.append(step)

    def add_many(self, keys: np.ndarray, parents: np.ndarray, steps: np.ndarray) -> None:
        """:meth:`add` for arrays of admitted states, in discovery order: appended to the
        level's file at once (18 bytes per state on disk, none held in memory)."""
        self._flush()
        a = np.empty(len(keys), dtype=_LOG_DTYPE)
        a["key"], a["parent"], a["step"] = keys, parents, steps
        self._append(a)

    def _path(self, depth: int) -> str:
        return os.path.join(self.dir, f"level-{depth:05d}.bin")

    def _append(self, a: np.ndarray) -> None:
        if self._open is None:
            self._open = os.path.join(self.dir, "level.tmp")
            open(self._open, "wb").close()
        with open(self._open, "ab") as f:
            a.tofile(f)
        self._written += len(a)

    def logged(self) -> int:
        """The states of the level being written, all on disk once this returns (a
        checkpoint within a level records it)."""
        self._flush()
        return self._written

    def resume_level(self, depth: int, logged: int) -> None:
        """Continue level ``depth + 1`` after its first ``logged`` states (a checkpoint
        within a level): they are taken from the level's file, finished or not, and
        every later level is forgotten."""
        done = self._path(depth + 1)
        source = done if os.path.exists(done) else os.path.join(self.dir, "level.tmp")
        head = np.fromfile(source, dtype=_LOG_DTYPE, count=logged) if logged else np.empty(0, _LOG_DTYPE)
        if len(head) != logged:
            raise ValueError(f"{self.dir}: the parent log holds {len(head):,} states of level "
                             f"{depth + 1}, and the checkpoint {logged:,}")
        self.truncate(depth)
        self._append(head)

    def _flush(self) -> None:
        """Append the states added one by one to the level's file."""
        if not self._keys:
            return
        a = np.empty(len(self._keys), dtype=_LOG_DTYPE)
        a["key"] = np.array(self._keys, dtype=np.uint64)
        a["parent"] = np.array(self._parents, dtype=np.uint64)
        a["step"] = np.array(self._steps, dtype=np.uint16)
        self._keys, self._parents, self._steps = [], [], []
        self._append(a)

    def end_level(self, depth: int) -> None:
        self._flush()
        if self._open is None:
            self._append(np.empty(0, dtype=_LOG_DTYPE))
        assert self._open is not None
        os.replace(self._open, self._path(depth))
        self._reset()

    def _level(self, depth: int) -> Any:
        return np.fromfile(self._path(depth), dtype=_LOG_DTYPE)

    def paths(self, refs: Sequence[tuple[int, Any]]) -> list[list[int]]:
        """The step-index paths from the initial state to each ``(depth, key)``: one
        backward pass over the levels, whatever the number of references."""
        want: dict[int, set[Any]] = {}
        for d, k in refs:
            want.setdefault(d, set()).add(k)
        links: dict[tuple[int, Any], tuple[Any, int]] = {}
        for d in range(max(want, default=0), 0, -1):
            keys = want.get(d)
            if not keys:
                continue
            a = self._level(d)
            sel = a[np.isin(a["key"], np.array(sorted(keys), dtype=np.uint64))]
            found = {int(r["key"]): (int(r["parent"]), int(r["step"])) for r in sel}
            for k in keys:
                p, s = found[k]
                links[(d, k)] = (p, s)
                want.setdefault(d - 1, set()).add(p)
        out = []
        for d, k in refs:
            path: list[int] = []
            while d > 0:
                k, s = links[(d, k)]
                path.append(s)
                d -= 1
            path.reverse()
            out.append(path)
        return out

    def truncate(self, depth: int) -> None:
        """Forget the levels after ``depth`` (a resumed run writes them again)."""
        for name in os.listdir(self.dir):
            if name.startswith("level-") and name.endswith(".bin") and int(name[6:11]) > depth:
                os.remove(os.path.join(self.dir, name))
        if self._open is not None and os.path.exists(self._open):
            os.remove(self._open)
        self._reset()


class MemoryLog:
    """The parent log of an exact search, in memory (keys are encoded states)."""

    def __init__(self) -> None:
        self.levels: list[dict[bytes, tuple[bytes | None, int]]] = []
        self._cur: dict[bytes, tuple[bytes | None, int]] = {}

    def add(self, key: bytes, parent: Any, step: int) -> None:
        self._cur[key] = (parent, step)

    def end_level(self, depth: int) -> None:
        del self.levels[depth:]
        self.levels.append(self._cur)
        self._cur = {}

    def paths(self, refs: Sequence[tuple[int, Any]]) -> list[list[int]]:
        out = []
        for d, k in refs:
            path: list[int] = []
            while d > 0:
                k, s = self.levels[d][k]
                path.append(s)
                d -= 1
            path.reverse()
            out.append(path)
        return out

    def truncate(self, depth: int) -> None:
        del self.levels[depth + 1:]
        self._cur = {}

    def logged(self) -> int:
        """The states of the level being written (saved with the log itself)."""
        return len(self._cur)

    def resume_level(self, depth: int, logged: int) -> None:
        """Continue level ``depth + 1`` from a checkpoint within it: the log was saved
        with it, its level in progress included."""
        if len(self._cur) != logged:
            raise ValueError(f"the parent log holds {len(self._cur):,} states of level {depth + 1}, "
                             f"and the checkpoint {logged:,}")
        del self.levels[depth + 1:]


# ---- the frontier --------------------------------------------------------------------------

_REC = struct.Struct("<I")


class Frontier:
    """The encoded states of one level in discovery order; above ``budget`` bytes held in
    memory, the held part is appended to a spill file in ``directory``.  The spill files
    stay until :meth:`discard` (a checkpoint within the level saves them)."""

    OVERHEAD = 41           # a bytes object's header and its list slot, roughly

    def __init__(self, directory: str | None, budget: int | None, name: str):
        self.dir, self.budget, self.name = directory, budget, name
        self.items: list[bytes] = []
        self.held = 0
        self.spilled = 0
        self.files: list[str] = []

    def __len__(self) -> int:
        return self.spilled + len(self.items)

    def append(self, data: bytes) -> None:
        self.items.append(data)
        self.held += len(data) + self.OVERHEAD
        if self.budget is not None and self.held > self.budget and self.dir is not None:
            self.spill()

    def spill(self) -> None:
        if not self.items:
            return
        assert self.dir is not None
        path = os.path.join(self.dir, f"{self.name}-{len(self.files):04d}.spill")
        with open(path, "wb") as f:
            pack = _REC.pack
            f.write(b"".join(pack(len(d)) + d for d in self.items))
        self.files.append(path)
        self.spilled += len(self.items)
        self.items = []
        self.held = 0

    def __iter__(self) -> Iterator[bytes]:
        for path in self.files:
            with open(path, "rb") as f:
                buf = f.read()
            k, end = 0, len(buf)
            while k < end:
                (m,) = _REC.unpack_from(buf, k)
                yield buf[k + 4:k + 4 + m]
                k += 4 + m
            del buf
        yield from self.items

    def discard(self) -> None:
        """Drop the states (the level is expanded), the spill files included."""
        for path in self.files:
            os.remove(path)
        self.items, self.files, self.held, self.spilled = [], [], 0, 0

    def save(self, path: str) -> None:
        """Write the whole level to one file (a checkpoint); the frontier is unchanged."""
        with open(path, "wb") as f:
            pack = _REC.pack
            for p in self.files:
                with open(p, "rb") as g:
                    f.write(g.read())
            f.write(b"".join(pack(len(d)) + d for d in self.items))

    @classmethod
    def load(cls, path: str, directory: str | None, budget: int | None, name: str) -> Frontier:
        fr = cls(directory, budget, name)
        with open(path, "rb") as f:
            buf = f.read()
        k, end = 0, len(buf)
        while k < end:
            (m,) = _REC.unpack_from(buf, k)
            fr.append(buf[k + 4:k + 4 + m])
            k += 4 + m
        return fr


class RowFrontier:
    """The states of one level as rows of a compiled kernel (``numpy`` arrays of
    ``width`` integers), in discovery order; above ``budget`` bytes held in memory, the
    held rows are appended to the level's spill file in ``directory`` (raw rows).
    Iteration yields blocks of rows, the spilled ones read back ``PIECE`` bytes at a time,
    so that reading a level holds no more than that besides the rows never spilled; the
    spill file stays until :meth:`discard` (a checkpoint within the level saves it)."""

    PIECE = 16 << 20

    def __init__(self, directory: str | None, budget: int | None, name: str, width: int, dtype: Any):
        self.dir, self.budget, self.name = directory, budget, name
        self.width, self.dtype = width, np.dtype(dtype)
        self.blocks: list[np.ndarray] = []
        self.held = 0
        self.spilled = 0
        self.path = None if directory is None else os.path.join(directory, f"{name}.rows")

    def __len__(self) -> int:
        return self.spilled + sum(b.shape[0] for b in self.blocks)

    def extend(self, rows: np.ndarray) -> None:
        if not rows.shape[0]:
            return
        self.blocks.append(rows)
        self.held += rows.nbytes
        if self.budget is not None and self.held > self.budget and self.path is not None:
            self.spill()

    def spill(self) -> None:
        if not self.blocks:
            return
        assert self.path is not None
        with open(self.path, "ab" if self.spilled else "wb") as f:
            for b in self.blocks:
                np.ascontiguousarray(b, dtype=self.dtype).tofile(f)
                self.spilled += b.shape[0]
        self.blocks = []
        self.held = 0

    def _pieces(self) -> Iterator[np.ndarray]:
        """The spilled rows, PIECE bytes at a time, in order."""
        if not self.spilled:
            return
        assert self.path is not None
        per = max(1, self.PIECE // (self.width * self.dtype.itemsize))
        with open(self.path, "rb") as f:
            left = self.spilled
            while left:
                n = min(per, left)
                yield np.fromfile(f, dtype=self.dtype, count=n * self.width).reshape(n, self.width)
                left -= n

    def __iter__(self) -> Iterator[np.ndarray]:
        yield from self._pieces()
        yield from self.blocks

    def discard(self) -> None:
        """Drop the rows (the level is expanded), the spill file included."""
        if self.spilled:
            assert self.path is not None
            os.remove(self.path)
        self.blocks, self.held, self.spilled = [], 0, 0

    def save(self, path: str) -> None:
        """Write the whole level to one ``.npy`` file (a checkpoint), a piece at a time;
        the frontier is unchanged."""
        header = {"descr": np.lib.format.dtype_to_descr(self.dtype), "fortran_order": False,
                  "shape": (len(self), self.width)}
        with open(path, "wb") as f:
            np.lib.format.write_array_header_2_0(f, header)
            for rows in self:               # a piece at a time: never the whole level at once
                np.ascontiguousarray(rows, dtype=self.dtype).tofile(f)

    @classmethod
    def load(cls, path: str, directory: str | None, budget: int | None, name: str, width: int,
             dtype: Any) -> RowFrontier:
        fr = cls(directory, budget, name, width, dtype)
        with open(path, "rb") as f:
            version = np.lib.format.read_magic(f)
            read = np.lib.format.read_array_header_1_0 if version == (1, 0) else \
                np.lib.format.read_array_header_2_0
            shape, fortran, stored = read(f)
            if len(shape) != 2 or shape[1] != width or fortran:
                raise ValueError(f"{path}: not a frontier of this kernel's rows")
            per = max(1, cls.PIECE // (width * stored.itemsize))
            left = shape[0]
            while left:
                n = min(per, left)
                rows = np.fromfile(f, dtype=stored, count=n * width).reshape(n, width)
                fr.extend(rows.astype(fr.dtype, copy=False))
                left -= n
        return fr
