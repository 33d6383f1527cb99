"""The direct engine's kernels (:mod:`fisheye.checker.engines.closure_kernel`) run as
Python below a size threshold and compiled by numba above it: both give the same
verdicts, certificates and witnesses; a small check does not import numba."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from fisheye.checker.engines import check, closure_kernel
from fisheye.spec.history import History, load_history

EXAMPLES = Path(__file__).parent.parent / "examples"

MODELS = ("sc", "cc", "fisheye", "fisheye-2014")


def random_history(rnd: random.Random) -> History:
    """A small history over two registers: writes of fresh values, reads of a value
    written somewhere (or the initial 0), so that some are consistent and some not."""
    n = rnd.randint(2, 4)
    procs = [f"p{i}" for i in range(n)]
    writes: dict[str, list[int]] = {"X": [0], "Y": [0]}
    fresh = 1
    plan: dict[str, list[tuple]] = {p: [] for p in procs}
    for _ in range(rnd.randint(4, 14)):
        p, reg = rnd.choice(procs), rnd.choice("XY")
        if rnd.random() < 0.5:
            plan[p].append(("w", reg, fresh))
            writes[reg].append(fresh)
            fresh += 1
        else:
            plan[p].append(("r", reg, None))
    history = {p: [(k, reg, v if v is not None else rnd.choice(writes[reg])) for k, reg, v in ops]
               for p, ops in plan.items()}
    edges = [(procs[0], procs[1])]
    return History.build(history, processes=procs, edges=edges)


def _outcome(history: History, model: str) -> tuple:
    result = check(history, model, engine="direct")
    witness = result.witness.to_json(history) if result.witness is not None else None
    return result.verdict, [r.text for r in result.certificate], witness


@pytest.mark.parametrize("seed", range(40))
def test_python_and_compiled_kernels_agree(seed, monkeypatch):
    history = random_history(random.Random(seed))
    for model in MODELS:
        monkeypatch.setattr(closure_kernel, "COMPILED_FROM", 10**9)
        python = _outcome(history, model)
        monkeypatch.setattr(closure_kernel, "COMPILED_FROM", 0)
        compiled = _outcome(history, model)
        assert python == compiled, (seed, model)


def test_the_threshold_chooses_the_kernels(monkeypatch):
    calls: list[bool] = []
    real = closure_kernel.Kernel.__call__

    def spy(self, *args):
        calls.append(closure_kernel.Kernel.compiled_now)
        return real(self, *args)

    monkeypatch.setattr(closure_kernel.Kernel, "__call__", spy)
    history = load_history(EXAMPLES / "fig4.json")
    check(history, "cc", engine="direct")
    assert calls and not any(calls)  # a small history: Python
    monkeypatch.setattr(closure_kernel, "COMPILED_FROM", 1)
    calls.clear()
    check(history, "cc", engine="direct")
    assert calls and all(calls)
    assert closure_kernel.Kernel.compiled_now  # restored after the check
