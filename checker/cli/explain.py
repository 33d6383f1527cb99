"""``fisheye explain FILE [--model MODEL] [--graph GRAPH] [--svg OUT.svg] [--html OUT.html]
[--timeout SECONDS] [--json]`` (docs/cli.md).

FILE is what ``fisheye check`` reads (a history in the contract's JSON, ``simulate --json``
output, a Jepsen EDN history or a Jepsen log: docs/formats.md; ``-`` for standard input),
read by the same loader (:func:`fisheye.checker.formats.read_history_object`), or a
counterexample file (its format: docs/contract.md) whose own ``violates`` model and
history graph are the defaults.  Prints, for a violation, the
minimal core, the Elle-style argument and a space-time diagram of the core and its
context (``--json``: the data); for a counterexample, also the schedule as a numbered
replay script.  A broadcast property violation or a deadlock is explained from the
replayed run: which property, which messages, the delivery logs, the replay script.
Progress goes to stderr (``--quiet``: none); ``--timeout`` bounds the whole command.

Exit status: 0 a violation was explained, 1 the history is consistent (nothing to
explain; a counterexample that does not replay), 2 bad input or usage, 3 unknown (the
time limit ran out, or a check was inconclusive, before a violation was established).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from fisheye.spec import realtime
from fisheye.spec.graph import parse_graph_option
from fisheye.spec.history import HistoryError, Value, parse_history
from fisheye.spec.models import MODEL_NAMES, Model, unsupported

from .. import counterexample as cxm
from ..errors import UsageError
from ..formats import FORMATS, NIL_READS, read_history_object
from ..result import Verdict
from .outputs import require_writable, write_text
from .plain import models_help

EPILOG = """examples:
  fisheye explain examples/fig4.json --model fisheye
  fisheye explain counterexamples/alg2-published-4p--fisheye-2014.json --html iriw.html
  fisheye explain examples/fig6-x2.json --model sc --timeout 60 --svg core.svg
  fisheye explain tests/data/jepsen/knossos-rethink-fail-minimal.edn --model lin   # Jepsen EDN; - reads stdin
