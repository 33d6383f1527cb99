"""What a run must satisfy: properties with their expectations, and the one violation
type every judge reports (the judge itself is :mod:`fisheye.checker.judge`).

A property is named, has an expectation (after Stateright: ``always`` or ``sometimes``)
and a kind:

* ``model`` -- every complete run's history satisfies a consistency model of section 3
  of the paper (judged by the checker: ``check`` is None, ``model`` names it);
* ``broadcast`` -- the properties of a broadcast abstraction on the delivery logs
  (section 4.1's, or LCURB1-5 of the localized broadcast);
* ``liveness`` -- deadlock freedom (:func:`deadlock_freedom`), some complete run
  (:func:`some_complete_run`);
* ``protocol`` -- a property a protocol states about its own states.

Every property but a model one carries its ``check(state, complete)``; a property the
judge cannot evaluate (no check, or a model property that is not ``always``) is an
error when the judge is built, never skipped.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Protocol

from fisheye.spec import broadcast as bspec


class Expectation(StrEnum):
    """How a property is expected to hold (after Stateright).

    ``always``: at the end of every run (every terminal state: complete runs and
    deadlocks); one run where it fails is a violation, reported with its schedule.
    ``sometimes``: at the end of at least one complete run; an exploration that is
    complete and never saw it hold fails (a run with no complete execution is no pass),
    and an incomplete one says nothing."""

    ALWAYS = "always"
    SOMETIMES = "sometimes"


class PropertyKind(StrEnum):
    """What a property is about (see the module doc)."""

    MODEL = "model"
    BROADCAST = "broadcast"
    LIVENESS = "liveness"
    PROTOCOL = "protocol"


PropertyCheck = Callable[[Any, bool], "str | None"]
"""``check(state, complete)``: None when the property holds at ``state`` (the end of a
run; ``complete``: the run is complete, not a deadlock), else one line saying why not."""


@dataclass(frozen=True)
class Property:
    """A named property with its expectation.  ``check`` judges a terminal state
    (None only for ``kind == model``, judged by the checker: ``model`` names the model)."""

    name: str
    expectation: Expectation
    kind: PropertyKind
    check: PropertyCheck | None = field(default=None, compare=False)
    model: str | None = None
    description: str = ""


@dataclass(frozen=True)
class Violation:
    """A property that fails at the end of a run: its name and kind, and one line
    saying why."""

    prop: str
    kind: PropertyKind
    reason: str

    def __str__(self) -> str:
        return f"{self.prop}: {self.reason}"


class NamedViolation(Protocol):
    """A violation a broadcast specification reports: ``prop`` is the property's name;
    ``str()`` says why (:class:`fisheye.spec.broadcast.BroadcastViolation`,
    :class:`fisheye.spec.lcurb.Violation`)."""

    @property
    def prop(self) -> str: ...


@dataclass(frozen=True)
class Judgement:
    """Every property judged at one terminal state: ``failed`` the ``always`` ones that
    fail there; ``held`` the ``sometimes`` ones that hold there (only at the end of a
    complete run); ``undecided`` the model properties no engine could decide."""

    failed: tuple[Violation, ...] = ()
    held: tuple[str, ...] = ()
    undecided: tuple[str, ...] = ()

    def failed_names(self) -> tuple[str, ...]:
        return tuple(v.prop for v in self.failed)


DEADLOCK = "deadlock"
"""The name of :func:`deadlock_freedom` (and of its violations)."""


def deadlock_freedom(is_final: Callable[[Any], bool]) -> Property:
    """Always: a run that stops ends complete (no step enabled yet not final is a
    deadlock)."""
    def check(state: Any, complete: bool) -> str | None:
        return None if complete or is_final(state) else "no step is enabled but the run is not complete"
    return Property(DEADLOCK, Expectation.ALWAYS, PropertyKind.LIVENESS, check,
                    description="every run that stops is complete")


def some_complete_run() -> Property:
    """Sometimes: at least one run is complete (an exploration that finds none fails)."""
    def check(state: Any, complete: bool) -> str | None:
        return None if complete else "the run is not complete"
    return Property("complete run", Expectation.SOMETIMES, PropertyKind.LIVENESS, check,
                    description="some run completes")


def model_property(model: str) -> Property:
    """Always: every complete run's history satisfies ``model`` (judged by the checker,
    on the system's graph unless the checker is told another)."""
    return Property(str(model), Expectation.ALWAYS, PropertyKind.MODEL, None, model=str(model),
                    description=f"every complete history is {model}")


def broadcast_properties(system: Any, names: tuple[str, ...] = bspec.PROPERTIES) -> tuple[Property, ...]:
    """Properties of a broadcast, always, one per name, each judged by the system's
    ``broadcast_violations`` (violations carry the name of the property they break): by
    default the section 4.1 properties of the G-fisheye (SC,CC)-broadcast (on the run's
    delivery logs, :func:`fisheye.spec.broadcast.check`, or by online monitors,
    :mod:`fisheye.impl.broadcast_monitor`)."""
    def prop(name: str) -> Property:
        def check(state: Any, complete: bool) -> str | None:
            found = [v for v in system.broadcast_violations(state, complete=complete) if v.prop == name]
            return str(found[0]) if found else None
        return Property(name, Expectation.ALWAYS, PropertyKind.BROADCAST, check)
    return tuple(prop(name) for name in names)
