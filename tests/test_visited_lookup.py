"""A large visited set is held split (:mod:`fisheye.checker.engines.lookup_kernel`): a
bucket directory and 6 bytes a key.  Its kernels, compiled and in Python, give back every
key exactly and answer lookups as the reference binary search does
(``numpy.searchsorted``), on the edges of the key space and of the buckets too; a visited
set answers through it exactly as a set of Python integers does, merge after merge; a
search through it gives the plain report; its checkpoint file is the plain array's."""

from __future__ import annotations

import io
import pickle

import numpy as np
import pytest

from fisheye.checker.engines.lookup_kernel import (
    MIN_BITS,
    SplitKeys,
    directory_bits,
    join_keys,
    search_split,
    split_keys,
)
from fisheye.checker.explore import store

TOP = np.iinfo(np.uint64).max


def _tables(rng):
    yield np.zeros(0, np.uint64)
    yield np.array([0, TOP], np.uint64)
    for size in (1, 7, 1000, 20_000):
        yield np.unique(rng.integers(0, TOP, size=size, dtype=np.uint64, endpoint=True))
    clustered = rng.integers(0, 1 << 20, size=5000, dtype=np.uint64)    # all in bucket 0
    yield np.unique(np.concatenate([clustered, [TOP - 1, TOP]]).astype(np.uint64))
    same_low = (np.arange(1, 3000, dtype=np.uint64) << np.uint64(48)) | np.uint64(12345)
    yield same_low                      # one low part, every bucket's top bits differ


def _probes(table, rng, shift):
    edges = np.arange(1 << (64 - int(shift)), dtype=np.uint64) << shift
    keys = np.concatenate([table, table + np.uint64(1), table - np.uint64(1), edges,
                           edges - np.uint64(1), np.array([0, 1, TOP, TOP - 1], np.uint64),
                           table ^ np.uint64(1 << 50),           # same low 48 bits, other bucket
                           rng.integers(0, TOP, size=500, dtype=np.uint64, endpoint=True)])
    return np.sort(keys)


