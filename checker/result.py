"""Check results: a three-valued verdict where *unknown* never counts as a pass
(after Porcupine), with the witness of a consistent verdict and the certificate of a
violation (the raw material of explanations, after Elle)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from fisheye.spec.graph import ProximityGraph
from fisheye.spec.history import History
from fisheye.spec.models import Model
from fisheye.spec.witness import Witness


class Verdict(StrEnum):
    CONSISTENT = "consistent"
    VIOLATION = "violation"
    UNKNOWN = "unknown"

    @property
    def exit_code(self) -> int:
        """The exit status of ``fisheye check``: 0 consistent, 1 violation, 3 unknown."""
        return {Verdict.CONSISTENT: 0, Verdict.VIOLATION: 1, Verdict.UNKNOWN: 3}[self]


@dataclass(frozen=True)
class Reason:
    """One named fact of a certificate: a forced ordering or a rule instance, e.g.
    ``w(X,1)@paris#0 < w(X,2)@berlin#0 [edge paris-berlin]``.  ``ops`` are the uids the
    fact is about (in order, for an ordering ``a < b``: ``(a, b)``); ``rule`` is the
    clause of the definition it instantiates (``po``, ``rf``, ``legality``, ``edge``,
    ``causal``, ``view``...)."""

    text: str
    rule: str
    ops: tuple[int, ...] = ()

    def to_json(self, history: History) -> dict[str, Any]:
        return {"text": self.text, "rule": self.rule,
                "ops": [history.ops[u].ref() for u in self.ops]}


@dataclass(frozen=True)
class CheckResult:
    verdict: Verdict
    model: Model
    graph: ProximityGraph
    engine: str
    witness: Witness | None = None
    certificate: tuple[Reason, ...] = ()
    message: str = ""
    seconds: float = 0.0
    stats: Mapping[str, Any] = field(default_factory=dict)

    @property
    def exit_code(self) -> int:
        return self.verdict.exit_code

    def to_json(self, history: History) -> dict[str, Any]:
        """The contract's ``--json`` object: verdict and model first; a consistent
        verdict carries its witness."""
        out: dict[str, Any] = {
            "verdict": self.verdict.value,
            "model": self.model.value,
            "graph": self.graph.to_json(),
            "engine": self.engine,
            "operations": len(history.ops),
            "seconds": round(self.seconds, 6),
        }
        if self.witness is not None:
            out["witness"] = self.witness.to_json(history)
        if self.certificate:
            out["certificate"] = [r.to_json(history) for r in self.certificate]
        if self.message:
            out["message"] = self.message
        if self.stats:
            out["stats"] = dict(self.stats)
        return out
