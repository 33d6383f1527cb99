"""What runs, in words: the system of a run as its registry entry describes it (Algorithm
2 over Algorithm 1 with its variant and mutant, the localized causal broadcast, a
system of the user's), its graph as ``p:q`` edges, and counts with their plural."""

from __future__ import annotations

from typing import TYPE_CHECKING

from fisheye.impl.builtin_systems import plural, system_words  # noqa: F401 -- re-exported

if TYPE_CHECKING:
    from fisheye.checker.counterexample import Counterexample


def edges_text(edges: list[list[str]]) -> str:
    return ", ".join(f"{a}:{b}" for a, b in edges) or "no edge"


def system_text(cx: Counterexample) -> str:
    """The system, graph and scenario (or program) of a counterexample's run."""
    what = "scenario" if cx.scenario else "program"
    words = system_words(cx.algorithm, level=cx.level, variant=cx.variant, mutant=cx.mutant,
                         network=cx.network)
    return (f"{words}, "
            f"graph {edges_text([list(e) for e in cx.system_graph])}, {what} {cx.scenario or cx.program}")
