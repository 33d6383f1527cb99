"""The state-local core shared with the Spark engine: fingerprints stable across processes,
successors a deterministic function of the state."""

from __future__ import annotations

import os
import pickle
import subprocess
import sys

import pytest

from fisheye.checker.explore import fingerprint, make_context, successors
from fisheye.checker.explore.expand import encode

SNIPPET = (
    "from fisheye.checker.explore import make_context, successors, fingerprint\n"
    "ctx = make_context('{sc}', 'paper', level='{lvl}')\n"
    "s = ctx.system.initial()\n"
    "for _ in range(4):\n"
    "    s = [t for _, t in successors(ctx, s) if successors(ctx, t)][-1]\n"
    "print(fingerprint(s))\n"
)


def _walk(ctx, steps=4):
    s = ctx.system.initial()
    for _ in range(steps):
        s = [t for _, t in successors(ctx, s) if successors(ctx, t)][-1]
    return s


def test_fingerprints_are_the_same_in_another_process_with_another_hash_seed():
    for sc, lvl in (("paris-berlin-newyork", "protocol"), ("fig6", "abstract")):
        local = fingerprint(_walk(make_context(sc, "paper", level=lvl)))
        env = dict(os.environ, PYTHONHASHSEED="12345")
        out = subprocess.run([sys.executable, "-c", SNIPPET.format(sc=sc, lvl=lvl)], env=env,
                             capture_output=True, text=True, check=True)
        assert int(out.stdout) == local
        assert 0 <= local < 2 ** 64


def test_fingerprints_separate_the_states_of_a_whole_exploration():
    ctx = make_context("paris-berlin-newyork", "paper", level="abstract")
    seen, stack = {ctx.system.initial()}, [ctx.system.initial()]
    while stack:
        for _, t in successors(ctx, stack.pop()):
            if t not in seen:
                seen.add(t)
                stack.append(t)
    assert len(seen) == 1650
    assert len({fingerprint(s) for s in seen}) == len(seen)
    assert len({encode(s) for s in seen}) == len(seen)


def test_sets_encode_canonically():
    assert encode(frozenset({"b", "a", "c"})) == encode(frozenset({"c", "a", "b"}))
    assert encode((1, "1")) != encode(("1", 1)) and encode(True) != encode(1)


def test_successors_are_a_function_of_the_state():
    a = make_context("paris-berlin-newyork", "paper")
    b = make_context("paris-berlin-newyork", "paper")
    s = _walk(a, 6)
    assert s == _walk(b, 6)
    assert [st for st, _ in successors(a, s)] == [st for st, _ in successors(b, s)]
    assert {t for _, t in successors(a, s)} == {t for _, t in successors(b, s)}


def _all_states(ctx, limit=None):
    seen, stack = {ctx.system.initial()}, [ctx.system.initial()]
    while stack and (limit is None or len(seen) < limit):
        for _, t in successors(ctx, stack.pop()):
            if t not in seen:
                seen.add(t)
                stack.append(t)
    return seen


def test_the_state_codecs_are_canonical_and_invertible():
    from fisheye.checker.explore.codec import ComponentCodec, TaggedCodec
    from fisheye.impl.protocol_codec import ProtocolCodec

    for sc, g, lvl, kind in (("paris-berlin-newyork", "paper", "protocol", ProtocolCodec),
                             ("fig6", "complete", "protocol", ProtocolCodec),
                             ("paris-berlin-newyork", "paper", "abstract", TaggedCodec),
                             ("lcb3", None, "protocol", ComponentCodec)):
        ctx = (make_context(sc, g, algorithm="lcb", crashes=1) if sc == "lcb3"
               else make_context(sc, g, level=lvl))
        codec = ctx.codec
        assert isinstance(codec, kind)
        states = _all_states(ctx, limit=6000)
        data = {s: codec.encode(s) for s in states}
        assert len(set(data.values())) == len(states)              # distinct states, distinct bytes
        fresh = pickle.loads(pickle.dumps(codec))                   # no shared cache
        for s, b in data.items():
            back = fresh.decode(b)
            assert back == s and fresh.encode(back) == b and codec.encode(back) == b


def test_the_component_codec_takes_any_other_shape_apart():
    """A state that is not the system's named tuple of tuples gets the tagged form behind
    its own first byte: still one encoding per state, still invertible."""
    from fisheye.checker.explore.codec import ComponentCodec

    ctx = make_context("lcb3", None, algorithm="lcb", crashes=1)
    codec = ctx.codec
    assert isinstance(codec, ComponentCodec)
    s = ctx.system.initial()
    odd = (s, "other")
    assert codec.encode(s)[:1] == b"\x01" and codec.encode(odd)[:1] == b"\x00"
    assert codec.decode(codec.encode(odd)) == odd and codec.decode(codec.encode(s)) == s
    with pytest.raises(ValueError):
        codec.decode(codec.encode(s) + b"\x00")


def test_wide_integers_take_the_wide_form():
    from fisheye.impl.protocol_codec import ProtocolCodec

    ctx = make_context("paris-berlin-newyork", "paper")
    s = ctx.system.initial()
    p0 = s.procs[0]
    big = p0._replace(toco=p0.toco._replace(total=(300,) + p0.toco.total[1:]))
    t = s._replace(procs=(big,) + s.procs[1:])
    codec = ProtocolCodec(ctx.system.raw)
    assert codec.decode(codec.encode(t)) == t and codec.encode(t) != codec.encode(s)


def test_expansion_gives_encoded_successors_and_replayable_paths():
    from fisheye.checker.explore.expand import (
        INNER,
        expand_bytes,
        initial_bytes,
        replayable,
        schedule_of_path,
    )
    from fisheye.impl.api import replay

    ctx = make_context("paris-berlin-newyork", "paper")
    data, path = initial_bytes(ctx), []
    for _ in range(12):
        e = expand_bytes(ctx, data)
        assert e.kind == INNER and len(e.steps) == len(e.children) and e.record is None
        path.append(len(e.children) - 1)
        data = e.children[-1]
    steps = schedule_of_path(ctx, path)
    end = replay(ctx.system.raw, replayable(ctx, steps))
    assert ctx.codec.encode(ctx.system.canon(end)) == data
