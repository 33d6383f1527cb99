"""``fisheye simulate SCENARIO [--system NAME] [--graph GRAPH] [--seed N] [--runs N]
[--chooser uniform|swarm] [--network fifo|unordered] [--variant corrected|published]
[--mutant NAME] [--save DIR] [--json]`` (docs/cli.md), and ``fisheye simulate --replay FILE``.

Runs one random complete execution of Algorithm 2 over Algorithm 1, or of the system
``--system NAME`` names in the registry of systems (:mod:`fisheye.checker.systems`: a
built-in, an entry point of the group ``fisheye.systems``, or ``package.module:factory``,
as ``fisheye explore --system``; docs/your-protocol.md): from the initial state, a seeded
``random.Random`` picks one of the enabled steps uniformly until none is enabled
(:func:`fisheye.checker.explore.simulation.random_run`; ``--chooser swarm``: swarm
testing).  ``--runs N``: up to N runs, seeds N0, N0+1, ..., stopping at the first that
fails (deadlock, violated property, or cut short), which is the one printed; when none
fails, one line says so.  ``--save DIR`` writes the failing run as a counterexample file,
as ``fisheye explore --save`` does, replayable by ``--replay`` and ``fisheye explain``:
a run beyond the reach of an exhaustive search still gives a checked finding.  Prints the schedule, the
history (with its graph), the named reads' outcome, and the broadcast properties of
section 4.1 (2015 text) checked on the delivery logs (for another system: its ``always``
properties).

``--replay FILE`` replays instead the schedule of a counterexample file (written by
``fisheye explore --save``) on the system it names (a user's system included: the file
names its factory), and says whether the recorded violation occurs again.

Exit status: 0 a complete run with no property violated; 1 a deadlock (no step enabled
before the end) or a violated property (with ``--replay``: the recorded violation is
reproduced); 2 bad input or usage (with ``--replay``: also a file whose violation does
not replay).
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass
from typing import Any

from fisheye.impl.api import Step, SystemFault
from fisheye.impl.builtin_systems import BUILTIN, DEFAULT, choices, other_examples
from fisheye.impl.programs import SCENARIO_NAMES
from fisheye.impl.properties import DEADLOCK

from ..errors import UsageError
from ..explore.fault import SYSTEM_ERROR, fault_line
from ..explore.simulation import CHOOSERS, UNIFORM, random_run
from .plain import SYSTEM_HINT, edges_text, history_lines, step_text, system_words

EPILOG = """examples:
  fisheye simulate paris-berlin-newyork --seed 3
  fisheye simulate 'p0: write(X,1); p1: a=read(X)' --graph p0:p1   # a program (default graph: empty)
  fisheye simulate fig6 --variant published --network unordered --json
  fisheye simulate --replay counterexamples/mutant-no-t1--fisheye.json
  fisheye simulate fig6 --variant published --runs 200 --chooser swarm --save found/
""" + "".join(f"  fisheye simulate {sc} --system {n} --seed 1   # {BUILTIN[n].summary}\n"
          for n, sc in other_examples()) + SYSTEM_HINT + """
