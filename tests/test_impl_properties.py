"""Random schedules on random programs and graphs (2-5 processes, up to 4 operations each):
every complete run of the *corrected* Algorithm 1 + Algorithm 2 on FIFO channels
satisfies the five broadcast properties of section 4.1, and its register history is
fisheye-consistent for its graph -- sequentially consistent on the complete graph,
causally consistent on the empty graph -- per the checker (engine ``auto``)."""

from __future__ import annotations

import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fisheye.checker.engines import check
from fisheye.impl.programs import random_edges, random_program
from fisheye.impl.system import TocoSystem, make_system
from fisheye.spec.broadcast import PROPERTIES

SETTINGS = settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def random_complete_run(system: TocoSystem, rnd: random.Random):
    state = system.initial()
    steps = 0
    while True:
        enabled = system.enabled(state)
        if not enabled:
            return state, steps
        state = system.apply(state, rnd.choice(enabled))
        steps += 1


@st.composite
def systems(draw, graph_kind: str):
    seed = draw(st.integers(0, 2**32 - 1))
    n = draw(st.integers(2, 5 if graph_kind == "random" else 4))
    rng = random.Random(seed)
    program = random_program(rng, n, max_ops=4)
    if graph_kind == "random":
        graph = list(random_edges(rng, program.processes))
    else:
        graph = graph_kind
    return make_system(program, graph)


def _run_and_check(system: TocoSystem, rnd: random.Random, models: tuple[str, ...]) -> None:
    state, _ = random_complete_run(system, rnd)
    assert system.is_final(state), "deadlock in the corrected algorithm"
    assert system.broadcast_violations(state, complete=True) == []
    logs = system.delivery_logs(state)
    sent = [e.msg for log in logs.values() for e in log if e.kind == "broadcast"]
    assert len(sent) == sum(1 for ops in system.program.ops for o in ops if type(o).__name__ == "Write")
    history = system.history(state)
    assert len(history) == sum(len(ops) for ops in system.program.ops)
    for model in models:
        result = check(history, model, system.graph, engine="auto")
        assert result.verdict == "consistent", (model, history.to_json(), result.message)


@SETTINGS
@given(systems("random"), st.randoms(use_true_random=False))
def test_corrected_random_graph_fisheye(system, rnd):
    _run_and_check(system, rnd, ("fisheye",))


@SETTINGS
@given(systems("complete"), st.randoms(use_true_random=False))
def test_corrected_complete_graph_sc(system, rnd):
    _run_and_check(system, rnd, ("sc", "fisheye"))


@SETTINGS
@given(systems("empty"), st.randoms(use_true_random=False))
def test_corrected_empty_graph_cc(system, rnd):
    _run_and_check(system, rnd, ("cc",))


def test_properties_cover_the_five_of_section_4_1():
    assert PROPERTIES == ("validity", "integrity", "G-delivery order", "causal order", "termination")


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 2**32 - 1), st.randoms(use_true_random=False))
def test_corrected_larger_systems(seed, rnd):
    """Random schedules on larger systems (6-7 processes, up to 5
    operations each, three registers, random graph)."""
    rng = random.Random(seed)
    program = random_program(rng, rng.randint(6, 7), max_ops=5, registers="XYZ")
    system = make_system(program, list(random_edges(rng, program.processes, 0.4)))
    _run_and_check(system, rnd, ("fisheye",))
