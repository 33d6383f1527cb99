"""Membership of 64-bit keys in a large sorted array, through a bucket directory: the
visited set of a long exploration (:class:`fisheye.checker.explore.store.FingerprintSet`).

A binary search over hundreds of millions of fingerprints reads about 28 entries spread
over gigabytes, most of them a cache and TLB miss.  Fingerprints are uniform 64-bit
hashes, so their top ``bits`` bits split the sorted array into ``2**bits`` buckets of
nearly equal size; the *directory* holds where each bucket starts (``directory[b]``,
``directory[2**bits]`` = the array's size).  A lookup reads the key's two directory
entries, then binary-searches its bucket alone (a few hundred entries, one or two memory
pages).  :func:`fisheye.checker.explore.store.members` (``numpy.searchsorted``) is the
reference; the tests compare both."""

from __future__ import annotations

import numpy as np

from .compiled_kernel import _kernel

BUCKET = 512
"""Keys per bucket, on average (a bucket is then one 4 KiB page of the array)."""


def directory_bits(size: int) -> int:
    """The bits of the directory of a sorted array of ``size`` keys (buckets of about
    :data:`BUCKET` keys; at least 1)."""
    return max(1, (size // BUCKET).bit_length())


def directory(table: np.ndarray, bits: int) -> np.ndarray:
    """Where each bucket of the sorted ``table`` starts (``int64[2**bits + 1]``): bucket
    ``b`` holds the keys whose top ``bits`` bits are ``b``."""
    shift = np.uint64(64 - bits)
    starts = np.arange(1 << bits, dtype=np.uint64) << shift
    out = np.empty((1 << bits) + 1, dtype=np.int64)
    out[:-1] = np.searchsorted(table, starts)
    out[-1] = table.size
    return out


@_kernel("void(uint64[:], int64[:], uint64, uint64[:], boolean[:])")
def members_in_buckets(table: np.ndarray, starts: np.ndarray, shift: np.uint64, keys: np.ndarray,
                       out: np.ndarray) -> None:
    """``out[i]``: ``keys[i]`` is in ``table`` (sorted, distinct), ``starts`` its
    :func:`directory` for ``64 - shift`` bits."""
    for i in range(keys.shape[0]):
        k = keys[i]
        b = k >> shift
        lo = starts[b]
        hi = starts[b + 1]
        while lo < hi:
            mid = (lo + hi) >> 1
            if table[mid] < k:
                lo = mid + 1
            else:
                hi = mid
        out[i] = lo < starts[b + 1] and table[lo] == k
