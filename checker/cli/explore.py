"""``fisheye explore SCENARIO ...``: every schedule of a scenario, with partial-order
reduction (docs/cli.md; the report's keys: docs/contract.md).

An option that does not apply to the system explored is an error, never ignored: the
variant, the mutant and the network semantics of Algorithm 1 at the abstract level
(Algorithm 2 over the broadcast specification, no Algorithm 1 at all), the variant and
the mutant with ``--algorithm lcb``, ``--crashes`` without it, ``--model-graph`` with
``--model none``.  A program's default graph is the empty one (it has no paper graph).

``--save DIR`` writes one counterexample file (docs/contract.md) per distinct
violation listed in the report; ``fisheye explain`` and ``fisheye simulate --replay``
read them as they are.

Exit status: 0 complete and no violation, 1 violations found, 2 bad input, 3 cut short
by a budget (or a history no engine could decide) before finding any violation, 4 a
system error (the system explored failed: :mod:`fisheye.checker.explore.fault`).
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys
from pathlib import Path
from typing import Any

from fisheye.impl.builtin_systems import BUILTIN, DEFAULT, choices, other_examples
from fisheye.spec.models import Model

from ..errors import UsageError
from .plain import SYSTEM_HINT, edges_text, history_lines, models_help, parse_size, plural, system_words

EXPLORED_MODELS = tuple(m for m in Model if not m.uses_time)
"""The models an explored history is checked against: those without real time (the
explored systems' histories carry no invocation and completion times)."""
MODELS = (*(m.value for m in EXPLORED_MODELS), "none")
DEFAULTS = {"level": "protocol", "network": "fifo", "crashes": 0, "model": "fisheye"}
"""The defaults of the options every system is asked for (the others are the system's:
its factory fills them in and its record says what it ran)."""
SYSTEM_OPTIONS = ("level", "algorithm", "variant", "mutant", "network", "crashes", "model")

EPILOG = """examples:
  fisheye explore paris-berlin-newyork                 # Figure 3 on the paper's graph
  fisheye explore fig6 --level abstract --graph empty  # Figure 6 under causal consistency
  fisheye explore 'p0: write(X,1); p1: a=read(X)'      # a program (its default graph is empty)
  fisheye explore 'p0: write(X,1), read(Y), read(X); p1: ; p2: await X==1, write(X,3), write(Y,5)' \
--graph p0:p1 --variant published --model cc --save out
""" + "".join(f"  fisheye explore {sc} --system {n}   # {BUILTIN[n].summary}\n"
          for n, sc in other_examples()) + SYSTEM_HINT + """
The program syntax: docs/cli.md.  Exit status: 0 complete and no violation, 1 violations
found, 2 bad input or usage, 3 cut short by a budget before finding any violation, 4 the
system explored failed (a handler raised, an unencodable state, two messages with one name)."""


def register(sub: Any) -> None:
    p = sub.add_parser("explore", help="explore every schedule of a scenario (exhaustive, with "
                       "partial-order reduction)",
                       formatter_class=argparse.RawDescriptionHelpFormatter, epilog=EPILOG,
                       description="Explore every schedule of SCENARIO (paris-berlin-newyork, fig6, a "
                       "program such as 'p0: write(X,1); p1: a=read(X)', or a scenario of another "
                       "system with --system NAME), check the history of every complete "
                       "run against a model, and report the outcomes and the violations.")
    p.add_argument("scenario", metavar="SCENARIO",
                   help="paris-berlin-newyork, fig6, a program 'p: op, op; q: ...', or a scenario of the "
                   "system explored")
    p.add_argument("--graph", default=None, metavar="GRAPH",
                   help="paper (the default for a named scenario), empty (the default for a program), "
                   "complete, or edges p:q,r:s")
    p.add_argument("--level", default=None, choices=("protocol", "abstract"),
                   help="protocol: Algorithm 2 over Algorithm 1 over the network (default); abstract: "
                   "Algorithm 2 over the broadcast specification (every delivery order it allows)")
    p.add_argument("--algorithm", default=None, choices=tuple(BUILTIN),
                   help="; ".join(f"{n}: {b.summary}" + (" (default)" if n == DEFAULT else "")
                                  for n, b in BUILTIN.items()))
    p.add_argument("--system", default=None, metavar="NAME",
                   help=f"the system to explore: {', '.join(BUILTIN)} (as --algorithm), the name of an "
                   "entry point of the group fisheye.systems, or package.module:factory (your own "
                   "protocol, docs/your-protocol.md)")
    p.add_argument("--option", action="append", default=None, metavar="NAME=VALUE",
                   help="a further option of the system's factory (its request's options), VALUE "
                   'as JSON where it is JSON (3, true, "x", [1,2]), else as text; repeatable')
    p.add_argument("--variant", default=None, choices=choices("variant"),
                   help="Algorithm 1 as published in the paper or corrected (default; see "
                   "docs/algorithm1-correction.md); protocol level only")
    p.add_argument("--network", default=None, choices=("fifo", "unordered"),
                   help="channel semantics (default fifo); protocol level only")
    p.add_argument("--mutant", default=None, metavar="NAME",
                   help="run a deliberately broken version of Algorithm 1 or 2 ("
                   + ", ".join(choices("mutant")) + "); protocol level only")
    p.add_argument("--crashes", type=int, default=None, metavar="F",
                   help="at most F processes crash (a system with crash-stop processes only; default 0)")
    p.add_argument("--model", default=None, choices=MODELS, metavar="MODEL",
                   help="model every complete history is checked against: "
                   f"{models_help(EXPLORED_MODELS)}; none: no check (default fisheye)")
    p.add_argument("--model-graph", default=None, metavar="GRAPH",
                   help="graph of the model check (default: the run's graph)")
    p.add_argument("--reduction", default="auto", choices=("auto", "none", "stubborn", "process"),
                   help="partial-order reduction: auto (the best the level supports, default), none "
                   "(every interleaving), stubborn or process (docs/por.md)")
    p.add_argument("--full", action="store_true",
                   help="also run the search without reduction and report its counts under 'full'")
    p.add_argument("--no-prune", action="store_true",
                   help="keep the runs whose reads deviate from the values a figure shows (fig6)")
    p.add_argument("--max-states", type=int, default=None, metavar="N",
                   help="stop after about N distinct states (exit 3 if nothing was found)")
    p.add_argument("--max-depth", type=int, default=None, metavar="D",
                   help="explore the runs up to D steps only: states at depth D are visited, not expanded "
                   "(a bounded search: the report says complete false; exit 3 if nothing was found)")
    p.add_argument("--timeout", type=float, default=None, metavar="SECONDS",
                   help="stop after this many seconds (exit 3 if nothing was found)")
    p.add_argument("--memory", default=None, metavar="SIZE",
                   help="memory the search may use, e.g. 4G or 512M (the frontier goes to disk beyond it)")
    p.add_argument("--kernel", default="auto", choices=("auto", "compiled", "python"),
                   help="compiled: the system's compiled kernel (numba; the built-in protocol level with "
                   "FIFO channels and stubborn sets, or a user system that offers one); python: its Python "
                   "form, the reference; auto (default): compiled where a kernel exists. The report says "
                   "which ran")
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
    p.add_argument("--save", default=None, metavar="DIR",
                   help="write one counterexample file per distinct violation into DIR (created if "
                   "needed); each is accepted by fisheye explain and fisheye simulate --replay")
    p.add_argument("--json", action="store_true", help="print the report as one JSON object on stdout")
    p.add_argument("--quiet", action="store_true", help="no progress display on stderr")
    p.add_argument("--spark", action="store_true", help="explore on Spark (local[*] unless --master)")
    p.add_argument("--master", default=None, metavar="URL", help="Spark master URL (with --spark)")
    p.add_argument("--partitions", type=int, default=None, metavar="N",
                   help="Spark partitions (with --spark)")
    p.add_argument("--parquet", default=None, metavar="DIR",
                   help="with --spark: also write the complete histories with their verdicts as a "
                   "Parquet table in DIR (readable with Spark SQL)")
    p.add_argument("--exchange", default=None, metavar="DIR",
                   help="with --spark: the levels exchange their states through files in DIR, which the "
                   "driver and every executor must reach (a one-host cluster, NFS); the default for a "
                   "local[...] master is files in a temporary directory, for other masters Spark's shuffle")
    p.add_argument("--verbose", action="store_true", help="with --spark: show Spark's own log on stderr")
    p.set_defaults(func=run)


def _positive(name: str, v: float | int | None) -> None:
    if v is not None and v <= 0:
        raise UsageError(f"{name} must be positive")


def _is_program(scenario: str) -> bool:
    return ":" in scenario


def check_applicable(args: argparse.Namespace) -> None:
    """Options given explicitly that do not apply to the system explored are errors."""
    given = {k for k in SYSTEM_OPTIONS if getattr(args, k) is not None}
    name = args.algorithm or DEFAULT
    if args.system is not None and args.system not in BUILTIN:
        return _check_spark(args)   # a user's system: its factory judges its options
    level = args.level or "protocol"

    def no(opt: str, why: str) -> None:
        raise UsageError(f"--{opt} does not apply {why}")

    accepts = BUILTIN[name].accepts
    if level not in accepts:
        no(f"level {level}", f"to the system {name} ({BUILTIN[name].summary}: levels {', '.join(accepts)})")
    for opt in ("graph", "variant", "mutant", "network", "crashes"):
        if opt in given and opt not in accepts[level]:
            takers = [n for n, b in BUILTIN.items() if any(opt in takes for takes in b.accepts.values())]
            hint = f"; use --system {' or '.join(takers)}" if takers and name not in takers else ""
            no(opt, f"to the system {name} at level {level} ({BUILTIN[name].summary}){hint}")
    if args.model == "none" and args.model_graph is not None:
        no("model-graph", "with --model none (no history is checked)")
    _check_spark(args)
    if args.no_prune:
        from fisheye.impl.programs import SCENARIOS, parse_program

        try:
            sc = SCENARIOS.get(args.scenario)
            program = sc.program if sc is not None else parse_program(args.scenario)
        except ValueError:
            return  # reported later, with the scenario names
        if not any(getattr(op, "expect", None) is not None for ops in program.ops for op in ops):
            no("no-prune", "here: no read of this scenario carries a figure's value (read(X)->v)")


def _other_scenarios(msg: str, scenario: str, name: str) -> str:
    """An unknown scenario of a built-in system: the one of another built-in it names, or
    theirs."""
    from fisheye.impl.programs import SCENARIOS, scenario_names

    owner = SCENARIOS.get(scenario)
    if owner is not None and owner.system != name:
        return f"scenario {scenario!r} runs the system {owner.system}: add --system {owner.system}"
    others = [f"with --system {n}: {', '.join(scenario_names(n))}" for n in BUILTIN
              if n != name and scenario_names(n)]
    return "; ".join([msg, *others])


def _check_spark(args: argparse.Namespace) -> None:
    if (args.master or args.partitions or args.parquet or args.verbose or args.exchange) and not args.spark:
        raise UsageError("--master, --partitions, --parquet, --exchange and --verbose need --spark")
    if args.exchange is not None:
        from fisheye.checker.spark.files import check_directory

        wrong = check_directory(args.exchange)
        if wrong is not None:
            raise UsageError(f"--exchange {args.exchange}: {wrong}")


def _resolve_system(args: argparse.Namespace) -> str:
    """``--system`` and ``--algorithm`` name one system; toco and lcb set ``args.algorithm``."""
    if args.system is not None and args.algorithm not in (None, args.system):
        raise UsageError("--system and --algorithm name two different systems")
    name = args.system or args.algorithm or DEFAULT
    if name in BUILTIN:
        args.algorithm = name
    return name


def run(args: argparse.Namespace) -> int:
    from ..engines.gcpause import StartUp

    start_up = StartUp()  # ended once the search has expanded its first level
    try:
        return _run(args, start_up)
    finally:
        start_up.end()


def _run(args: argparse.Namespace, start_up: Any) -> int:
    from fisheye.spec.graph import parse_graph_option

    from ..explore.engine import Progress
    from ..explore.report import ReportBuilder, exit_status
    from ..explore.scenarios import make_context

    _positive("--max-states", args.max_states)
    _positive("--timeout", args.timeout)
    if args.max_depth is not None and args.max_depth < 0:
        raise UsageError("--max-depth must be >= 0")
    _positive("--partitions", args.partitions)
    if args.crashes is not None and args.crashes < 0:
        raise UsageError("--crashes must be >= 0")
    memory = None if args.memory is None else parse_size("--memory", args.memory)
    if args.checkpoint and args.resume and args.checkpoint != args.resume:
        raise UsageError("--checkpoint and --resume name different directories")
    if args.resume and args.spark:
        raise UsageError("--resume applies to the local search (with --spark, --checkpoint DIR is Spark's "
                         "reliable checkpoint directory)")
    system_name = _resolve_system(args)
    check_applicable(args)
    from ..systems import parse_options

    try:
        options = parse_options(args.option)
    except ValueError as e:
        raise UsageError(str(e)) from None
    opts = {k: (getattr(args, k) if getattr(args, k) is not None else v) for k, v in DEFAULTS.items()}
    graph = args.graph
    if graph is None:
        graph = "empty" if _is_program(args.scenario) else "paper"
    elif graph.strip() == "paper" and _is_program(args.scenario):
        raise UsageError("--graph paper: a program has no paper graph (its default graph is empty; "
                         "give edges p:q,r:s)")
    if args.save is not None:
        _prepare_dir(args.save)

    def context(reduction: str) -> Any:
        return make_context(args.scenario, graph, level=opts["level"], algorithm=system_name,
                            variant=args.variant, network=opts["network"], mutant=args.mutant,
                            crashes=opts["crashes"], options=options, reduction=reduction,
                            prune_deviations=not args.no_prune)

    try:
        ctx = context(args.reduction)
        model_graph = None
        if args.model_graph is not None:
            model_graph = parse_graph_option(args.model_graph, ctx.system.processes, ctx.system.graph.edges,
                                             source="--model-graph")
    except ValueError as e:
        msg = str(e)
        if system_name in BUILTIN and "unknown" in msg and "scenario" in msg:
            msg = _other_scenarios(msg, args.scenario, system_name)
        raise UsageError(msg) from None
    model = None if opts["model"] == "none" else opts["model"]
    level = ctx.system.info.level
    progress = None if args.quiet else Progress(label=f"explore {args.scenario} ({level})")

    def builder(c: Any) -> ReportBuilder:
        return ReportBuilder(c, level, engine="spark" if args.spark else "local", model=model,
                             model_graph=model_graph, scenario=args.scenario)

    from fisheye.impl.api import SystemFault

    from ..explore.expand import initial_bytes

    try:
        initial_bytes(ctx)
        report = _explore(args, ctx, builder, memory, progress, start_up)
        if args.full:
            from ..explore.engine import explore

            full_ctx = context("none")
            full = explore(full_ctx, builder(full_ctx), max_states=args.max_states, timeout=args.timeout,
                           progress=None if args.quiet else Progress(label="explore (full)"))
    except SystemFault as fault:
        return system_error(ctx, fault, system_name)
    if ctx.system.info.mutant is not None:  # the library's report names no mutant when there is none
        report.setdefault("mutant", str(ctx.system.info.mutant))
    if "crashes" in BUILTIN.get(system_name, BUILTIN[DEFAULT]).accepts.get(opts["level"], ()):
        report.setdefault("crashes", ctx.system.info.crashes)
    if args.full:
        report["full"] = {k: full[k] for k in ("complete", "states", "terminal_states", "histories",
                                               "deadlocks", "transitions", "violations_total", "seconds")}
        report["full"]["outcomes_equal"] = full["outcomes"] == report["outcomes"]
        if full["complete"] and full["states"]:
            report["reduction_factor"] = round(full["states"] / report["states"], 2)
    saved: list[str] = []
    if args.save is not None and report["violations"]:
        saved = save_counterexamples(ctx.system, report, args, model_graph)
        report["saved"] = saved
    if args.json:
        json.dump(report, sys.stdout)
        sys.stdout.write("\n")
    else:
        _print_text(report, args, saved, command_line(args, ctx.system.info))
    return exit_status(report)


def system_error(ctx: Any, fault: Any, name: str) -> int:
    """Report a failure of the system under test (one line on stderr: what failed and
    the schedule that triggers it, to replay) and return the exit status of a system
    error."""
    from ..explore.fault import SYSTEM_ERROR, fault_line, locate

    found = locate(ctx, fault)
    print(fault_line(name, (found.fault or fault).message, found.schedule), file=sys.stderr)
    return SYSTEM_ERROR


def _explore(args: argparse.Namespace, ctx: Any, builder: Any, memory: int | None, progress: Any,
             start_up: Any) -> dict[str, Any]:
    """The exploration itself, locally or on Spark; ``start_up`` ends after the local
    search's first level (the kernel loaded), or before Spark starts."""
    if args.spark:
        start_up.end()
        try:
            from fisheye.checker.spark import explore as spark_explore
        except ImportError as e:
            raise UsageError(f"--spark is not available ({e})") from None
        from ..systems import ship_to_spark

        ship_to_spark()
        try:
            spark_builder = builder(ctx)
        except ValueError as e:
            raise UsageError(str(e)) from None
        try:
            report = spark_explore(ctx, spark_builder, master=args.master, partitions=args.partitions,
                                   max_states=args.max_states, max_depth=args.max_depth, timeout=args.timeout,
                                   progress=not args.quiet,
                                   parquet=args.parquet, checkpoint=args.checkpoint, verbose=args.verbose,
                                   kernel=args.kernel, exchange_dir=args.exchange)
        except Exception:
            # a failure of the system on an executor reaches the driver as Spark's error: if
            # the system fails, found again here, report it as the system error it is
            from ..explore.fault import locate

            found = locate(ctx, None)
            if found.fault is not None:
                raise found.fault from None
            raise
    else:
        from ..explore.engine import explore

        try:
            report = explore(ctx, builder(ctx), max_states=args.max_states, max_depth=args.max_depth,
                             timeout=args.timeout, progress=progress, memory=memory, exact=args.exact_states,
                             checkpoint=args.resume or args.checkpoint, resume=args.resume is not None,
                             checkpoint_every=args.checkpoint_every, kernel=args.kernel,
                             on_level=lambda depth, states: start_up.end())
        except ValueError as e:
            raise UsageError(str(e)) from None
    return report


# ---- counterexample files --------------------------------------------------------------------

def _prepare_dir(path: str) -> None:
    d = Path(path)
    if d.exists() and not d.is_dir():
        raise UsageError(f"--save {path}: not a directory")
    try:
        d.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise UsageError(f"--save {path}: cannot create the directory ({e.strerror})") from None


def command_line(args: argparse.Namespace, record: Any) -> str:
    """The explore command that reproduces this report (for the files' ``search`` key and
    the text report): the system from its record (``record``, the explored system's
    ``info``), the search's own options from the command line."""
    from ..systems import command_options

    parts = ["fisheye", "explore", *command_options(record)]
    for opt in ("model", "model_graph", "reduction", "master", "partitions"):
        v = getattr(args, opt, None)
        if v is not None and not (opt == "reduction" and v == "auto"):
            parts += [f"--{opt.replace('_', '-')}", str(v)]
    for flag in ("no_prune", "spark"):
        if getattr(args, flag, False):
            parts.append(f"--{flag.replace('_', '-')}")
    return shlex.join(parts)


def save_counterexamples(system: Any, report: dict[str, Any], args: argparse.Namespace,
                         model_graph: Any) -> list[str]:
    """One file per listed violation (:func:`fisheye.checker.explore.save.save_counterexamples`)."""
    from fisheye.impl.api import Step

    from ..explore.save import save_counterexamples as save

    found = [(v["violates"], [Step.from_json(s) for s in v["schedule"]]) for v in report["violations"]]
    try:
        paths = save(system, found, args.save, scenario=args.scenario, search=command_line(args, system.info),
                     check_graph=model_graph)
    except ValueError as e:
        raise UsageError(f"--save: {e}") from None
    except OSError as e:
        raise UsageError(f"--save: cannot write {e.filename} ({e.strerror})") from None
    return [str(p) for p in paths]


# ---- the text report ---------------------------------------------------------------------------

def system_text(r: dict[str, Any]) -> str:
    return system_words(r.get("algorithm"), level=r["level"], variant=r.get("variant"),
                        mutant=r.get("mutant"), network=r.get("network"),
                        crashes=r.get("crashes") or 0)


def violation_title(v: dict[str, Any]) -> str:
    if v["kind"] == "deadlock":
        return "deadlock: a run stops before the end with no step enabled"
    if v["kind"] == "broadcast":
        return f"broadcast property '{v['violates']}' violated by the delivery logs"
    if v["kind"] == "model":
        return f"the history of a complete run violates {v['violates']}"
    return f"property '{v['violates']}' of the system violated by a run"


def _print_text(r: dict[str, Any], args: argparse.Namespace, saved: list[str], command: str) -> None:
    w = sys.stdout.write
    kernel = f"; {r['kernel']} kernel" if r.get("kernel") else ""
    if "spark" in r:
        kernel += f"; Spark {r['spark']['master']}, {r['spark']['exchange']} exchange"
    w(f"{r['scenario']}: {system_text(r)}; graph {edges_text(r['graph'])}{kernel}\n")
    counts = (f"{plural(r['states'], 'state')}, {plural(r['terminal_states'], 'complete run')}, "
              f"{plural(r['histories'], 'distinct history', 'distinct histories')}, "
              f"{plural(r['deadlocks'], 'deadlock')}, in {r['seconds']} s")
    if r["complete"]:
        w(f"  every schedule explored: {counts}\n")
    else:
        w(f"  CUT SHORT ({r.get('stopped') or 'a budget ran out'}): {counts}\n")
    pr = r["pruned"]
    if pr["deviating_reads"] or pr["infeasible"]:
        w(f"  set aside: {plural(pr['deviating_reads'], 'state')} where a read returned another value "
          f"than the figure's, {plural(pr['infeasible'], 'state')} the broadcast specification forbids\n")
    oc = r["outcomes"]
    if oc["reads"]:
        vals = "  ".join("(" + ", ".join(json.dumps(v) for v in row) + ")" for row in oc["values"])
        w(f"  outcomes of {', '.join(oc['reads'])}: {vals or 'none'}\n")
    if "full" in r:
        f = r["full"]
        done = "every schedule" if f["complete"] else "cut short"
        w(f"  without reduction: {plural(f['states'], 'state')}, "
          f"{plural(f['terminal_states'], 'complete run')}, "
          f"{plural(f['histories'], 'distinct history', 'distinct histories')} "
          f"({done}); reduction factor {r.get('reduction_factor')}\n")
    if r.get("unknown_checks"):
        w(f"  {plural(r['unknown_checks'], 'history', 'histories')} could not be decided (unknown)\n")
    total = r["violations_total"]
    never = [p for p in r.get("properties", ()) if p["status"] == "never held"]
    for p in never:
        w(f"  property '{p['name']}' (sometimes) NEVER HELD: no complete run satisfies it\n")
    if not total:
        if never:
            w("  every 'always' property held, but a 'sometimes' one never held: NOT a pass\n")
        elif not r["complete"]:
            w("  nothing found before the cut: the search is incomplete, so this is NOT a pass\n")
        elif r.get("unknown_checks"):
            w("  no violation found, but some histories are undecided: NOT a pass\n")
        else:
            what = f"of {r['model']}" if r.get("model") else "(no model checked)"
            w(f"  no violation {what}: every complete run is clean\n")
        return
    listed = r["violations"]
    more = f" ({len(listed)} listed)" if len(listed) < total else ""
    w(f"  {plural(total, 'distinct violation')}{more}:\n")
    for k, v in enumerate(listed, 1):
        steps = len(v["schedule"])
        w(f"  [{k}] {violation_title(v)}; reached by {plural(v['runs'], 'run')}, the shortest with "
          f"{plural(steps, 'step')}\n")
        w("      history:\n")
        for line in history_lines(v["history"], "        "):
            w(line + "\n")
        if saved:
            w(f"      explain it: fisheye explain {shlex.quote(saved[k - 1])}\n")
    if not saved:
        w(f"  to explain them, save them and run fisheye explain on the files written:\n"
          f"    {command} --save DIR\n")
