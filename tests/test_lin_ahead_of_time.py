"""The linearizability kernel compiled ahead of time
(:mod:`fisheye.checker.engines.ahead_of_time`) against numba's just-in-time version of the
same function: the same outcome, configurations and sequence on every search of the lin
test suite's histories (tests/test_lin.py, and the Jepsen-like ones of
tests/test_lin_kernel.py); a stale extension is not used; a large check loads it without
importing numba."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from fisheye.checker.engines import ahead_of_time, compiled, lin_kernel
from fisheye.checker.engines.compiled_kernel import _KERNELS, jit
from fisheye.checker.engines.search_budget import Budget, BudgetExhausted
from fisheye.checker.engines.seqsearch import search
from fisheye.spec.history import History
from fisheye.spec.realtime import RealTimePairs

sys.path.insert(0, str(Path(__file__).parent))
sys.path.insert(0, str(Path(__file__).parent.parent / "bench"))
from bench_lin import jepsen_like  # noqa: E402
from test_lin import CASES, STALE  # noqa: E402

ROOT = Path(__file__).parent.parent


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """The kernel module's extension, built into a fresh directory."""
    out = tmp_path_factory.mktemp("aot")
    paths = ahead_of_time.build([k for k in _KERNELS if k.py_func.__module__ == lin_kernel.__name__], out)
    assert [p.name for p in paths] == [ahead_of_time.extension_path(lin_kernel.__name__).name]
    module = ahead_of_time.load(paths[0])
    assert module is not None
    return module


def _kernel_calls(history: History, max_states: int = 50_000) -> list[tuple]:
    """The arguments of every call of the kernel that searching each register and the
    whole of ``history`` makes."""
    calls: list[tuple] = []
    real = lin_kernel.lin_search
    before = compiled.COMPILED_FROM
    compiled.COMPILED_FROM = 0

    def record(*args):
        calls.append(args)
        return real(*args)

    lin_kernel.lin_search = record
    try:
        by_reg: dict[str, list[int]] = {}
        for op in history.ops:
            by_reg.setdefault(op.register, []).append(op.uid)
        for uids in [*by_reg.values(), list(range(len(history.ops)))]:
            try:
                search(history, uids, RealTimePairs.all(), Budget(max_states=max_states))
            except BudgetExhausted:
                pass
    finally:
        lin_kernel.lin_search = real
        compiled.COMPILED_FROM = before
    return calls


def _agree(built, history: History) -> None:
    calls = _kernel_calls(history)
    assert calls
    for args in calls:
        outcome, states, path = built.lin_search(*args)
        j_outcome, j_states, j_path = jit(lin_kernel.lin_search)(*args)
        assert (outcome, states) == (j_outcome, j_states)
        assert np.array_equal(path, j_path)


@pytest.mark.parametrize("h", [STALE, *(case[1] for case in CASES)])
def test_on_the_lin_suite(built, h):
    _agree(built, h)


@pytest.mark.parametrize(("seed", "bad"), [(s, b) for s in range(3) for b in ("", "bad", "absent")])
def test_on_jepsen_like_histories(built, seed, bad):
    _agree(built, jepsen_like(seed, 900, 3, 6, 0.05, bad))


def test_a_limit_cuts_both_at_the_same_configuration(built):
    args = _kernel_calls(jepsen_like(4, 800, 1, 8, 0.05, ""))[0]
    needed = jit(lin_kernel.lin_search)(*args)[1]
    for cap in (1, needed // 2, needed - 1):
        capped = (*args[:-1], cap)
        assert built.lin_search(*capped)[:2] == jit(lin_kernel.lin_search)(*capped)[:2] == (-1, cap)


def test_an_extension_built_for_another_source_is_not_used(tmp_path, monkeypatch):
    source = tmp_path / "kernels.py"
    source.write_text("x = 1\n")
    monkeypatch.setitem(sys.modules, "kernels_under_test", type(sys)("kernels_under_test"))
    sys.modules["kernels_under_test"].__file__ = str(source)
    before = ahead_of_time.extension_path("kernels_under_test")
    source.write_text("x = 2\n")
    assert ahead_of_time.extension_path("kernels_under_test") != before
    assert ahead_of_time.load(before) is None  # nothing there


CHECK = """
import json, sys
from fisheye.checker.engines import check
from fisheye.spec.history import load_history
result = check(load_history(sys.argv[1]), "lin")
print(json.dumps([result.verdict.value, "numba" in sys.modules, "llvmlite" in sys.modules]))
"""


def test_a_large_check_loads_the_extension_and_no_numba(tmp_path):
    ahead_of_time.build(_KERNELS)  # as scripts/bootstrap.sh does (nothing when built)
    history = jepsen_like(2, 4 * compiled.COMPILED_FROM, 2, 6, 0.05, "")
    path = tmp_path / "h.json"
    path.write_text(json.dumps(history.to_json()))
    out = subprocess.run([sys.executable, "-c", CHECK, str(path)], capture_output=True, text=True,
                         check=True, cwd=ROOT)
    assert json.loads(out.stdout) == ["consistent", False, False]
