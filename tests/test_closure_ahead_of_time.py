"""The direct engine's kernels (:mod:`fisheye.checker.engines.closure_kernel`) compiled
ahead of time (:mod:`fisheye.checker.engines.ahead_of_time`) against numba's just-in-time
versions of the same functions: the same results on every kernel call that the direct
engine makes on the random histories of tests/test_kernel_modes.py (every model) and on
Algorithm 2 runs (the star models, their star search forced as in
tests/test_direct_star.py); and a large check loads the extension without importing
numba."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from fisheye.checker.engines import ahead_of_time, check, closure_kernel, compiled_kernel, direct_search
from fisheye.checker.engines.compiled_kernel import _KERNELS, jit
from fisheye.checker.result import Verdict

sys.path.insert(0, str(Path(__file__).parent))
sys.path.insert(0, str(Path(__file__).parent.parent / "bench"))
from histgen import alg2_history, procs_of, random_graph  # noqa: E402
from test_kernel_modes import MODELS, random_history  # noqa: E402

ROOT = Path(__file__).parent.parent
CLOSURE_KERNELS = [k for k in _KERNELS if k.py_func.__module__ == closure_kernel.__name__]


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """The closure kernels' extension, built into a fresh directory."""
    paths = ahead_of_time.build(CLOSURE_KERNELS, tmp_path_factory.mktemp("aot"))
    assert [p.name for p in paths] == [ahead_of_time.extension_path(closure_kernel.__name__).name]
    module = ahead_of_time.load(paths[0])
    assert module is not None
    return module


def _outcomes(monkeypatch, native: dict[str, Callable[..., Any]]) -> list[tuple]:
    """Verdict, certificate and witness of the direct engine, its closure kernels running
    the ``native`` functions (by name), on the random histories of
    tests/test_kernel_modes.py (every model) and on Algorithm 2 runs of 8 processes (the
    star models, their star search forced)."""
    for kernel in CLOSURE_KERNELS:
        monkeypatch.setattr(kernel, "_compiled", native[kernel.py_func.__name__])
    monkeypatch.setattr(compiled_kernel, "COMPILED_FROM", 0)
    cases = [(random_history(random.Random(seed)), model, None) for seed in range(40) for model in MODELS]
    for seed in range(6):
        rng = random.Random(seed)
        graph = random_graph(rng, procs_of(8), 0.3)
        history = alg2_history(rng, 8, 40 if seed < 3 else 90, 5, graph)
        cases += [(history, model, graph) for model in ("fisheye", "fisheye-2014")]
    out = []
    with monkeypatch.context() as star_only:
        star_only.setattr(direct_search._Solver, "_sc_first", lambda self, hb, rf: None)
        for history, model, graph in cases:
            result = check(history, model, graph, engine="direct")
            witness = result.witness.to_json(history) if result.witness is not None else None
            out.append((result.verdict, [r.text for r in result.certificate], witness))
    monkeypatch.undo()
    return out


def test_ahead_of_time_and_just_in_time_kernels_agree(built, monkeypatch):
    calls: Counter[str] = Counter()

    def counted(name: str) -> Callable[..., Any]:
        function = getattr(built, name)

        def call(*args: Any) -> Any:
            calls[name] += 1
            return function(*args)
        return call

    names = [kernel.py_func.__name__ for kernel in CLOSURE_KERNELS]
    ahead = _outcomes(monkeypatch, {name: counted(name) for name in names})
    assert sum(calls.values()) > 500 and len(calls) >= 8, calls  # the extension ran, many kernels
    just_in_time = _outcomes(monkeypatch, {k.py_func.__name__: jit(k) for k in CLOSURE_KERNELS})
    assert ahead == just_in_time
    assert {verdict for verdict, _, _ in ahead} == {Verdict.CONSISTENT, Verdict.VIOLATION}


CHECK = """
import json, sys
from fisheye.checker.engines import check
from fisheye.spec.history import load_history
history = load_history(sys.argv[1])
result = check(history, sys.argv[2], engine="direct")
print(json.dumps([result.verdict.value, "numba" in sys.modules, "llvmlite" in sys.modules]))
"""


@pytest.mark.parametrize("model", ["cc", "fisheye-2014"])
def test_a_large_check_loads_the_extension_and_no_numba(tmp_path, model):
    ahead_of_time.build(_KERNELS)  # as scripts/bootstrap.sh does (nothing when built)
    procs = [f"p{i}" for i in range(4)]
    ops: dict[str, list] = {p: [] for p in procs}
    for k in range(4 * compiled_kernel.COMPILED_FROM):  # each writes fresh values, reads its last
        p = procs[k % 4]
        ops[p] += [["w", "X", k + 1], ["r", "X", k + 1]]
    path = tmp_path / "h.json"
    path.write_text(json.dumps({"processes": procs, "graph": [["p0", "p1"]], "history": ops}))
    out = subprocess.run([sys.executable, "-c", CHECK, str(path), model], capture_output=True, text=True,
                         check=True, cwd=ROOT)
    assert json.loads(out.stdout) == ["consistent", False, False]
