"""Explanations of a broadcast property's violation in words (section 4.1): why one
message must be delivered before another.

A causal-order violation is a delivery of ``m2`` while ``m1`` ~>M ``m2`` and ``m1`` is
not delivered yet; :func:`causal_chain` names the base cases of ~>M that link them, as
the delivery logs show them.
"""

from __future__ import annotations

from collections import deque

from fisheye.spec.broadcast import Logs, MsgId, causal_base_cases


def causal_chain(logs: Logs, m1: MsgId, m2: MsgId) -> list[str]:
    """A shortest chain of ~>M's base cases (section 4.1) from ``m1`` to ``m2`` in the
    delivery ``logs``, one sentence per base case (empty if ``m1`` ~>M ``m2`` does not
    hold): a process broadcast ``a`` before ``b``, or delivered ``a`` (another's) before
    it broadcast ``b``."""
    succ: dict[MsgId, list[tuple[MsgId, str]]] = {}
    for a, b, p, own in causal_base_cases(logs):
        why = f"{p} broadcast {a} before {b}" if own else f"{p} delivered {a} before it broadcast {b}"
        succ.setdefault(a, []).append((b, why))
    prev: dict[MsgId, tuple[MsgId, str] | None] = {m1: None}
    todo = deque([m1])
    while todo:
        x = todo.popleft()
        for y, why in succ.get(x, ()):
            if y not in prev:
                prev[y] = (x, why)
                todo.append(y)
    if m2 not in prev:
        return []
    out: list[str] = []
    y = m2
    while prev[y] is not None:
        x, why = prev[y]  # type: ignore[misc]
        out.append(why)
        y = x
    return out[::-1]


__all__ = ["causal_chain"]
