"""The exhaustive schedule explorer: every schedule of a small system, at the
protocol level (Algorithm 2 over Algorithm 1 over the network) or the abstraction level
(Algorithm 2 over the broadcast specification), with partial-order reduction.

Public API: :func:`make_context` and :func:`run` (:mod:`.scenarios`); the state-local
core shared with the Spark engine: :mod:`.expand` (``successors``, ``fingerprint``,
``classify``, ``terminal_record``) and :mod:`.report` (``ReportBuilder``,
``exit_status``); :func:`shortest_violation` (:mod:`.shortest`), the shortest run of the raw
system to a violating state, on the same core; :func:`random_run` (:mod:`.simulation`),
one seeded random run."""

from __future__ import annotations

from ..lazy import lazy_names

_WHERE = {"Context": ".expand", "classify": ".expand", "fingerprint": ".expand", "successors": ".expand",
          "terminal_record": ".expand", "ReportBuilder": ".report", "exit_status": ".report",
          "make_context": ".scenarios", "run": ".scenarios", "ShortestRun": ".shortest",
          "shortest_violation": ".shortest", "violates_model": ".shortest", "violates_property": ".shortest",
          "random_run": ".simulation"}
"""Each public name and its module, loaded on first use: ``fisheye simulate`` runs one
random run without loading the engine (numpy, the visited set, the compiled kernel's
interface)."""

__all__ = ["Context", "ReportBuilder", "ShortestRun", "classify", "exit_status", "fingerprint",
           "make_context", "random_run", "run", "shortest_violation", "successors", "terminal_record",
           "violates_model", "violates_property"]

__getattr__ = lazy_names(__name__, _WHERE)
