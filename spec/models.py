"""The consistency models a history is checked against (docs/contract.md, "Models"), each
with the paper's definition it follows."""

from __future__ import annotations

from enum import StrEnum

from .history import History


class Model(StrEnum):
    """``sc``: sequential consistency (section 2.2 of the 2015 text).
    ``cc``: causal consistency, Ahamad et al.'s causal memory (section 2.3).
    ``fisheye``: G-fisheye (SC,CC)-consistency, 2015 conference definition (section
    3.2): for every edge (p,q), the star order restricted to the *writes* of p and q is
    total.
    ``fisheye-2014``: the 2014 research report's definition (section 3.2): restricted to
    *all operations* of p and q.
    ``lin``: linearizability (Herlihy and Wing; the papers' section 1 and 2.3 contrast it
    with SC): one legal sequence of the operations that respects process order and the
    real-time order.
    ``fisheye-lin``: G-fisheye (LIN,SC)-consistency, the member of the family the
    conclusion (section 6) names: one legal sequence respecting process order (SC) and,
    for every edge (p,q) of G, the real-time order between the operations of p and q
    (:mod:`fisheye.spec.realtime`).
    """

    SC = "sc"
    CC = "cc"
    FISHEYE = "fisheye"
    FISHEYE_2014 = "fisheye-2014"
    LIN = "lin"
    FISHEYE_LIN = "fisheye-lin"

    @property
    def uses_graph(self) -> bool:
        return self in (Model.FISHEYE, Model.FISHEYE_2014, Model.FISHEYE_LIN)

    @property
    def uses_time(self) -> bool:
        """Defined with the real-time order (the history must carry times)."""
        return self in (Model.LIN, Model.FISHEYE_LIN)

    @property
    def sequential(self) -> bool:
        """Asks for one legal sequence of all operations (sc, lin, fisheye-lin)."""
        return self in (Model.SC, Model.LIN, Model.FISHEYE_LIN)

    @property
    def summary(self) -> str:
        """What the model asks, in a few words (help texts and docs/cli.md's table)."""
        return _SUMMARIES[self]

    @staticmethod
    def parse(name: str) -> Model:
        try:
            return Model(name)
        except ValueError:
            names = ", ".join(m.value for m in Model)
            raise ValueError(f"unknown model {name!r} (expected one of: {names})") from None

    def __str__(self) -> str:
        return self.value


_SUMMARIES = {
    Model.SC: "sequential consistency",
    Model.CC: "causal consistency (Ahamad et al.'s causal memory)",
    Model.FISHEYE: "G-fisheye (SC,CC), 2015 definition: the writes of neighbours in G totally ordered",
    Model.FISHEYE_2014: "G-fisheye (SC,CC), 2014 definition: all operations of neighbours in G "
                        "totally ordered",
    Model.LIN: "linearizability (real time)",
    Model.FISHEYE_LIN: "G-fisheye (LIN,SC): SC, and the real-time order between neighbours in G",
}

MODEL_NAMES: tuple[str, ...] = tuple(m.value for m in Model)


def unsupported(history: History, model: Model | str) -> str | None:
    """Why ``model`` is not defined on ``history`` (``None``: it is).

    A cas (an atomic read-modify-write) has a meaning only where one sequence of all
    operations is asked for; the causal models (``cc`` and the fisheye (SC,CC)
    definitions) give each process its own view of the *writes* only, in which a
    cas's read half has no place.  Operations that may not have taken effect
    (``maybe``) are handled by the models that choose which operations a sequence
    holds."""
    model = Model(model)
    if model.uses_time and history.ops and not history.timed:
        return (f"model {model.value} needs real time: every operation must carry "
                f"\"t\": [invoke, complete]")
    if history.has_cas and model not in CAS_MODELS:
        allowed = ", ".join(m.value for m in CAS_MODELS)
        return (f"model {model.value} is not defined on histories with cas operations "
                f"(models with cas: {allowed})")
    if history.has_maybe and model not in MAYBE_MODELS:
        allowed = ", ".join(m.value for m in MAYBE_MODELS)
        return (f"model {model.value} does not handle operations marked \"maybe\" "
                f"(models that do: {allowed})")
    return None


CAS_MODELS: tuple[Model, ...] = (Model.SC, Model.LIN, Model.FISHEYE_LIN)
"""The models defined on histories with cas operations."""
MAYBE_MODELS: tuple[Model, ...] = (Model.SC, Model.CC, Model.FISHEYE, Model.FISHEYE_2014, Model.LIN,
                                   Model.FISHEYE_LIN)
"""The models that handle operations that may not have taken effect."""
