"""Plain words shared by the commands' text output: counts with their plural, edges as
``p:q``, a history one process a line with operations as ``w(X,1)`` and ``r(X)->1``, the
consistency models with what each asks (from :class:`fisheye.spec.models.Model`, the one
list of models)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from fisheye.spec.history import format_value
from fisheye.spec.models import Model

from ..errors import UsageError


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


def step_text(step: Any) -> str:
    """A step of a schedule: ``op p`` (p's next operation), ``recv p <- q`` (a message from
    q's channel), ``deliver p`` (one delivery round), ``deliver p <- q#0`` (q's first
    broadcast delivered at p, at the abstract level), ``crash p``."""
    s = f"{step.kind} {step.process}"
    if step.src is not None:
        s += f" <- {step.src}"
    if not step.detail:
        return s
    if step.src is not None and len(step.detail) == 1 and isinstance(step.detail[0], int):
        return s + f"#{step.detail[0]}"
    return s + " (" + ", ".join(str(d) for d in step.detail) + ")"


def system_words(algorithm: str | None, *, level: str | None = "protocol", variant: str | None = None,
                 mutant: str | None = None, network: str | None = None, crashes: int | None = None) -> str:
    """What runs, in words: Algorithm 2 over Algorithm 1 (a variant, a mutant) over channels,
    Algorithm 2 over the broadcast specification, or the localized causal broadcast."""
    if algorithm == "lcb":
        f = "" if crashes is None else f", at most {plural(crashes, 'crash', 'crashes')}"
        return f"the localized causal broadcast, {network} channels{f}"
    if level == "abstract":
        return "Algorithm 2 over the broadcast specification (every delivery order it allows)"
    if algorithm != "toco":
        return f"the system {algorithm}, {network} channels"
    mut = f", mutant {mutant}" if mutant else ""
    return f"Algorithm 2 over Algorithm 1 ({variant}{mut}), {network} channels"


def models_help(models: Iterable[Model] = tuple(Model)) -> str:
    """The models as a ``--model`` help text: ``sc: sequential consistency; ...``."""
    return "; ".join(f"{m.value}: {m.summary}" for m in models)


def models_table() -> str:
    """Every model of the checker as the Markdown table of docs/cli.md (which a test
    keeps equal to this text)."""
    rows = ["| model | what it asks | on a graph G | needs real time |", "| --- | --- | --- | --- |"]
    rows += [f"| `{m.value}` | {m.summary} | {'yes' if m.uses_graph else 'no'} | "
             f"{'yes' if m.uses_time else 'no'} |" for m in Model]
    return "\n".join(rows)


def parse_size(option: str, text: str) -> int:
    """``4G``, ``512M``, ``100K`` or a number of bytes (``option`` names the option in
    the error)."""
    t = text.strip().upper().removesuffix("B").removesuffix("I")
    mult = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}.get(t[-1:], 1)
    try:
        n = float(t[:-1] if mult > 1 else t) * mult
    except ValueError:
        raise UsageError(f"{option}: {text!r} is not a size (e.g. 4G, 512M)") from None
    if not n > 0:
        raise UsageError(f"{option} must be positive")
    return int(n)
