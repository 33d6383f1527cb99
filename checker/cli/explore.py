"""``fisheye explore SCENARIO ...``: every schedule of a scenario, with partial-order
reduction (contract sections 3 and 4; issue 5).

Exit status: 0 complete and no violation, 1 violations found, 2 bad input, 3 cut short
by a budget (or a history no engine could decide) before finding any violation.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from ..errors import UsageError

MODELS = ("fisheye", "fisheye-2014", "sc", "cc", "none")


def register(sub: Any) -> None:
    p = sub.add_parser("explore", help="explore every schedule of a scenario (exhaustive, with "
                       "partial-order reduction)",
                       description="Explore every schedule of SCENARIO (paris-berlin-newyork, fig6, a "
                       "program such as 'p0: write(X,1); p1: read(X)', or an lcb scenario with "
                       "--algorithm lcb), check every complete run, report outcomes and violations.")
    p.add_argument("scenario", metavar="SCENARIO")
    p.add_argument("--graph", default="paper", help="empty, paper (default), complete, or p:q,r:s")
    p.add_argument("--level", default="protocol", choices=("protocol", "abstract"),
                   help="protocol: Algorithm 2 over Algorithm 1 over the network (default); abstract: "
                   "Algorithm 2 over the broadcast specification")
    p.add_argument("--algorithm", default="toco", choices=("toco", "lcb"))
    p.add_argument("--system", default=None, metavar="NAME",
                   help="the system to explore: toco (as --algorithm), lcb, the name of an entry point of "
                   "the group fisheye.systems, or package.module:factory (your own protocol, "
                   "docs/your-protocol.md)")
    p.add_argument("--variant", default=None, choices=("corrected", "published"),
                   help="Algorithm 1's variant (default corrected)")
    p.add_argument("--network", default="fifo", choices=("fifo", "unordered"))
    p.add_argument("--mutant", default=None, help="a mutant of Algorithm 1/2 (see fisheye simulate)")
    p.add_argument("--crashes", type=int, default=0, metavar="F", help="at most F crashes (--algorithm lcb)")
    p.add_argument("--model", default="fisheye", choices=MODELS,
                   help="model every complete history is checked against (default fisheye; none: no check)")
    p.add_argument("--model-graph", default=None, metavar="GRAPH",
                   help="graph of the model check (default: the run's graph)")
    p.add_argument("--reduction", default="auto", choices=("auto", "none", "stubborn", "process"),
                   help="partial-order reduction (auto: the best the level supports; none: full search)")
    p.add_argument("--full", action="store_true",
                   help="also run the unreduced search and report its counts under 'full'")
    p.add_argument("--no-prune", action="store_true",
                   help="do not cut runs whose figure reads deviate (fig6)")
    p.add_argument("--max-states", type=int, default=None, metavar="N")
    p.add_argument("--timeout", type=float, default=None, metavar="S")
    p.add_argument("--memory", default=None, metavar="SIZE",
                   help="memory the search may use, e.g. 4G or 512M (the frontier goes to disk beyond it)")
    p.add_argument("--exact-states", action="store_true",
                   help="keep exact states in the visited set instead of 64-bit fingerprints (small runs)")
    p.add_argument("--checkpoint", default=None, metavar="DIR",
                   help="save the search in DIR at the end of a level, every --checkpoint-every seconds; "
                   "with --spark: Spark's reliable checkpoint directory, which every executor must reach "
                   "(the search then survives the loss of an executor)")
    p.add_argument("--checkpoint-every", type=float, default=300.0, metavar="S",
                   help="seconds between checkpoints (default 300)")
    p.add_argument("--resume", default=None, metavar="DIR",
                   help="continue the search saved in DIR (same scenario and options)")
    p.add_argument("--json", action="store_true", help="print the report as JSON on stdout")
    p.add_argument("--quiet", action="store_true", help="no progress display on stderr")
    p.add_argument("--spark", action="store_true", help="explore on Spark (fisheye.checker.spark)")
    p.add_argument("--master", default=None, metavar="URL", help="Spark master URL (with --spark)")
    p.add_argument("--partitions", type=int, default=None, metavar="N",
                   help="Spark partitions (with --spark)")
    p.add_argument("--parquet", default=None, metavar="DIR",
                   help="with --spark: also write the complete histories with their verdicts as a "
                   "Parquet table in DIR (readable with Spark SQL)")
    p.add_argument("--verbose", action="store_true", help="with --spark: show Spark's own log on stderr")
    p.set_defaults(func=run)


def _positive(name: str, v: float | int | None) -> None:
    if v is not None and v <= 0:
        raise UsageError(f"{name} must be positive")


def _size(text: str | None) -> int | None:
    """``4G``, ``512M``, ``100K`` or a number of bytes."""
    if text is None:
        return None
    t = text.strip().upper().removesuffix("B").removesuffix("I")
    mult = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}.get(t[-1:], 1)
    try:
        n = float(t[:-1] if mult > 1 else t) * mult
    except ValueError:
        raise UsageError(f"--memory: {text!r} is not a size (e.g. 4G, 512M)") from None
    if n <= 0:
        raise UsageError("--memory must be positive")
    return int(n)


def run(args: argparse.Namespace) -> int:
    from fisheye.spec.graph import parse_graph_option

    from ..explore.engine import Progress
    from ..explore.report import ReportBuilder, exit_status
    from ..explore.scenarios import make_context

    _positive("--max-states", args.max_states)
    _positive("--timeout", args.timeout)
    _positive("--partitions", args.partitions)
    if args.crashes < 0:
        raise UsageError("--crashes must be >= 0")
    if (args.master or args.partitions or args.parquet or args.verbose) and not args.spark:
        raise UsageError("--master, --partitions, --parquet and --verbose need --spark")
    memory = _size(args.memory)
    if args.checkpoint and args.resume and args.checkpoint != args.resume:
        raise UsageError("--checkpoint and --resume name different directories")
    if args.resume and args.spark:
        raise UsageError("--resume applies to the local search (with --spark, --checkpoint DIR is Spark's "
                         "reliable checkpoint directory)")
    if args.system is not None and args.algorithm != "toco" and args.system != args.algorithm:
        raise UsageError("--system and --algorithm name two different systems")
    system_name = args.system or args.algorithm
    if system_name in ("toco", "lcb"):
        args.algorithm = system_name
    variant = args.variant or ("corrected" if system_name == "toco" else None)

    def build(reduction: str) -> Any:
        if system_name in ("toco", "lcb"):
            return make_context(args.scenario, args.graph, level=args.level, algorithm=system_name,
                                variant=variant or "corrected", network=args.network, mutant=args.mutant,
                                crashes=args.crashes, reduction=reduction, prune_deviations=not args.no_prune)
        from fisheye.impl.api import Network, SystemRequest

        from ..systems import context

        request = SystemRequest(scenario=args.scenario, graph=args.graph, network=Network.parse(args.network),
                                variant=variant, mutant=args.mutant, crashes=args.crashes, level=args.level)
        return context(system_name, request, reduction=reduction, prune_deviations=not args.no_prune)

    try:
        ctx = build(args.reduction)
        model_graph = None
        if args.model_graph is not None:
            model_graph = parse_graph_option(args.model_graph, ctx.system.processes, ctx.system.graph.edges,
                                             source="--model-graph")
    except ValueError as e:
        msg = str(e)
        if args.algorithm == "toco" and msg.startswith("unknown scenario"):
            from fisheye.impl.lcb import SCENARIOS as LCB_SCENARIOS

            if args.scenario in LCB_SCENARIOS:
                msg = f"scenario {args.scenario!r} runs the localized causal broadcast: add --algorithm lcb"
            else:
                msg += f"; with --algorithm lcb: {', '.join(LCB_SCENARIOS)}"
        raise UsageError(msg) from None
    model = None if args.model == "none" else args.model
    level = "protocol" if system_name == "lcb" else args.level
    progress = None if args.quiet else Progress(label=f"explore {args.scenario} ({level})")

    def builder(c: Any) -> ReportBuilder:
        return ReportBuilder(c, level, engine="spark" if args.spark else "local", model=model,
                             model_graph=model_graph,
                             scenario=args.scenario)

    if args.spark:
        try:
            from fisheye.checker.spark import explore as spark_explore
        except ImportError as e:
            raise UsageError(f"--spark is not available ({e})") from None
        from ..systems import ship_to_spark

        ship_to_spark()
        report = spark_explore(ctx, builder(ctx), master=args.master, partitions=args.partitions,
                               max_states=args.max_states, timeout=args.timeout, progress=not args.quiet,
                               parquet=args.parquet, checkpoint=args.checkpoint, verbose=args.verbose)
    else:
        from ..explore.engine import explore

        try:
            report = explore(ctx, builder(ctx), max_states=args.max_states, timeout=args.timeout,
                             progress=progress, memory=memory, exact=args.exact_states,
                             checkpoint=args.resume or args.checkpoint, resume=args.resume is not None,
                             checkpoint_every=args.checkpoint_every)
        except ValueError as e:
            raise UsageError(str(e)) from None
    if args.full:
        from ..explore.engine import explore

        full_ctx = build("none")
        full = explore(full_ctx, builder(full_ctx), max_states=args.max_states, timeout=args.timeout,
                       progress=None if args.quiet else Progress(label="explore (full)"))
        report["full"] = {k: full[k] for k in ("complete", "states", "terminal_states", "histories",
                                               "deadlocks", "transitions", "violations_total", "seconds")}
        report["full"]["outcomes_equal"] = full["outcomes"] == report["outcomes"]
        if full["complete"] and full["states"]:
            report["reduction_factor"] = round(full["states"] / report["states"], 2)
    if args.json:
        json.dump(report, sys.stdout)
        sys.stdout.write("\n")
    else:
        _print_text(report)
    return exit_status(report)


def _print_text(r: dict[str, Any]) -> None:
    w = sys.stdout.write
    g = ", ".join(f"{a}-{b}" for a, b in r["graph"]) or "no edge"
    w(f"{r['scenario']} [{r['level']} level, {r.get('algorithm')}, graph: {g}, "
      f"reduction: {r['reduction']}]\n")
    w(f"  {'complete' if r['complete'] else 'CUT SHORT: ' + str(r.get('stopped'))}: "
      f"{r['states']:,} states, {r['terminal_states']:,} complete runs (distinct final states), "
      f"{r['histories']:,} histories, {r['deadlocks']} deadlocks, in {r['seconds']} s\n")
    pr = r["pruned"]
    if pr["deviating_reads"] or pr["infeasible"]:
        w(f"  pruned: {pr['deviating_reads']:,} states with a deviating figure read, "
          f"{pr['infeasible']:,} infeasible under the specification\n")
    oc = r["outcomes"]
    if oc["reads"]:
        vals = "  ".join("(" + ", ".join(json.dumps(v) for v in row) + ")" for row in oc["values"])
        w(f"  outcomes of {', '.join(oc['reads'])}: {vals or 'none'}\n")
    if "full" in r:
        f = r["full"]
        w(f"  full search: {f['states']:,} states, {f['terminal_states']:,} complete runs, "
          f"{f['histories']:,} histories ({'complete' if f['complete'] else 'cut short'}); "
          f"reduction factor {r.get('reduction_factor')}\n")
    if r["violations_total"]:
        w(f"  {r['violations_total']} violation(s):\n")
        for v in r["violations"][:10]:
            w(f"    {v['violates']} ({v['kind']}), shortest schedule {v['length']} steps, "
              f"{v['runs']} run(s)\n")
    else:
        w(f"  no violation{' (model ' + r['model'] + ')' if r.get('model') else ''}\n")
