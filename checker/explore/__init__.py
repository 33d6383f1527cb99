"""The exhaustive schedule explorer: every schedule of a small system, at the
protocol level (Algorithm 2 over Algorithm 1 over the network) or the abstraction level
(Algorithm 2 over the broadcast specification), with partial-order reduction.

Public API: :func:`make_context` and :func:`run` (:mod:`.scenarios`); the state-local
core shared with the Spark engine: :mod:`.expand` (``successors``, ``fingerprint``,
``classify``, ``terminal_record``) and :mod:`.report` (``ReportBuilder``,
``exit_status``)."""

from .expand import Context, classify, fingerprint, successors, terminal_record
from .report import ReportBuilder, exit_status
from .scenarios import make_context, run

__all__ = ["Context", "ReportBuilder", "classify", "exit_status", "fingerprint", "make_context", "run",
           "successors", "terminal_record"]
