"""The direct engine (issue 3): decides every model without Z3.

* cc with a single possible read-from map (differentiated histories): polynomial, one
  saturation per process (:mod:`.direct_cc`, after Bouajjani, Enea, Guerraoui, Hamza,
  *On Verifying Causal Consistency*, POPL 2017, model CM).
* sc, fisheye, fisheye-2014, and every model with repeated values: a sound and complete
  search that saturates forced orderings first and backtracks only on what remains
  (:mod:`.direct_search`, :mod:`.direct_sc`, :mod:`.direct_star`).

A consistent verdict carries a :class:`~fisheye.spec.witness.Witness` (re-validated by
the facade); a violation carries a certificate, typically a cycle of forced orderings
with the reason of each edge.  Budgets (nodes, ``timeout``) give *unknown*, never a
crash.
"""

from __future__ import annotations

import time

from fisheye.spec.graph import ProximityGraph
from fisheye.spec.history import History
from fisheye.spec.models import Model

from ..result import CheckResult, Verdict
from .direct_order import Budget, BudgetExhausted, Index
from .direct_search import search

DEFAULT_MAX_NODES = 20_000
"""Closures the search may compute before answering *unknown*."""


def decides(history: History, model: Model | str) -> bool:
    """The direct engine decides every model (a complete search within its budget)."""
    Model(model)
    del history
    return True


def check(history: History, model: Model | str, graph: ProximityGraph | None = None, *,
          timeout: float | None = None, max_nodes: int = DEFAULT_MAX_NODES) -> CheckResult:
    model = Model(model)
    if graph is None:
        graph = ProximityGraph(history.processes, history.edges)
    start = time.perf_counter()
    budget = Budget(max_nodes=max_nodes, timeout=timeout)
    try:
        out = search(Index(history), model, graph, budget)
    except (BudgetExhausted, RecursionError) as e:
        msg = str(e) if isinstance(e, BudgetExhausted) else "the search went too deep (recursion limit)"
        return CheckResult(Verdict.UNKNOWN, model, graph, "direct", message=msg,
                           seconds=time.perf_counter() - start, stats={"nodes": budget.nodes})
    verdict = Verdict.CONSISTENT if out.witness is not None else Verdict.VIOLATION
    return CheckResult(verdict, model, graph, "direct", witness=out.witness, certificate=out.certificate,
                       seconds=time.perf_counter() - start, stats=dict(out.stats or {}))
