"""The equality test of a system's compiled kernel against its Python form (the
reference): state by state, over every state the explorer reaches and along random
runs."""

from __future__ import annotations

import random
from collections import deque
from collections.abc import Sequence
from typing import Any

import numpy as np

from .failure import VerificationFailure


def assert_kernel_matches(system: Any, *, reduction: str = "auto", prune: bool = True,
                          every_state: bool = True, walks: int = 0, seed: int = 0, kernel: Any = None) -> int:
    """Assert that ``system``'s compiled kernel (``system.compiled_kernel(...)`` for the
    reduction the explorer applies, or ``kernel``) is the system's reduced transition
    system, state by state: ``decode(encode(s)) == s``; the same status (a state the
    reference expands is ``INNER``, a terminal one ``NO_STEP``, a pruned one ``PRUNED``
    or ``NO_STEP``); the successor rows, in order, are the encodings of the reference's
    successors under the same reduction, numbered 0, 1, ..., with their fingerprints as
    keys.  ``every_state``: on every state reachable in the reduced graph; ``walks``:
    along that many random runs (seeded by ``seed``), for configurations too large to
    enumerate.  Returns the number of states compared (distinct ones for
    ``every_state``, plus the states of the walks).  A difference raises
    :class:`VerificationFailure` naming the state and a schedule that reaches it (a
    shortest one for ``every_state``)."""
    __tracebackhide__ = True
    from fisheye.checker.systems import context_of

    ctx = context_of(system, reduction=reduction, prune_deviations=prune)
    if kernel is None:
        offer = getattr(ctx.system, "compiled_kernel", None)
        kernel = offer(reduction=ctx.reduction_kind, prune=prune) if offer is not None else None
        if kernel is None:
            raise VerificationFailure(f"the system offers no compiled kernel for the {ctx.reduction_kind} "
                                      f"reduction{'' if prune else ' without pruning'}")
    compared = 0
    if every_state:
        initial = ctx.system.initial()
        reached: dict[Any, tuple[Any, Any]] = {initial: (None, None)}     # state -> (parent, step)
        todo = deque([initial])                  # breadth first: a difference on a shortest schedule
        while todo:
            state = todo.popleft()
            compared += 1
            for step, child in _agree_at(ctx, kernel, state, lambda s=state: _schedule(reached, s)):
                if child not in reached:
                    reached[child] = (state, step)
                    todo.append(child)
    rng = random.Random(seed)
    for _ in range(walks):
        state, path = ctx.system.initial(), []
        while True:
            compared += 1
            kids = _agree_at(ctx, kernel, state, lambda p=tuple(path): list(p))
            if not kids:
                break
            step, state = rng.choice(kids)
            path.append(step)
    return compared


def _schedule(reached: dict[Any, tuple[Any, Any]], state: Any) -> list[Any]:
    steps = []
    while True:
        state, step = reached[state]
        if state is None:
            return steps[::-1]
        steps.append(step)


def _agree_at(ctx: Any, kernel: Any, state: Any, schedule: Any) -> Sequence[tuple[Any, Any]]:
    """Compare the kernel with the reference at ``state``; return the reference's reduced
    ``(step, successor)`` pairs."""
    __tracebackhide__ = True
    from fisheye.checker.explore.expand import INNER, PRUNED, expand
    from fisheye.impl.kernel_api import KernelStatus

    def fail(what: str) -> VerificationFailure:
        steps = ", ".join(str(s) for s in schedule()) or "(the initial state)"
        return VerificationFailure(f"the compiled kernel {kernel.name!r} differs from the reference: {what}\n"
                                   f"  state: {state!r}\n  reached by: {steps}")

    row = kernel.encode(state)
    back = kernel.decode(row)
    if back != state:
        raise fail(f"decode(encode(state)) is another state: {back!r}")
    batch = kernel.expand(row[None, :])
    status = KernelStatus(int(batch.status[0]))
    e = expand(ctx, state)
    if e.kind != INNER:
        allowed = (KernelStatus.PRUNED, KernelStatus.NO_STEP) if e.kind == PRUNED else (KernelStatus.NO_STEP,)
        if status not in allowed:
            raise fail(f"the reference's state is {e.kind}, the kernel's status {status.name}")
        return []
    if status is not KernelStatus.INNER:
        raise fail(f"the reference expands the state (steps {', '.join(map(str, e.steps))}), "
                   f"the kernel's status is {status.name}")
    kids = [(s, ctx.system.apply(state, s)) for s in e.steps]
    if len(batch.children) != len(kids) or batch.step.tolist() != list(range(len(kids))):
        raise fail(f"the reference has {len(kids)} successors ({', '.join(map(str, e.steps))}), the kernel "
                   f"{len(batch.children)} numbered {batch.step.tolist()}")
    for k, ((step, child), krow) in enumerate(zip(kids, batch.children, strict=True)):
        if not np.array_equal(kernel.encode(child), krow):
            raise fail(f"successor {k} ({step}) is {child!r} in the reference, "
                       f"{kernel.decode(krow)!r} in the kernel")
    if not np.array_equal(batch.keys, kernel.fingerprints(batch.children)):
        raise fail("the successors' keys are not their fingerprints")
    return kids
