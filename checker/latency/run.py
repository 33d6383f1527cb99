"""One latency run, end to end: workload, system, simulation, measures, verdicts.

The verdicts are the project's own checker's (:func:`fisheye.checker.engines.check`) on
the history the run produced, under ``sc``, ``fisheye`` (for the run's graph G) and
``cc``: three-valued, ``unknown`` when the checker's budget (``check_timeout_s``) ran out.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from fisheye.spec.graph import ProximityGraph
from fisheye.spec.history import History

from ..engines import check
from ..result import Verdict
from . import metrics
from .config import LatencyConfig, resolve_graph
from .simulator import Delay, SimRun, simulate
from .systems import build_system, expected_models
from .workload import PlannedOp, generate

MODELS = ("sc", "fisheye", "cc")


@dataclass(frozen=True)
class LatencyReport:
    config: LatencyConfig
    graph_name: str
    graph: ProximityGraph
    plan: dict[str, tuple[PlannedOp, ...]]
    system: Any
    run: SimRun
    history: History
    measures: dict[str, Any]
    verdicts: dict[str, Verdict]
    cpu_seconds: float

    def to_json(self) -> dict[str, Any]:
        return {
            "graph": self.graph.to_json(),
            "graph_name": self.graph_name,
            "algorithm": self.config.algorithm,
            "seed": self.config.seed,
            "processes": list(self.graph.processes),
            "sites": dict(self.config.placement),
            "complete": self.run.complete,
            **self.measures,
            "verdicts": {m: v.value for m, v in self.verdicts.items()},
            "expected": list(expected_models(self.config.algorithm, self.graph)),
            "cpu_seconds": round(self.cpu_seconds, 3),
        }


def delay_function(cfg: LatencyConfig) -> Delay:
    """The one-way delay of each new message: the matrix's, plus jitter drawn from a
    generator seeded by the run's seed (its own stream, apart from the workload's)."""
    rng = random.Random(f"fisheye-latency-jitter:{cfg.seed}")
    site = cfg.site_of
    matrix, jitter = cfg.matrix, cfg.jitter

    def delay(src: str, dst: str) -> float:
        return matrix.one_way_ms(site[src], site[dst]) + jitter.draw(rng)

    return delay


def run_latency(cfg: LatencyConfig, graph: str | None = None, *, seed: int | None = None,
                models: tuple[str, ...] = MODELS,
                progress: Callable[[float, int], None] | None = None) -> LatencyReport:
    """Simulate ``cfg`` on ``graph`` (default: the configuration's) with ``seed``
    (default: the configuration's) and check the produced history."""
    start = time.process_time()
    if seed is not None:
        cfg = cfg.with_(seed=seed)
    graph_name = cfg.graph if graph is None else graph
    g = resolve_graph(cfg, graph_name)
    plan = generate(cfg)
    system = build_system(cfg.algorithm, g, plan, variant=cfg.variant)
    run = simulate(system, plan, delay_function(cfg), processing_ms=cfg.processing_ms, progress=progress)
    history = system.history(run.state).with_edges(g.edges)
    verdicts = {m: check(history, m, g, timeout=cfg.check_timeout_s).verdict for m in models}
    return LatencyReport(cfg, graph_name, g, plan, system, run, history, metrics.summary(run), verdicts,
                         time.process_time() - start)
