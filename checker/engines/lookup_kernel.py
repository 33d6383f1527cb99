"""A large sorted set of 64-bit keys in 6 bytes a key, with fast lookups: the visited set
of a long exploration (:class:`fisheye.checker.explore.store.FingerprintSet`).

Fingerprints are uniform 64-bit hashes, so their top ``bits`` bits split the sorted array
into ``2**bits`` buckets of nearly equal size.  :class:`SplitKeys` keeps

* the *directory*: where each bucket starts (``starts[b]``; ``starts[2**bits]`` = the
  number of keys), with ``bits`` = :func:`directory_bits` (at least 16, buckets of at
  most :data:`BUCKET` keys on average);
* each key's low 48 bits, in key order: bits 16-47 in ``mid`` (``uint32``), bits 0-15 in
  ``low`` (``uint16``).

A key's top 16 bits are those of its bucket, so the directory holds them once for all and
every key is recovered exactly (:func:`join_keys`): 6 bytes a key, plus the directory's
8 bytes per bucket (1/64 to 1/32 byte a key from 17 M keys on; 512 KiB at least).  A lookup
(:func:`search_split`) reads the key's two directory entries, then binary-searches its
bucket alone (a few hundred entries, a memory page or two of each array), where a binary
search of a plain array of hundreds of millions of keys reads about 28 entries spread over
gigabytes, most of them a cache and TLB miss.  The reference is a plain sorted
``uint64`` array and ``numpy.searchsorted``
(:func:`fisheye.checker.explore.store.members`): the tests compare both, on the kernels
compiled and in Python."""

from __future__ import annotations

import contextlib
import mmap
from dataclasses import dataclass
from typing import BinaryIO

import numpy as np

from .compiled_kernel import _kernel

BUCKET = 512
"""Keys per bucket: 256 to 512 on average, once the directory has more than 16 bits (a
bucket is then at most 2 KiB of ``mid`` and 1 KiB of ``low``)."""
MIN_BITS = 16
"""The directory's fewest bits: the top 16 bits of a key are not stored with it."""
LOW_BITS = 48
_MASK = np.uint64((1 << LOW_BITS) - 1)
_SIXTEEN = np.uint64(16)
_LOW16 = np.uint64(0xFFFF)


