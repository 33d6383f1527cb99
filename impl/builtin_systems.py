"""The systems fisheye ships, as the registry (:mod:`fisheye.checker.systems`) finds
them: a name, the ``package.module:factory`` of its factory (each a
:data:`fisheye.impl.api.SystemFactory` like a user's), and what the command line says
of it and asks of it (:class:`Builtin`).

* ``toco``: Algorithm 2 over Algorithm 1 (section 4.2 of the paper), or over the
  broadcast specification at level ``abstract`` (:func:`fisheye.impl.system.toco_factory`);
* ``lcb``: Algorithm 2 or plain broadcasts over the localized causal broadcast
  (:func:`fisheye.impl.lcb.lcb_factory`).

The checker names no system: what it shows and which options it accepts come from
here.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from .toco import Mutant, Variant


def plural(n: int, one: str, many: str | None = None) -> str:
    return f"{n:,} {one if n == 1 else (many or one + 's')}"


@dataclass(frozen=True)
class Builtin:
    """A built-in system.  ``factory``: ``package.module:factory``; ``summary``: what it
    is, in a few words (the command line's help); ``accepts``: per level it runs at, the
    command-line options (``SystemRequest`` fields: ``graph``, ``variant``, ``mutant``,
    ``network``, ``crashes``) that apply there -- another one given explicitly is a usage
    error; ``timed``: the options of a timed simulation (``fisheye latency``), where
    every internal step fires as soon as it is enabled; ``models``: the models its
    histories satisfy on any graph, and ``complete_models`` the further ones on the
    complete graph (what a latency run checks); ``words``: what runs, in words, given the
    level, variant, mutant, network and crashes (the header of explore, simulate and
    explain); ``choices``: the values an option takes (``variant``, ``mutant``)."""

    factory: str
    summary: str
    accepts: Mapping[str, tuple[str, ...]]
    words: Callable[..., str]
    timed: tuple[tuple[str, Any], ...] = ()
    models: tuple[str, ...] = ("cc",)
    complete_models: tuple[str, ...] = ()
    choices: Mapping[str, tuple[str, ...]] = field(default_factory=dict)


def _toco_words(*, level: str | None, variant: str | None, mutant: str | None, network: str | None,
                crashes: int | None) -> str:
    if level == "abstract":
        return "Algorithm 2 over the broadcast specification (every delivery order it allows)"
    mut = f", mutant {mutant}" if mutant else ""
    return f"Algorithm 2 over Algorithm 1 ({variant}{mut}), {network} channels"


def _lcb_words(*, level: str | None, variant: str | None, mutant: str | None, network: str | None,
               crashes: int | None) -> str:
    f = "" if crashes is None else f", at most {plural(crashes, 'crash', 'crashes')}"
    return f"the localized causal broadcast, {network} channels{f}"


BUILTIN: dict[str, Builtin] = {
    "toco": Builtin("fisheye.impl.system:toco_factory", "Algorithms 1 and 2 of the paper",
                    {"protocol": ("graph", "variant", "mutant", "network"), "abstract": ("graph",)},
                    _toco_words, models=("fisheye", "cc"), complete_models=("sc",),
                    choices={"variant": tuple(v.value for v in Variant),
                             "mutant": tuple(m.value for m in Mutant)}),
    "lcb": Builtin("fisheye.impl.lcb:lcb_factory", "the localized causal broadcast",
                   {"protocol": ("network", "crashes")}, _lcb_words, timed=(("urb_delivery", "lazy"),)),
}

DEFAULT = "toco"
"""The system the command line explores and simulates unless told another."""


def choices(option: str) -> tuple[str, ...]:
    """The values ``option`` takes in some built-in system, in the entries' order."""
    return tuple(dict.fromkeys(v for b in BUILTIN.values() for v in b.choices.get(option, ())))


def other_examples() -> list[tuple[str, str]]:
    """(name, its first named scenario) of each built-in but the default (the command
    line's examples)."""
    from .programs import scenario_names

    return [(n, scenario_names(n)[0]) for n in BUILTIN if n != DEFAULT and scenario_names(n)]


def system_words(algorithm: str | None, *, level: str | None = "protocol", variant: str | None = None,
                 mutant: str | None = None, network: str | None = None, crashes: int | None = None) -> str:
    """What runs, in words: a built-in system as its entry describes it, another by its name."""
    entry = BUILTIN.get(algorithm or DEFAULT)
    if entry is None:
        return f"the system {algorithm}, {network} channels"
    return entry.words(level=level, variant=variant, mutant=mutant, network=network, crashes=crashes)
