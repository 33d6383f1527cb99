"""The searches for counterexamples of the algorithms and their mutants, which end in
counterexample files or a recorded "none up to bound" (counterexamples/README.md)::

    python scripts/research/counterexample_searches.py [--out DIR] [--only NAME] [--budget S]

A research driver on the public API of the ``fisheye`` package, not part of it: it
writes the files, ``DIR/summary/NAME.json`` and the table of ``DIR/README.md`` into
``--out`` (default ``counterexamples`` in the current directory).

Method (bounded, recorded in each search's summary): seeded random complete runs of the
system under a swarm configuration (:func:`fisheye.checker.explore.random_run`), each
run checked (:class:`fisheye.checker.shrink.RunChecks`) for

* a safety property of the broadcast (section 4.1; checked on every prefix: a violated
  safety property stays violated),
* a deadlock (no step enabled, run not complete),
* the models (``fisheye-2014`` / ``fisheye``) on the run's history, for a complete run;

then the first violating run of each kind is *shrunk* (:func:`fisheye.checker.shrink.shrink`):
cut to the shortest violating prefix (a run prefix's history violating a model stays
violating in every extension when written values are distinct, as in these programs),
then single steps are deleted while the schedule still replays and still violates, to a
fixpoint (a 1-minimal schedule).
The exhaustive explorer (:mod:`fisheye.checker.explore`) is run on each system with a
state budget; a complete exploration with no violation is the "none up to bound" claim
with an exhaustive bound, otherwise the bound is the number of random runs.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from fisheye.checker import counterexample as cxm
from fisheye.checker.explore import Context, random_run, run
from fisheye.checker.explore.simulation import SWARM
from fisheye.checker.shrink import RunChecks, shrink
from fisheye.impl.api import Step
from fisheye.impl.api import replay as replay_schedule
from fisheye.spec.graph import ProximityGraph
from fisheye.spec.models import Model

MODELS_2 = (Model.FISHEYE_2014.value, Model.FISHEYE.value)


# ---- graphs up to isomorphism ----------------------------------------------------------------

def graphs_up_to_isomorphism(processes: Sequence[str]) -> list[ProximityGraph]:
    """Every proximity graph on ``processes`` up to isomorphism (networkx's atlas)."""
    import networkx as nx

    n = len(processes)
    out = []
    for g in nx.graph_atlas_g():
        if g.number_of_nodes() == n:
            edges = tuple((processes[a], processes[b]) for a, b in g.edges())
            out.append(ProximityGraph(tuple(processes), edges))
    return out


# ---- one search ---------------------------------------------------------------------------------

@dataclass
class SearchResult:
    name: str
    description: str
    bound: str
    found: dict[str, str] = field(default_factory=dict)   # violates -> file name
    runs: int = 0
    systems: int = 0
    exhaustive: int = 0          # systems explored completely by the explorer
    exhaustive_violations: int = 0
    seconds: float = 0.0
    notes: list[str] = field(default_factory=list)


def search_systems(name: str, description: str, systems: Iterable[tuple[Any, str] | tuple[Any, str, int]],
                   checks: RunChecks, *, runs_per_system: int, seed: int, out: Path, explore_states: int = 0,
                   time_budget: float = 600.0, stop_when: Callable[[SearchResult], bool] | None = None
                   ) -> SearchResult:
    """Random runs (and a budgeted exhaustive exploration) of each system; the first
    violation of each kind is shrunk, explained and written to ``out``."""
    rng = random.Random(seed)
    res = SearchResult(name, description, "")
    start = time.perf_counter()
    for item in systems:
        system, label = item[0], item[1]
        runs = item[2] if len(item) > 2 else runs_per_system  # type: ignore[misc]
        if time.perf_counter() - start > time_budget:
            res.notes.append(f"time budget {time_budget:g} s reached after {res.systems} systems")
            break
        res.systems += 1
        candidates: list[list[Step]] = []
        if explore_states:
            candidates += _explore(system, checks, explore_states, res)
        for _ in range(runs):
            sched, state = random_run(system, rng, max_steps=2000, chooser=SWARM)
            res.runs += 1
            candidates.append(sched)
        for sched in candidates:
            state = replay_schedule(system, sched)
            for what in checks.violations(system, state):
                if what in res.found:
                    continue
                small = shrink(system, sched, what, checks)
                cg = checks.model_graph if what in MODELS_2 else None
                cx = cxm.from_run(system, small, what, search=name, check_graph=cg)
                fname = f"{name}--{what.replace(' ', '-')}.json"
                cx.save(out / fname)
                res.found[what] = fname
                print(f"[{name}] {what}: {label}, schedule {len(sched)} -> {len(small)} steps -> {fname}",
                      file=sys.stderr)
        if stop_when is not None and stop_when(res):
            break
    res.seconds = round(time.perf_counter() - start, 1)
    return res


def _explore(system: Any, checks: RunChecks, max_states: int, res: SearchResult) -> list[list[Step]]:
    """A budgeted exhaustive exploration; the schedules of the violations it found."""
    ctx = Context(system, prune_deviations=False)
    model = checks.models[0] if checks.models else None
    rep = run(ctx, level="protocol", model=model, model_graph=checks.model_graph, max_states=max_states)
    if rep["complete"]:
        res.exhaustive += 1
        res.exhaustive_violations += rep["violations_total"]
    return [[Step.from_json(s) for s in v["schedule"]] for v in rep["violations"]]


# ---- the searches -----------------------------------------------------------------------------------

LITMUS_4P = (
    "p0: write(X,1); p1: write(Y,2); p2: read(X), read(Y); p3: read(Y), read(X)",
    "p0: write(X,1), read(Y); p1: write(Y,2), read(X); p2: read(X), read(Y); p3: read(Y), read(X)",
    "p0: write(X,1), read(Y); p1: write(Y,2), read(X); p2: write(X,3); p3: write(Y,4)",
    "p0: write(X,1), write(Y,2); p1: read(Y), read(X); p2: write(X,3), read(Y); p3: read(X), read(Y)",
)
"""Litmus shapes over 4 processes, up to 2 operations each: IRIW, IRIW with writer reads,
store buffering with extra writers, message passing with observers."""
LITMUS_RUNS = 1000


def _alg2_published(out: Path, budget: float) -> SearchResult:
    from fisheye.impl.programs import parse_program, random_program
    from fisheye.impl.system import make_system

    procs = ("p0", "p1", "p2", "p3")
    graphs = graphs_up_to_isomorphism(procs)
    rng = random.Random(7)
    # the classic litmus shapes first (IRIW, store buffering, message passing), then random ones
    programs = [parse_program(t) for t in LITMUS_4P]
    programs += [p for p in (random_program(rng, 4, max_ops=2) for _ in range(100))
                 if sum(len(o) for o in p.ops) >= 3]

    def systems() -> Iterable[tuple[Any, str, int]]:
        for k, prog in enumerate(programs):
            for g in graphs:
                runs = LITMUS_RUNS if k < len(LITMUS_4P) else 25
                yield make_system(prog, g, variant="published"), f"{prog} | graph {g.describe()}", runs
    checks = RunChecks(MODELS_2)
    res = search_systems("alg2-published-4p", "Algorithm 2 over Algorithm 1 as published, 4 processes, "
                         "every graph up to isomorphism (11), random programs of up to 2 operations per "
                         "process (registers X, Y, distinct values)", systems(), checks,
                         runs_per_system=25, seed=1, out=out, explore_states=2000, time_budget=budget)
    res.bound = (f"{res.systems} (program, graph) systems of {len(programs)} programs (4 litmus shapes, "
                 f"then random) x 11 graphs; {LITMUS_RUNS} random runs per litmus system, 25 per random one "
                 f"({res.runs} runs); {res.exhaustive} systems explored exhaustively (explorer, 2,000-state "
                 "budget)")
    return res


def _pbn_empty(out: Path, budget: float) -> SearchResult:
    from fisheye.impl.system import make_system

    system = make_system("paris-berlin-newyork", "empty")
    mg = ProximityGraph.of(system.processes, [("paris", "berlin")])
    checks = RunChecks((Model.FISHEYE.value,), model_graph=mg, properties=False)
    res = search_systems("pbn-empty-vs-fisheye-pb", "paris-berlin-newyork run on the EMPTY graph, history "
                         "checked against fisheye with the edge paris-berlin (Figure 4's b = 1)",
                         [(system, "pbn on the empty graph")] * 40, checks, runs_per_system=50, seed=2,
                         out=out, time_budget=budget, stop_when=lambda r: bool(r.found))
    res.bound = f"{res.runs} random complete runs"
    return res


MUTANTS = ("no-catch-up", "no-t1", "no-t2", "write-returns-early", "opposite-tie-break")


def _mutant(mutant: str | None, network: str, out: Path, budget: float) -> SearchResult:
    from fisheye.impl.programs import random_edges, random_program
    from fisheye.impl.system import make_system

    label = mutant or (f"{network}-channels" if network != "fifo" else "none")

    def systems() -> Iterable[tuple[Any, str]]:
        for sc in ("paris-berlin-newyork", "fig6"):
            for g in ("paper", "complete"):
                yield make_system(sc, g, network=network, mutant=mutant), f"{sc} graph {g}"
        rng = random.Random(11)
        for _ in range(200):
            prog = random_program(rng, 3, max_ops=2)
            edges = random_edges(rng, prog.processes)
            yield make_system(prog, list(edges), network=network, mutant=mutant), f"{prog} | {edges}"
    checks = RunChecks((Model.FISHEYE.value,))
    name = f"mutant-{label}" if label != "none" else "baseline-corrected"
    desc = (f"Algorithm 2 over Algorithm 1 (corrected) with mutant {mutant}" if mutant else
            "Algorithm 2 over Algorithm 1 (corrected) on unordered (non-FIFO) channels" if network != "fifo"
            else "control: Algorithm 2 over Algorithm 1 (corrected), no mutant, FIFO channels")
    res = search_systems(name, desc + "; scenarios paris-berlin-newyork and fig6 (paper and complete "
                         "graphs) then random 3-process programs of up to 2 operations per process on random "
                         "graphs", systems(), checks, runs_per_system=30, seed=3, out=out,
                         explore_states=2000, time_budget=budget, stop_when=lambda r: len(r.found) >= 3)
    res.bound = (f"{res.systems} systems, 30 random runs each ({res.runs} runs); {res.exhaustive} systems "
                 "explored exhaustively (explorer, 2,000-state budget)")
    return res


SEARCHES: dict[str, Callable[[Path, float], SearchResult]] = {
    "alg2-published-4p": _alg2_published,
    "pbn-empty-vs-fisheye-pb": _pbn_empty,
    **{f"mutant-{m}": (lambda out, b, m=m: _mutant(m, "fifo", out, b)) for m in MUTANTS},
    "mutant-unordered-channels": lambda out, b: _mutant(None, "unordered", out, b),
    "baseline-corrected": lambda out, b: _mutant(None, "fifo", out, b),
}


CHECKED = {
    "alg2-published-4p": ("fisheye-2014", "fisheye", "broadcast safety", "deadlock"),
    "pbn-empty-vs-fisheye-pb": ("fisheye (paris-berlin)", "deadlock"),
}
DEFAULT_CHECKED = ("fisheye", "broadcast safety", "deadlock")
TABLE_START, TABLE_END = "<!-- searches table: generated -->", "<!-- end of generated table -->"


def readme_table(out: Path) -> str:
    """The summary table of every recorded search (``out/summary/*.json``)."""
    rows = ["| search | what was searched | bound | found (shrunk schedule, core) | none up to bound |",
            "| --- | --- | --- | --- | --- |"]
    for f in sorted((out / "summary").glob("*.json")):
        d = json.loads(f.read_text())
        see = f"see `summary/{f.name}`"
        if isinstance(d, list):  # another tool's summary: one entry per file it wrote
            for e in d:
                if isinstance(e, dict) and e.get("file"):
                    rows.append(f"| {e.get('name', f.stem)} | {see} | {see} | "
                                f"{e.get('violates', '?')}: [{e['file']}]({e['file']}) | {see} |")
            continue
        if not isinstance(d, dict) or not isinstance(d.get("found"), dict):
            rows.append(f"| {f.stem} | {see} | {see} | - | {see} |")
            continue
        found = []
        for what, fname in sorted(d["found"].items()):
            cx = json.loads((out / fname).read_text())
            core = cx["explanation"].get("core_size") if cx.get("explanation") else None
            extra = f", core {core} ops" if core is not None else ""
            found.append(f"{what}: [{fname}]({fname}) ({len(cx['schedule'])} steps{extra})")
        checked = CHECKED.get(d["name"], DEFAULT_CHECKED)
        kinds = {"G-delivery order", "causal order", "validity", "integrity"}
        none = [c for c in checked if not any(w == c or w == c.split(" ")[0] or
                                               (c == "broadcast safety" and w in kinds) for w in d["found"])]
        if d["name"] not in SEARCHES:  # another tool's search: what it checked is in its summary
            none = [see]
        notes = ("; " + "; ".join(d["notes"])) if d.get("notes") else ""
        rows.append(f"| {d['name']} | {d.get('description', see)} | {d.get('bound', see)}; "
                    f"{d.get('seconds', '?')} s{notes} | "
                    f"{'<br>'.join(found) or '-'} | {', '.join(none) or '-'} |")
    return "\n".join(rows)


def write_readme(out: Path) -> None:
    """Replace the generated table of ``out/README.md`` (the prose around it is kept)."""
    path = out / "README.md"
    text = path.read_text() if path.exists() else f"# Counterexamples\n\n{TABLE_START}\n{TABLE_END}\n"
    if TABLE_START not in text:
        text += f"\n{TABLE_START}\n{TABLE_END}\n"
    head, rest = text.split(TABLE_START, 1)
    tail = rest.split(TABLE_END, 1)[1] if TABLE_END in rest else ""
    path.write_text(f"{head}{TABLE_START}\n{readme_table(out)}\n{TABLE_END}{tail}")


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default="counterexamples", metavar="DIR",
                    help="where the files, summaries and README table are written (default: counterexamples)")
    ap.add_argument("--only", action="append", choices=sorted(SEARCHES), default=None)
    ap.add_argument("--budget", type=float, default=300.0, help="seconds per search")
    ap.add_argument("--readme", action="store_true", help="only regenerate the README table")
    args = ap.parse_args(argv)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    if args.readme:
        write_readme(out)
        return 0
    results = []
    for name in args.only or list(SEARCHES):
        res = SEARCHES[name](out, args.budget)
        results.append(res)
        print(json.dumps(res.__dict__), flush=True)
    (out / "summary").mkdir(exist_ok=True)
    for r in results:
        (out / "summary" / f"{r.name}.json").write_text(json.dumps(r.__dict__, indent=1) + "\n")
    write_readme(out)
    return 0


if __name__ == "__main__":
    sys.exit(main())


__all__ = ["SEARCHES", "SearchResult", "graphs_up_to_isomorphism", "main", "search_systems"]