The program syntax: docs/cli.md.  Exit status: 0 a complete run with every property, 1 a
deadlock or a violated property (--replay: the recorded violation reproduced), 2 bad input."""

OPTIONS = ("system", "graph", "seed", "network", "variant", "mutant", "runs", "chooser", "save")


def register(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "simulate", help="run one random complete execution of a scenario, or replay a counterexample",
        formatter_class=argparse.RawDescriptionHelpFormatter, epilog=EPILOG,
        description="Run one random complete execution of Algorithms 1 and 2 on a scenario "
                    f"({', '.join(SCENARIO_NAMES)}, or a program 'p: write(X,1), a=read(X); q: ...'), "
                    "or replay the schedule of a counterexample file.")
    p.add_argument("scenario", metavar="SCENARIO", nargs="?", default=None,
                   help=f"{', '.join(SCENARIO_NAMES)} or a program (omit with --replay); with --system, "
                   "a scenario of that system (omitted: its default)")
    p.add_argument("--system", default=None, metavar="NAME",
                   help="the system to run: " + ", ".join(f"{n} ({b.summary}"
                                                          + (", the default)" if n == DEFAULT else ")")
                                                          for n, b in BUILTIN.items())
                   + ", the name of an entry point of the group fisheye.systems, or package.module:factory "
                   "(your own protocol, docs/your-protocol.md)")
    p.add_argument("--option", action="append", default=None, metavar="NAME=VALUE",
                   help="a further option of the system's factory (its request's options), VALUE "
                   'as JSON where it is JSON (3, true, "x", [1,2]), else as text; repeatable')
    p.add_argument("--graph", default=None, metavar="GRAPH",
                   help="paper (the default for a named scenario), empty (the default for a program), "
                   "complete, or edges p:q,r:s")
    p.add_argument("--seed", type=int, default=None, help="seed of the random scheduler (default 0)")
    p.add_argument("--runs", type=int, default=None, metavar="N",
                   help="up to N runs, seeds SEED, SEED+1, ...: the first that fails (deadlock, violated "
                   "property, cut short) is printed; if none fails, one line says so (default 1)")
    p.add_argument("--chooser", choices=CHOOSERS, default=None,
                   help="how a step is chosen: uniform among the enabled ones (default), or swarm "
                   "(per run, each step kind and process weighted 0.1, 1 or 10: runs with fast and slow "
                   "processes)")
    p.add_argument("--save", default=None, metavar="DIR",
                   help="write a failing run as a counterexample file into DIR (as explore --save), "
                   "replayable by --replay and fisheye explain")
    p.add_argument("--network", choices=["fifo", "unordered"], default=None,
                   help="channel semantics (default fifo)")
    p.add_argument("--variant", choices=choices("variant"), default=None,
                   help="Algorithm 1 as published in the paper or corrected (default)")
    p.add_argument("--mutant", default=None, metavar="NAME",
                   help="a deliberately broken version of Algorithm 1 or 2 ("
                   + ", ".join(choices("mutant")) + "), or of the system --system names")
    p.add_argument("--replay", default=None, metavar="FILE",
                   help="replay the schedule of a counterexample file (from fisheye explore --save)")
    p.add_argument("--max-steps", type=int, default=100_000, metavar="N",
                   help="stop the run after N steps (default 100000); a run cut there exits 3")
    p.add_argument("--json", action="store_true", help="print the run as one JSON object")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    if args.replay is not None:
        return run_replay(args)
    if args.system in (None, DEFAULT):
        _check_builtin(args)
    from fisheye.impl.api import Network, SystemRequest

    from ..systems import make, parse_options

    name = args.system or DEFAULT
    try:
        options = parse_options(args.option)
    except ValueError as e:
        raise UsageError(str(e)) from None
    request = SystemRequest(scenario=args.scenario, graph=args.graph,
                            network=Network.parse(args.network or "fifo"), variant=args.variant,
                            mutant=args.mutant, options=options, system=name)
    try:
        system = make(name, request)
    except ValueError as e:
        raise UsageError(str(e)) from None
    first = 0 if args.seed is None else args.seed
    runs = 1 if args.runs is None else args.runs
    if runs < 1:
        raise UsageError(f"--runs {runs}: give a number of runs of at least 1")
    chooser = args.chooser or UNIFORM
    for seed in range(first, first + runs):
        try:
            schedule, state = random_run(system, seed, max_steps=args.max_steps, chooser=chooser)
        except SystemFault as f:
            print(fault_line(name, f.message, f.schedule), file=sys.stderr)
            return SYSTEM_ERROR
        end = judge_end(system, state)
        failed = end.failures
        if failed is not None:
            break
    else:
        if runs > 1:
            return _all_passed(system, runs, first, chooser, args.json)
    saved: list[str] = []
    if args.save is not None and failed:
        saved = _save(system, failed, schedule, args, seed, chooser)
    return report_run(system, schedule, state, end, args.json, seed=seed, scenario=args.scenario or "",
                      saved=saved)


@dataclass(frozen=True)
class RunEnd:
    """How a run ends, judged once: ``complete`` (every process done), ``deadlock`` (no
    step enabled before the end), ``found``: the ``always`` properties its last state
    violates, as (name, kind, why) (:func:`run_violations`)."""

    complete: bool
    deadlock: bool
    found: list[tuple[str, str, str]]

    @property
    def failures(self) -> list[str] | None:
        """The names of what the run violates (``deadlock`` first), ``[]`` for a run cut
        short with steps still enabled (never a pass), ``None`` for a complete run with
        every property."""
        names = ([DEADLOCK] if self.deadlock else []) + [n for n, _k, _w in self.found]
        if names:
            return names
        return None if self.complete or self.deadlock else []


def judge_end(system: Any, state: Any) -> RunEnd:
    final = system.is_final(state)
    deadlock = not final and not system.enabled(state)
    return RunEnd(final, deadlock, run_violations(system, state, final))


def _all_passed(system: Any, runs: int, first: int, chooser: str, as_json: bool) -> int:
    ident = system.info.describe()
    if as_json:
        json.dump({"scenario": ident["scenario"], "runs": runs, "seeds": [first, first + runs - 1],
                   "chooser": chooser, "complete": True, "deadlock": False, "violations": []}, sys.stdout)
        sys.stdout.write("\n")
    else:
        sys.stdout.write(f"{runs} random runs ({chooser}, seeds {first} to {first + runs - 1}): every run "
                         "complete, no deadlock, no property violated\n")
    return 0


def _save(system: Any, names: list[str], schedule: list[Step], args: argparse.Namespace, seed: int,
          chooser: str) -> list[str]:
    """The failing run as counterexample files, one per property it violates
    (:func:`fisheye.checker.explore.save.save_counterexamples`), each schedule shrunk
    for its property (:func:`fisheye.checker.shrink.shrink`: the shortest violating
    prefix, then steps deleted while it still violates); the command that found the
    run as their ``search``."""
    import shlex

    from ..explore.save import save_counterexamples
    from ..shrink import RunChecks, shrink
    from ..systems import command_options

    command = ["fisheye", "simulate", *command_options(system.info), "--seed", str(seed)]
    if chooser != UNIFORM:
        command += ["--chooser", chooser]
    try:
        checks = RunChecks(models=())
        found = [(n, shrink(system, schedule, n, checks)) for n in names]
        paths = save_counterexamples(system, found, args.save, scenario=args.scenario,
                                     search=shlex.join(command))
    except ValueError as e:
        raise UsageError(f"--save: {e}") from None
    except OSError as e:
        raise UsageError(f"--save: cannot write {e.filename} ({e.strerror})") from None
    return [str(p) for p in paths]


def _check_builtin(args: argparse.Namespace) -> None:
    """The default system's scenario: a name or a program (one plain line otherwise)."""
    if args.scenario is None:
        raise UsageError("simulate needs a SCENARIO (or --replay FILE)")
    if ":" not in args.scenario and args.scenario not in SCENARIO_NAMES:
        raise UsageError(f"unknown scenario {args.scenario!r} (expected one of: "
                         f"{', '.join(SCENARIO_NAMES)}, or a program 'p: write(X,1); q: a=read(X)')")
    if ":" in args.scenario and args.graph is not None and args.graph.strip() == "paper":
        raise UsageError("--graph paper: a program has no paper graph (its default graph is empty; "
                         "give edges p:q,r:s)")


