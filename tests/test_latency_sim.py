"""The latency simulator: its runs are runs of the algorithm (they replay with the step
API), latencies follow from the matrix on hand-computed cases, channels are FIFO, runs are
deterministic for a seed, and every produced history passes its model's check."""

from __future__ import annotations

import pytest

from fisheye.checker.engines import check
from fisheye.checker.latency import parse_config, run_latency
from fisheye.checker.latency.simulator import simulate, wire_size
from fisheye.checker.latency.systems import build_system, expected_models
from fisheye.checker.latency.workload import PlannedOp
from fisheye.impl.api import replay
from fisheye.spec.graph import ProximityGraph

PQR = ("p", "q", "r")
# p and q 10 ms apart (one way), r 50 ms from both
DELAYS = {("p", "q"): 10.0, ("q", "p"): 10.0, ("p", "r"): 50.0, ("r", "p"): 50.0,
          ("q", "r"): 50.0, ("r", "q"): 50.0}
ONE_WRITE_THEN_READ = {"p": (PlannedOp("w", "X", 1, 5.0), PlannedOp("r", "X", None, 6.0)), "q": (), "r": ()}


def fixed_delay(src: str, dst: str) -> float:
    return DELAYS[(src, dst)]


def graph(*edges: tuple[str, str]) -> ProximityGraph:
    return ProximityGraph.of(PQR, edges)


COMPLETE = graph(("p", "q"), ("p", "r"), ("q", "r"))


def one_write(algorithm: str, g: ProximityGraph, processing_ms: float):
    system = build_system(algorithm, g, ONE_WRITE_THEN_READ)
    return simulate(system, ONE_WRITE_THEN_READ, fixed_delay, processing_ms=processing_ms)


# ---- latencies from the matrix, computed by hand ------------------------------------------------
@pytest.mark.parametrize("g, processing_ms, expected", [
    # empty graph: the own message is deliverable at once (T1, T2 have no neighbour to
    # wait for): op step then deliver step
    (graph(), 0.0, 0.0),
    (graph(), 1.0, 2.0),
    # edge p-q: p waits for q's clock (Algorithm 1 line 23): TOCOBC p->q (10 ms), q's
    # CATCH_UP back (10 ms); with 1 ms per step: op, q's recv, p's recv, deliver
    (graph(("p", "q")), 0.0, 20.0),
    (graph(("p", "q")), 1.0, 24.0),
    # complete graph: p waits for r's CATCH_UP, a 100 ms round trip
    (COMPLETE, 0.0, 100.0),
    (COMPLETE, 1.0, 104.0),
])
def test_toco_write_latency_is_the_round_trip_to_the_farthest_neighbour(g, processing_ms, expected):
    run = one_write("toco", g, processing_ms)
    w, r = run.ops
    assert (w.kind, w.invoked_ms, w.latency_ms) == ("w", 5.0, expected)
    # the read arrived at 6 ms but its process was blocked by the write (Algorithm 2 line 4)
    assert (r.kind, r.value, r.invoked_ms, r.latency_ms) == ("r", 1, max(6.0, w.returned_ms), processing_ms)


@pytest.mark.parametrize("g", [graph(), COMPLETE])
@pytest.mark.parametrize("processing_ms, expected", [(0.0, 20.0), (1.0, 24.0)])
def test_lcb_write_waits_for_a_majority_whatever_the_graph(g, processing_ms, expected):
    """Uniform reliable broadcast with majority acknowledgements: 2 of 3 = p and q, whose
    relay comes back after 2 x 10 ms."""
    w, _ = one_write("lcb", g, processing_ms).ops
    assert w.latency_ms == expected


def test_messages_leave_when_their_step_ends_and_arrive_after_the_matrix_delay():
    run = one_write("toco", COMPLETE, 1.0)
    got = [(m.src, m.dst, m.kind, m.sent_ms, m.arrival_ms) for m in run.messages]
    assert got == [
        ("p", "q", "TOCOBC", 6.0, 16.0), ("p", "r", "TOCOBC", 6.0, 56.0),   # op step 5-6
        ("q", "p", "CATCH_UP", 17.0, 27.0), ("q", "r", "CATCH_UP", 17.0, 67.0),  # recv at q 16-17
        ("r", "p", "CATCH_UP", 57.0, 107.0), ("r", "q", "CATCH_UP", 57.0, 107.0),
    ]
    assert all(m.size == wire_size(("CATCH_UP", 1)) for m in run.messages if m.kind == "CATCH_UP")


