"""The direct engine's kernels (:mod:`fisheye.checker.engines.closure_kernel`) run as
Python below a size threshold and compiled by numba above it: both give the same
verdicts, certificates and witnesses; a small check does not import numba."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from fisheye.checker.engines import check, compiled_kernel, warm_up  # noqa: F401  (all kernels listed)
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
        monkeypatch.setattr(compiled_kernel, "COMPILED_FROM", 10**9)
        python = _outcome(history, model)
        monkeypatch.setattr(compiled_kernel, "COMPILED_FROM", 0)
        compiled = _outcome(history, model)
        assert python == compiled, (seed, model)


def test_the_threshold_chooses_the_kernels(monkeypatch):
    calls: list[bool] = []
    real = compiled_kernel.Kernel.__call__

    def spy(self, *args):
        calls.append(compiled_kernel.compiled_in_this_thread())
        return real(self, *args)

    monkeypatch.setattr(compiled_kernel.Kernel, "__call__", spy)
    history = load_history(EXAMPLES / "fig4.json")
    check(history, "cc", engine="direct")
    assert calls and not any(calls)  # a small history: Python
    monkeypatch.setattr(compiled_kernel, "COMPILED_FROM", 1)
    calls.clear()
    check(history, "cc", engine="direct")
    assert calls and all(calls)
    assert compiled_kernel.compiled_in_this_thread()  # the default again after the check


def test_each_thread_keeps_its_own_choice():
    """Two checks in two threads, interleaved: each runs its kernels as its own size
    chose, and neither leaves its choice behind (before, a thread's exit could restore
    the other's, and later checks of the process ran as Python)."""
    import threading

    entered, leave = threading.Barrier(2), threading.Barrier(2)
    seen: dict[int, list[bool]] = {}

    def run(operations: int, first_out: bool) -> None:
        with compiled_kernel.compiled_for(operations):
            entered.wait()
            seen[operations] = [compiled_kernel.compiled_in_this_thread()]
            if not first_out:
                leave.wait()
        if first_out:
            leave.wait()
        seen[operations].append(compiled_kernel.compiled_in_this_thread())

    threads = [threading.Thread(target=run, args=(1, True)),
               threading.Thread(target=run, args=(10**9, False))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert seen == {1: [False, True], 10**9: [True, True]}
    assert compiled_kernel.compiled_in_this_thread() and compiled_kernel.Kernel.compiled_now


BOOTSTRAP = Path(__file__).parent.parent / "scripts" / "bootstrap.sh"
WARM_UP = next(line for line in BOOTSTRAP.read_text().splitlines()
               if "warm_up()" in line and not line.startswith("#"))
"""The warm-up command of ``scripts/bootstrap.sh``, run after installing."""

FRESH_CHECK = """
import random, sys
sys.path.insert(0, {bench!r})
from histgen import cc_history
from fisheye.checker.engines import ahead_of_time, check, compiled_kernel, warm_up  # noqa: F401
ahead_of_time.function = lambda kernel: None  # as where no extension is built: numba's cache serves
history = cc_history(random.Random(7), 4, 400, 3)
assert len(history.ops) >= compiled_kernel.COMPILED_FROM
check(history, "cc", engine="direct")
hits, misses = compiled_kernel.cache_counts()
used = [k._jit for k in compiled_kernel._KERNELS if k._jit is not None]
print(hits, misses, len(used), used[0].stats.cache_path)
"""


def _fresh_check(env: dict[str, str]) -> tuple[int, int, int, str]:
    """In a new process, a cc check of a 400-operation history (compiled kernels, the
    extensions built ahead of time set aside: numba's cache is what serves where they are
    missing or stale): how many kernels it loaded from numba's cache, how many it
    compiled, how many it used, and where the cache is."""
    import subprocess
    import sys

    code = FRESH_CHECK.format(bench=str(Path(__file__).parent.parent / "bench"))
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    hits, misses, kernels, path = out.stdout.split(maxsplit=3)
    return int(hits), int(misses), int(kernels), path.strip()


def _warm_up(env: dict[str, str]) -> str:
    import subprocess
    import sys

    command = WARM_UP.replace(".venv/bin/python", sys.executable, 1)
    out = subprocess.run(command, shell=True, env=env, capture_output=True, text=True, check=True)
    return out.stderr


def test_after_the_warm_up_a_fresh_process_compiles_nothing(tmp_path):
    import os

    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path / "cache"))
    said = _warm_up(env)  # an empty cache: every kernel compiled, and stored
    assert f"{len(compiled_kernel._KERNELS)} kernels compiled" in said
    hits, misses, used, path = _fresh_check(env)
    assert used > 0 and (hits, misses) == (used, 0)
    assert path.startswith(str(tmp_path / "cache"))
    assert _warm_up(env) == ""  # quiet when cached


def test_the_cache_of_an_editable_install_or_a_clone_lies_beside_the_module():
    import os

    env = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"}
    _warm_up(env)
    hits, misses, used, path = _fresh_check(env)
    assert used > 0 and (hits, misses) == (used, 0)
    assert Path(path) == Path(compiled_kernel.__file__).parent / "__pycache__"
