"""The workload generator: what each process is asked to do, and when.

Each process receives operations as a Poisson process of rate ``ops_per_second`` over
``duration_s`` seconds (exponential inter-arrival times).  An operation is a write with
probability ``write_ratio``, else a read, on register ``Kk`` chosen with probability
proportional to ``1 / (k + 1) ** zipf`` (``zipf = 0``: uniform; the larger, the hotter
``K0``).  Written values are distinct integers 1, 2, 3, ... in order of generation, so a
read's value names the write it read from (the checkers need not search the read-from
map).

Everything is drawn from one ``random.Random`` seeded by the run's seed: the same seed
gives the same workload whatever the graph, so graphs are compared on identical
operations.  Operations are *issued* at their arrival time; a process runs one operation
at a time (Algorithm 2's write blocks its process until it returns, line 4), so an
operation that arrives while the process is busy is invoked when the process is free.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from itertools import accumulate

from .config import LatencyConfig, Workload


@dataclass(frozen=True)
class PlannedOp:
    """``kind``: ``"w"`` or ``"r"``; ``value``: the written value (None for a read)."""

    kind: str
    register: str
    value: int | None
    arrival_ms: float


def register_names(workload: Workload) -> tuple[str, ...]:
    return tuple(f"K{k}" for k in range(workload.registers))


def generate(cfg: LatencyConfig) -> dict[str, tuple[PlannedOp, ...]]:
    """The operations of every process, in arrival order (deterministic for ``cfg.seed``)."""
    wl = cfg.workload
    rng = random.Random(f"fisheye-latency-workload:{cfg.seed}")
    regs = register_names(wl)
    cum = list(accumulate(1.0 / (k + 1) ** wl.zipf for k in range(wl.registers)))
    horizon = cfg.duration_s * 1000.0
    rate_per_ms = wl.ops_per_second / 1000.0
    counter = 0
    out: dict[str, tuple[PlannedOp, ...]] = {}
    for p in cfg.processes:
        ops: list[PlannedOp] = []
        t = rng.expovariate(rate_per_ms)
        while t < horizon:
            reg = rng.choices(regs, cum_weights=cum)[0]
            if rng.random() < wl.write_ratio:
                counter += 1
                ops.append(PlannedOp("w", reg, counter, t))
            else:
                ops.append(PlannedOp("r", reg, None, t))
            t += rng.expovariate(rate_per_ms)
        out[p] = tuple(ops)
    return out
