"""What a latency run measures: latency distributions, messages and bytes per operation,
staleness of reads.

* **Latency** of an operation: from its invocation to its return (:class:`.simulator.OpTiming`);
  the distribution is summarised by its count, median, 95th and 99th percentiles (numpy's
  linear interpolation between order statistics) and maximum.
* **Response time** of an operation: from its *issue* (its arrival in the workload) to its
  return: the latency plus the time it waited for its process, blocked by an earlier
  write (Algorithm 2 line 4).  What a client sees when writes are slower than arrivals.
* **Messages and bytes per operation**: every protocol message sent during the run (a
  broadcast to n - 1 processes counts n - 1 messages), divided by the number of
  operations that returned.
* **Staleness** of a read of register X at time t (its invocation): how long ago the
  value it returned stopped being the latest in real time.  The writes to X that are
  *newer* than the one read from are those invoked after it that returned before t; the
  read is stale if there is one, and its staleness is t minus the earliest return of those
  (0 for a fresh read).  Reads of the initial value count the initial value as written at
  time 0 before everything.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from .simulator import OpTiming, SimRun


@dataclass(frozen=True)
class Distribution:
    count: int
    median_ms: float | None
    p95_ms: float | None
    p99_ms: float | None
    max_ms: float | None
    mean_ms: float | None

    @staticmethod
    def of(values: Iterable[float]) -> Distribution:
        a = np.asarray(list(values), dtype=float)
        if a.size == 0:
            return Distribution(0, None, None, None, None, None)
        q = np.percentile(a, [50, 95, 99])
        return Distribution(int(a.size), float(q[0]), float(q[1]), float(q[2]), float(a.max()),
                            float(a.mean()))

    def to_json(self) -> dict[str, Any]:
        def r(x: float | None) -> float | None:
            return None if x is None else round(x, 3)

        return {"count": self.count, "median_ms": r(self.median_ms), "p95_ms": r(self.p95_ms),
                "p99_ms": r(self.p99_ms), "max_ms": r(self.max_ms), "mean_ms": r(self.mean_ms)}


def latencies(ops: Iterable[OpTiming], kind: str, process: str | None = None) -> list[float]:
    return [o.latency_ms for o in ops if o.kind == kind and (process is None or o.process == process)]


def staleness(ops: Sequence[OpTiming]) -> list[float]:
    """The staleness of every read (see the module docstring)."""
    writes: dict[str, list[OpTiming]] = {}
    by_value: dict[tuple[str, Any], OpTiming] = {}
    for o in ops:
        if o.kind == "w":
            writes.setdefault(o.register, []).append(o)
            by_value[(o.register, o.value)] = o
    out: list[float] = []
    for r in ops:
        if r.kind != "r":
            continue
        src = by_value.get((r.register, r.value))
        since = src.invoked_ms if src is not None else float("-inf")
        t = r.invoked_ms
        newer = [w.returned_ms for w in writes.get(r.register, ())
                 if w is not src and w.invoked_ms > since and w.returned_ms <= t]
        out.append(t - min(newer) if newer else 0.0)
    return out


def summary(run: SimRun) -> dict[str, Any]:
    """The measured figures of a run, as JSON (per process and overall)."""
    ops = run.ops
    stale = staleness(ops)
    n_stale = sum(1 for s in stale if s > 0)
    n_ops = len(ops)
    kinds: dict[str, int] = {}
    for m in run.messages:
        kinds[m.kind] = kinds.get(m.kind, 0) + 1
    return {
        "operations": n_ops,
        "reads": Distribution.of(latencies(ops, "r")).to_json(),
        "writes": Distribution.of(latencies(ops, "w")).to_json(),
        "response": Distribution.of(o.returned_ms - o.issued_ms for o in ops).to_json(),
        "per_process": {p: {"reads": Distribution.of(latencies(ops, "r", p)).to_json(),
                            "writes": Distribution.of(latencies(ops, "w", p)).to_json()}
                        for p in run.processes},
        "messages": len(run.messages),
        "messages_by_kind": dict(sorted(kinds.items())),
        "messages_per_op": round(len(run.messages) / n_ops, 3) if n_ops else None,
        "bytes_per_op": round(sum(m.size for m in run.messages) / n_ops, 1) if n_ops else None,
        "staleness": {**Distribution.of(stale).to_json(),
                      "stale_reads": n_stale,
                      "stale_fraction": round(n_stale / len(stale), 4) if stale else None},
        "simulated_ms": round(run.end_ms, 3),
    }