def directory_bits(size: int) -> int:
    """The bits of the directory of ``size`` keys (buckets of about :data:`BUCKET` keys;
    at least :data:`MIN_BITS`)."""
    return max(MIN_BITS, (size // BUCKET).bit_length())


def _mapped(nbytes: int) -> mmap.mmap:
    """Anonymous memory of ``nbytes`` (at least 1), transparent huge pages advised over
    the whole map (fewer TLB misses in lookups over gigabytes)."""
    out = mmap.mmap(-1, max(1, nbytes), flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
    with contextlib.suppress(AttributeError, OSError):     # (no huge pages here: plain pages)
        out.madvise(mmap.MADV_HUGEPAGE)
    return out


def _grown(area: mmap.mmap, nbytes: int) -> mmap.mmap:
    """``area`` grown to ``nbytes`` in place (``mremap``: the pages are remapped, never
    copied); copied into a new map only if something still holds a view of it."""
    try:
        area.resize(max(1, nbytes))
        return area
    except (BufferError, OSError, SystemError):
        out = _mapped(nbytes)
        np.frombuffer(out, np.uint8, count=len(area))[:] = np.frombuffer(area, np.uint8)
        return out


def read_vector_header(f: BinaryIO, dtype: type) -> int:
    """The length of the one-dimensional ``.npy`` array of ``dtype`` whose header is read
    from ``f`` (its data follows); ValueError, saying what is there, for anything else."""
    version = np.lib.format.read_magic(f)
    header = {(1, 0): np.lib.format.read_array_header_1_0,
              (2, 0): np.lib.format.read_array_header_2_0}.get(version)
    if header is None:
        raise ValueError(f".npy version {version}")
    shape, _, found = header(f)
    if found != np.dtype(dtype) or len(shape) != 1:
        raise ValueError(f"an array of {found}, shape {shape}")
    return int(shape[0])


def _read_into_map(f: BinaryIO, dtype: type) -> tuple[mmap.mmap, int]:
    """A one-dimensional ``.npy`` array of ``dtype`` read from ``f`` into a new memory map;
    its length."""
    size = read_vector_header(f, dtype)
    nbytes = size * np.dtype(dtype).itemsize
    area = _mapped(nbytes)
    view, got = memoryview(area), 0
    while got < nbytes:
        n = f.readinto(view[got:nbytes])
        if not n:
            raise ValueError("a truncated array")
        got += n
    view.release()
    return area, size


@dataclass(frozen=True, eq=False)
class SplitKeys:
    """A sorted set of distinct 64-bit keys as a bucket directory and their low 48 bits
    (see the module doc), the low bits in anonymous memory maps, so that a merge grows
    them in place (:func:`merge_split`).  Built from sorted pieces by
    :class:`SplitBuilder`."""

    starts: np.ndarray      # int64[2**bits + 1]
    mid_area: mmap.mmap     # uint32[size]: bits 16-47 of each key
    low_area: mmap.mmap     # uint16[size]: bits 0-15
    size: int
    bits: int

    def __len__(self) -> int:
        return self.size

    @property
    def mid(self) -> np.ndarray:
        return np.frombuffer(self.mid_area, np.uint32, count=self.size)

    @property
    def low(self) -> np.ndarray:
        return np.frombuffer(self.low_area, np.uint16, count=self.size)

    @property
    def shift(self) -> np.uint64:
        return np.uint64(64 - self.bits)

    @property
    def nbytes(self) -> int:
        return int(self.starts.nbytes) + 6 * self.size

    def __reduce__(self) -> tuple:        # (a memory map is not pickled: its keys are)
        return split_keys, (self.keys(),)

    def write(self, f: BinaryIO) -> None:
        """The split keys as they are held (``numpy.save`` of the directory, then of the
        two arrays of low bits): 6 bytes a key, no conversion."""
        np.save(f, np.array([self.bits], dtype=np.int64))
        np.save(f, self.starts)
        np.save(f, self.mid)
        np.save(f, self.low)

    @classmethod
    def read(cls, f: BinaryIO) -> SplitKeys:
        """What :meth:`write` wrote, the low bits read straight into new memory maps."""
        bits = int(np.load(f)[0])
        starts = np.load(f)
        mid_area, size = _read_into_map(f, np.uint32)
        low_area, low_size = _read_into_map(f, np.uint16)
        if low_size != size or starts.size != (1 << bits) + 1 or int(starts[-1]) != size:
            raise ValueError("inconsistent split keys")
        return cls(starts, mid_area, low_area, size, bits)

    def keys(self, first: int = 0, last: int | None = None) -> np.ndarray:
        """The keys at positions ``first`` to ``last`` (excluded), as ``uint64``."""
        last = len(self) if last is None else last
        out = np.empty(max(0, last - first), dtype=np.uint64)
        if out.size:
            join_keys(self.starts, self.shift, self.mid, self.low, np.int64(first), out)
        return out

    def search(self, keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """For each of ``keys`` (``uint64``, best in increasing order): where it is or
        would be inserted (``numpy.searchsorted``'s left position), and whether it is
        there."""
        keys = np.ascontiguousarray(keys, dtype=np.uint64)
        pos = np.empty(keys.size, dtype=np.int64)
        hit = np.empty(keys.size, dtype=bool)
        if keys.size:
            search_split(self.starts, self.shift, self.mid, self.low, keys, pos, hit)
        return pos, hit


class SplitBuilder:
    """:class:`SplitKeys` of ``size`` keys, given as sorted pieces in increasing order
    (a piece at a time: what it holds besides the result is one piece)."""

    def __init__(self, size: int) -> None:
        self.size = size
        self.bits = directory_bits(size)
        self.mid_area, self.low_area = _mapped(4 * size), _mapped(2 * size)
        self.counts = np.zeros(1 << self.bits, dtype=np.int64)
        self.filled = 0

    def add(self, piece: np.ndarray) -> None:
        end = self.filled + piece.size
        mid = np.frombuffer(self.mid_area, np.uint32, count=self.size)
        low = np.frombuffer(self.low_area, np.uint16, count=self.size)
        mid[self.filled:end] = piece >> _SIXTEEN        # (bits 48-63 cut off)
        low[self.filled:end] = piece                    # (bits 16-63 cut off)
        self.counts += np.bincount((piece >> np.uint64(64 - self.bits)).astype(np.intp),
                                   minlength=self.counts.size)
        self.filled = end

    def build(self) -> SplitKeys:
        if self.filled != self.size:
            raise ValueError(f"{self.filled} keys given for {self.size}")
        starts = np.zeros(self.counts.size + 1, dtype=np.int64)
        np.cumsum(self.counts, out=starts[1:])
        return SplitKeys(starts, self.mid_area, self.low_area, self.size, self.bits)


def merge_split(split: SplitKeys, new: np.ndarray) -> SplitKeys:
    """The split keys of ``split`` and the sorted ``new`` keys (none of them in
    ``split``), in ``split``'s own memory maps, which it consumes: they are grown in
    place (``mremap``: the pages are remapped, not copied) and the keys merged into them
    from the back (:func:`merge_from_back`), so that the merge holds the new keys besides
    the result, not a second copy of the set."""
    n, m = len(split), int(new.size)
    mid_area, low_area = _grown(split.mid_area, 4 * (n + m)), _grown(split.low_area, 2 * (n + m))
    mid = np.frombuffer(mid_area, np.uint32, count=n + m)
    low = np.frombuffer(low_area, np.uint16, count=n + m)
    bits = directory_bits(n + m)
    counts = np.zeros(1 << bits, dtype=np.int64)
    merge_from_back(split.starts, split.shift, mid, low, np.int64(n),
                    np.ascontiguousarray(new, dtype=np.uint64), np.uint64(64 - bits), counts)
    starts = np.zeros(counts.size + 1, dtype=np.int64)
    np.cumsum(counts, out=starts[1:])
    return SplitKeys(starts, mid_area, low_area, n + m, bits)


def split_keys(table: np.ndarray) -> SplitKeys:
    """The :class:`SplitKeys` of the sorted, distinct ``uint64`` array ``table``."""
    builder = SplitBuilder(table.size)
    builder.add(table)
    return builder.build()


@_kernel("void(int64[:], uint64, uint32[:], uint16[:], int64, uint64[:])")
def join_keys(starts: np.ndarray, shift: np.uint64, mid: np.ndarray, low: np.ndarray, first: np.int64,
              out: np.ndarray) -> None:
    """``out[i]``: the key at position ``first + i`` of the split keys (``starts``:
    their directory for ``64 - shift`` bits)."""
    n = out.shape[0]
    if n == 0:
        return
    lo = 0
    hi = starts.shape[0] - 2              # the last bucket
    while lo < hi:                        # the last bucket starting at or before ``first``
        m = (lo + hi + 1) >> 1
        if starts[m] <= first:
            lo = m
        else:
            hi = m - 1
    b = lo
    for i in range(n):
        p = first + i
        while starts[b + 1] <= p:
            b += 1
        out[i] = (np.uint64(b) << shift) | (np.uint64(mid[p]) << _SIXTEEN) | np.uint64(low[p])


@_kernel("void(int64[:], uint64, uint32[:], uint16[:], uint64[:], int64[:], boolean[:])")
def search_split(starts: np.ndarray, shift: np.uint64, mid: np.ndarray, low: np.ndarray, keys: np.ndarray,
                 pos: np.ndarray, hit: np.ndarray) -> None:
    """``pos[i]``: where ``keys[i]`` is or would be inserted among the split keys (their
    directory ``starts`` for ``64 - shift`` bits); ``hit[i]``: it is there."""
    for i in range(keys.shape[0]):
        k = keys[i]
        b = k >> shift
        lo = starts[b]
        end = starts[b + 1]
        hi = end
        t = k & _MASK
        while lo < hi:
            m = (lo + hi) >> 1
            if ((np.uint64(mid[m]) << _SIXTEEN) | np.uint64(low[m])) < t:
                lo = m + 1
            else:
                hi = m
        pos[i] = lo
        hit[i] = lo < end and ((np.uint64(mid[lo]) << _SIXTEEN) | np.uint64(low[lo])) == t


@_kernel("void(int64[:], uint64, uint32[:], uint16[:], int64, uint64[:], uint64, int64[:])")
def merge_from_back(starts: np.ndarray, shift: np.uint64, mid: np.ndarray, low: np.ndarray, n: np.int64,
                    new: np.ndarray, new_shift: np.uint64, counts: np.ndarray) -> None:
    """Merge the sorted ``new`` keys into the ``n`` split keys at the head of ``mid`` and
    ``low`` (directory ``starts`` for ``64 - shift`` bits), whose tails have room for
    them, from the back (a key moves only towards the end, so none is overwritten before
    it is moved); ``counts[b]``: the merged keys of bucket ``b`` for ``64 - new_shift``
    bits."""
    i = n - 1
    j = new.shape[0] - 1
    out = n + j
    b = starts.shape[0] - 2
    old = np.uint64(0)
    while i >= 0 or j >= 0:
        if i >= 0:
            while starts[b] > i:
                b -= 1
            old = (np.uint64(b) << shift) | (np.uint64(mid[i]) << _SIXTEEN) | np.uint64(low[i])
        if i >= 0 and (j < 0 or old > new[j]):
            key = old
            mid[out] = mid[i]
            low[out] = low[i]
            i -= 1
        else:
            key = new[j]
            mid[out] = np.uint32(key >> _SIXTEEN)
            low[out] = np.uint16(key & _LOW16)
            j -= 1
        counts[key >> new_shift] += 1
        out -= 1
