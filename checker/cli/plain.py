"""Plain words shared by the commands' text output: counts with their plural, edges as
``p:q``, a history one process a line with operations as ``w(X,1)`` and ``r(X)->1``."""

from __future__ import annotations

from typing import Any

from fisheye.spec.history import format_value


def plural(n: int, one: str, many: str | None = None) -> str:
    return f"{n:,} {one if n == 1 else (many or one + 's')}"


def edges_text(edges: list[list[str]]) -> str:
    return ", ".join(f"{a}:{b}" for a, b in edges) or "no edge"


def history_lines(history: dict[str, Any], indent: str) -> list[str]:
    out = []
    procs = history.get("processes") or list(history["history"])
    for p in procs:
        ops = history["history"].get(p, [])
        text = ", ".join(f"r({reg})->{format_value(v)}" if k == "r" else f"w({reg},{format_value(v)})"
                         for k, reg, v in ops)
        out.append(f"{indent}{p}: {text or '-'}")
    return out
