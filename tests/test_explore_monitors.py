"""The search with broadcast monitors (``--option monitors=true``: the delivery logs
replaced by the monitor's state, fisheye.impl.broadcast_monitor) against the full-log
search it reduces: the terminal states of the monitor search are exactly the images of
the full search's under h (logs -> monitor state), each judged alike, hence the same
verdict, violated properties, complete-run histories and deadlocks; along random walks
of fig6, h commutes with every step; a violation found by a monitor comes out as a
counterexample whose text names the messages and processes (replayed with full logs)."""

from __future__ import annotations

import json
import random

import pytest
from small_programs import SEEDS, small_configuration

from fisheye.checker.cli import main
from fisheye.checker.explore import make_context, run
from fisheye.impl.broadcast_monitor import MonitorSpec
from fisheye.impl.protocol_state import GlobalState, MonitoredState

PBN = "paris-berlin-newyork"
MON = (("monitors", True),)


def strip(state):
    """The protocol part of a state: logs and monitor dropped."""
    return GlobalState(tuple(ps._replace(log=()) for ps in state.procs), state.channels)


def h(spec: MonitorSpec, state):
    """The monitor search's image of a full-log state."""
    p = strip(state)
    return MonitoredState(p.procs, p.channels, spec.of_logs([ps.log for ps in state.procs]))


def terminals(ctx, kernel):
    seen: dict = {}
    report = run(ctx, kernel=kernel, model=None, on_terminal=lambda s, k: seen.__setitem__(s, k))
    return report, seen


def judged(ctx, state, kind):
    return set(ctx.judge(state, kind == "final").failed_names())


def same_search(scenario, graph, *, kernel="compiled", **kw) -> tuple[dict, dict]:
    """Both searches; assert that h maps the full search's terminal states onto the
    monitor search's, kinds and judgements kept; return both reports."""
    full_ctx = make_context(scenario, graph, **kw)
    mon_ctx = make_context(scenario, graph, options=MON, **kw)
    full, full_t = terminals(full_ctx, kernel)
    mon, mon_t = terminals(mon_ctx, kernel)
    spec = mon_ctx.system.monitor
    image: dict = {}
    for s, kind in full_t.items():
        t = h(spec, s)
        assert mon_t.get(t) == kind, (s, t)
        assert judged(full_ctx, s, kind) == judged(mon_ctx, t, kind), s
        image[t] = kind
    assert image == mon_t
    assert full["complete"] and mon["complete"]
    assert mon["states"] <= full["states"]
    assert mon["terminal_states"] == sum(k == "final" for k in mon_t.values())
    for key in ("histories", "outcomes", "pruned"):
        assert mon[key] == full[key], key
    assert {v["violates"] for v in mon["violations"]} == {v["violates"] for v in full["violations"]}
    assert ({strip(s) for s, k in mon_t.items() if k == "deadlock"}
            == {strip(s) for s, k in full_t.items() if k == "deadlock"})
    return full, mon


@pytest.mark.parametrize("graph,variant", [("empty", "corrected"), ("paper", "corrected"),
                                           ("paper", "published"), ("complete", "corrected")])
def test_monitor_search_is_the_full_search_on_pbn(graph, variant):
    full, mon = same_search(PBN, graph, variant=variant)
    if graph == "empty":
        assert mon["states"] < full["states"] / 3          # 10,882 of 40,301
    if variant == "published":
        assert mon["violations"]


@pytest.mark.parametrize("seed", SEEDS)
def test_monitor_search_is_the_full_search_on_random_programs(seed):
    prog, graph = small_configuration(seed)
    for variant in ("corrected", "published"):
        same_search(prog, graph, variant=variant, kernel="python")


TWO = "p0: write(X,1), read(X); p1: write(X,2), read(X)"
THREE = "p0: write(X,1), read(Y); p1: write(Y,2), read(X); p2: read(X)"


@pytest.mark.parametrize("mutant", ["opposite-tie-break", "no-catch-up", "no-t1", "no-t2",
                                    "write-returns-early"])
def test_monitor_search_is_the_full_search_under_every_mutant(mutant):
    for prog in (TWO, THREE):
        same_search(prog, "p0:p1", mutant=mutant, kernel="python")


def test_monitor_search_finds_g_delivery_order_and_causal_order_violations():
    # the opposite tie break on an edge breaks G-delivery order; the published variant
    # breaks causal order (docs/algorithm1-correction.md)
    _, mon = same_search(TWO, "p0:p1", mutant="opposite-tie-break")
    assert "G-delivery order" in {v["violates"] for v in mon["violations"]}
    _, mon = same_search(PBN, "paper", variant="published")
    assert "causal order" in {v["violates"] for v in mon["violations"]}


@pytest.mark.parametrize("graph", ["empty", "paper"])
def test_h_commutes_with_every_step_on_random_walks_of_fig6(graph):
    full_ctx = make_context("fig6", graph)
    mon_ctx = make_context("fig6", graph, options=MON)
    spec = mon_ctx.system.monitor
    rng = random.Random(3)
    steps = 0
    for _ in range(30):
        s, t = full_ctx.system.initial(), mon_ctx.system.initial()
        while True:
            assert h(spec, s) == t
            en = full_ctx.steps(s)
            assert list(en) == list(mon_ctx.steps(t))
            if not en:
                break
            step = rng.choice(list(en))
            s, t = full_ctx.system.apply(s, step), mon_ctx.system.apply(t, step)
            steps += 1
    assert steps > 300


def test_a_monitor_violation_is_saved_with_the_messages_and_processes_named(tmp_path, capsys):
    out = tmp_path / "cx"
    code = main(["explore", PBN, "--variant", "published", "--option", "monitors=true", "--model", "none",
                 "--save", str(out), "--json"])
    assert code == 1
    report = json.loads(capsys.readouterr().out)
    assert report["violations"][0]["violates"] == "causal order"
    (saved,) = sorted(out.glob("*.json"))[:1]
    cx = json.loads(saved.read_text())
    assert cx["violates"] == "causal order"
    assert "~>M" in cx["details"] and "delivered" in cx["details"], cx["details"]
    assert cx["delivery_logs"] and any(cx["delivery_logs"].values())
    assert cx["options"] == {"monitors": True} and "--option monitors=true" in cx["search"]
    assert main(["explain", str(saved)]) == 0
    assert "Replayed: causal order: " in capsys.readouterr().out
