"""The registry of systems: from a name to a system factory
(:data:`fisheye.impl.api.SystemFactory`), used by the command line, counterexample
files and replay.

A name is one of

* a built-in: ``toco`` (Algorithm 2 over Algorithm 1, section 4.2 of the paper, or over
  the broadcast specification at level ``abstract``) and ``lcb`` (Algorithm 2 or plain
  broadcasts over the localized causal broadcast);
* the name of an entry point of the group ``fisheye.systems`` of an installed package
  (``[project.entry-points."fisheye.systems"] lww = "mypkg.lww:make"``);
* ``package.module:factory``, a factory importable from the Python path (the current
  directory included, as ``python -m`` does);
* a name given to :func:`register` in this Python process (``fisheye.register_system``).

A factory takes a :class:`fisheye.impl.api.SystemRequest` and returns a system that
provides :class:`fisheye.impl.api.System`; :func:`make` checks that it does, and that it
records the name it was made under (``info.algorithm``), so that every file it produces
names a factory that rebuilds it.
"""

from __future__ import annotations

import importlib
import os
import sys
from collections.abc import Callable
from importlib.metadata import entry_points
from types import ModuleType
from typing import Any

from fisheye.impl.api import HasChannels, Network, System, SystemFactory, SystemRequest
from fisheye.spec.graph import ProximityGraph, parse_graph_option

ENTRY_POINT_GROUP = "fisheye.systems"
BUILTIN = ("toco", "lcb")


def _builtin(name: str) -> SystemFactory:
    if name == "toco":
        from fisheye.impl.system import toco_factory

        return toco_factory
    from fisheye.impl.lcb import lcb_factory

    return lcb_factory


def _from_path(name: str) -> SystemFactory:
    module_name, _, attr = name.partition(":")
    if not module_name or not attr:
        raise ValueError(f"system {name!r}: expected package.module:factory")
    if "" not in sys.path:
        sys.path.insert(0, "")     # as python -m: the current directory is importable
    try:
        module = importlib.import_module(module_name)
    except ImportError as e:
        raise ValueError(f"system {name!r}: cannot import {module_name} ({e})") from None
    if not module_name.startswith("fisheye.") and module not in _LOADED:
        _LOADED.append(module)
    obj: Any = module
    for part in attr.split("."):
        try:
            obj = getattr(obj, part)
        except AttributeError:
            raise ValueError(f"system {name!r}: {module_name} has no {attr}") from None
    return _callable(name, obj)


def _callable(name: str, obj: Any) -> SystemFactory:
    if not callable(obj):
        raise ValueError(f"system {name!r} is not callable")
    factory: Callable[[SystemRequest], Any] = obj
    return factory


_LOADED: list[ModuleType] = []
"""The user modules loaded by ``package.module:factory`` names."""


def _root(module: ModuleType) -> str | None:
    """The directory from which ``module`` was imported (its sys.path entry)."""
    file = getattr(module, "__file__", None)
    if file is None:
        return None
    root = os.path.dirname(os.path.abspath(file))
    for _ in range(module.__name__.count(".") + (1 if file.endswith("__init__.py") else 0)):
        root = os.path.dirname(root)
    return root


def ship_to_spark() -> None:
    """Let Spark's Python workers import the user systems loaded from the Python path
    (their path is not the driver's): the modules' directories are added to the
    workers' ``PYTHONPATH`` (through the environment of a JVM still to start, the
    ``spark.executorEnv.PYTHONPATH`` property of a running one, and the environment of
    an active context).  Call before exploring on Spark."""
    roots = [r for r in dict.fromkeys(_root(m) for m in _LOADED) if r]
    if not roots:
        return
    from pyspark import SparkContext

    def extend(old: str | None) -> str:
        parts = [p for p in (old or "").split(os.pathsep) if p]
        return os.pathsep.join(parts + [r for r in roots if r not in parts])

    os.environ["PYTHONPATH"] = extend(os.environ.get("PYTHONPATH"))
    jvm = getattr(SparkContext, "_jvm", None)
    if jvm is not None:
        props = jvm.java.lang.System
        key = "spark.executorEnv.PYTHONPATH"
        props.setProperty(key, extend(props.getProperty(key)))
    active = SparkContext._active_spark_context
    if active is not None:
        active.environment["PYTHONPATH"] = extend(active.environment.get("PYTHONPATH"))


def entry_point_names() -> tuple[str, ...]:
    return tuple(sorted(ep.name for ep in entry_points(group=ENTRY_POINT_GROUP)))


_REGISTERED: dict[str, SystemFactory] = {}
"""The factories registered in this process, by name."""


def register(name: str, factory: SystemFactory) -> None:
    """Make ``factory`` the system ``name`` in this process (a built-in name is refused)."""
    if name in BUILTIN:
        raise ValueError(f"system {name!r} is built in and cannot be registered again")
    _REGISTERED[name] = _callable(name, factory)


