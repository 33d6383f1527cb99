"""What runs, in words: the system of a run (Algorithm 2 over Algorithm 1 with its
variant and mutant, over the broadcast specification, the localized causal broadcast, a
system of the user's), its graph as ``p:q`` edges, and counts with their plural."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from fisheye.checker.counterexample import Counterexample


def plural(n: int, one: str, many: str | None = None) -> str:
    return f"{n:,} {one if n == 1 else (many or one + 's')}"


def edges_text(edges: list[list[str]]) -> str:
    return ", ".join(f"{a}:{b}" for a, b in edges) or "no edge"


def system_words(algorithm: str | None, *, level: str | None = "protocol", variant: str | None = None,
                 mutant: str | None = None, network: str | None = None, crashes: int | None = None) -> str:
    """What runs, in words: Algorithm 2 over Algorithm 1 (a variant, a mutant) over channels,
    Algorithm 2 over the broadcast specification, or the localized causal broadcast."""
    if algorithm == "lcb":
        f = "" if crashes is None else f", at most {plural(crashes, 'crash', 'crashes')}"
        return f"the localized causal broadcast, {network} channels{f}"
    if level == "abstract":
        return "Algorithm 2 over the broadcast specification (every delivery order it allows)"
    if algorithm != "toco":
        return f"the system {algorithm}, {network} channels"
    mut = f", mutant {mutant}" if mutant else ""
    return f"Algorithm 2 over Algorithm 1 ({variant}{mut}), {network} channels"


def system_text(cx: Counterexample) -> str:
    """The system, graph and scenario (or program) of a counterexample's run."""
    what = "scenario" if cx.scenario else "program"
    words = system_words(cx.algorithm, level=cx.level, variant=cx.variant, mutant=cx.mutant,
                         network=cx.network)
    return (f"{words}, "
            f"graph {edges_text([list(e) for e in cx.system_graph])}, {what} {cx.scenario or cx.program}")
