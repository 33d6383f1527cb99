"""The registry of systems: from a name to a system factory
(:data:`fisheye.impl.api.SystemFactory`), the one way the command line, the explorer,
Spark, counterexample files and replay build a system.

A name is one of

* a built-in (:data:`fisheye.impl.builtin_systems.BUILTIN`), a factory like any other;
* a name registered in this process (:func:`register`);
* the name of an entry point of the group ``fisheye.systems`` of an installed package
  (``[project.entry-points."fisheye.systems"] lww = "mypkg.lww:make"``);
* ``package.module:factory``, a factory importable from the Python path (the current
  directory included, as ``python -m`` does).

A factory takes a :class:`fisheye.impl.api.SystemRequest` and returns a system that
provides :class:`fisheye.impl.api.System`; :func:`make` checks that it does, that it
records the name it was made under (``info.algorithm``), so that every file it produces
names a factory that rebuilds it, and that it is the system asked for
(:func:`record_mismatch`).  :func:`context` explores it as it asks to be explored
(:class:`fisheye.impl.api.ExploredAs`: a quotient, a reduction), or as it is.
"""

from __future__ import annotations

import importlib
import json
import os
import sys
from collections.abc import Callable
from importlib.metadata import entry_points
from types import ModuleType
from typing import Any

from fisheye.impl.api import ExploredAs, HasChannels, Network, System, SystemFactory, SystemRequest
from fisheye.impl.builtin_systems import BUILTIN as BUILTIN_FACTORIES
from fisheye.spec.graph import ProximityGraph, parse_graph_option

ENTRY_POINT_GROUP = "fisheye.systems"
BUILTIN: tuple[str, ...] = tuple(BUILTIN_FACTORIES)


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
        module, _, attr = BUILTIN_FACTORIES[name].factory.partition(":")
        return _callable(name, getattr(importlib.import_module(module), attr))
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


def command_options(record: SystemRequest) -> list[str]:
    """The scenario and the options of ``fisheye explore`` (or ``simulate``) that rebuild
    the system ``record`` describes (its ``info``): every one it records, except those a
    built-in's entry says it does not take (the command line refuses them).  The one
    writer of a system's part of the printed and recorded commands."""
    entry = BUILTIN_FACTORIES.get(record.system)
    takes = None if entry is None else entry.accepts.get(record.level, ())
    graph = record.graph
    parts = [str(record.scenario), "--system", record.system]
    if record.level != "protocol":
        parts += ["--level", record.level]
    if takes is None or "graph" in takes:
        text = graph
        if isinstance(graph, ProximityGraph):
            text = ",".join(f"{a}:{b}" for a, b in graph.edges) or "empty"
        if text is not None:
            parts += ["--graph", str(text)]
    values = {"network": Network(record.network).value, "variant": record.variant, "mutant": record.mutant,
              "crashes": record.crashes or None}
    for opt, value in values.items():
        if value is not None and (takes is None or opt in takes):
            parts += [f"--{opt}", str(value)]
    for key, value in record.options:
        parts += ["--option", f"{key}={json.dumps(value)}"]
    return parts


def parse_options(texts: list[str] | None) -> tuple[tuple[str, Any], ...]:
    """``--option NAME=VALUE`` (repeatable) as a request's ``options``: VALUE read as
    JSON where it is JSON (``3``, ``true``, ``"x"``, ``[1, 2]``: lists become tuples),
    else the text itself; sorted by name, as :class:`SystemRequest` keeps them.  The
    inverse of what :func:`command_options` writes.  ``ValueError`` naming the option on
    a malformed or repeated one."""
    out: dict[str, Any] = {}
    for text in texts or ():
        name, eq, raw = text.partition("=")
        name = name.strip()
        if not eq or not name:
            raise ValueError(f"--option {text!r}: give NAME=VALUE")
        if name in out:
            raise ValueError(f"--option {name}: given twice")
        try:
            value = json.loads(raw)
        except ValueError:
            value = raw
        out[name] = _tuples(value)
    return tuple(sorted(out.items()))


def _tuples(x: Any) -> Any:
    if isinstance(x, list):
        return tuple(_tuples(v) for v in x)
    if isinstance(x, dict):
        raise ValueError("--option: a value is a number, a string, a boolean, null or a list")
    return x


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
    graph, scenario or program, options, crashes, level; a variant or a mutant each
    factory validates itself), as words
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
    asked = request.scenario if request.scenario is None else str(request.scenario)  # a Program: its text
    if asked is not None and asked not in (info.scenario, info.program):
        if info.program is None or not _same_program(asked, info.program):
            recorded = info.scenario if info.scenario is not None else info.program
            return f"the scenario {asked!r}, but it records {recorded!r}"
    recorded = dict(info.options)        # the factory's defaults of the options not asked included
    for key, value in request.options:
        if key not in recorded or recorded[key] != value:
            return f"the option {key}={value!r}, but it records {recorded.get(key, 'none')!r}"
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
    system ``name`` built for ``request`` (:func:`make`), explored as the system asks
    (:class:`fisheye.impl.api.ExploredAs`) or as it is."""
    return context_of(make(name, request), reduction=reduction, prune_deviations=prune_deviations)


def context_of(system: Any, *, reduction: str = "auto", prune_deviations: bool = True) -> Any:
    """The exploration context of a system object, explored as it asks
    (:class:`fisheye.impl.api.ExploredAs`) or as it is."""
    from .explore.expand import Context

    if isinstance(system, ExploredAs):
        view = system.explored_as(reduction, prune_deviations)
        return Context(view.system, reduction=view.reduction, prune_deviations=prune_deviations,
                       may_send=view.may_send)
    return Context(system, reduction=reduction, prune_deviations=prune_deviations)
