"""What a user's compiled kernel builds on (fisheye.impl.row_kernel): the process-level
persistent set against the explorer's (reduction.process_steps), the rows' fingerprint
compiled and with numpy; and assert_kernel_matches, which must catch a kernel that is
not its reference (kernels of examples/lww broken on purpose)."""

from __future__ import annotations

import random
import sys
from pathlib import Path

import numpy as np
import pytest

import fisheye
from fisheye.checker.explore.reduction import process_steps
from fisheye.impl.api import Step
from fisheye.impl.kernel_api import KernelBatch, KernelStatus
from fisheye.impl.row_kernel import persistent_processes, row_fingerprint, row_fingerprints, row_width
from fisheye.testing import VerificationFailure, assert_kernel_matches

LWW = Path(__file__).resolve().parent.parent / "examples" / "lww"


class Steps:
    """A system reduced to the steps it has enabled in one state."""

    def __init__(self, processes: tuple[str, ...], steps: list[Step]):
        self.processes, self.steps = processes, steps

    def enabled(self, state):
        return self.steps


def test_the_persistent_set_is_the_explorer_s_on_random_states():
    rng = random.Random(7)
    reduced = 0
    for _ in range(3000):
        n = rng.randint(1, 6)
        ps = tuple(f"p{i}" for i in range(n))
        steps, counts, receipt = [], np.zeros(n, dtype=np.int64), np.zeros(n * n, dtype=np.bool_)
        for i, p in enumerate(ps):
            if rng.random() < 0.5:
                steps.append(Step("op", p))
            steps.extend(Step("deliver", p, None, (k,)) for k in range(rng.choice((0, 0, 0, 1, 2))))
            for q in range(n):
                if q != i and rng.random() < 0.4:
                    steps.append(Step("recv", p, ps[q]))
                    receipt[q * n + i] = True
            counts[i] = sum(s.process == p for s in steps)
        may = np.array([rng.random() < 0.7 for _ in range(n * n)], dtype=np.bool_)
        expected = process_steps(Steps(ps, steps), None,
                                 may_send=lambda state, q, p, may=may, ps=ps, n=n:
                                 bool(may[ps.index(q) * n + ps.index(p)]))
        mask = persistent_processes(counts, receipt, may)
        got = [s for s in steps if (mask >> ps.index(s.process)) & 1]
        assert got == list(expected), (steps, may)
        reduced += len(got) < len(steps)
    assert reduced > 500          # the cases exercise the reduction, not only "everything"


def test_the_fingerprint_compiled_and_with_numpy_agree():
    rng = np.random.default_rng(3)
    for dtype in (np.int16, np.int32, np.int64):
        width = row_width(7, dtype)
        assert width * np.dtype(dtype).itemsize % 8 == 0 and width >= 7
        rows = rng.integers(-300, 300, size=(50, width)).astype(dtype)
        keys = row_fingerprints(rows)
        assert keys.dtype == np.uint64 and len(set(keys.tolist())) == 50
        assert [int(row_fingerprint(r)) for r in rows] == keys.tolist()


@pytest.fixture
def lww(monkeypatch):
    monkeypatch.syspath_prepend(str(LWW))
    import lww
    import lww_kernel

    yield lww, lww_kernel
    sys.modules.pop("lww", None)
    sys.modules.pop("lww_kernel", None)


def causal(lww):
    return lww.make(fisheye.SystemRequest("causal", system="lww:make"))


def test_a_kernel_without_the_reduction_is_caught(lww):
    mod, kernels = lww
    s = causal(mod)
    with pytest.raises(VerificationFailure, match=r"the reference has 3 successors \(op r, recv r <- p, "
                       r"recv r <- q\), the kernel 5 numbered \[0, 1, 2, 3, 4\]") as failed:
        assert_kernel_matches(s, kernel=kernels.LwwKernel(s, reduce=False))
    assert str(failed.value).endswith("reached by: op p, op q, op q")     # a shortest schedule
    assert assert_kernel_matches(s, reduction="none", kernel=kernels.LwwKernel(s, reduce=False)) == 247


def reversed_successors(base):
    class Reversed(base):
        def expand(self, states):
            b = super().expand(states)
            return KernelBatch(b.status, b.children[::-1], b.parent, b.step, b.keys[::-1])
    return Reversed


def final_states_expanded(base):
    class NeverDone(base):
        def expand(self, states):
            b = super().expand(states)
            return KernelBatch(np.zeros_like(b.status) + KernelStatus.INNER, b.children, b.parent, b.step,
                               b.keys)
    return NeverDone


def lossy_decoding(base):
    class Forgetful(base):
        def decode(self, row):
            state = super().decode(row)
            return state._replace(procs=tuple(p._replace(reads=()) for p in state.procs))
    return Forgetful


@pytest.mark.parametrize("broken, message", [
    (reversed_successors, "successor 0 .* in the reference"),
    (final_states_expanded, "reference's state is final, the kernel's status INNER"),
    (lossy_decoding, r"decode\(encode\(state\)\) is another state"),
])
def test_a_broken_kernel_is_caught(lww, broken, message):
    """Successors out of order, a final state expanded, a lossy encoding: each is a
    difference from the reference, named."""
    mod, kernels = lww
    s = causal(mod)
    with pytest.raises(VerificationFailure, match=message):
        assert_kernel_matches(s, kernel=broken(kernels.LwwKernel)(s, reduce=True))


def test_a_system_without_a_kernel_is_said_so():
    class Idle(fisheye.Actor):
        def init(self, me):
            return 0

    s = fisheye.ActorSystem(Idle(), ("p",), name="idle")
    with pytest.raises(VerificationFailure, match="offers no compiled kernel"):
        assert_kernel_matches(s)