def run_replay(args: argparse.Namespace) -> int:
    from fisheye.spec.history import read_json_file

    from .. import counterexample as cxm

    given = [o for o in OPTIONS if getattr(args, o) is not None]
    if args.scenario is not None:
        raise UsageError("--replay FILE takes no SCENARIO: the file names its system")
    if given:
        raise UsageError(f"--{given[0]} does not apply with --replay (the file names its system)")
    obj = read_json_file(args.replay)
    if not cxm.is_counterexample(obj):
        raise UsageError(f"{args.replay}: not a counterexample file (it needs 'violates' and 'schedule'; "
                         "write one with fisheye explore --save DIR)")
    cx = cxm.from_json(obj, args.replay)
    try:
        system = cx.system()
        res = cxm.replay(cx)
    except ValueError as e:
        raise UsageError(f"{args.replay}: cannot rebuild the system ({e})") from None
    except SystemFault as f:
        print(fault_line(cx.algorithm, f.message, f.schedule), file=sys.stderr)
        return SYSTEM_ERROR
    if res.state is None:
        raise UsageError(f"{args.replay}: {res.message}")
    extra = {"replayed": args.replay, "violates": cx.violates, "reproduced": res.ok, "message": res.message}
    report_run(system, list(cx.schedule), res.state, judge_end(system, res.state), args.json, seed=None,
               scenario=cx.scenario or cx.program or "", extra=extra)
    if not res.ok:
        print(f"fisheye: {args.replay}: the recorded violation ({cx.violates}) is not reproduced: "
              f"{res.message}", file=sys.stderr)
        return 2
    return 1                               # the recorded violation is reproduced


