"""Reading histories and checking them: :func:`load` and :func:`check` of the facade.

A history is given as a :class:`~fisheye.spec.history.History`, as the contract's JSON
object (a ``dict``), or as the path of a file in any format ``fisheye check`` reads (the
contract's JSON, a counterexample file, ``fisheye simulate --json`` output, a Jepsen EDN
history or a Jepsen log).  A graph is a :class:`~fisheye.spec.graph.ProximityGraph`, or
the command line's GRAPH text (``empty``, ``complete``, ``file``, ``p:q,r:s``), or None
for the history's own graph (section 3.1 of the paper: the proximity graph G)."""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any, TypeAlias

from fisheye.checker.result import CheckResult
from fisheye.spec.graph import ProximityGraph, parse_graph_option
from fisheye.spec.history import History, parse_history
from fisheye.spec.models import Model

HistoryLike: TypeAlias = "History | Mapping[str, Any] | str | os.PathLike[str]"
"""A history, its JSON object, or the path of a file holding one."""

GraphLike: TypeAlias = "ProximityGraph | str | None"
"""A proximity graph, a GRAPH text of the command line, or None (the history's own)."""


def load(path: str | os.PathLike[str], *, format: str = "auto", nil_read: str = "initial") -> History:
    """The history in the file at ``path``, in any input format of ``fisheye check``
    (``format``: ``auto``, ``json``, ``jepsen-edn`` or ``jepsen-log``; docs/formats.md).
    A Jepsen read of nil returns the initial value (``nil_read="initial"``) or any value
    (``"any"``).  Bad input raises :class:`~fisheye.spec.history.HistoryError` (a
    ``ValueError``) naming the file and what is wrong."""
    from fisheye.checker.formats import load as load_file

    history, _ = load_file(os.fspath(path), fmt=format, nil_read=nil_read)  # type: ignore[arg-type]
    return history


def as_history(history: HistoryLike) -> History:
    """``history`` as a :class:`History` (a path is read by :func:`load`)."""
    if isinstance(history, History):
        return history
    if isinstance(history, Mapping):
        return parse_history(dict(history))
    if isinstance(history, str | os.PathLike):
        return load(history)
    raise TypeError(f"expected a History, its JSON object or a file path, not {type(history).__name__}")


def as_graph(graph: GraphLike, history: History) -> ProximityGraph:
    """``graph`` over the processes of ``history`` (None: the history's own graph)."""
    if graph is None:
        return ProximityGraph(history.processes, history.edges)
    if isinstance(graph, ProximityGraph):
        return graph
    return parse_graph_option(graph, history.processes, history.edges, source="graph")


def check(history: HistoryLike, model: Model | str, graph: GraphLike = None, engine: str = "auto",
          timeout: float | None = None) -> CheckResult:
    """Decide whether ``history`` is consistent under ``model`` (``sc``, ``cc``,
    ``fisheye``, ... : :class:`~fisheye.spec.models.Model`) on the proximity graph
    ``graph``.

    The result's ``verdict`` is a :class:`~fisheye.checker.result.Verdict`: *consistent*
    (with a witness the executable spec has validated), *violation* (with a
    certificate) or *unknown* (``timeout`` seconds ran out; never a pass).  ``engine``:
    ``auto`` (the direct engine, then Z3 if it gives up), ``direct`` or ``z3``.  A
    model not defined on the history raises :class:`~fisheye.checker.errors.UsageError`."""
    from fisheye.checker.engines import check as check_engines

    h = as_history(history)
    return check_engines(h, Model(model), as_graph(graph, h), engine=engine, timeout=timeout)