def test_fifo_a_message_never_overtakes_the_one_ahead_of_it():
    """Jitter makes a later message's own delay shorter; FIFO holds it back."""
    delays = iter([30.0, 1.0] + [5.0] * 100)
    plan = {"p": (PlannedOp("w", "X", 1, 0.0), PlannedOp("w", "X", 2, 0.0)), "q": ()}
    g = ProximityGraph.of(("p", "q"), ())
    run = simulate(build_system("toco", g, plan), plan, lambda a, b: next(delays))
    pq = [m for m in run.messages if (m.src, m.dst) == ("p", "q")]
    assert [m.arrival_ms for m in pq] == [30.0, 30.0]  # the second would have arrived at 1.0


# ---- runs of the algorithm, histories checked ---------------------------------------------------
SMALL = {
    "placement": {"a1": "A", "a2": "A", "b1": "B", "b2": "B", "c1": "C"},
    "one_way_ms": {"A": {"B": 8, "C": 60}, "B": {"C": 55}},
    "jitter": {"distribution": "exponential", "ms": 2},
    "processing_ms": 0.1,
    "workload": {"ops_per_second": 12, "write_ratio": 0.5, "registers": 3, "zipf": 1.0},
    "duration_s": 1,
}


@pytest.mark.parametrize("algorithm", ["toco", "lcb"])
@pytest.mark.parametrize("graph_text", ["empty", "sites", "near:10", "complete"])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_every_run_replays_with_the_step_api_and_passes_its_models(algorithm, graph_text, seed):
    cfg = parse_config({**SMALL, "algorithm": algorithm})
    rep = run_latency(cfg, graph_text, seed=seed, models=("sc", "fisheye", "cc"))
    run = rep.run
    assert run.complete
    assert len(run.ops) == sum(len(ops) for ops in rep.plan.values()) > 0
    # the schedule is a run of the system: replay reaches the very same final state
    assert replay(rep.system, run.schedule) == run.state
    assert list(run.times) == sorted(run.times)
    for m in expected_models(algorithm, rep.graph):
        assert rep.verdicts[m] == "consistent", (m, rep.history.to_json())
    # and the checker agrees on the history read back from the replayed state
    again = rep.system.history(replay(rep.system, run.schedule))
    assert check(again, "cc", rep.graph).verdict.value == "consistent"


def test_fifo_and_delays_on_a_whole_run():
    cfg = parse_config({**SMALL, "jitter": {"distribution": "none"}})
    rep = run_latency(cfg, "sites", seed=3)
    last: dict[tuple[str, str], float] = {}
    for m in rep.run.messages:
        assert m.arrival_ms >= m.sent_ms + cfg.one_way_ms(m.src, m.dst)
        assert m.arrival_ms >= last.get((m.src, m.dst), 0.0)
        last[(m.src, m.dst)] = m.arrival_ms
    # with no jitter a message is late only behind another one on its channel
    late = [m for m in rep.run.messages if m.arrival_ms > m.sent_ms + cfg.one_way_ms(m.src, m.dst)]
    assert all(any(o.arrival_ms == m.arrival_ms and o.sent_ms < m.sent_ms and (o.src, o.dst) == (m.src, m.dst)
                   for o in rep.run.messages) for m in late)


def test_the_graph_orders_write_latencies_as_the_paper_says():
    """Empty graph: a write is an op step and a delivery step (0.1 ms each); sites: at
    most a round trip inside the site (0.25 ms one way) plus queueing, never an inter-site
    delay (8 ms one way at least); complete: a round trip to the farthest site (C is 55 to
    60 ms one way from the others) for most writes."""
    cfg = parse_config({**SMALL, "jitter": {"distribution": "none"}})
    w = {g: [o.latency_ms for o in run_latency(cfg, g, seed=0).run.ops if o.kind == "w"]
         for g in ("empty", "sites", "complete")}
    assert sorted(w["empty"])[len(w["empty"]) // 2] == pytest.approx(0.2)
    assert max(w["empty"]) < 1.0
    assert max(w["sites"]) < 8.0
    # most writes wait for the farthest site's clock; a few find every clock already
    # past their timestamp (Algorithm 1 line 23) and return sooner
    assert sorted(w["complete"])[len(w["complete"]) // 2] >= 2 * 55


def test_a_run_is_deterministic_for_its_seed():
    cfg = parse_config(SMALL)
    a, b = run_latency(cfg, "sites", seed=5), run_latency(cfg, "sites", seed=5)
    assert a.run.schedule == b.run.schedule and a.run.times == b.run.times and a.measures == b.measures
    c = run_latency(cfg, "sites", seed=6)
    assert c.run.times != a.run.times


def test_the_same_seed_gives_every_graph_the_same_workload():
    cfg = parse_config(SMALL)
    assert run_latency(cfg, "empty", seed=4).plan == run_latency(cfg, "complete", seed=4).plan
