"""The per-process protocol API (impl/actors.py): Algorithm 2 over Algorithm 1 written
as one process's handlers (TocoSystem.actor()) and put on the generic network by
ActorSystem is the protocol-level system itself, step for step: the same enabled steps
in the same order, the same successors, the same final states and histories, on every
reachable state.  Crash-stop processes (CrashStopSystem): crash and lose steps, messages
to a crashed process dropped, the crash budget."""

from __future__ import annotations

import random

import pytest

from fisheye.impl.actors import Actor, ActorSystem, Crashed, CrashStopSystem
from fisheye.impl.api import CrashStop, MessagePassing, Network, Step, System, replay
from fisheye.impl.programs import random_edges, random_program
from fisheye.impl.system import make_system


def generic(system):
    return ActorSystem(system.actor(), system.processes, name="toco", graph=system.graph,
                       network=system.network, initial=dict(system.program.initial))


def compare_everywhere(system, limit: int = 20_000) -> int:
    g = generic(system)
    assert g.initial() == system.initial()
    seen = {system.initial()}
    frontier = list(seen)
    while frontier and len(seen) < limit:
        nxt = []
        for s in frontier:
            steps = system.enabled(s)
            assert g.enabled(s) == steps
            assert g.is_final(s) == system.is_final(s)
            if not steps:
                assert g.history(s) == system.history(s)
                assert g.delivery_logs(s) == system.delivery_logs(s)
            for step in steps:
                t = system.apply(s, step)
                assert g.apply(s, step) == t
                if t not in seen:
                    seen.add(t)
                    nxt.append(t)
        frontier = nxt
    return len(seen)


@pytest.mark.parametrize("scenario, graph, network, variant, mutant", [
    ("paris-berlin-newyork", "paper", "fifo", "corrected", None),
    ("paris-berlin-newyork", "empty", "unordered", "published", None),
    ("fig6", "paper", "fifo", "corrected", "no-t2"),
])
def test_the_actor_is_the_system(scenario, graph, network, variant, mutant):
    system = make_system(scenario, graph, network=network, variant=variant, mutant=mutant)
    assert compare_everywhere(system, limit=3_000) > 100


def test_random_programs_step_for_step():
    rng = random.Random(11)
    for _ in range(6):
        prog = random_program(rng, 3, max_ops=2)
        system = make_system(prog, random_edges(rng, prog.processes),
                             network=rng.choice(("fifo", "unordered")))
        compare_everywhere(system, limit=2_000)


def test_an_actor_system_keeps_the_contract():
    g = generic(make_system("fig6"))
    assert isinstance(g, System) and isinstance(g, MessagePassing)
    assert g.network is Network.FIFO and g.info.algorithm == "toco"
    assert [p.name for p in g.properties()] == ["sc", "deadlock", "complete run"]


# ---- crash-stop processes (CrashStopSystem) ------------------------------------------------

class Ping(Actor):
    """p sends m0 then m1 to q; q logs what it receives."""

    def init(self, me):
        return (0, ())

    def can_invoke(self, me, local):
        return me == "p" and local[0] < 2

    def has_program(self, me, local):
        return self.can_invoke(me, local)

    def on_invoke(self, me, local):
        return (local[0] + 1, local[1]), [("q", f"m{local[0]}")]

    def on_receive(self, me, local, src, msg):
        return (local[0], local[1] + (msg,)), []

    def delivery_log(self, me, local):
        return local[1]

    def on_crash(self, me, local):
        return (-1, local[1])


def ping(**kw):
    return CrashStopSystem(Ping(), ("p", "q"), name="ping", model=None, **kw)


def test_a_crash_stops_a_process_and_its_messages_may_be_lost():
    s = ping(crashes=1)
    assert isinstance(s, CrashStop) and not isinstance(s, MessagePassing)
    assert s.enabled(s.initial()) == [Step("op", "p"), Step("crash", "p"), Step("crash", "q")]
    sent = replay(s, [Step("op", "p"), Step("crash", "p")])
    assert sent.procs[0] == Crashed((-1, ())) and s.crashed(sent) == {"p"}
    assert s.enabled(sent) == [Step("recv", "q", "p"), Step("lose", "q", "p")]   # budget spent: no crash q
    assert s.delivery_logs(s.apply(sent, Step("recv", "q", "p")))["q"] == ("m0",)
    lost = s.apply(sent, Step("lose", "q", "p"))
    assert not any(lost.channels) and s.enabled(lost) == [] and s.is_final(lost)
    with pytest.raises(ValueError, match="at most 1 crashes"):
        s.apply(sent, Step("crash", "q"))
    with pytest.raises(ValueError, match="has crashed"):
        s.apply(sent, Step("op", "p"))


def test_messages_to_a_crashed_process_are_dropped():
    s = ping(crashes=1)
    state = replay(s, [Step("op", "p"), Step("crash", "q")])
    assert not any(state.channels)                      # the copy in transit to q is discarded
    state = s.apply(state, Step("op", "p"))
    assert not any(state.channels)                      # and later ones are never sent
    assert s.enabled(state) == [] and s.delivery_logs(state) == {"p": (), "q": ()}


def test_crashable_processes_and_independent_crashes():
    from fisheye.checker.explore.reduction import kind_of

    shared, one = ping(crashes=1), ping(crashes=1, crashable=("p",))
    assert not shared.independent_crashes and kind_of(shared, "auto") == "none"
    assert one.independent_crashes and kind_of(one, "auto") == "process"
    assert Step("crash", "q") not in one.enabled(one.initial())
    assert not one.may_crash(one.initial(), "q") and one.may_crash(one.initial(), "p")
    with pytest.raises(ValueError, match="unknown processes"):
        ping(crashes=1, crashable=("zz",))


def test_deferred_internal_steps_need_a_deferrable_actor():
    with pytest.raises(ValueError, match="deferrable"):
        ping(crashes=1, internal="deferred")
    with pytest.raises(ValueError, match="internal steps fire"):
        ActorSystem(Ping(), ("p", "q"), name="ping", internal="sometimes")
