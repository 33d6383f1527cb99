"""The searches of the localized causal broadcast that end in counterexample files
(counterexamples/README.md, docs/results.md)::

    python scripts/research/lcb_searches.py [--out DIR] [SEARCH ...]
    python scripts/research/lcb_searches.py --fates SCENARIO F

A research driver on the public API of the ``fisheye`` package
(:mod:`fisheye.checker.lcb_search`), not part of it.  SEARCH is ``lcb3`` or ``lcb4``
(the localized causal broadcast over majority-ack URB with at most F = 2 crashes, at
least half the processes: beyond the fault threshold, so uniform agreement and
validity fail; lcb4 breadth-first until both are found, too large to explore fully
here) or ``lcb-mem3`` (Algorithm 2 over the broadcast, every complete history checked
against cc); default all three.  Each stores a shortest counterexample per violated
property and a summary ``DIR/summary/urb-NAME.json`` under ``--out`` (default
``counterexamples`` in the current directory).  ``--fates SCENARIO F`` prints the
reduced exhaustive search with at most F crashes (the numbers of docs/results.md) and
writes nothing.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, TextIO

from fisheye.checker.counterexample import from_run
from fisheye.checker.lcb_search import explore, explore_fates, explore_memory
from fisheye.checker.result import Verdict
from fisheye.impl.lcb import make_lcb_system
from fisheye.spec.lcurb import UNIFORM_AGREEMENT, VALIDITY
from fisheye.spec.models import Model

BROADCAST_SEARCHES = ("lcb3", "lcb4")
MEMORY_SEARCH = "lcb-mem3"
UNTIL: Mapping[str, tuple[str, ...]] = {"lcb4": (UNIFORM_AGREEMENT, VALIDITY)}
"""The breadth-first searches stopped once these properties are found violated."""


def _slug(prop: str) -> str:
    return prop.replace(" (", "-").replace(")", "").replace(" ", "-")


def broadcast_search(root: Path, scenario: str, out: TextIO, until: Iterable[str] = ()) -> dict[str, Any]:
    """The localized causal broadcast on ``scenario`` with F = 2: a shortest
    counterexample file per violated LCURB property; returns the summary."""
    name = f"urb-{scenario}-f2"
    system = make_lcb_system(scenario, crashes=2)
    wanted = tuple(sorted(until))
    res = explore(system, until=wanted)
    found = {}
    for prop in res.violated:
        sched, text = res.shortest[prop]
        fname = f"{name}--{_slug(prop)}.json"
        from_run(system, sched, prop, search=name, check_graph=system.graph, details=text).save(root / fname)
        found[prop] = fname
    print(f"{name}: {res.states} states, {res.terminal_states} complete runs, {dict(res.violations)}",
          file=out)
    return {
        "name": name,
        "description": f"localized causal broadcast over majority-ack URB, scenario {scenario} "
                       f"({len(system.processes)} processes), at most 2 crashes (at least half the "
                       f"processes)" + (": exhaustive" if res.complete else ""),
        "bound": (f"every schedule, {res.states} states, {res.terminal_states} complete runs"
                  if res.complete else
                  f"breadth-first until {' and '.join(wanted)} found: {res.states} states, "
                  f"{res.terminal_states} complete runs (not exhaustive)"),
        "found": found, "runs": res.terminal_states, "systems": 1, "exhaustive": int(res.complete),
        "exhaustive_violations": sum(res.violations.values()), "seconds": round(res.seconds, 1),
        "notes": [f"{p}: {n} complete runs" for p, n in res.violations.items()],
    }


def memory_search(root: Path, out: TextIO) -> dict[str, Any]:
    """Algorithm 2 over the broadcast on lcb-mem3, every complete history checked
    against cc: the counterexample file of a shortest violation; returns the summary."""
    name = f"urb-{MEMORY_SEARCH}"
    system = make_lcb_system(MEMORY_SEARCH, crashes=0)
    mem = explore_memory(system, models=(Model.CC,))
    found = {}
    if Model.CC in mem.examples:
        _, sched = mem.examples[Model.CC]
        fname = f"{name}--cc.json"
        from_run(system, sched, "cc", search=name, check_graph=mem.graph).save(root / fname)
        found["cc"] = fname
    cc = {v.value: n for v, n in mem.verdicts[Model.CC].items()}
    print(f"{name}: {mem.histories} histories, cc: {cc}", file=out)
    return {
        "name": name,
        "description": "Algorithm 2 over the localized causal broadcast (lcb-mem3: q does not have p in "
                       "its locality), every complete history checked against cc: exhaustive",
        "bound": f"every schedule, {mem.states} states, {mem.histories} histories",
        "found": found, "runs": mem.terminal_states, "systems": 1, "exhaustive": 1,
        "exhaustive_violations": mem.verdicts[Model.CC].get(Verdict.VIOLATION, 0), "seconds": 0.0,
        "notes": [f"cc verdicts: {cc}"],
    }


def generate(root: Path, searches: Iterable[str], out: TextIO = sys.stdout) -> dict[str, Any]:
    """Run ``searches``, write their files and summaries under ``root``; return the
    summaries."""
    root.mkdir(parents=True, exist_ok=True)
    summaries: dict[str, Any] = {}
    for search in searches:
        if search == MEMORY_SEARCH:
            data = memory_search(root, out)
        else:
            data = broadcast_search(root, search, out, UNTIL.get(search, ()))
        summaries[data["name"]] = data
    (root / "summary").mkdir(parents=True, exist_ok=True)
    for name, data in summaries.items():
        (root / "summary" / f"{name}.json").write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
    return summaries


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    known = (*BROADCAST_SEARCHES, MEMORY_SEARCH)
    ap.add_argument("searches", nargs="*", metavar="SEARCH", help=f"{', '.join(known)} (default: all)")
    ap.add_argument("--out", default="counterexamples", metavar="DIR",
                    help="where the files and summary/ go (default: ./counterexamples)")
    ap.add_argument("--fates", nargs=2, metavar=("SCENARIO", "F"),
                    help="print the reduced exhaustive search with at most F crashes; write nothing")
    args = ap.parse_args(argv)
    for search in args.searches:
        if search not in known:
            ap.error(f"unknown search {search!r} (expected {', '.join(known)})")
    if args.fates:
        scenario, f = args.fates
        res = explore_fates(scenario, int(f))
        print(f"{scenario} F={f}: {res.states} states (summed over the crash fates), "
              f"{res.terminal_states} complete runs, violations {dict(res.violations)}, {res.seconds:.1f} s")
        return 1 if res.violations else 0
    generate(Path(args.out), args.searches or known)
    return 0


if __name__ == "__main__":
    sys.exit(main())