def resolve(name: str) -> SystemFactory:
    """The factory of ``name`` (``ValueError`` naming what is wrong)."""
    if name in BUILTIN:
        return _builtin(name)
    if name in _REGISTERED:
        return _REGISTERED[name]
    for ep in entry_points(group=ENTRY_POINT_GROUP):
        if ep.name == name:
            try:
                return _callable(name, ep.load())
            except ImportError as e:
                raise ValueError(f"system {name!r}: entry point {ep.value} cannot be loaded ({e})") from None
    if ":" in name:
        return _from_path(name)
    known = ", ".join(BUILTIN + tuple(sorted(_REGISTERED)) + entry_point_names())
    raise ValueError(f"unknown system {name!r} (expected one of: {known}, or package.module:factory)")


def make(name: str, request: SystemRequest) -> System[Any]:
    """Build the system ``name`` for ``request`` and check it keeps the contract."""
    factory = resolve(name)
    if request.system != name:
        from dataclasses import replace

        request = replace(request, system=name)
    try:
        system = factory(request)
    except TypeError as e:
        raise ValueError(f"system {name!r}: calling the factory with a SystemRequest failed ({e})") from None
    if not isinstance(system, System):
        missing = [m for m in ("processes", "graph", "info", "initial", "enabled", "apply", "is_final",
                               "history", "delivery_logs", "properties") if not hasattr(system, m)]
        raise ValueError(f"system {name!r}: the factory returned a {type(system).__name__}, which does not "
                         f"provide the system contract (missing: {', '.join(missing)})")
    if system.info.algorithm != name:
        raise ValueError(f"system {name!r}: its info.algorithm is {system.info.algorithm!r}; a system "
                         "must record the name it was made under (SystemRequest.system)")
    mismatch = record_mismatch(request, system)
    if mismatch:
        raise ValueError(f"system {name!r}: the factory was asked for {mismatch}")
    return system


def record_mismatch(request: SystemRequest, system: System[Any]) -> str | None:
    """What the built system does not do of what ``request`` asked for (its network,
    graph, scenario or program, options, variant, mutant, crashes, level), as words
    naming the first mismatch; None when it keeps the request.  The explorer verifies
    this instead of trusting the factory: a system that ignored ``--network`` or
    ``--graph`` would be explored as another system than the one named."""
    info = system.info
    built = system.network if isinstance(system, HasChannels) else info.network
    for what, got in (("network", built), ("recorded network", info.network)):
        if Network(got) is not request.network:
            return f"{request.network.value} channels, but its {what} is {Network(got).value}"
    if info.graph.edge_set != system.graph.edge_set:
        return (f"one graph, but it runs with {system.graph.describe()} and records "
                f"{info.graph.describe()}")
    want = request.graph
    if isinstance(want, str) and want.strip() != "paper":
        try:
            want = parse_graph_option(want, system.processes)
        except ValueError as e:
            return f"the graph {request.graph!r}, which does not fit its processes ({e})"
    if isinstance(want, ProximityGraph) and want.edge_set != system.graph.edge_set:
        return f"the graph {want.describe()}, but it runs with {system.graph.describe()}"
    if request.scenario is not None and request.scenario not in (info.scenario, info.program):
        if info.program is None or not _same_program(request.scenario, info.program):
            recorded = info.scenario if info.scenario is not None else info.program
            return f"the scenario {request.scenario!r}, but it records {recorded!r}"
    recorded = dict(info.options)        # the factory's defaults of the options not asked included
    for key, value in request.options:
        if key not in recorded or recorded[key] != value:
            return f"the option {key}={value!r}, but it records {recorded.get(key, 'none')!r}"
    for field in ("variant", "mutant"):
        asked, got = getattr(request, field), getattr(info, field)
        if asked is not None and str(asked) != str(got):
            return f"the {field} {asked}, but it records {got}"
    if request.crashes != info.crashes:
        return f"{request.crashes} crashes, but it records {info.crashes}"
    if request.level != info.level:
        return f"the level {request.level}, but it records {info.level}"
    return None


def _same_program(a: str, b: str) -> bool:
    from fisheye.impl.programs import parse_program

    try:
        return parse_program(a) == parse_program(b)
    except ValueError:
        return False


def context(name: str, request: SystemRequest, *, reduction: str = "auto",
            prune_deviations: bool = True) -> Any:
    """The exploration context (:class:`fisheye.checker.explore.Context`) of the
    system ``name``: the built-in ones as the explorer builds them (Algorithm 1's
    quotient and transition model), any other one as its factory makes it."""
    from .explore.expand import Context
    from .explore.scenarios import make_context

    if name in BUILTIN:
        if request.scenario is None:
            raise ValueError(f"{name} needs a scenario")
        graph = request.graph if request.graph is not None else "paper"
        return make_context(request.scenario, graph, level=request.level, algorithm=name,
                            variant=request.variant or "corrected", network=request.network.value,
                            mutant=request.mutant, crashes=request.crashes, reduction=reduction,
                            prune_deviations=prune_deviations)
    return Context(make(name, request), reduction=reduction, prune_deviations=prune_deviations)