def run_violations(system: Any, state: Any, complete: bool) -> list[tuple[str, str, str]]:
    """The properties a run's end violates, as (name, kind, why), deadlock freedom
    apart (:func:`report_run` details it): every ``always`` property of the system but
    the model (:class:`fisheye.checker.judge.Judge`; the model is ``fisheye check``'s
    job, on the ``--json`` output)."""
    from ..explore.report import violation_kind
    from ..judge import Judge

    judged = Judge.of(system, model=None)(state, complete)
    return [(v.prop, violation_kind(v), v.reason) for v in judged.failed if v.prop != DEADLOCK]


def _deadlock_details(system: Any, state: Any) -> str:
    from .. import counterexample as cxm

    try:
        return cxm.deadlock_details(system, state)
    except AttributeError:  # delivery events of another shape than section 4.1's
        return "no step is enabled but the run is not complete"


def report_run(system: Any, schedule: list[Step], state: Any, end: RunEnd, as_json: bool, *,
               seed: int | None, scenario: str, extra: dict[str, Any] | None = None,
               saved: list[str] | None = None) -> int:
    """Print one run (text or JSON) and return its exit status; ``end``: how it ends
    (:func:`judge_end` of ``state``); ``saved``: the counterexample files written of it."""
    final, deadlock, found = end.complete, end.deadlock, end.found
    history = system.history(state)
    cut = not final and not deadlock and not extra   # a random run stopped by --max-steps
    status = 1 if found or deadlock else 3 if cut else 0
    from .. import counterexample as cxm

    ident = system.info.describe()      # the system's record, as reports and files show it
    violations = ([{"violates": DEADLOCK, "kind": "deadlock",
                    "details": _deadlock_details(system, state)}]
                  if deadlock else [])
    violations += [{"violates": name, "kind": kind, "details": why} for name, kind, why in found]
    outcome = dict(system.outcome(state)) if hasattr(system, "outcome") else {}
    if as_json:
        out = {
            "scenario": ident["scenario"] or scenario,
            "graph": system.graph.to_json(),
            "level": getattr(system, "level", "protocol"),
            "algorithm": ident["algorithm"],
            "variant": ident["variant"],
            "mutant": ident["mutant"],
            "network": ident["network"],
            "seed": seed,
            "schedule": [s.to_json() for s in schedule],
            "history": history.to_json(),
            "outcome": outcome,
            "complete": final,
            "deadlock": deadlock,
            "violations": violations,
            "delivery_logs": cxm.logs_json(system, state),
            **(extra or {}),
            **({"saved": saved} if saved else {}),
        }
        json.dump(out, sys.stdout)
        sys.stdout.write("\n")
        return status
    w = sys.stdout.write
    graph = edges_text(system.graph.to_json())
    what = system_words(ident["algorithm"], level=ident["level"], variant=ident["variant"],
                        mutant=ident["mutant"], network=ident["network"])
    w(f"{ident['scenario'] or scenario}: {what}; graph {graph}"
      + (f"; seed {seed}" if seed is not None else "") + "\n")
    if extra:
        w(f"replaying {extra['replayed']} (recorded violation: {extra['violates']})\n")
    w(f"schedule ({len(schedule)} steps):\n")
    for k, s in enumerate(schedule, 1):
        w(f"  {k:4d}. {step_text(s)}\n")
    w("history:\n")
    for line in history_lines(history.to_json(), "  "):
        w(line + "\n")
    if outcome:
        w("outcome: " + ", ".join(f"{k} = {json.dumps(v)}" for k, v in outcome.items()) + "\n")
    if deadlock:
        w(f"DEADLOCK: {violations[0]['details']}\n")
    if cut:
        w(f"CUT SHORT after {len(schedule)} steps (--max-steps), steps still enabled: NOT a pass\n")
    for name, _kind, why in found:
        w(f"VIOLATION of {name}: {why.removeprefix(name + ': ')}\n")
    for path in saved or ():
        w(f"saved (shrunk): {path}\n")
    if extra:
        w(("REPRODUCED: " if extra["reproduced"] else "NOT REPRODUCED: ") + extra["message"] + "\n")
    elif status == 0:
        from fisheye.impl.properties import PropertyKind

        from ..judge import Judge

        held = [p.name for p in Judge.of(system, model=None).properties if p.kind is PropertyKind.BROADCAST]
        w(f"complete run; {', '.join(held)} hold\n" if held
          else "complete run; no property of the system is violated\n")
    return status
