"""Peak resident memory of merging one level into the visited set of the local search
(:meth:`fisheye.checker.explore.store.FingerprintSet.merge`): a visited set of V keys,
a level of L new ones; the peak is taken over the merge alone (Linux: the process's
high-water mark reset just before it through /proc/self/clear_refs).

Usage: .venv/bin/python bench/visited_merge_memory.py [V_MILLIONS [L_MILLIONS]]
(default 100 and 20: an 800 MB visited set)."""

from __future__ import annotations

import sys
import time

import numpy as np

from fisheye.checker.explore.store import FingerprintSet


def high_water_kib() -> int:
    with open("/proc/self/status") as f:
        return next(int(line.split()[1]) for line in f if line.startswith("VmHWM"))


def main() -> None:
    v = int(float(sys.argv[1]) * 1e6) if len(sys.argv) > 1 else 100_000_000
    n = int(float(sys.argv[2]) * 1e6) if len(sys.argv) > 2 else 20_000_000
    rng = np.random.default_rng(1)
    visited = FingerprintSet()
    visited.old = np.sort(rng.integers(0, 2**63, size=v, dtype=np.uint64))
    level = rng.integers(2**63, 2**64 - 1, size=n, dtype=np.uint64)  # none known yet
    level[::2] -= np.uint64(2**63)                                   # half among the old keys
    with open("/proc/self/clear_refs", "w") as f:
        f.write("5")
    before = high_water_kib()
    cpu = time.process_time()
    visited.merge(level)
    cpu = time.process_time() - cpu
    peak = high_water_kib()
    print(f"visited {v:,} + level {n:,}: peak RSS during the merge {peak / 1024:,.0f} MiB "
          f"(held before it {before / 1024:,.0f} MiB; the two sets {(v + n) * 8 / 2**20:,.0f} MiB "
          f"+ {n * 8 / 2**20:,.0f} MiB), {cpu:.2f} CPU s")
    assert visited.old.size == v + n and bool(np.all(visited.old[1:] > visited.old[:-1]))


if __name__ == "__main__":
    main()
