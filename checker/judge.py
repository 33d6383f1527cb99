"""The one judge: every property of a system (:mod:`fisheye.impl.properties`) on the
end of a run.  The explorer (local and Spark), ``simulate``, replay, shrinking, the
shortest-violation search and the localized broadcast's searches all judge through a
:class:`Judge`.

* ``always`` properties fail at a terminal state whose check says why (deadlock
  freedom included: a system that does not state it gets it, a deadlock is never a
  pass);
* ``sometimes`` properties hold at the end of a complete run whose check says nothing;
* ``broadcast`` properties are evaluated at once by a system that has
  :class:`fisheye.impl.api.ChecksBroadcast` (equivalent, faster), each by its check
  otherwise;
* ``model`` properties (section 3's models) are checked on the run's history by an
  injected checker (``check_model``; the explorer checks each distinct history once,
  itself, and passes none).  The model a command line asks for replaces the system's
  own (:meth:`Judge.of`).

A property the judge cannot evaluate (no check, a model that does not exist or that
is not ``always``) is a ``ValueError`` when the judge is built, never skipped.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from fisheye.impl.api import ChecksBroadcast
from fisheye.impl.properties import (
    DEADLOCK,
    Expectation,
    Judgement,
    Property,
    PropertyKind,
    Violation,
    deadlock_freedom,
    model_property,
)
from fisheye.spec.history import History
from fisheye.spec.models import Model

from .result import Verdict

ModelCheck = Callable[[History, str], Verdict]
"""``check_model(history, model)``: the verdict of ``history`` under ``model``."""

KEEP = "keep"
""":meth:`Judge.of`'s ``model`` default: the system's own model properties."""


def judgeable(properties: Sequence[Property]) -> tuple[Property, ...]:
    """``properties``, checked to be judgeable (``ValueError`` naming the first that is
    not); deadlock freedom is added when absent."""
    for p in properties:
        if p.kind is PropertyKind.MODEL:
            if p.expectation is not Expectation.ALWAYS:
                raise ValueError(f"property {p.name!r}: a model property is judged 'always' only "
                                 f"(not {p.expectation.value!r})")
            try:
                Model(p.model or p.name)
            except ValueError:
                raise ValueError(f"property {p.name!r}: unknown model {p.model or p.name!r}") from None
        elif p.check is None:
            raise ValueError(f"property {p.name!r} of kind {p.kind.value} has no check: it cannot be judged")
    names = [p.name for p in properties]
    dup = sorted({n for n in names if names.count(n) > 1})
    if dup:
        raise ValueError(f"two properties are named {dup[0]!r}")
    return tuple(properties)


@dataclass(frozen=True)
class Judge:
    """The properties of ``system`` and how to judge them (build with :meth:`of`)."""

    system: Any
    properties: tuple[Property, ...]
    fast_broadcast: bool

    @staticmethod
    def of(system: Any, *, model: str | Model | Sequence[str | Model] | None = KEEP) -> Judge:
        """The judge of ``system``'s properties; ``model`` (a model, several, or None for
        none) replaces the system's model properties unless ``KEEP``."""
        props = list(system.properties())
        if model != KEEP:
            props = [p for p in props if p.kind is not PropertyKind.MODEL]
            models = () if model is None else (model,) if isinstance(model, str) else tuple(model)
            props[:0] = [model_property(Model(m).value) for m in models]
        if not any(p.name == DEADLOCK for p in props):
            props.append(deadlock_freedom(system.is_final))
        return Judge(system, judgeable(props), isinstance(system, ChecksBroadcast))

    def only(self, names: Sequence[str]) -> Judge:
        """This judge restricted to the properties ``names`` (those the system has); one
        broadcast property is judged by its own check (the system's all-at-once
        evaluation would judge them all)."""
        props = tuple(p for p in self.properties if p.name in names)
        several = sum(p.kind is PropertyKind.BROADCAST for p in props) > 1
        return Judge(self.system, props, self.fast_broadcast and several)

    @property
    def models(self) -> tuple[Property, ...]:
        return tuple(p for p in self.properties if p.kind is PropertyKind.MODEL)

    def __call__(self, state: Any, complete: bool, check_model: ModelCheck | None = None) -> Judgement:
        """Judge every property at ``state``, the end of a run (``complete``: it is
        complete, not a deadlock); the model properties only with ``check_model``, on the
        history so far (a violation of a run's history is one of every extension's when
        the written values are distinct: the shrinking and the shortest-run searches
        judge prefixes).  A state that is not the end of a run fails deadlock freedom
        when not complete: the caller judges deadlocks only where no step is enabled."""
        failed: list[Violation] = []
        held: list[str] = []
        undecided: list[str] = []
        fast: dict[str, str] | None = None
        for p in self.properties:
            if p.kind is PropertyKind.MODEL:
                if check_model is None:
                    continue
                verdict = check_model(self.system.history(state), p.model or p.name)
                if verdict is Verdict.VIOLATION:
                    failed.append(Violation(p.name, p.kind, f"the history is not {p.model or p.name}"))
                elif verdict is Verdict.UNKNOWN:
                    undecided.append(p.name)
                continue
            always = p.expectation is Expectation.ALWAYS
            if p.kind is PropertyKind.BROADCAST and always and self.fast_broadcast:
                if fast is None:
                    fast = {}
                    for v in self.system.broadcast_violations(state, complete=complete):
                        fast.setdefault(v.prop, str(v))
                why = fast.get(p.name)
            else:
                assert p.check is not None
                why = p.check(state, complete)
            if always:
                if why is not None:
                    failed.append(Violation(p.name, p.kind, why))
            elif complete and why is None:
                held.append(p.name)
        return Judgement(tuple(failed), tuple(held), tuple(undecided))

    def failure(self, state: Any, name: str, check_model: ModelCheck | None = None) -> Violation | None:
        """The violation of the property ``name`` at ``state`` (the end of a run), or None
        if it holds there (or the system has no such property)."""
        complete = bool(self.system.is_final(state))
        for v in self(state, complete, check_model).failed:
            if v.prop == name:
                return v
        return None


def model_checker(engine: str = "auto", timeout: float | None = None) -> ModelCheck:
    """A :data:`ModelCheck` by :func:`fisheye.checker.engines.check` on the history's own
    graph."""
    def check_model(history: History, model: str) -> Verdict:
        from .engines import check

        return check(history, model, engine=engine, timeout=timeout).verdict
    return check_model
