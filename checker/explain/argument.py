"""``fisheye explain``: the explanation of a violation, built in three steps: the minimal
core (:mod:`.core`), the names of its operations (:mod:`.words`), and the chain of forced
orderings on it (:mod:`.prover`), gathered into an :class:`.explanation.Explanation`.
:func:`.verify.verify` re-derives every fact of the result independently of the prover."""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

from fisheye.spec.graph import ProximityGraph
from fisheye.spec.history import History, Value
from fisheye.spec.models import Model

from ..result import Verdict
from .core import Decide, Progress, minimal_violating_core, sourceless_reads
from .errors import Deadline, ExplainError, OutOfTime
from .explanation import Explanation
from .prover import NoProof, ProofBudget, prove
from .words import op_names


def explain(history: History, model: Model | str, graph: ProximityGraph | None = None, *,
            decide: Decide | None = None, schedule: Sequence[Any] = (), budget: int = 20000,
            engine: str = "auto", timeout: float | None = None,
            progress: Progress | None = None, absent: Value | None = None) -> Explanation:
    """Explain why ``history`` violates ``model`` on ``graph``: minimal core, names, proof.

    ``timeout`` bounds the whole explanation (every check and the proof search); when it
    runs out before a violation is established, :class:`ExplainError` (unknown); after,
    the core found so far is explained and marked not verified 1-minimal.  ``progress``
    receives one line per stage.  ``absent``: the initial value that stands for "no value
    yet" (an imported Jepsen history's ``nil``), said in words by the text.  Raises
    :class:`ExplainError` when the history is consistent or the check unknown."""
    model = Model(model)
    if graph is None:
        graph = ProximityGraph(history.processes, history.edges)
    say = progress or (lambda _m: None)
    deadline = Deadline.after(timeout)
    core = minimal_violating_core(history, model, graph, engine=engine, decide=decide,
                                  progress=progress, deadline=deadline)
    say(f"core: {len(core.uids)} operations after {core.checks} checks; building the argument")
    names = tuple(op_names(len(core.uids)))
    proof, unproved = None, ""
    if not sourceless_reads(core.history):
        try:
            left = deadline.remaining()
            proof = prove(core.history, model, graph, budget=budget,
                          deadline=None if left is None else time.monotonic() + left)
        except OutOfTime:
            unproved = "the time limit ran out during the case analysis; the core is a violation by the " \
                       "engines' verdict"
        except ProofBudget as e:
            unproved = (f"the case analysis exceeded its budget ({e}); the core is a violation by the "
                        "engines' verdict and 1-minimal as stated")
        except NoProof as e:
            raise ExplainError(f"the prover finds the core consistent while the engines do not ({e}): "
                               "please report this disagreement", Verdict.UNKNOWN) from None
    return Explanation(history, model, graph, core, names, proof, tuple(schedule), unproved, absent)
