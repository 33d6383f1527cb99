"""``fisheye check FILE --model MODEL [--graph GRAPH] [--engine z3|direct|auto] [--json]
[--timeout SECONDS]`` (contract section 3).

Exit status: 0 consistent, 1 violation, 2 bad input or usage, 3 unknown.  ``--json``
prints one object ``{"verdict", "model", ...}``; a consistent verdict carries its
witness, a violation its certificate (the named constraints of the unsat core)."""

from __future__ import annotations

import argparse
import json
import math
import sys

from fisheye.spec.graph import parse_graph_option
from fisheye.spec.history import History, load_history
from fisheye.spec.models import MODEL_NAMES, Model

from ..engines import ENGINE_NAMES, check
from ..errors import UsageError
from ..result import CheckResult, Verdict

MAX_REASONS = 8
"""Reasons of a certificate printed without --json."""


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "check", help="decide whether a history is consistent under a model",
        description="Decide whether the history in FILE is consistent under MODEL. Exit status: 0 "
                    "consistent, 1 violation, 2 bad input or usage, 3 unknown (a budget ran out). "
                    "--json prints one object; a consistent verdict carries its witness, a violation "
                    "its certificate.")
    p.add_argument("file", metavar="FILE", help="history file (contract section 1)")
    p.add_argument("--model", required=True, choices=MODEL_NAMES, help="sc, cc, fisheye or fisheye-2014")
    p.add_argument("--graph", default="file", metavar="GRAPH",
                   help="empty, complete, file (the file's graph, default) or p:q,r:s")
    p.add_argument("--engine", default="auto", choices=ENGINE_NAMES,
                   help="z3, direct or auto (default: the fastest that decides)")
    p.add_argument("--json", action="store_true", help="print one JSON object on stdout")
    p.add_argument("--timeout", type=float, default=None, metavar="SECONDS",
                   help="solver budget; exit 3 (unknown) when it runs out")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    if args.timeout is not None and not (math.isfinite(args.timeout) and args.timeout > 0):
        raise UsageError(f"--timeout must be a positive number of seconds, not {args.timeout:g}")
    history = load_history(args.file)
    graph = parse_graph_option(args.graph, history.processes, history.edges)
    model = Model(args.model)
    try:
        result = check(history, model, graph, engine=args.engine, timeout=args.timeout,
                       progress=lambda line: print(f"{args.file}: {line}", file=sys.stderr, flush=True))
    except ModuleNotFoundError as e:  # an engine not installed in this checkout
        raise UsageError(f"engine {args.engine!r} is not available ({e})") from None
    if args.json:
        print(json.dumps(result.to_json(history)))
    else:
        print(human(history, result, args.file))
    return result.exit_code


def human(history: History, result: CheckResult, name: str) -> str:
    """A short human report: one line, plus a few reasons for a violation."""
    graph = result.graph.describe() if result.model.uses_graph else "-"
    lines = [f"{name}: {result.verdict.value} under {result.model.value} (graph {graph}, engine "
             f"{result.engine}, {len(history.ops)} operations, {result.seconds:.3f} s)"]
    if result.verdict is Verdict.VIOLATION and result.certificate:
        lines.append("  no witness can satisfy all of:")
        lines += [f"  - {r.text}" for r in result.certificate[:MAX_REASONS]]
        if len(result.certificate) > MAX_REASONS:
            lines.append(f"  ... and {len(result.certificate) - MAX_REASONS} more (see --json)")
    elif result.message and result.verdict is not Verdict.CONSISTENT:
        lines.append(f"  {result.message}")
    return "\n".join(lines)
