"""Proximity graphs (section 3.1): undirected, no self-loops, over the processes.

``G = (Pi, E_G)``; ``N_G(p)`` are the neighbours of ``p``.  The empty graph gives causal
consistency, the complete graph sequential consistency (end of section 3.2).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from itertools import combinations

from .history import History, HistoryError, parse_edge_list


@dataclass(frozen=True)
class ProximityGraph:
    processes: tuple[str, ...]
    edges: tuple[tuple[str, str], ...]

    def __post_init__(self) -> None:
        procs = set(self.processes)
        for a, b in self.edges:
            if a == b or a not in procs or b not in procs:
                raise ValueError(f"bad edge {a}-{b}")

    @staticmethod
    def empty(processes: Iterable[str]) -> ProximityGraph:
        return ProximityGraph(tuple(processes), ())

    @staticmethod
    def complete(processes: Iterable[str]) -> ProximityGraph:
        ps = tuple(processes)
        return ProximityGraph(ps, tuple(combinations(ps, 2)))

    @staticmethod
    def of(processes: Iterable[str], edges: Iterable[tuple[str, str]]) -> ProximityGraph:
        ps = tuple(processes)
        return ProximityGraph(ps, parse_edge_list([list(e) for e in edges], ps))

    def neighbours(self, p: str) -> tuple[str, ...]:
        """``N_G(p)``."""
        out = [b for a, b in self.edges if a == p] + [a for a, b in self.edges if b == p]
        return tuple(q for q in self.processes if q in out)

    def adjacent(self, p: str, q: str) -> bool:
        return (p, q) in self.edges or (q, p) in self.edges

    @property
    def edge_set(self) -> frozenset[frozenset[str]]:
        return frozenset(frozenset(e) for e in self.edges)

    def is_subgraph_of(self, other: ProximityGraph) -> bool:
        return self.edge_set <= other.edge_set

    def to_json(self) -> list[list[str]]:
        return [list(e) for e in self.edges]

    def describe(self) -> str:
        if not self.edges:
            return "empty"
        if len(self.edges) == len(self.processes) * (len(self.processes) - 1) // 2:
            return "complete"
        return ",".join(f"{a}:{b}" for a, b in self.edges)


def parse_graph_option(text: str, processes: Iterable[str], file_edges: Iterable[tuple[str, str]] = (),
                       *, source: str = "--graph", paper: Iterable[tuple[str, str]] | None = None
                       ) -> ProximityGraph:
    """Parse the contract's GRAPH argument: ``empty``, ``complete``, ``file``, ``paper``
    (where the caller supplies the paper's graph), or ``p:q,r:s`` (names may contain ``-``).
    """
    ps = tuple(processes)
    t = text.strip()
    if t == "empty":
        return ProximityGraph.empty(ps)
    if t == "complete":
        return ProximityGraph.complete(ps)
    if t == "file":
        return ProximityGraph(ps, tuple(file_edges))
    if t == "paper":
        if paper is None:
            raise HistoryError("'paper' is only a graph for scenarios", source)
        return ProximityGraph(ps, tuple(paper))
    edges: list[list[str]] = []
    for part in t.split(","):
        part = part.strip()
        if not part:
            continue
        if part.count(":") != 1:
            raise HistoryError(
                f"edge {part!r} is not of the form p:q (GRAPH is empty, complete, file, or p:q,r:s)",
                source)
        a, b = part.split(":")
        edges.append([a.strip(), b.strip()])
    if not edges:
        raise HistoryError(f"{text!r} names no edge", source)
    return ProximityGraph(ps, parse_edge_list(edges, ps, source))


def graph_of(history: History) -> ProximityGraph:
    """The graph stored in the history file."""
    return ProximityGraph(history.processes, history.edges)