@pytest.mark.parametrize("compiled", [True, False])
def test_split_keys_give_back_every_key_and_answer_as_the_binary_search(compiled):
    rng = np.random.default_rng(5)
    join = join_keys if compiled else join_keys.py_func
    search = search_split if compiled else search_split.py_func
    for table in _tables(rng):
        split = split_keys(table)
        assert split.bits == directory_bits(table.size) >= MIN_BITS
        assert split.mid.dtype == np.uint32 and split.low.dtype == np.uint16
        for first, last in {(0, table.size), (0, min(1, table.size)), (table.size // 3, table.size // 2),
                            (max(0, table.size - 5), table.size)}:
            out = np.empty(max(0, last - first), dtype=np.uint64)
            join(split.starts, split.shift, split.mid, split.low, np.int64(first), out)
            assert np.array_equal(out, table[first:last]), (table.size, first, last)
        keys = _probes(table, rng, split.shift)
        keys = keys[:: 1 if compiled else 40]
        pos, hit = np.empty(keys.size, np.int64), np.empty(keys.size, bool)
        search(split.starts, split.shift, split.mid, split.low, keys, pos, hit)
        assert np.array_equal(pos, np.searchsorted(table, keys)), table.size
        assert np.array_equal(hit, np.isin(keys, table)), table.size


def test_a_large_visited_set_answers_as_a_python_set(monkeypatch):
    monkeypatch.setattr(store, "SPLIT_FROM", 64)          # split from 64 keys on
    rng = np.random.default_rng(11)
    visited, expected = store.FingerprintSet(), set()
    for _ in range(12):
        level = rng.integers(0, 1 << 12, size=int(rng.integers(50, 400)), dtype=np.uint64) << np.uint64(52)
        level |= rng.integers(0, 4, size=level.size, dtype=np.uint64)
        probe = np.concatenate([level, rng.integers(0, TOP, size=300, dtype=np.uint64)])
        assert visited.known(probe).tolist() == [int(k) in expected for k in probe]
        assert visited.known(probe.tolist()) == [int(k) in expected for k in probe]
        fresh = np.unique(level[~visited.known(level)])
        visited.merge(fresh)
        expected |= {int(k) for k in fresh}
        assert visited.keys().tolist() == sorted(expected)
        assert isinstance(visited.split, SplitKeys)
    assert len(visited) == len(expected) > 1000


def test_a_search_through_the_split_set_gives_the_same_report(monkeypatch):
    """The compiled search of pbn (published variant: violations with their schedules)
    with every visited lookup in the split set: the report of the plain lookups."""
    from fisheye.checker.explore import make_context, run

    scenario = ("p0: write(X,1); p1: write(X,2); p2: read(X), read(X)")

    def report():
        r = run(make_context(scenario, "p0:p1", variant="published"), kernel="compiled")
        return {k: v for k, v in r.items()
                if k not in {"seconds", "cpu_seconds", "states_per_second", "peak_memory_bytes",
                             "visited_bytes"}}

    plain = report()
    calls = []
    search = SplitKeys.search

    def counted(self, keys):
        calls.append(len(keys))
        return search(self, keys)

    monkeypatch.setattr(store, "SPLIT_FROM", 2)
    monkeypatch.setattr(SplitKeys, "search", counted)
    assert report() == plain
    assert calls and plain["states"] > 100


def test_a_split_set_holds_six_bytes_a_key_and_its_directory():
    rng = np.random.default_rng(3)
    visited = store.FingerprintSet()
    keys = np.sort(rng.integers(0, TOP, size=store.SPLIT_FROM - 10, dtype=np.uint64))
    keys = keys[np.flatnonzero(np.diff(keys, prepend=np.uint64(TOP)))]    # (np.unique: 10x slower)
    visited.merge(keys)
    assert visited.split is None and visited.nbytes == 8 * len(visited)
    more = rng.integers(0, TOP, size=1000, dtype=np.uint64)
    more = np.unique(more[~visited.known(more)])
    visited.merge(more)
    n = len(visited)
    assert n >= store.SPLIT_FROM and visited.split is not None
    assert visited.nbytes == 6 * n + 8 * ((1 << directory_bits(n)) + 1)
    assert visited.nbytes / n < 6.13
    assert np.array_equal(visited.keys(), np.sort(np.concatenate([keys, more])))


@pytest.mark.parametrize("split_from", [1 << 22, 10])
def test_a_saved_visited_set_is_a_plain_sorted_array_and_loads_back(monkeypatch, tmp_path, split_from):
    monkeypatch.setattr(store, "SPLIT_FROM", split_from)
    monkeypatch.setattr(store, "SAVE_PIECE", 7)
    keys = np.unique(np.random.default_rng(2).integers(0, TOP, size=100, dtype=np.uint64))
    visited = store.FingerprintSet.of(keys)
    path = str(tmp_path / "visited.bin")
    visited.save(path)
    assert np.array_equal(np.load(path), keys)           # what a checkpoint held before
    back = store.FingerprintSet()
    back.load(path)
    assert (back.split is None) == (split_from > keys.size)
    assert np.array_equal(back.keys(), keys) and back.known(keys).all()
    copied = pickle.loads(pickle.dumps(back))            # (a Spark shard in the shuffle)
    assert np.array_equal(copied.keys(), keys) and (copied.split is None) == (back.split is None)
    stream = io.BytesIO()                                 # (a Spark shard's file)
    back.write(stream)
    header = 128                                          # (each array's .npy header)
    assert stream.tell() == header + 1 + (header + 8 * keys.size if back.split is None else
                                          header + 8 + header + back.split.starts.nbytes
                                          + 2 * header + 6 * keys.size)
    stream.seek(0)
    read = store.FingerprintSet.read(stream)
    assert (read.split is None) == (back.split is None) and np.array_equal(read.keys(), keys)
    assert read.known(keys).all() and not read.known(keys + np.uint64(1)).any()
    with open(path, "rb") as f:
        whole = f.read()
    with open(path, "wb") as f:
        f.write(whole[:-8])                               # one key short: never a smaller set
    with pytest.raises(ValueError, match="truncated"):
        back.load(path)
    with open(path, "wb") as f:
        np.save(f, keys.astype(np.int64))
    with pytest.raises(ValueError, match="not a visited set"):
        back.load(path)
