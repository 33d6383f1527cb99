"""The exhaustive schedule explorer: every schedule of a small system, at the
protocol level (Algorithm 2 over Algorithm 1 over the network) or the abstraction level
(Algorithm 2 over the broadcast specification), with partial-order reduction.

Public API: :func:`make_context` and :func:`run` (:mod:`.scenarios`); the state-local
core shared with the Spark engine: :mod:`.expand` (``successors``, ``fingerprint``,
``classify``, ``terminal_record``) and :mod:`.report` (``ReportBuilder``,
``exit_status``); :func:`shortest_violation` (:mod:`.shortest`), the shortest run of the raw
system to a violating state, on the same core; :func:`random_run` (:mod:`.simulation`),
one seeded random run."""

from .expand import Context, classify, fingerprint, successors, terminal_record
from .report import ReportBuilder, exit_status
from .scenarios import make_context, run
from .shortest import ShortestRun, shortest_violation, violates_model, violates_property
from .simulation import random_run

__all__ = ["Context", "ReportBuilder", "ShortestRun", "classify", "exit_status", "fingerprint",
           "make_context", "random_run", "run", "shortest_violation", "successors", "terminal_record",
           "violates_model", "violates_property"]
