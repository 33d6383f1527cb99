"""The consistency models of the contract (section 2)."""

from __future__ import annotations

from enum import StrEnum


class Model(StrEnum):
    """``sc``: sequential consistency (section 2.2 of the 2015 text).
    ``cc``: causal consistency, Ahamad et al.'s causal memory (section 2.3).
    ``fisheye``: G-fisheye (SC,CC)-consistency, 2015 conference definition (section
    3.2): for every edge (p,q), the star order restricted to the *writes* of p and q is
    total.
    ``fisheye-2014``: the 2014 research report's definition (section 3.2): restricted to
    *all operations* of p and q.
    """

    SC = "sc"
    CC = "cc"
    FISHEYE = "fisheye"
    FISHEYE_2014 = "fisheye-2014"

    @property
    def uses_graph(self) -> bool:
        return self in (Model.FISHEYE, Model.FISHEYE_2014)

    @staticmethod
    def parse(name: str) -> Model:
        try:
            return Model(name)
        except ValueError:
            names = ", ".join(m.value for m in Model)
            raise ValueError(f"unknown model {name!r} (expected one of: {names})") from None

    def __str__(self) -> str:
        return self.value


MODEL_NAMES: tuple[str, ...] = tuple(m.value for m in Model)
