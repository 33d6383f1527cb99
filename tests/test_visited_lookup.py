"""Lookups in a large visited set go through a bucket directory
(:mod:`fisheye.checker.engines.lookup_kernel`): the compiled kernel and its Python form
agree with the reference binary search (:func:`fisheye.checker.explore.store.members`) on
every key, the edges of the key space and of the buckets included; and a visited set
answers through it exactly as a set of Python integers does, merge after merge."""

from __future__ import annotations

import numpy as np
import pytest

from fisheye.checker.engines.lookup_kernel import directory, directory_bits, members_in_buckets
from fisheye.checker.explore import store

TOP = np.iinfo(np.uint64).max


def _tables(rng):
    yield np.zeros(0, np.uint64)
    yield np.array([0, TOP], np.uint64)
    for size in (1, 7, 1000, 20_000):
        yield np.unique(rng.integers(0, TOP, size=size, dtype=np.uint64, endpoint=True))
    clustered = rng.integers(0, 1 << 20, size=5000, dtype=np.uint64)    # all in bucket 0
    yield np.unique(np.concatenate([clustered, [TOP - 1, TOP]]).astype(np.uint64))


@pytest.mark.parametrize("compiled", [True, False])
def test_the_directory_lookup_agrees_with_the_binary_search(compiled):
    rng = np.random.default_rng(5)
    run = members_in_buckets if compiled else members_in_buckets.py_func
    for table in _tables(rng):
        for bits in {1, 3, directory_bits(table.size)}:
            starts = directory(table, bits)
            shift = np.uint64(64 - bits)
            edges = (np.arange(1 << bits, dtype=np.uint64) << shift)
            keys = np.concatenate([table, table + np.uint64(1), table - np.uint64(1), edges,
                                   edges - np.uint64(1), np.array([0, 1, TOP, TOP - 1], np.uint64),
                                   rng.integers(0, TOP, size=500, dtype=np.uint64, endpoint=True)])
            keys = keys[: 3000 if not compiled else None]
            out = np.empty(keys.size, dtype=bool)
            run(table, starts, shift, keys, out)
            assert np.array_equal(out, store.members(table, keys)), (table.size, bits)


def test_a_large_visited_set_answers_as_a_python_set(monkeypatch, tmp_path):
    monkeypatch.setattr(store, "DIRECTORY_FROM", 64)      # every lookup below through the directory
    monkeypatch.setattr(store, "MERGE_PIECE", 500)
    rng = np.random.default_rng(11)
    visited, expected = store.FingerprintSet(str(tmp_path)), set()
    for _ in range(12):
        level = rng.integers(0, 1 << 12, size=int(rng.integers(50, 400)), dtype=np.uint64) << np.uint64(52)
        level |= rng.integers(0, 4, size=level.size, dtype=np.uint64)
        probe = np.concatenate([level, rng.integers(0, TOP, size=300, dtype=np.uint64)])
        assert visited.known(probe).tolist() == [int(k) in expected for k in probe]
        fresh = np.unique(level[~visited.known(level)])
        visited.merge(fresh)
        expected |= {int(k) for k in fresh}
        assert visited.known(np.array(sorted(expected), np.uint64)).all()
    assert len(visited) == len(expected) >= 64


def test_a_search_through_the_directory_gives_the_same_report(monkeypatch):
    """The compiled search of pbn (published variant: violations with their schedules)
    with every visited lookup through the directory: the report of the plain lookups."""
    from fisheye.checker.explore import make_context, run

    scenario = ("p0: write(X,1); p1: write(X,2); p2: read(X), read(X)")

    def report():
        r = run(make_context(scenario, "p0:p1", variant="published"), kernel="compiled")
        return {k: v for k, v in r.items()
                if k not in {"seconds", "cpu_seconds", "states_per_second", "peak_memory_bytes"}}

    plain = report()
    calls = []
    lookup = store.FingerprintSet._members_by_bucket

    def counted(self, keys):
        calls.append(len(keys))
        return lookup(self, keys)

    monkeypatch.setattr(store, "DIRECTORY_FROM", 2)
    monkeypatch.setattr(store.FingerprintSet, "_members_by_bucket", counted)
    assert report() == plain
    assert calls and plain["states"] > 100


def test_the_directory_counts_in_the_visited_set_s_bytes(monkeypatch, tmp_path):
    monkeypatch.setattr(store, "DIRECTORY_FROM", 64)
    visited = store.FingerprintSet(str(tmp_path))
    visited.merge(np.arange(1, 5000, dtype=np.uint64) << np.uint64(40))
    assert visited.nbytes == 8 * len(visited)
    visited.known(np.array([3], dtype=np.uint64))
    starts = (1 << directory_bits(len(visited))) + 1
    assert visited.nbytes == 8 * len(visited) + 8 * starts
