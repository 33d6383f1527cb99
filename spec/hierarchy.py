"""The hierarchy of the consistency models, as data: which model implies which, on which
graphs, so that a report can say, of the models a history violates, the weakest, and
which others the violation implies (and of the models it satisfies, which weaker ones
follow).

A model *instance* is a model name with, for the models defined on a proximity graph
(``fisheye``, ``fisheye-2014``, ``fisheye-lin``), the graph.  The implications
(:data:`IMPLICATIONS`), each with where it comes from:

* ``lin`` ⇒ ``sc`` (Herlihy and Wing: a linearization is a legal sequence respecting
  process order; section 2 of the 2015 text contrasts the two);
* ``sc`` ⇒ ``fisheye(G)`` ⇒ ``cc`` for every G (section 3.2 of the 2015 text: G-fisheye
  (SC,CC)-consistency lies between SC and CC, the SC order giving every view and the
  star order);
* ``fisheye(G)`` ⇒ ``fisheye(G')`` for G' ⊆ G (section 3.2: the condition is asked for
  every edge of G);
* ``fisheye-2014(G)`` ⇒ ``fisheye(G)`` (the 2014 report asks the star order to be total
  on all operations of two neighbours, the 2015 text on their writes only);
* ``fisheye-2014(G)`` ⇒ ``fisheye-2014(G')`` for G' ⊆ G;
* ``lin`` ⇒ ``fisheye-lin(G)`` ⇒ ``sc`` for every G, and ``fisheye-lin(G)`` ⇒
  ``fisheye-lin(G')`` for G' ⊆ G (section 6's G-fisheye (LIN,SC): SC plus the real-time
  order between neighbours).

Implications compose: :func:`implies` is their transitive closure.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import StrEnum

from .graph import ProximityGraph

GRAPH_MODELS = frozenset({"fisheye", "fisheye-2014", "fisheye-lin"})


class Graphs(StrEnum):
    """How the graphs of an implication's two sides relate: ``any`` (the implication
    holds whatever the graphs), ``same`` (the same graph), ``subgraph`` (the weaker
    side's graph is a subgraph of the stronger side's)."""

    ANY = "any"
    SAME = "same"
    SUBGRAPH = "subgraph"


@dataclass(frozen=True)
class Implication:
    stronger: str
    weaker: str
    graphs: Graphs
    source: str


IMPLICATIONS: tuple[Implication, ...] = (
    Implication("lin", "sc", Graphs.ANY, "Herlihy and Wing; 2015 text, section 2"),
    Implication("sc", "fisheye", Graphs.ANY, "2015 text, section 3.2"),
    Implication("fisheye", "cc", Graphs.ANY, "2015 text, section 3.2"),
    Implication("fisheye", "fisheye", Graphs.SUBGRAPH, "2015 text, section 3.2 (a condition per edge)"),
    Implication("fisheye-2014", "fisheye", Graphs.SAME, "2014 report, section 3.2 (all operations, not "
                "only writes)"),
    Implication("fisheye-2014", "fisheye-2014", Graphs.SUBGRAPH, "2014 report, section 3.2 (a condition per "
                "edge)"),
    Implication("lin", "fisheye-lin", Graphs.ANY, "2015 text, section 6"),
    Implication("fisheye-lin", "sc", Graphs.ANY, "2015 text, section 6"),
    Implication("fisheye-lin", "fisheye-lin", Graphs.SUBGRAPH, "2015 text, section 6 (a condition per edge)"),
)


@dataclass(frozen=True)
class Instance:
    """A model, with its graph when it is defined on one (None otherwise)."""

    model: str
    graph: ProximityGraph | None = None

    def __post_init__(self) -> None:
        if (self.model in GRAPH_MODELS) != (self.graph is not None):
            need = "needs a" if self.model in GRAPH_MODELS else "takes no"
            raise ValueError(f"model {self.model!r} {need} graph")

    def __str__(self) -> str:
        if self.graph is None:
            return self.model
        return f"{self.model}({self.graph.describe()})"


def instance(model: str, graph: ProximityGraph) -> Instance:
    """``model`` on ``graph`` (the graph dropped for a model defined without one)."""
    return Instance(str(model), graph if str(model) in GRAPH_MODELS else None)


_NO_GRAPH = ProximityGraph((), ())


def _step(a: Instance, rule: Implication, target: Instance) -> Instance | None:
    """The instance ``rule`` derives from ``a``, aiming at ``target``'s graph."""
    if rule.stronger != a.model:
        return None
    if rule.weaker not in GRAPH_MODELS:
        return Instance(rule.weaker)
    if rule.graphs is Graphs.SAME:
        return Instance(rule.weaker, a.graph)
    goal = target.graph if target.graph is not None else a.graph
    if goal is None:
        # from a graph-free model, on the way to a graph-free one: an "any graph" rule
        # holds on every graph, the empty one included
        if rule.graphs is not Graphs.ANY:
            return None
        goal = _NO_GRAPH
    if rule.graphs is Graphs.SUBGRAPH:
        assert a.graph is not None
        return Instance(rule.weaker, goal) if goal.is_subgraph_of(a.graph) else None
    return Instance(rule.weaker, goal)


def implies(a: Instance, b: Instance) -> bool:
    """Whether every history satisfying ``a`` satisfies ``b``, by the implications."""
    if a == b or (a.model == b.model and a.graph is not None and b.graph is not None
                  and a.graph.edge_set == b.graph.edge_set):
        return True
    seen = {a}
    frontier = [a]
    while frontier:
        cur = frontier.pop()
        for rule in IMPLICATIONS:
            nxt = _step(cur, rule, b)
            if nxt is None or nxt in seen:
                continue
            if nxt.model == b.model and (nxt.graph is None or nxt.graph.edge_set == b.graph.edge_set):  # type: ignore[union-attr]
                return True
            seen.add(nxt)
            frontier.append(nxt)
    return False


@dataclass(frozen=True)
class Summary:
    """What a set of verdicts says once the hierarchy is applied.

    ``weakest_violated``: the violated instances that imply no other violated one (the
    most informative violations); ``implied_violated``: the instances not checked (of
    ``universe``) that the violations imply are violated too (every model stronger than
    a violated one); ``implied_satisfied``: the instances not checked that the satisfied
    ones imply hold."""

    weakest_violated: tuple[Instance, ...]
    implied_violated: tuple[Instance, ...]
    implied_satisfied: tuple[Instance, ...]


def summarise(violated: Iterable[Instance], satisfied: Iterable[Instance],
              universe: Sequence[Instance] = ()) -> Summary:
    """Apply the hierarchy to the checked instances (see :class:`Summary`)."""
    bad, good = list(violated), list(satisfied)
    weakest = tuple(v for v in bad if not any(w != v and implies(v, w) for w in bad))
    checked = set(bad) | set(good)
    rest = [u for u in universe if u not in checked]
    also_bad = tuple(u for u in rest if any(implies(u, v) for v in bad))
    also_good = tuple(u for u in rest if any(implies(g, u) for g in good))
    return Summary(weakest, also_bad, also_good)


def universe(graph: ProximityGraph, models: Iterable[str] = ("lin", "fisheye-lin", "sc", "fisheye-2014",
                                                             "fisheye", "cc")) -> tuple[Instance, ...]:
    """Every model on ``graph`` (the graph dropped where a model takes none)."""
    return tuple(instance(m, graph) for m in models)
