"""Exhaustive exploration of a system's schedules: :func:`explore`, :class:`Report` and
:func:`register_system` of the facade.

A system is Algorithm 2 over Algorithm 1 (``toco``, section 4.2 of the paper), the
localized causal broadcast (``lcb``), or a protocol of the user's written on
:class:`~fisheye.impl.actors.Actor` (docs/your-protocol.md).  Every complete run's
history is checked against the model, and the system's properties (the broadcast
properties of section 4.1, deadlock freedom, the protocol's own) are judged at the end
of every run (after Stateright's ``always`` and ``sometimes``)."""

from __future__ import annotations

import json
import shlex
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from fisheye.checker.result import Verdict
from fisheye.spec.graph import ProximityGraph
from fisheye.spec.history import History
from fisheye.spec.models import Model

if TYPE_CHECKING:
    from fisheye.checker.counterexample import Counterexample
    from fisheye.impl.api import Step, System, SystemFactory

    from ._explain import Explanation

_STATUS = {0: Verdict.CONSISTENT, 1: Verdict.VIOLATION, 3: Verdict.UNKNOWN}


def register_system(name: str, factory: SystemFactory) -> None:
    """Make ``factory`` (a function from :class:`~fisheye.impl.api.SystemRequest` to a
    system) the system ``name`` of this Python process, for :func:`explore` and for
    replaying the counterexamples it finds.  A name that the command line must also
    know is an entry point of the group ``fisheye.systems`` or a
    ``package.module:factory`` path (docs/your-protocol.md)."""
    from fisheye.checker.systems import register

    register(name, factory)


@dataclass(frozen=True)
class Violation:
    """One violation an exploration found: the model or property it ``violates``, its
    ``kind`` (``model``, ``broadcast``, ``protocol``, ``deadlock``), the number of
    ``runs`` that showed it, and the shortest such run's ``schedule`` and ``history``."""

    violates: str
    kind: str
    runs: int
    schedule: tuple[Step, ...]
    history: History


@dataclass(frozen=True)
class Report:
    """The outcome of :func:`explore`.  ``data`` is the exploration report of the
    contract (docs/contract.md, "Exploration report"; ``report["states"]`` reads it);
    ``status`` is three-valued: *consistent* (complete, nothing violated), *violation*,
    or *unknown* (cut short, or a check that could not decide, with no violation
    found: never a pass)."""

    data: Mapping[str, Any]
    system: Any
    command: str

    def __getitem__(self, key: str) -> Any:
        return self.data[key]

    def __repr__(self) -> str:
        return (f"Report({self.status.value}, states={self.data['states']}, "
                f"violations={self.data['violations_total']}, command={self.command!r})")

    @property
    def status(self) -> Verdict:
        from fisheye.checker.explore import exit_status

        return _STATUS[exit_status(dict(self.data))]

    @property
    def ok(self) -> bool:
        """Complete, every history consistent, every property held."""
        return self.status is Verdict.CONSISTENT

    @property
    def violations(self) -> tuple[Violation, ...]:
        """The violations listed by the report, shortest run first for each property."""
        from fisheye.impl.api import Step
        from fisheye.spec.history import parse_history

        return tuple(Violation(v["violates"], v["kind"], v["runs"],
                               tuple(Step.from_json(s) for s in v["schedule"]), parse_history(v["history"]))
                     for v in self.data["violations"])

    @property
    def properties(self) -> dict[str, str]:
        """Each property the explorer judged, with its status (``held``, ``violated``,
        ``never held``, ...)."""
        return {p["name"]: p["status"] for p in self.data["properties"]}

    def counterexample(self, index: int = 0) -> Counterexample:
        """The ``index``-th violation as a counterexample (docs/contract.md), replayable
        by ``fisheye explain``."""
        from fisheye.checker.explore.save import counterexample_of

        v = self.violations[index]
        return counterexample_of(self.system, v.violates, v.schedule, search=self.command)

    def explain(self, index: int = 0) -> Explanation:
        """The explanation ``fisheye explain`` gives of the ``index``-th violation."""
        from ._explain import explain

        return explain(self.counterexample(index))

    def save(self, directory: str | Path) -> list[Path]:
        """Write one counterexample file per violation listed into ``directory`` (made
        if missing), named after the scenario, the property and a number, as
        ``fisheye explore --save`` does; returns their paths."""
        from fisheye.checker.explore.save import save_counterexamples

        return save_counterexamples(self.system, [(v.violates, v.schedule) for v in self.violations],
                                    directory, scenario=self.data.get("scenario"), search=self.command)


