"""One small explainer per kind of fact (after Elle): each turns a fact of the argument
(:class:`fisheye.checker.explain.prover.Fact`) into the reason it holds, in words, from
the clause of the definition it instantiates (sections 2.2-2.3 and 3.2 of the 2015 text):

* ``po``: the process order; ``rf``: the only write a read can read from (~>H);
* ``source`` / ``initial`` / ``legality``: the legality of a serialisation (a read returns
  the last value written before it);
* ``edge``: the totality of the star order on the writes (2015) or the operations (2014)
  of two neighbours in G;
* ``rf-choice`` / ``source-choice`` / ``case``: the assumption of a case.

Each explainer takes the explanation (names, operations: :class:`Named`), the fact, the order's
name and the text of the chains that refute the clause's other literals.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from fisheye.spec.history import Op, Value
from fisheye.spec.models import Model

from .prover import Fact, Lit
from .words import value_text


class Named(Protocol):
    """What an explainer reads of the explanation (:class:`.explanation.Explanation`):
    the model, the core's operations and their names, and the value that means "no value
    yet"."""

    @property
    def model(self) -> Model: ...

    @property
    def ops(self) -> tuple[Op, ...]: ...

    @property
    def absent(self) -> Value | None: ...

    def n(self, uid: int) -> str: ...

    def lit_text(self, lit: Lit) -> str: ...


Explainer = Callable[[Named, Fact, str, str], str]


def _po(exp: Named, f: Fact, where: str, refuted: str) -> str:
    return f"{exp.n(f.lit.a)} precedes {exp.n(f.lit.b)} in the process order of {f.info[0]}"


def _rf(exp: Named, f: Fact, where: str, refuted: str) -> str:
    r = exp.ops[f.lit.b]
    return (f"{exp.n(f.lit.b)} reads {value_text(r.value, exp.absent)} from {r.register}, and "
            f"{exp.n(f.lit.a)} is the only write that can supply it (read-from)")


def _rf_choice(exp: Named, f: Fact, where: str, refuted: str) -> str:
    reader, src = f.info
    if src is None:
        return f"suppose {exp.n(reader)} reads the initial value of {exp.ops[reader].register}"
    return f"suppose {exp.n(f.lit.b)} reads from {exp.n(f.lit.a)}"


def _source(exp: Named, f: Fact, where: str, refuted: str) -> str:
    r = exp.ops[f.lit.b]
    return (f"{exp.n(f.lit.b)} returns {value_text(r.value, exp.absent)}, written only by "
            f"{exp.n(f.lit.a)}, so {exp.n(f.lit.a)} precedes it in {where} (legality)")


def _source_choice(exp: Named, f: Fact, where: str, refuted: str) -> str:
    reader, src = f.info
    if src is None:
        return f"suppose {exp.n(reader)} returns the initial value in {where}"
    return f"suppose the write {exp.n(f.lit.a)} is the one {exp.n(f.lit.b)} returns in {where}"


def _initial(exp: Named, f: Fact, where: str, refuted: str) -> str:
    r = exp.ops[f.lit.a]
    return (f"{exp.n(f.lit.a)} returns the initial value of {r.register}, so it precedes every "
            f"write of {r.register} in {where}, {exp.n(f.lit.b)} included (legality)")


def _legality(exp: Named, f: Fact, where: str, refuted: str) -> str:
    r, s, w = f.info
    return (f"{exp.n(r)} returns the value of {exp.n(s)}, so the other write {exp.n(w)} of "
            f"{exp.ops[w].register} cannot lie between them in {where}: it precedes {exp.n(s)} or "
            f"follows {exp.n(r)}; and {refuted}")


def _edge(exp: Named, f: Fact, where: str, refuted: str) -> str:
    p, q = f.info
    what = "operations" if exp.model is Model.FISHEYE_2014 else "writes"
    return (f"{p} and {q} are neighbours in G, so their {what} {exp.n(f.lit.a)} and {exp.n(f.lit.b)} "
            f"are ordered in the star order (hence the same way in every view); and {refuted}")


def _case(exp: Named, f: Fact, where: str, refuted: str) -> str:
    return f"suppose {exp.lit_text(f.lit)}"


EXPLAINERS: dict[str, Explainer] = {
    "po": _po, "rf": _rf, "rf-choice": _rf_choice, "source": _source, "source-choice": _source_choice,
    "initial": _initial, "legality": _legality, "edge": _edge, "case": _case,
}
