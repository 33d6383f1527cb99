"""The online broadcast monitor (fisheye.impl.broadcast_monitor) against the section 4.1
definitions on full delivery logs (fisheye.spec.broadcast): on random runs of random
event sequences, every prefix gets the same set of violated properties, with the run
taken as complete and as not."""

from __future__ import annotations

import random

import pytest

from fisheye.impl.broadcast_monitor import MonitorSpec
from fisheye.spec import broadcast as bspec
from fisheye.spec.graph import ProximityGraph

PROCS = ("p", "q", "r")


def random_run(rng: random.Random, counts: tuple[int, ...], length: int, unsent: float
               ) -> list[tuple[int, int, int]]:
    """Events ``(kind, process, message)`` in the order they happen: each message broadcast
    at most once, by its sender; a message delivered only after its broadcast, or never
    broadcast at all (a validity violation); deliveries in any order, duplicates included."""
    spec_sender = [i for i, c in enumerate(counts) for _ in range(c)]
    M = len(spec_sender)
    never = {g for g in range(M) if rng.random() < unsent}
    nxt = [sum(counts[:i]) for i in range(len(counts))]     # next message of each sender
    sent: set[int] = set()
    out = []
    for _ in range(length):
        senders = [i for i in range(len(counts)) if nxt[i] < sum(counts[:i + 1])
                   and nxt[i] not in never]
        deliverable = sorted(sent | never)
        if senders and (not deliverable or rng.random() < 0.35):
            i = rng.choice(senders)
            g = nxt[i]
            nxt[i] += 1
            while nxt[i] < sum(counts[:i + 1]) and nxt[i] in never:
                nxt[i] += 1
            sent.add(g)
            out.append((0, i, g))
        elif deliverable:
            out.append((1, rng.randrange(len(counts)), rng.choice(deliverable)))
    return out


def logs_of(spec: MonitorSpec, events) -> dict[str, list[bspec.Event]]:
    logs: dict[str, list[bspec.Event]] = {p: [] for p in spec.processes}
    for kind, p, g in events:
        logs[spec.processes[p]].append(bspec.Event(bspec.DELIVER if kind else bspec.BROADCAST,
                                                   spec.messages[g]))
    return logs


@pytest.mark.parametrize("edges", [(), (("p", "q"),), (("p", "q"), ("q", "r"), ("p", "r"))])
def test_monitor_judges_every_prefix_as_the_definitions(edges):
    graph = ProximityGraph.of(PROCS, edges)
    rng = random.Random(len(edges))
    seen: set[str] = set()
    for _ in range(400):
        counts = tuple(rng.randint(0, 3) for _ in PROCS)
        spec = MonitorSpec.of(PROCS, counts, graph)
        events = random_run(rng, counts, rng.randint(0, 14), rng.choice((0.0, 0.0, 0.3)))
        st = spec.initial()
        for k in range(len(events) + 1):
            if k:
                kind, p, g = events[k - 1]
                st = spec.on_deliver(st, p, g) if kind else spec.on_broadcast(st, g)
            logs = logs_of(spec, events[:k])
            for complete in (False, True):
                want = {v.prop for v in bspec.check(logs, graph, complete=complete)}
                got = set(spec.violated(st, complete=complete))
                assert got == want, (counts, events[:k], complete, got, want)
                seen |= got
        assert spec.fold(events) == st
        # a function of the per-process logs: any order of them gives the same state
        per = [[(k, spec.messages[g].sender, spec.messages[g].seq) for k, q, g in events if q == p]
               for p in range(len(PROCS))]
        per = [[(k, PROCS.index(s), q) for k, s, q in log] for log in per]
        assert spec.of_logs(per) == st
    # the runs exercise every property (G-delivery order needs an edge)
    assert seen >= set(bspec.PROPERTIES) - (set() if edges else {bspec.G_DELIVERY_ORDER})


def test_termination_names_a_process_and_a_message():
    spec = MonitorSpec.of(PROCS, (1, 0, 0), ProximityGraph.of(PROCS, ()))
    st = spec.fold([(0, 0, 0), (1, 0, 0), (1, 1, 0)])
    (v,) = spec.violations(st, complete=True)
    assert (v.prop, v.text, v.processes) == (bspec.TERMINATION, "r never delivered p#0", ("r",))
    assert spec.violations(st, complete=False) == []
    assert spec.unflat(st.flat()) == st and len(st.flat()) == spec.width
