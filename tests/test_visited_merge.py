"""A level merged into the visited set of the local search holds the level's keys besides
the set, never a second copy of the visited set (a split set is merged in place, from the
back), and gives the sorted union, on the compiled kernel and on its Python form."""

from __future__ import annotations

import json
import subprocess
import sys
import tracemalloc

import numpy as np
import pytest

from fisheye.checker.engines.compiled_kernel import Kernel
from fisheye.checker.engines.lookup_kernel import split_keys
from fisheye.checker.explore import store


@pytest.mark.parametrize("compiled", [True, False])
@pytest.mark.parametrize("split_from", [1, 3, 17, 1 << 22])
def test_the_merge_is_the_sorted_union_whatever_the_form(monkeypatch, split_from, compiled):
    monkeypatch.setattr(store, "SPLIT_FROM", split_from)
    monkeypatch.setattr(Kernel, "compiled_now", compiled)
    rng = np.random.default_rng(split_from)
    top = np.iinfo(np.uint64).max
    for _ in range(60 if compiled else 12):
        keys = np.unique(np.concatenate([
            rng.integers(0, 500, size=int(rng.integers(0, 200)), dtype=np.uint64),
            rng.integers(0, top, size=int(rng.integers(0, 100)), dtype=np.uint64, endpoint=True),
            (rng.integers(0, 8, size=20, dtype=np.uint64) << np.uint64(61)) | np.uint64(7)]))
        rng.shuffle(keys)
        visited, expected = store.FingerprintSet(), np.zeros(0, np.uint64)
        for part in np.array_split(keys, int(rng.integers(1, 5))):
            visited.merge(part)
            expected = np.union1d(expected, part)
            assert visited.keys().dtype == np.uint64 and np.array_equal(visited.keys(), expected)
            assert visited.known(expected).all()
            if visited.split is not None:
                assert np.array_equal(visited.split.starts, split_keys(expected).starts)


MERGE_IN_A_CHILD = r"""
import json, resource, sys
import numpy as np
from fisheye.checker.engines.lookup_kernel import SplitBuilder, merge_split, split_keys
from fisheye.checker.explore import store
n = 20_000_000
step = np.uint64(2**64 // n)
build = SplitBuilder(n - 1)                 # 120 MB, built 8 MB at a time
for first in range(1, n, 1 << 20):
    build.add(np.arange(first, min(n, first + (1 << 20)), dtype=np.uint64) * step)
visited = store.FingerprintSet()
visited.split = build.build()
del build
level = np.arange(0, 200_000, dtype=np.uint64) * step * np.uint64(100) + np.uint64(1)
level[::2] |= np.uint64(2**63)          # half among the old keys, half after them
merge_split(split_keys(np.arange(1, 9, dtype=np.uint64)), level[:1])   # kernels loaded (~100 MB)
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
visited.merge(level)
grew = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before
keys = visited.keys()
print(json.dumps({"grew_kib": grew, "n": len(visited), "split": visited.split is not None,
                  "sorted": bool(np.all(keys[1:] > keys[:-1]))}))
"""


def test_merging_a_level_holds_no_second_copy_of_the_visited_set():
    """In a fresh process (its peak RSS its own): merging 200,000 keys into a split set
    of 20 M (120 MB) raises the peak by the level and the set's growth, not by a copy of
    the set's arrays (80 MB for the upper bits alone)."""
    out = subprocess.run([sys.executable, "-c", MERGE_IN_A_CHILD], capture_output=True, text=True,
                         check=True)
    r = json.loads(out.stdout)
    assert r["split"] and r["sorted"] and r["n"] == 20_200_000 - 1
    assert r["grew_kib"] < 20_000, r          # the sorted level 1.6 MB, the growth 1.2 MB, the directory


def test_a_merge_beside_a_view_of_the_set_copies_it_and_stays_right(monkeypatch):
    """A view of the set's memory left alive (its map cannot be resized in place): the
    merge copies the map instead, and the set is still the union."""
    monkeypatch.setattr(store, "SPLIT_FROM", 10)
    keys = np.arange(1, 1000, dtype=np.uint64) * np.uint64(2**54 + 3)
    visited = store.FingerprintSet()
    visited.merge(keys)
    held = visited.split.mid                  # a view of the map
    area = visited.split.mid_area
    visited.merge(keys + np.uint64(1))
    assert visited.split.mid_area is not area and held.size == keys.size
    assert np.array_equal(visited.keys(), np.sort(np.concatenate([keys, keys + np.uint64(1)])))


def test_lookups_in_key_order_answer_for_each_key_in_its_place():
    """``known`` of the visited set and of a level's sorted runs, whose searches take the
    keys in increasing order: the answer of ``np.isin`` for every key, in the order given
    (duplicates, keys below, between and above the table, empty sets included)."""
    rng = np.random.default_rng(11)
    for _ in range(200):
        table = rng.integers(0, 300, size=int(rng.integers(0, 60)), dtype=np.uint64)
        keys = rng.integers(0, 320, size=int(rng.integers(0, 80)), dtype=np.uint64)
        want = np.isin(keys, table)
        assert np.array_equal(store.members(np.unique(table), keys), want)
        visited = store.FingerprintSet()
        visited.merge(np.unique(table))
        assert np.array_equal(visited.known(keys), want)
        assert visited.known(keys.tolist()) == want.tolist()
        runs, added = store.SortedRuns(), np.zeros(0, np.uint64)
        for part in np.array_split(np.unique(table), int(rng.integers(1, 6))):
            rng.shuffle(part)
            runs.add(part)
            added = np.union1d(added, part)
            assert np.array_equal(runs.known(keys), np.isin(keys, added))


def test_saving_a_spilled_level_holds_a_piece_not_the_level(monkeypatch, tmp_path):
    """A checkpoint writes a level spilled to disk a piece at a time: the rows read back
    at once are at most a piece (the whole level, read back in one list, made a
    checkpoint of a 30 M-state level take 6 GiB), and the file holds every row in order."""
    monkeypatch.setattr(store.RowFrontier, "PIECE", 1 << 16)
    rng = np.random.default_rng(5)
    level = store.RowFrontier(str(tmp_path), 1 << 16, "level", 40, np.int16)
    rows = rng.integers(-100, 100, size=(40_000, 40), dtype=np.int16)      # 3.2 MB
    for part in np.array_split(rows, 50):
        level.extend(part)
    assert level.spilled > 30_000
    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        held = tracemalloc.get_traced_memory()[0]
        level.save(str(tmp_path / "level.npy"))
        peak = tracemalloc.get_traced_memory()[1] - held
    finally:
        tracemalloc.stop()
    assert peak < 4 * (1 << 16) + level.held, peak
    assert np.array_equal(np.load(tmp_path / "level.npy"), rows)
