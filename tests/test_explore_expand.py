"""The state-local core shared with the Spark engine: fingerprints stable across processes,
successors a deterministic function of the state."""

from __future__ import annotations

import os
import subprocess
import sys

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
