"""Plain words shared by the commands' text output: counts with their plural, edges as
``p:q``, the steps of a schedule and the system that runs (the explanations' own words,
:mod:`fisheye.checker.explain.system_text` and :mod:`~fisheye.checker.explain.replay_script`),
a history one process a line with operations as ``w(X,1)`` and ``r(X)->1``, the
consistency models with what each asks (from :class:`fisheye.spec.models.Model`, the one
list of models)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from fisheye.spec.history import format_value
from fisheye.spec.models import Model

from ..errors import UsageError
from ..lazy import lazy_names

SYSTEM_HINT = "  (--system also takes an entry point of the group fisheye.systems or package.module:factory)"
"""The closing line of the examples of the commands that take ``--system``."""

# the explanations' words, imported when first used (``fisheye check`` needs none of them)
__getattr__ = lazy_names(__name__, {"step_text": "fisheye.checker.explain.replay_script",
                                    "edges_text": "fisheye.checker.explain.system_text",
                                    "plural": "fisheye.checker.explain.system_text",
                                    "system_words": "fisheye.checker.explain.system_text"})


def history_lines(history: dict[str, Any], indent: str) -> list[str]:
    out = []
    procs = history.get("processes") or list(history["history"])
    for p in procs:
        ops = history["history"].get(p, [])
        text = ", ".join(f"r({reg})->{format_value(v)}" if k == "r" else f"w({reg},{format_value(v)})"
                         for k, reg, v in ops)
        out.append(f"{indent}{p}: {text or '-'}")
    return out


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
