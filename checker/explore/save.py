"""The violations an exploration found, written as counterexample files
(docs/contract.md, "Counterexample"): one file per violation, named after the scenario
(``program`` for a program), the model or property it violates and its number, each
replayable by ``fisheye explain``.  ``fisheye explore --save`` and the facade's
``Report.save`` both write them here."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from fisheye.impl.api import Step
from fisheye.spec.graph import ProximityGraph

from .. import counterexample as cxm


def file_part(text: str) -> str:
    """``text`` as a part of a file name: letters, digits, ``-`` and ``_``, at most 40."""
    out = "".join(c if c.isalnum() or c in "-_" else "-" for c in text)
    while "--" in out:
        out = out.replace("--", "-")
    return out.strip("-")[:40] or "program"


def counterexample_of(system: Any, violates: str, schedule: Sequence[Step], *, search: str,
                      check_graph: ProximityGraph | None = None) -> cxm.Counterexample:
    """The run of ``schedule`` on ``system`` that violates ``violates`` as a counterexample,
    its history checked on ``check_graph`` (default: the system's graph)."""
    raw = cxm.replayable_system(system)
    graph = check_graph or ProximityGraph(raw.processes, raw.graph.edges)
    return cxm.from_run(raw, schedule, violates, search=search, check_graph=graph, explain=False)


def save_counterexamples(system: Any, violations: Iterable[tuple[str, Sequence[Step]]],
                         directory: str | Path, *, scenario: str | None, search: str,
                         check_graph: ProximityGraph | None = None) -> list[Path]:
    """Write each ``(violates, schedule)`` of ``system`` as a counterexample file into
    ``directory`` (made if missing), its history checked on ``check_graph`` (default: the
    system's graph), ``search`` the command that found it; returns the paths.  A
    violation that cannot be written as a replayable file raises ``ValueError`` (saying
    which); a file that cannot be written, ``OSError``."""
    stem = file_part(scenario if scenario and ":" not in scenario else "program")
    folder = Path(directory)
    folder.mkdir(parents=True, exist_ok=True)
    out = []
    for k, (violates, schedule) in enumerate(violations, 1):
        try:
            cx = counterexample_of(system, violates, schedule, search=search, check_graph=check_graph)
        except (ValueError, RuntimeError) as e:
            raise ValueError(f"violation {k} cannot be written as a replayable file ({e})") from None
        path = folder / f"{stem}--{file_part(violates)}--{k}.json"
        cx.save(path)
        out.append(path)
    return out
