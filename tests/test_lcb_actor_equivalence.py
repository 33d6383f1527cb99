"""The localized broadcast on the actor API (impl/lcb.py) is the former hand-written
system (impl/lcb_before.py) step for step: on every reachable state of the lcb
configurations the tests pin, the same enabled steps in the same order, the same
successors (up to the state representation: a crashed flag in each process becomes a
``Crashed`` entry, the crash counter their number), the same finality, histories,
delivery logs, LCURB verdicts and ``may_send``."""

from __future__ import annotations

import pytest

from fisheye.impl import lcb, lcb_before
from fisheye.impl.actors import Crashed, GlobalState
from fisheye.impl.programs import Program, Read, Write


def local(p):
    b = p.lcb
    return lcb.LcbProc(p.urb, lcb.LcbLocal(b.v_send, b.v_recv, b.lsn, b.pending), p.app, p.log)


def conv(old):
    procs = tuple(Crashed(local(p)) if p.crashed else local(p) for p in old.procs)
    assert old.crashes == sum(p.crashed for p in old.procs)
    return GlobalState(procs, old.chans)


def pair(scenario, crashes, mode="deferred", network="fifo", locality=None, crashable=None, memory=None):
    if memory is not None:
        prog = Program.of(memory)
        ps = prog.processes
        loc = {p: [q for q in ps if q != p] for p in ps}
        return (lcb_before.LcbSystem(ps, loc, lcb_before.MemoryApp(prog), urb_delivery=mode, crashes=crashes),
                lcb.LcbSystem(ps, loc, lcb.MemoryApp(prog), urb_delivery=mode, crashes=crashes))
    s = lcb.programs.scenario(scenario, "lcb")
    loc = dict(s.locality) if locality is None else locality
    old = lcb_before.LcbSystem(s.processes, loc, lcb_before.app_of(s), crashes=crashes, network=network,
                               urb_delivery=mode, name=s.name, crashable=crashable)
    new = lcb.LcbSystem(s.processes, loc, lcb.app_of(s), crashes=crashes, network=network,
                        urb_delivery=mode, name=s.name, crashable=crashable)
    return old, new


def compare(old, new):
    assert conv(old.initial()) == new.initial()
    seen = {old.initial()}
    frontier = list(seen)
    terminals = 0
    while frontier:
        nxt = []
        for s in frontier:
            t = conv(s)
            steps = old.enabled(s)
            assert new.enabled(t) == steps
            for q in old.processes:
                for p in old.processes:
                    if q != p:
                        assert new.may_send(t, q, p) == old.may_send(s, q, p)
            if not steps:
                terminals += 1
                assert new.is_final(t)
                assert new.history(t) == old.history(s)
                assert new.delivery_logs(t) == old.delivery_logs(s)
                assert [str(v) for v in new.broadcast_violations(t)] == [str(v) for v in old.broadcast_violations(s)]
            for step in steps:
                u = old.apply(s, step)
                assert new.apply(t, step) == conv(u)
                if u not in seen:
                    seen.add(u)
                    nxt.append(u)
        frontier = nxt
    return len(seen), terminals


@pytest.mark.parametrize("args, kwargs, counts", [
    (("lcb3", 0), {}, (316, 13)),
    (("lcb3", 1), {}, (2772, 119)),
    (("lcb3", 2), {}, (6730, 743)),
    (("lcb3", 2), {"mode": "lazy"}, (12441, 743)),
    (("lcb3", 1), {"mode": "lazy"}, (7865, 119)),
    (("lcb3", 0), {"mode": "eager"}, (106, 6)),
    (("lcb3", 1), {"locality": {}, "network": "unordered"}, (2934, 142)),
    (("lcb3", 0), {"locality": {}, "network": "unordered", "mode": "lazy"}, (1493, 16)),
    (("lcb3", 1), {"crashable": ("q",)}, None),
    (("lcb-mem3", 0), {}, (1930, 60)),
    (("lcb-dekker", 0), {}, (219, None)),
    ((None, 0), {"mode": "lazy", "memory": {"p": [Write("X", 1)], "q": [Read("X")], "r": []}}, None),
])
def test_the_actor_system_is_the_former_system(args, kwargs, counts):
    old, new = pair(*args, **kwargs)
    states, terminals = compare(old, new)
    if counts is not None:
        assert states == counts[0] and (counts[1] is None or terminals == counts[1])