Exit status: 0 a violation was explained, 1 the history is consistent (nothing to explain),
2 bad input or usage, 3 unknown (the time limit ran out first).  'fisheye check' answers
the verdict (0 consistent, 1 violation); 'explain' answers whether it could explain one."""


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser("explain", help="explain why a history violates a model",
                              description="Explain, in plain words, why a history violates a model: a "
                              "minimal core of operations, an argument that ends in a contradiction, and "
                              "a space-time diagram.", epilog=EPILOG,
                              formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("file", metavar="FILE",
                   help="history file (JSON, Jepsen EDN, Jepsen log), counterexample file, or - "
                   "(standard input)")
    p.add_argument("--model", choices=MODEL_NAMES, default=None, metavar="MODEL",
                   help=f"default: a counterexample's own; {models_help()}")
    p.add_argument("--graph", default="file", metavar="GRAPH",
                   help="empty, complete, file (the file's graph, default) or p:q,r:s")
    p.add_argument("--format", default="auto", choices=FORMATS,
                   help="input format (default: from the file name, else from its content)")
    p.add_argument("--nil-read", choices=NIL_READS, default=None,
                   help="Jepsen histories: a read of nil returns the initial value (initial, the "
                        "default) or may have returned any value (any, as in Knossos)")
    p.add_argument("--svg", metavar="OUT.svg", default=None, help="also write an SVG space-time diagram")
    p.add_argument("--html", metavar="OUT.html", default=None,
                   help="also write a self-contained HTML report (argument, diagram, history)")
    p.add_argument("--json", action="store_true", help="print the explanation as one JSON object")
    p.add_argument("--timeout", type=float, default=None, metavar="SECONDS",
                   help="time limit of the whole command (exit 3 if it runs out before a violation "
                   "is established; after, the core found so far is explained)")
    p.add_argument("--quiet", action="store_true", help="no progress lines on stderr")
    p.set_defaults(func=run)


def _progress(args: argparse.Namespace) -> Any:
    if args.quiet:
        return None
    import time

    start = time.monotonic()

    def say(message: str) -> None:
        print(f"explain [{time.monotonic() - start:6.1f} s] {message}", file=sys.stderr, flush=True)
    return say


def run(args: argparse.Namespace) -> int:
    for option, path in (("--svg", args.svg), ("--html", args.html)):
        if path:
            require_writable(path, option)
    if args.timeout is not None and args.timeout <= 0:
        raise UsageError("--timeout must be positive")
    imported = read_history_object(args.file, fmt=args.format, nil_read=args.nil_read or "initial")
    if args.nil_read is not None and not imported.is_jepsen:
        raise UsageError(f"--nil-read applies only to Jepsen histories (EDN or log), and "
                         f"{imported.source} is JSON")
    args.file = imported.source      # standard input is named <stdin> in every message
    whole = imported.document if imported.document is not None else imported.obj
    cx = (cxm.from_json(whole, args.file)
          if imported.format == "json" and cxm.is_counterexample(whole) else None)
    history = cx.history if cx else parse_history(imported.obj, args.file)
    if args.model:
        model_name = args.model
    elif cx is not None:
        model_name = cx.violates
    else:
        raise UsageError(f"{args.file}: --model is required for a history file")
    if cx is not None and model_name not in MODEL_NAMES:
        if args.graph != "file":
            raise UsageError(f"{args.file}: --graph does not apply: this run violates {model_name!r}, "
                             "a property of its own system (give --model to check its history)")
        return explain_property(cx, args)
    graph = parse_graph_option(args.graph, history.processes, history.edges)
    model = Model(model_name)
    why = unsupported(history, model)
    if why:
        raise HistoryError(why, args.file)
    from ..explain import ExplainError, explain

    absent = imported.notes.sentinel if imported.notes is not None else None  # Jepsen's nil
    if realtime.handles(history, model):  # lin, fisheye-lin, sc with cas/maybe
        return _explain_sequential(history, model, graph, args, absent)

    schedule = [s.to_json() for s in cx.schedule] if cx else []
    try:
        exp = explain(history, model, graph, schedule=schedule, timeout=args.timeout,
                      progress=_progress(args), absent=absent)
    except ExplainError as e:
        if args.json:
            print(json.dumps({"verdict": e.verdict.value, "model": model.value, "message": str(e)}))
        else:
            print(f"{args.file}: {e}")
        return 1 if e.verdict is Verdict.CONSISTENT else 3
    from ..explain.outputs import explanation_html, explanation_svg, explanation_text

    if args.svg:
        write_text(args.svg, explanation_svg(exp), "--svg")
    if args.html:
        write_text(args.html, explanation_html(f"Why {Path(args.file).name} violates {model.value}", exp, cx),
                   "--html")
    if args.json:
        out = {"verdict": "violation", "model": model.value, "file": args.file, **exp.to_json()}
        if cx is not None:
            out["counterexample"] = _cx_summary(cx)
        print(json.dumps(out))
        return 0
    print(explanation_text(exp, cx))
    return 0


def _explain_sequential(history: Any, model: Model, graph: Any, args: argparse.Namespace,
                        absent: Value | None) -> int:
    """The models with real time, cas and maybe operations (:mod:`..explain.realtime`)."""
    from ..explain import ExplainError
    from ..explain.outputs import explanation_text
    from ..explain.realtime import explain_realtime

    if args.svg:
        raise UsageError(f"--svg is not available for {model.value} explanations (use --json or the text)")
    try:
        exp = explain_realtime(history, model, graph, timeout=args.timeout, absent=absent)
    except ExplainError as e:
        if args.json:
            print(json.dumps({"verdict": e.verdict.value, "model": model.value, "message": str(e)}))
        else:
            print(f"{args.file}: {e}")
        return 1 if e.verdict is Verdict.CONSISTENT else 3
    if args.json:
        print(json.dumps({"verdict": "violation", "model": model.value, "file": args.file, **exp.to_json()}))
    else:
        print(explanation_text(exp))
    return 0


def _cx_summary(cx: cxm.Counterexample) -> dict[str, Any]:
    return {"violates": cx.violates, "algorithm": cx.algorithm, "variant": cx.variant, "mutant": cx.mutant,
            "network": cx.network, "scenario": cx.scenario, "program": cx.program,
            "system_graph": [list(e) for e in cx.system_graph], "search": cx.search}


def explain_property(cx: cxm.Counterexample, args: argparse.Namespace) -> int:
    """A broadcast property violation or a deadlock: replay the run and show it."""
    from ..explain.outputs import explanation_html, explanation_svg, explanation_text
    from ..explain.run_replay import replay_run, what_it_breaks

    try:
        run = replay_run(cx)
    except ValueError as e:
        raise UsageError(f"{args.file}: cannot rebuild the system ({e})") from None
    if args.json:
        print(json.dumps({"verdict": "violation" if run.reproduced else "not-reproduced",
                          "violates": cx.violates, "file": args.file,
                          "details": run.message if run.reproduced else cx.details,
                          "reproduced": run.reproduced, "delivery_logs": run.delivery_logs,
                          "replay": [{"step": i + 1, "do": s.to_json()} for i, s in enumerate(cx.schedule)],
                          "counterexample": _cx_summary(cx)}))
        return 0 if run.reproduced else 1
    if args.svg and run.drawable:
        write_text(args.svg, explanation_svg(cx=cx, run=run), "--svg")
    if args.html:
        title = f"Why {Path(args.file).name} {what_it_breaks(cx)}"
        write_text(args.html, explanation_html(title, cx=cx, run=run), "--html")
    print(explanation_text(cx=cx, run=run))
    return 0 if run.reproduced else 1
