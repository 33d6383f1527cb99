"""``fisheye simulate SCENARIO [--graph GRAPH] [--seed N] [--network fifo|unordered]
[--variant corrected|published] [--mutant NAME] [--json]`` (contract section 3).

Runs one random complete execution of Algorithm 2 over Algorithm 1 (issue 4, item 6):
from the initial state, a seeded ``random.Random`` picks one of the enabled steps until
none is enabled (the randomness is here, never in ``impl/``).  Prints the schedule,
the history (contract section 1, with its graph), the named reads' outcome, and the
broadcast properties of section 4.1 checked on the delivery logs.

Exit status: 0 a complete run with no property violated; 1 a deadlock (no step enabled
before the end) or a violated property; 2 bad input or usage.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from typing import Any

from fisheye.impl.api import Step
from fisheye.impl.programs import SCENARIO_NAMES
from fisheye.impl.system import TocoSystem, logs_as_json, make_system
from fisheye.impl.toco import Mutant, Variant

from ..errors import UsageError


def register(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "simulate", help="run one random complete execution of a scenario",
        description="Run one random complete execution of Algorithms 1 and 2 on a scenario "
                    f"({', '.join(SCENARIO_NAMES)}, or a program 'p: write(X,1), a=read(X); q: ...').")
    p.add_argument("scenario", metavar="SCENARIO")
    p.add_argument("--graph", default="paper",
                   help="paper (default), empty, complete, or edges p:q,r:s")
    p.add_argument("--seed", type=int, default=0, help="seed of the random scheduler (default 0)")
    p.add_argument("--network", choices=["fifo", "unordered"], default="fifo")
    p.add_argument("--variant", choices=[v.value for v in Variant], default=Variant.CORRECTED.value)
    p.add_argument("--mutant", choices=[m.value for m in Mutant], default=None)
    p.add_argument("--max-steps", type=int, default=100_000, help=argparse.SUPPRESS)
    p.add_argument("--json", action="store_true", help="print the run as one JSON object")
    p.set_defaults(func=run)


def random_run(system: TocoSystem, seed: int, max_steps: int = 100_000) -> tuple[list[Step], Any]:
    """A seeded random schedule run until no step is enabled."""
    rng = random.Random(seed)
    state = system.initial()
    schedule: list[Step] = []
    for _ in range(max_steps):
        steps = system.enabled(state)
        if not steps:
            break
        step = steps[rng.randrange(len(steps))]
        schedule.append(step)
        state = system.apply(state, step)
    return schedule, state


def run(args: argparse.Namespace) -> int:
    graph = args.graph
    try:
        if ":" not in args.scenario and args.scenario not in SCENARIO_NAMES:
            raise ValueError(f"unknown scenario {args.scenario!r} (expected one of: "
                             f"{', '.join(SCENARIO_NAMES)})")
        if ":" in args.scenario and graph == "paper":
            graph = "empty"
        system = make_system(args.scenario, graph, network=args.network, variant=args.variant,
                             mutant=args.mutant)
    except ValueError as e:
        raise UsageError(str(e)) from None
    schedule, state = random_run(system, args.seed, args.max_steps)
    final = system.is_final(state)
    deadlock = not final and not system.enabled(state)
    violations = system.broadcast_violations(state, complete=final)
    history = system.history(state)
    status = 0 if final and not violations else 1
    if args.json:
        out = {
            "scenario": system.info.scenario or args.scenario,
            "graph": system.graph.to_json(),
            "seed": args.seed,
            "network": system.network.value,
            "variant": system.variant.value,
            "mutant": system.mutant.value if system.mutant else None,
            "algorithm": "toco",
            "schedule": [s.to_json() for s in schedule],
            "history": history.to_json(),
            "outcome": system.outcome(state),
            "complete": final,
            "deadlock": deadlock,
            "violations": [{"property": v.prop, "text": v.text} for v in violations],
            "delivery_logs": logs_as_json(system.delivery_logs(state)),
        }
        json.dump(out, sys.stdout)
        sys.stdout.write("\n")
        return status
    w = sys.stdout.write
    w(f"scenario {system.info.scenario or args.scenario}, graph {system.graph.describe()}, "
      f"network {system.network.value}, variant {system.variant.value}"
      + (f", mutant {system.mutant.value}" if system.mutant else "") + f", seed {args.seed}\n")
    w(f"schedule ({len(schedule)} steps):\n")
    for k, s in enumerate(schedule, 1):
        w(f"  {k:4d}. {s}\n")
    w("history:\n")
    for p, ops in history.by_process.items():
        w(f"  {p}: " + ", ".join(op.short() for op in ops) + "\n")
    if system.outcome(state):
        w("outcome: " + ", ".join(f"{k} = {json.dumps(v)}" for k, v in system.outcome(state).items()) + "\n")
    if deadlock:
        w("DEADLOCK: no step is enabled and the run is not complete\n")
    for v in violations:
        w(f"VIOLATION of {v}\n")
    if status == 0:
        w("complete run; validity, integrity, G-delivery order, causal order, termination hold\n")
    return status
