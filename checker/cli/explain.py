"""``fisheye explain FILE [--model MODEL] [--graph GRAPH] [--svg OUT.svg] [--json]``
(contract section 3, issue 7).

FILE is a history file, or a counterexample file (contract section 5) whose own
``violates`` model and history graph are the defaults.  Prints, for a violation, the
minimal core, the Elle-style argument and a space-time diagram (``--json``: the data);
for a counterexample, also the schedule as a numbered replay script.  A broadcast
property violation or a deadlock is explained from the replayed run: which property,
which messages, the delivery logs, the replay script.

Exit status: 0 a violation was explained, 1 the history is consistent (nothing to
explain), 2 bad input or usage, 3 the check was unknown (a budget ran out).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from fisheye.spec import realtime
from fisheye.spec.graph import parse_graph_option
from fisheye.spec.history import parse_history, read_json_file
from fisheye.spec.models import MODEL_NAMES, Model

from .. import counterexample as cxm
from ..errors import UsageError
from ..result import Verdict


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser("explain", help="explain why a history violates a model",
                              description=__doc__)
    p.add_argument("file", metavar="FILE", help="history file or counterexample file")
    p.add_argument("--model", choices=MODEL_NAMES, default=None,
                   help="sc, cc, fisheye or fisheye-2014 (default: a counterexample's own)")
    p.add_argument("--graph", default="file", metavar="GRAPH",
                   help="empty, complete, file (the file's graph, default) or p:q,r:s")
    p.add_argument("--svg", metavar="OUT.svg", default=None, help="also write an SVG space-time diagram")
    p.add_argument("--json", action="store_true", help="print the explanation as one JSON object")
    p.add_argument("--timeout", type=float, default=None, metavar="SECONDS",
                   help="budget of each consistency check (exit 3 when it runs out)")
    p.set_defaults(func=run)


def replay_script(schedule: list[Any]) -> list[str]:
    from fisheye.impl.api import Step

    return [f"{i + 1:3}. {Step.from_json(step)}" for i, step in enumerate(schedule)]


def run(args: argparse.Namespace) -> int:
    obj = read_json_file(args.file)
    cx = cxm.from_json(obj, args.file) if cxm.is_counterexample(obj) else None
    history = cx.history if cx else parse_history(obj, args.file)
    if args.model:
        model_name = args.model
    elif cx is not None:
        model_name = cx.violates
    else:
        raise UsageError(f"{args.file}: --model is required for a history file")
    if cx is not None and model_name not in MODEL_NAMES:
        if args.svg:
            raise UsageError(f"{args.file}: --svg draws histories; this file violates {model_name!r}")
        return explain_property(cx, args)
    graph = parse_graph_option(args.graph, history.processes, history.edges)
    model = Model(model_name)
    from ..explain import ExplainError, explain

    if realtime.handles(history, model):  # lin, fisheye-lin, sc with cas/maybe
        return _explain_sequential(history, model, graph, args)

    schedule = [s.to_json() for s in cx.schedule] if cx else []
    try:
        exp = explain(history, model, graph, schedule=schedule, timeout=args.timeout)
    except ExplainError as e:
        if args.json:
            print(json.dumps({"verdict": e.verdict.value, "model": model.value, "message": str(e)}))
        else:
            print(f"{args.file}: {e}")
        return 1 if e.verdict is Verdict.CONSISTENT else 3
    if args.svg:
        from ..explain.svg import render as svg_render

        try:
            Path(args.svg).write_text(svg_render(exp), encoding="utf-8")
        except OSError as e:
            raise UsageError(f"{args.svg}: cannot write the SVG ({e.strerror})") from None
    if args.json:
        out = {"verdict": "violation", "model": model.value, "file": args.file, **exp.to_json()}
        if cx is not None:
            out["counterexample"] = _cx_summary(cx)
        print(json.dumps(out))
        return 0
    from ..explain.diagram import render as diagram

    print(exp.text())
    print()
    print(diagram(exp))
    if cx is not None:
        print()
        print(f"Found by: {cx.search or 'a search'} ({_system_text(cx)}).")
        print("Replay script (the run that produced this history):")
        print("\n".join(replay_script(schedule)))
    return 0


def _explain_sequential(history: Any, model: Model, graph: Any, args: argparse.Namespace) -> int:
    """The models with real time, cas and maybe operations (:mod:`..explain.realtime`)."""
    from ..explain import ExplainError
    from ..explain.realtime import explain_realtime

    if args.svg:
        raise UsageError(f"--svg is not available for {model.value} explanations (use --json or the text)")
    try:
        exp = explain_realtime(history, model, graph, timeout=args.timeout)
    except ExplainError as e:
        if args.json:
            print(json.dumps({"verdict": e.verdict.value, "model": model.value, "message": str(e)}))
        else:
            print(f"{args.file}: {e}")
        return 1 if e.verdict is Verdict.CONSISTENT else 3
    if args.json:
        print(json.dumps({"verdict": "violation", "model": model.value, "file": args.file, **exp.to_json()}))
    else:
        print(exp.text())
    return 0


def _system_text(cx: cxm.Counterexample) -> str:
    what = cx.scenario or cx.program
    g = ", ".join(f"{a}:{b}" for a, b in cx.system_graph) or "empty graph"
    mut = f", mutant {cx.mutant}" if cx.mutant else ""
    return f"{cx.algorithm} {cx.variant}{mut}, {cx.network} channels, graph {g}, program {what}"


def _cx_summary(cx: cxm.Counterexample) -> dict[str, Any]:
    return {"violates": cx.violates, "algorithm": cx.algorithm, "variant": cx.variant, "mutant": cx.mutant,
            "network": cx.network, "scenario": cx.scenario, "program": cx.program,
            "system_graph": [list(e) for e in cx.system_graph], "search": cx.search}


def explain_property(cx: cxm.Counterexample, args: argparse.Namespace) -> int:
    """A broadcast property violation or a deadlock: replay the run and show it."""
    try:
        res = cxm.replay(cx)
    except ValueError as e:
        raise UsageError(f"{args.file}: cannot rebuild the system ({e})") from None
    schedule = [s.to_json() for s in cx.schedule]
    logs = cx.delivery_logs
    if res.state is not None:
        from fisheye.impl.system import logs_as_json

        logs = logs_as_json(cx.system().delivery_logs(res.state))
    if args.json:
        print(json.dumps({"verdict": "violation" if res.ok else "not-reproduced", "violates": cx.violates,
                          "file": args.file, "details": res.message if res.ok else cx.details,
                          "reproduced": res.ok, "delivery_logs": logs,
                          "replay": [{"step": i + 1, "do": s} for i, s in enumerate(schedule)],
                          "counterexample": _cx_summary(cx)}))
    else:
        what = "deadlocks" if cx.violates == cxm.DEADLOCK else f"violates {cx.violates}"
        print(f"The run {what} ({_system_text(cx)}).")
        print(f"Replayed: {res.message}." if res.ok else f"NOT reproduced: {res.message}.")
        if cx.details and cx.details != res.message:
            print(f"Recorded: {cx.details}")
        print("Delivery logs (b = broadcast, d = deliver):")
        for p, log in logs.items():
            events = " ".join(f"{'b' if k == 'broadcast' else 'd'}({s}#{q})" for k, s, q in log)
            print(f"  {p}: {events or '-'}")
        print("Replay script:")
        print("\n".join(replay_script(schedule)))
    return 0 if res.ok else 1
