"""Algorithm 2 (fast reads, writes wait for their own delivery) over the localized causal
broadcast instead of Algorithm 1: every complete history of small programs, checked
against cc and against fisheye with the graph of mutual locality."""

from __future__ import annotations

import pytest

from fisheye.checker.lcb_search import explore_memory
from fisheye.checker.result import Verdict
from fisheye.impl.lcb import make_lcb_system
from fisheye.spec.graph import ProximityGraph
from fisheye.spec.models import Model

PS = ("p", "q", "r")
COMPLETE = {p: {q for q in PS if q != p} for p in PS}


def shape(h):
    return {p: [op.short() for op in ops] for p, ops in h.by_process.items()}


def test_a_write_read_outside_the_locality_does_not_order_later_writes():
    """lcb-mem3: p is not in q's locality.  q reads X = 1 then writes Y; r may see Y = 1
    and then X = 0: neither causal consistency nor fisheye (whose graph here is empty)."""
    system = make_lcb_system("lcb-mem3", crashes=0)
    assert system.graph.edges == ()
    rep = explore_memory(system, models=("cc", "fisheye"))
    assert (rep.states, rep.terminal_states, rep.histories) == (1930, 60, 8)
    assert rep.verdicts == {Model.CC: {Verdict.CONSISTENT: 7, Verdict.VIOLATION: 1},
                            Model.FISHEYE: {Verdict.CONSISTENT: 7, Verdict.VIOLATION: 1}}
    assert all(type(v) is Verdict for counts in rep.verdicts.values() for v in counts)
    h, _ = rep.examples["cc"]
    assert shape(h) == {"p": ["w(X,1)"], "q": ["r(X)1", "w(Y,1)"], "r": ["r(Y)1", "r(X)0"]}


@pytest.mark.parametrize("locality, histories", [
    ({"q": {"p"}}, 7),   # p in q's locality is enough for this program
    (COMPLETE, 7),       # causal broadcast: causal consistency
])
def test_with_the_write_in_the_readers_locality_the_histories_are_causal(locality, histories):
    system = make_lcb_system("lcb-mem3", crashes=0, locality=locality)
    rep = explore_memory(system, models=("cc",))
    assert rep.histories == histories and rep.verdicts == {Model.CC: {Verdict.CONSISTENT: histories}}


def test_mutual_locality_does_not_give_fisheye():
    """lcb-dekker: p and q are in each other's locality (graph p-q), yet both may read 0:
    causal, but not fisheye (for an edge, the writes of p and q must be totally ordered
    as both see them: here SC)."""
    system = make_lcb_system("lcb-dekker", crashes=0)
    assert system.graph == ProximityGraph.of(("p", "q"), [("p", "q")])
    rep = explore_memory(system, models=("cc", "fisheye"))
    assert (rep.states, rep.histories) == (219, 4)
    assert rep.verdicts == {Model.CC: {Verdict.CONSISTENT: 4},
                            Model.FISHEYE: {Verdict.CONSISTENT: 3, Verdict.VIOLATION: 1}}
    h, _ = rep.examples["fisheye"]
    assert shape(h) == {"p": ["w(X,1)", "r(Y)0"], "q": ["w(Y,1)", "r(X)0"]}
