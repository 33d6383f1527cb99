"""Latency evaluation of the algorithms in a geo-replicated deployment.

A discrete-event simulator (:mod:`.simulator`) runs the reference implementation's
systems (:mod:`fisheye.impl`) in simulated time over a latency matrix (:mod:`.matrix`),
under a generated workload (:mod:`.workload`), and measures what fisheye consistency
buys (:mod:`.metrics`): the papers' claim (section 1 and the conclusion of the 2015
text) that operations can terminate without waiting for remote parts of the system.
Plots live in :mod:`.plot`, the only module that imports matplotlib.
"""

from .config import ConfigError, LatencyConfig, load_config, parse_config, resolve_graph
from .run import LatencyReport, run_latency

__all__ = ["ConfigError", "LatencyConfig", "LatencyReport", "load_config", "parse_config", "resolve_graph",
           "run_latency"]
