"""Glue: from a scenario name (or a program) and options to an exploration context, at
either level, and the one-call :func:`run` used by the command line, the tests and the
benchmarks.

* ``protocol`` level: :func:`fisheye.impl.system.make_system` (Algorithm 2 over
  Algorithm 1 over FIFO or unordered channels), with the system's own ``may_send``
  sharpening the process-level persistent sets;
* ``abstract`` level: :class:`fisheye.impl.abstract.AbstractSystem` (Algorithm 2 over the
  broadcast specification);
* ``--algorithm lcb``: the localized causal broadcast of ``fisheye.impl.lcb``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from fisheye.impl.programs import Program
from fisheye.spec.graph import ProximityGraph
from fisheye.spec.models import Model

from .engine import Progress, explore
from .expand import Context
from .report import ReportBuilder

LEVELS = ("protocol", "abstract")
ALGORITHMS = ("toco", "lcb")


def make_context(scenario: str | Program, graph: str | ProximityGraph | None = "paper", *,
                 level: str = "protocol", algorithm: str = "toco", variant: str = "corrected",
                 network: str = "fifo", mutant: str | None = None, crashes: int = 0,
                 reduction: str = "auto", prune_deviations: bool = True) -> Context:
    """Build the system and its exploration context.  ``ValueError`` on bad names."""
    if level not in LEVELS:
        raise ValueError(f"unknown level {level!r} (expected protocol or abstract)")
    if algorithm not in ALGORITHMS:
        raise ValueError(f"unknown algorithm {algorithm!r} (expected toco or lcb)")
    if algorithm == "lcb":
        if level != "protocol":
            raise ValueError("--algorithm lcb exists at the protocol level only")
        try:
            from fisheye.impl.lcb import make_lcb_system
        except ImportError:
            raise ValueError("the localized causal broadcast (fisheye.impl.lcb) is not available") from None
        kwargs: dict[str, Any] = {"crashes": crashes, "network": network}
        system = make_lcb_system(scenario, **kwargs)
        # No transition model is known for this system: the full search unless asked
        # (the process-level reduction assumes the locality lemma of docs/por.md).
        return Context(system, reduction="none" if reduction == "auto" else reduction,
                       prune_deviations=prune_deviations)
    if crashes:
        raise ValueError("--crashes applies to --algorithm lcb only (Algorithm 1 assumes no crash)")
    from fisheye.impl.system import make_system, resolve_program

    if level == "protocol":
        raw = make_system(scenario, graph, network=network, variant=variant, mutant=mutant,
                          condition_reads=prune_deviations)
        if reduction == "none":       # the full search: the raw system, every step
            return Context(raw, reduction="none", prune_deviations=prune_deviations)
        from fisheye.impl.toco_quotient import ProtocolSystem

        return Context(ProtocolSystem(raw), reduction=reduction, prune_deviations=prune_deviations,
                       may_send=raw.may_send)
    from fisheye.impl.abstract import AbstractSystem

    proto = make_system(scenario, graph)          # resolves the scenario and the graph text
    program, sc = resolve_program(scenario)
    system = AbstractSystem(program, proto.graph, scenario=sc.name if sc else None)
    return Context(system, reduction=reduction, prune_deviations=prune_deviations)


def run(ctx: Context, *, level: str | None = None, model: str | Model | None = "fisheye",
        model_graph: ProximityGraph | None = None, max_states: int | None = None,
        timeout: float | None = None, progress: Progress | None = None, check_engine: str = "auto",
        on_terminal: Callable[[Any, str], None] | None = None, **engine: Any) -> dict[str, Any]:
    """Explore ``ctx`` locally and return the report (docs/contract.md, "Exploration report").
    ``engine``: the storage options of :func:`fisheye.checker.explore.engine.explore`
    (``memory``, ``exact``, ``checkpoint``, ``resume``, ``checkpoint_every``)."""
    lvl = level or ctx.system.info.level
    builder = ReportBuilder(ctx, lvl, model=Model(model) if model is not None else None,
                            model_graph=model_graph, check_engine=check_engine)
    return explore(ctx, builder, max_states=max_states, timeout=timeout, progress=progress,
                   on_terminal=on_terminal, **engine)
