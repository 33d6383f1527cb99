"""The exploration of :mod:`fisheye.checker.explore` on Spark.

``explore(ctx, builder, master=..., partitions=...)`` runs the same reduced search as the
local engine (:func:`fisheye.checker.explore.engine.explore`) as a level-synchronous BFS
over fingerprint-owned shards, narrow levels in the driver and wide ones on Spark
(:mod:`.bfs`), and returns the same report (docs/contract.md, "Exploration report";
``engine: "spark"``), built by the same :class:`ReportBuilder`, plus a
``spark`` section (master, partitions, levels, fingerprint bits and the estimated
probability of a fingerprint collision).  PySpark is imported only when a run starts.
"""

from __future__ import annotations

from .driver import explore

__all__ = ["explore"]
