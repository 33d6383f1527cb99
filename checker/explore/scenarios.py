"""Glue: from a scenario name (or a program) and options to an exploration context,
through the registry of systems (:func:`fisheye.checker.systems.context`: the system's
factory builds it, and it says how it is explored), and the one-call :func:`run` used by
the command line, the tests and the benchmarks.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from fisheye.impl.api import Network, SystemRequest
from fisheye.impl.builtin_systems import DEFAULT
from fisheye.impl.programs import Program
from fisheye.spec.graph import ProximityGraph
from fisheye.spec.models import Model

from .engine import Progress, explore
from .expand import Context
from .report import ReportBuilder


def make_context(scenario: str | Program, graph: str | ProximityGraph | None = "paper", *,
                 level: str = "protocol", algorithm: str = DEFAULT, variant: str | None = None,
                 network: str = "fifo", mutant: str | None = None, crashes: int = 0,
                 options: tuple[tuple[str, Any], ...] = (), reduction: str = "auto",
                 prune_deviations: bool = True) -> Context:
    """The exploration context of the system ``algorithm`` of the registry (a name, or
    ``package.module:factory``) for this scenario and these options.  ``ValueError`` on
    bad names or options (the system's factory says which)."""
    from ..systems import context

    request = SystemRequest(scenario=scenario, graph=graph,  # type: ignore[arg-type]
                            network=Network.parse(network), variant=variant, mutant=mutant,
                            crashes=crashes, level=level, options=options)
    return context(algorithm, request, reduction=reduction, prune_deviations=prune_deviations)


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