def explore(system: System[Any] | str, program: Any = None, *, model: Model | str | None = "fisheye",
            graph: ProximityGraph | str | None = None, network: str = "fifo", spark: str | bool | None = None,
            level: str = "protocol", variant: str | None = None, mutant: str | None = None, crashes: int = 0,
            reduction: str = "auto", max_states: int | None = None, timeout: float | None = None,
            options: dict[str, Any] | None = None, kernel: str = "auto") -> Report:
    """Explore every schedule of a system and check each complete run's history against
    ``model`` (None: no model, the properties only).

    ``system`` is a system object (an :class:`~fisheye.impl.actors.ActorSystem` your
    factory built; ``program`` must then be None), the name of a scenario of the
    paper's Algorithm 2 over Algorithm 1 (``explore("fig6", model="fisheye")``), or the
    name of a system (``toco``, ``lcb``, a name given to :func:`register_system`, an
    entry point, ``package.module:factory``) with ``program`` its scenario or program
    text.  ``graph``, ``network`` (``fifo`` or ``unordered``), ``level``, ``variant``,
    ``mutant``, ``crashes`` and ``options`` (the factory's further options, as
    ``--option NAME=VALUE``) go to the system's factory, as ``fisheye explore``'s options
    do.  ``spark``: explore on Spark (True: ``local[*]``; or a master URL).
    ``max_states`` and ``timeout`` cut the search short (the report is then unknown
    unless it found a violation).  ``kernel``: ``auto`` (the system's compiled kernel
    where it offers one, :class:`~fisheye.impl.kernel_api.HasCompiledKernel`),
    ``compiled`` (insist on it) or ``python`` (the system's Python form); the report's
    ``kernel`` says which ran."""
    from fisheye.checker.explore.report import ReportBuilder
    from fisheye.checker.systems import context, context_of, parse_options
    from fisheye.impl.api import Network, SystemRequest
    from fisheye.impl.builtin_systems import DEFAULT

    if isinstance(system, str):
        name, scenario = (system, program) if program is not None else (DEFAULT, system)
        request = SystemRequest(scenario=scenario, graph=graph, network=Network.parse(network),
                                variant=variant, mutant=mutant, crashes=crashes, level=level,
                                options=parse_options([f"{k}={json.dumps(v)}"
                                                       for k, v in (options or {}).items()]))
        ctx = context(name, request, reduction=reduction)
    else:
        if program is not None or graph is not None or network != "fifo" or options:
            raise TypeError("explore(system): the system object is built already; give its program, graph "
                            "and network to its factory")
        ctx = context_of(system, reduction=reduction)     # explored as it asks, as by its name
    model_value = None if model is None else Model(model).value
    builder = ReportBuilder(ctx, ctx.system.info.level, engine="spark" if spark else "local",
                            model=model_value)
    if spark:
        from fisheye.checker.spark import explore as spark_explore
        from fisheye.checker.systems import ship_to_spark

        ship_to_spark()
        data = spark_explore(ctx, builder, master=None if spark is True else str(spark),
                             max_states=max_states, timeout=timeout, progress=False, kernel=kernel)
    else:
        from fisheye.checker.explore.engine import explore as explore_locally

        data = explore_locally(ctx, builder, max_states=max_states, timeout=timeout, kernel=kernel)
    return Report(data, ctx.system, _command(ctx.system, model_value))


def _command(system: Any, model: str | None) -> str:
    """The ``fisheye explore`` command that runs the same exploration (the system's part
    from its record, as the command line writes it)."""
    from fisheye.checker.systems import command_options

    return shlex.join(["fisheye", "explore", *command_options(system.info), "--model", model or "none"])
