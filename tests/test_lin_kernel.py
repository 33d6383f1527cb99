"""The compiled linearizability search (:mod:`fisheye.checker.engines.lin_kernel`) against
the Python search it mirrors (:func:`fisheye.checker.engines.seqsearch.search`, the
reference): the same sequence (or none) and the same number of configurations, on every
history of tests/test_lin.py and on random ones, register by register and whole; and the
lin engine's other steps on arrays (:mod:`fisheye.checker.engines.lin_arrays`) against
their Python form."""

from __future__ import annotations

import random
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings

from fisheye.checker.engines import compiled
from fisheye.checker.engines.search_budget import Budget, BudgetExhausted
from fisheye.checker.engines.seqsearch import search
from fisheye.spec.history import History
from fisheye.spec.realtime import RealTimePairs
from fisheye.testing.strategies import timed_histories, timed_history

sys.path.insert(0, str(Path(__file__).parent))
sys.path.insert(0, str(Path(__file__).parent.parent / "bench"))
from bench_lin import jepsen_like  # noqa: E402
from test_lin import CASES, STALE  # noqa: E402


def _run(history: History, uids: list[int], from_ops: int, max_states: int = 50_000):
    """The search's answer and configurations explored, compiled iff the part has at
    least ``from_ops`` operations."""
    before = compiled.COMPILED_FROM
    compiled.COMPILED_FROM = from_ops
    budget = Budget(max_states=max_states)
    try:
        return search(history, uids, RealTimePairs.all(), budget), budget.states
    except BudgetExhausted:
        return "unknown", budget.states
    finally:
        compiled.COMPILED_FROM = before


def _agree(history: History) -> None:
    by_reg: dict[str, list[int]] = {}
    for op in history.ops:
        by_reg.setdefault(op.register, []).append(op.uid)
    for uids in [*by_reg.values(), list(range(len(history.ops)))]:
        python = _run(history, uids, 10**9)
        kernel = _run(history, uids, 0)
        assert kernel == python


@pytest.mark.parametrize("h", [STALE, *(case[1] for case in CASES)])
def test_on_the_hand_cases(h):
    _agree(h)
    _arrays_agree(h)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(h=timed_histories(max_ops=12, max_processes=4))
def test_on_random_small_histories(h):
    _agree(h)


@pytest.mark.parametrize("seed", range(12))
def test_on_random_histories_with_crashes(seed):
    rnd = random.Random(seed)
    h = timed_history(rnd, min_processes=3, max_processes=6, min_ops=30, max_ops=120,
                      registers=tuple("AB"), linearizable=seed % 2 == 0)
    _agree(h)
    _arrays_agree(h)


@pytest.mark.parametrize(("seed", "bad"), [(s, b) for s in range(3) for b in ("", "bad", "absent")])
def test_on_jepsen_like_histories(seed, bad):
    h = jepsen_like(seed, 900, 3, 6, 0.05, bad)
    _agree(h)
    _arrays_agree(h)


def test_a_budget_that_runs_out_runs_out_at_the_same_configuration():
    h = jepsen_like(4, 800, 1, 8, 0.05, "")
    uids = list(range(len(h.ops)))
    _, needed = _run(h, uids, 10**9)
    for cap in (1, needed // 2, needed - 1):
        assert _run(h, uids, 0, cap) == _run(h, uids, 10**9, cap) == ("unknown", cap + 1)


def test_large_searches_run_compiled(monkeypatch):
    from fisheye.checker.engines import lin_arrays

    calls = []
    real = lin_arrays.search_compiled
    monkeypatch.setattr(lin_arrays, "search_compiled", lambda *a: calls.append(1) or real(*a))
    h = jepsen_like(1, compiled.COMPILED_FROM * 2, 1, 4, 0.0, "")
    assert search(h, list(range(len(h.ops))), RealTimePairs.all(), Budget()) is not None
    assert calls == [1]


def _arrays_agree(history: History) -> None:
    """The lin engine's steps on arrays (:mod:`lin_arrays`) and in Python: the same
    registers' parts, the same unsourced operation, the same merged sequence."""
    from fisheye.checker.engines import lin
    from fisheye.checker.engines.lin_arrays import columns

    cols = columns(history)
    parts = lin._by_register(history, None)
    assert lin._by_register(history, cols) == parts
    assert lin._unsourced(history, cols) == lin._unsourced(history)
    chains = []
    for uids in parts:
        seq = search(history, uids, RealTimePairs.all(), Budget(max_states=50_000))
        if seq is None:
            return
        chains.append(seq)
    assert lin._merge(history, chains, cols) == lin._merge(history, chains)

