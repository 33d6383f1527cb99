"""The searches behind the Algorithm 1 correction (docs/algorithm1-correction.md): the
published Algorithm 1 breaks causal order -- reproduce, explain, verify the correction::

    python scripts/research/alg1_correction.py [--out DIR] [--only reproduce|verify|random|table]
        [--max-states N] [--timeout S]

A research driver on the public API of the ``fisheye`` package, not part of it: it
writes its counterexample files and ``DIR/summary/alg1-*.json`` into ``--out`` (default
``counterexamples`` in the current directory).

* **reproduce** -- the project's exhaustive explorer (:mod:`fisheye.checker.explore`)
  on the two minimal systems of the finding, ``published`` variant, FIFO channels:

  - broadcast level: p0, p1, p2, graph p0-p1, one ``TOCO_broadcast`` each
    (:data:`BCAST_1`); the explorer reports a ``causal order`` violation;
  - register level: Algorithm 2 over Algorithm 1 (:data:`CC_PROGRAM`); the explorer
    reports complete histories that are not ``cc``.

  Each violation is then reduced to a *shortest* violating run by a breadth-first search
  of the raw (unreduced) system that checks the property on every state
  (:func:`fisheye.checker.explore.shortest_violation`; a safety property or a model
  violation with distinct written values is prefix-closed, so the first violating state
  found is at minimal depth), and written through :mod:`fisheye.checker.counterexample`
  as ``DIR/alg1-published-*.json`` with, for the broadcast run, the ~>M chain
  (:func:`fisheye.checker.explain.broadcast.causal_chain`) and the Algorithm 1 variables
  at the faulty delivery (:func:`causal_details`).
* **verify** -- exhaustive exploration of ``corrected`` and ``published`` on every
  configuration of :func:`configurations` (3 processes x the 4 graphs up to isomorphism x
  1 or 2 broadcasts per process; the register-level program on the 4 graphs; the paper
  scenarios), counting the five broadcast properties, deadlocks, and the models
  ``fisheye`` and ``cc`` of the complete histories, per complete run (distinct final
  state).  A run cut by the budget says so (``complete: false``) and claims nothing.
* **random** -- seeded random complete runs of larger systems (5 and 6 processes, random
  graphs, broadcast-level and register-level random programs), same checks.

Each part records its rows as JSON in ``DIR/summary/alg1-reproduce.json``,
``alg1-verify-GROUP[TAG].json`` and ``alg1-random.json``; ``--only table`` prints the
table of the document (``docs/algorithm1-correction.md``) from them, as Markdown.  The
randomness is seeded, in the random runs of :func:`fisheye.checker.explore.random_run`;
never in the state machines.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from fisheye.checker import counterexample as cxm
from fisheye.checker.engines import check
from fisheye.checker.explain.broadcast import causal_chain
from fisheye.checker.explore import (
    make_context,
    random_run,
    run,
    shortest_violation,
    violates_model,
    violates_property,
)
from fisheye.checker.explore.expand import FINAL, history_key
from fisheye.checker.explore.simulation import SWARM
from fisheye.checker.result import Verdict
from fisheye.checker.shrink import RunChecks, shrink
from fisheye.impl.api import Step
from fisheye.spec import broadcast as bspec

PROCS3 = ("p0", "p1", "p2")
BCAST_1 = "p0: bcast(X,1); p1: bcast(Y,2); p2: bcast(Z,3)"
"""One broadcast of Algorithm 1 per process: the smallest system breaking causal order."""
BCAST_2 = "p0: bcast(X,1), bcast(X,2); p1: bcast(Y,3), bcast(Y,4); p2: bcast(Z,5), bcast(Z,6)"
"""Two broadcasts of Algorithm 1 per process, back to back (no wait for the own delivery)."""
CC_PROGRAM = "p0: write(X,1), read(Y), read(X); p1: ; p2: await X==1, write(X,3), write(Y,5)"
"""Register level: p2 sees p0's X=1, overwrites X with 3, then writes Y=5; p0 reads Y
then X.  Under cc, r(Y)=5 at p0 is causally after w(X,3), which is after w(X,1): p0
cannot read X=1 any more.  p1 writes nothing; it is p0's neighbour, so p0 must hear
from it before delivering its own write (line 23)."""

GRAPHS3: dict[str, tuple[tuple[str, str], ...]] = {
    "empty": (),
    "one edge p0-p1": (("p0", "p1"),),
    "path p0-p1-p2": (("p0", "p1"), ("p1", "p2")),
    "triangle": (("p0", "p1"), ("p0", "p2"), ("p1", "p2")),
}
"""Every graph on 3 processes up to isomorphism (networkx's atlas has these four)."""

VARIANTS = ("corrected", "published")
BROADCAST_PROPS = bspec.PROPERTIES
MODELS = ("fisheye", "cc")


# ---- the state of Algorithm 1 at the faulty delivery ---------------------------------------------

def causal_details(system: Any, schedule: Sequence[Step]) -> str:
    """For a run violating causal order: the first faulty delivery, the ~>M chain, and
    Algorithm 1's variables there (the message's ``s_caus``, the deliverer's
    ``causal_i``, what is still pending) -- why line 21 let it through."""
    state = system.initial()
    names = system.processes
    for k, step in enumerate(schedule):
        before = state
        state = system.apply(state, step)
        if step.kind != "deliver":
            continue
        bad = [v for v in bspec.causal_order(system.delivery_logs(state)) if step.process in v.processes]
        if not bad:
            continue
        v = bad[0]
        m1, m2 = v.msgs
        i = names.index(step.process)
        toco = before.procs[i].toco
        m = next(x for x in toco.pending if (names[x.sender], x.seq) == (m2.sender, m2.seq))
        chain = "; ".join(causal_chain(system.delivery_logs(state), m1, m2))
        pend = ", ".join(f"{names[x.sender]}#{x.seq}" for x in toco.pending if x is not m) or "nothing"
        text = (f"step {k + 1} ({step}): {step.process} delivers {m2} while {m1} is not delivered, "
                f"but {m1} ~>M {m2} ({chain}). At that step {m2} carries s_caus = {list(m.caus)} and "
                f"causal_{step.process} = {list(toco.causal)} (still pending at {step.process}: {pend}), "
                f"so {m2} is in C (line 21)")
        if m1.sender == step.process:
            text += (f": causal_{step.process}[{step.process}] counts {step.process}'s own *broadcasts* "
                     f"(line 5), not its deliveries, so the entry of the undelivered {m1} is already "
                     "counted (the flaw of the published Algorithm 1)")
        return text
    return ""


# ---- exhaustive exploration of one configuration -------------------------------------------------

@dataclass
class Row:
    """One line of the table: a configuration, a variant, and what the explorer found."""

    config: str
    variant: str
    level: str
    program: str
    graph: list[list[str]]
    complete: bool = False
    states: int = 0
    runs: int = 0                      # complete runs (distinct final states)
    histories: int = 0
    deadlocks: int = 0
    violations: dict[str, int] = field(default_factory=dict)   # property/model -> runs violating it
    first: dict[str, list[Any]] = field(default_factory=dict)  # property/model -> a shortest schedule
    seconds: float = 0.0
    stopped: str | None = None

    @property
    def clean(self) -> bool:
        return self.complete and not self.deadlocks and not any(self.violations.values())


def explore_config(config: str, program: str, edges: Iterable[tuple[str, str]] | str, variant: str, *,
                   models: Sequence[str] = MODELS, max_states: int | None = None,
                   timeout: float | None = None, level: str = "protocol", prune: bool = False) -> Row:
    """Explore every schedule (partial-order reduced) of ``program`` over Algorithm 1
    ``variant``; count, per complete run, the broadcast properties violated, and per
    distinct complete history the ``models`` violated (counted over the runs that
    produced it).  ``prune``: only the runs whose figure reads return Figure 6's values
    (fig6; the explorer's ``prune_deviations``)."""
    graph: Any = edges if isinstance(edges, str) else list(edges)
    ctx = make_context(program, graph, variant=variant, level=level, prune_deviations=prune)
    system = ctx.system
    row = Row(config, variant, level, program, system.graph.to_json())
    counts: dict[str, int] = {p: 0 for p in BROADCAST_PROPS}
    counts.update({m: 0 for m in models})
    verdicts: dict[tuple[Any, str], Verdict] = {}
    keys: set[Any] = set()

    def on_terminal(state: Any, kind: str) -> None:
        final = kind == FINAL
        props = {v.prop for v in system.broadcast_violations(state, complete=final)}
        for p in props:
            counts[p] += 1
        if not final:
            return
        h = system.history(state)
        key = history_key(h)
        keys.add(key)
        for m in models:
            if (key, m) not in verdicts:
                verdicts[key, m] = check(h, m, system.graph, timeout=60).verdict
            if verdicts[key, m] is Verdict.VIOLATION:
                counts[m] += 1

    rep = run(ctx, model=None, max_states=max_states, timeout=timeout, on_terminal=on_terminal)
    row.complete, row.states, row.runs = rep["complete"], rep["states"], rep["terminal_states"]
    row.histories, row.deadlocks, row.seconds = len(keys), rep["deadlocks"], rep["seconds"]
    row.stopped = rep.get("stopped")
    row.violations = {k: v for k, v in counts.items() if v}
    for v in rep["violations"]:
        if v["violates"] not in row.first or v["length"] < len(row.first[v["violates"]]):
            row.first[v["violates"]] = v["schedule"]
    return row


BCAST_211 = {"p0": "p0: bcast(X,1), bcast(X,2); p1: bcast(Y,3); p2: bcast(Z,5)",
             "p1": "p0: bcast(X,1); p1: bcast(Y,3), bcast(Y,4); p2: bcast(Z,5)",
             "p2": "p0: bcast(X,1); p1: bcast(Y,3); p2: bcast(Z,5), bcast(Z,6)"}
"""Two back-to-back broadcasts at one process, one at the others (which process matters
up to isomorphism: an endpoint or not of the edge, the centre or an end of the path)."""
WRITES_2 = "p0: write(X,1), write(X,2); p1: write(Y,3), write(Y,4); p2: write(Z,5), write(Z,6)"
"""Two broadcasts per process through Algorithm 2 (each write waits for its own delivery)."""


def configurations(group: str) -> list[tuple[str, str, Any, str]]:
    """(name, program, graph, level) of one group of the verification, on every graph on
    3 processes up to isomorphism: ``x1`` one broadcast each; ``cc`` the register-level
    program; ``paper`` the paper scenarios; ``x211`` two back-to-back broadcasts at one
    process (each non-isomorphic placement), one at the others; ``w2`` two Algorithm 2
    writes each; ``x2`` two back-to-back broadcasts each."""
    out: list[tuple[str, str, Any, str]] = []
    if group == "paper":
        for g in ("empty", "paper", "complete"):
            out.append((f"paris-berlin-newyork, {g}", "paris-berlin-newyork", g, "protocol"))
        for g in ("empty", "paper"):
            out.append((f"fig6, {g}", "fig6", g, "protocol"))
            out.append((f"fig6 (Figure 6's runs only), {g}", "fig6", g, "protocol"))
        return out
    placements = {"empty": ("p0",), "one edge p0-p1": ("p0", "p2"), "path p0-p1-p2": ("p0", "p1"),
                  "triangle": ("p0",)}
    for gname, edges in GRAPHS3.items():
        if group == "x1":
            out.append((f"bcast x1, {gname}", BCAST_1, edges, "protocol"))
        elif group == "cc":
            out.append((f"cc program, {gname}", CC_PROGRAM, edges, "protocol"))
        elif group == "x211":
            for p in placements[gname]:
                out.append((f"bcast x2 at {p}, x1 elsewhere, {gname}", BCAST_211[p], edges, "protocol"))
        elif group == "w2":
            out.append((f"write x2, {gname}", WRITES_2, edges, "protocol"))
        elif group == "x2":
            out.append((f"bcast x2, {gname}", BCAST_2, edges, "protocol"))
        else:
            raise ValueError(f"unknown group {group!r}")
    return out


GROUPS = ("x1", "cc", "paper", "x211", "w2", "x2")


@contextmanager
def alternative_fix() -> Iterator[None]:
    """Evidence for the document only: the ``corrected`` variant *without* its ``sent``
    counter, i.e. line 3 sends ``causal_i[.]`` as it is (entry i: p_i's own delivered
    messages) -- the alternative smallest change (delete line 5, drop ``if j0 != i`` at
    line 29).  Patches :func:`fisheye.impl.toco.toco_broadcast` for the duration; the
    published variant is untouched."""
    from fisheye.impl import toco

    orig = toco.toco_broadcast

    def patched(cfg: Any, st: Any, payload: Any) -> Any:
        st2, m, sends = orig(cfg, st, payload)
        if cfg.variant is not toco.Variant.CORRECTED:
            return st2, m, sends
        m2 = m._replace(caus=st.causal)
        sends = tuple((k, (w[0], m2)) for k, w in sends)
        pending = tuple(m2 if x is m else x for x in st2.pending)
        return st2._replace(pending=pending), m2, sends

    toco.toco_broadcast = patched
    try:
        yield
    finally:
        toco.toco_broadcast = orig


# ---- random runs of larger systems ---------------------------------------------------------------

@dataclass
class RandomSummary:
    variant: str
    systems: int = 0
    runs: int = 0
    deadlocks: int = 0
    violations: dict[str, int] = field(default_factory=dict)
    seconds: float = 0.0


def random_systems(seed: int, count: int, sizes: Sequence[int] = (5, 6)
                   ) -> list[tuple[str, list[tuple[str, str]]]]:
    """``count`` seeded (program text, edges) pairs: half broadcast level (1-2 broadcasts
    per process), half register level (random programs of up to 3 operations)."""
    from fisheye.impl.programs import random_edges, random_program

    rng = random.Random(seed)
    out = []
    for k in range(count):
        n = sizes[k % len(sizes)]
        procs = [f"p{i}" for i in range(n)]
        if k % 2 == 0:
            v = 0
            parts = []
            for p in procs:
                ops = []
                for _ in range(rng.randint(1, 2)):
                    v += 1
                    ops.append(f"bcast(X{p[1:]},{v})")
                parts.append(f"{p}: " + ", ".join(ops))
            text = "; ".join(parts)
        else:
            text = str(random_program(rng, n, max_ops=3))
        out.append((text, list(random_edges(rng, procs, rng.choice((0.3, 0.5, 0.8))))))
    return out


def random_check(variant: str, systems: Sequence[tuple[str, list[tuple[str, str]]]], *, runs: int, seed: int,
                 models: Sequence[str] = ("fisheye",)) -> RandomSummary:
    """``runs`` seeded random complete runs of each system: broadcast properties (all five
    on complete runs), deadlocks, and ``models`` on the histories."""
    from fisheye.impl.programs import parse_program
    from fisheye.impl.system import make_system

    rng = random.Random(seed)
    res = RandomSummary(variant)
    start = time.perf_counter()
    for text, edges in systems:
        system = make_system(parse_program(text), edges, variant=variant)
        res.systems += 1
        for _ in range(runs):
            _, state = random_run(system, rng, max_steps=100_000, chooser=SWARM)
            res.runs += 1
            final = system.is_final(state)
            if not final:
                res.deadlocks += 1
            bad = {v.prop for v in system.broadcast_violations(state, complete=final)}
            if final:
                h = system.history(state)
                bad |= {m for m in models
                        if check(h, m, system.graph, timeout=30).verdict is Verdict.VIOLATION}
            for b in bad:
                res.violations[b] = res.violations.get(b, 0) + 1
    res.seconds = round(time.perf_counter() - start, 1)
    return res


# ---- reproduction: counterexample files ------------------------------------------------------------

@dataclass
class Reproduction:
    name: str
    file: str
    violates: str
    explorer: dict[str, Any]
    shortest_length: int
    bfs_states: int
    details: str


def reproduce(out: Path, *, max_states: int | None = None, timeout: float | None = None,
              bfs_states: int = 2_000_000) -> list[Reproduction]:
    """Both minimal runs of the finding, found by the explorer, shortened by the BFS,
    written as counterexample files."""
    from fisheye.impl.programs import parse_program
    from fisheye.impl.system import make_system

    done: list[Reproduction] = []
    jobs = (("alg1-published-causal-order", BCAST_1, GRAPHS3["one edge p0-p1"], bspec.CAUSAL_ORDER,
             violates_property(bspec.CAUSAL_ORDER)),
            ("alg1-published-cc", CC_PROGRAM, GRAPHS3["one edge p0-p1"], "cc", violates_model("cc")))
    for name, prog, edges, what, pred in jobs:
        row = explore_config(name, prog, edges, "published", max_states=max_states, timeout=timeout)
        found = row.violations.get(what, 0)
        print(f"[{name}] explorer: {row.states:,} states, {row.runs:,} complete runs, {found} violate "
              f"{what}, {row.seconds} s", file=sys.stderr)
        if not found:
            continue
        system = make_system(parse_program(prog), list(edges), variant="published")
        shortest = shortest_violation(system, pred, max_states=bfs_states)
        visited = shortest.states
        sched = list(shortest.schedule) if shortest.schedule is not None else None
        if sched is None:       # the BFS budget ran out: fall back to the explorer's run, shrunk
            checks = RunChecks((what,) if what in MODELS else ())
            sched = shrink(system, [Step.from_json(s) for s in row.first[what]], what, checks)
        details = causal_details(system, sched) if what == bspec.CAUSAL_ORDER else ""
        cx = cxm.from_run(system, sched, what, search="alg1-published: exhaustive exploration, "
                          "then breadth-first search for the shortest violating run", details=details)
        fname = f"{name}.json"
        cx.save(out / fname)
        print(f"[{name}] shortest violating run: {len(sched)} steps ({visited:,} states searched) -> {fname}",
              file=sys.stderr)
        done.append(Reproduction(name, fname, what, asdict(row), len(sched), visited, details))
    return done


# ---- the table -------------------------------------------------------------------------------------

def markdown(rows: Sequence[Row]) -> str:
    cols = ("causal order", "G-delivery order", "termination", "validity", "integrity", "cc", "fisheye")
    head = ("| configuration | variant | complete | states | complete runs | histories | deadlocks | "
            + " | ".join(cols) + " | seconds |")
    lines = [head, "|" + "---|" * (head.count("|") - 1)]
    for r in rows:
        vs = " | ".join(str(r.violations.get(c, 0)) for c in cols)
        lines.append(f"| {r.config} | {r.variant} | {'yes' if r.complete else 'NO'} | {r.states:,} | "
                     f"{r.runs:,} | {r.histories:,} | {r.deadlocks} | {vs} | {r.seconds} |")
    return "\n".join(lines)


def collect(summ: Path) -> list[Row]:
    """Every recorded row (``alg1-verify-GROUP[-TAG].json``), in the order of
    :func:`configurations` then corrected, alternative, published; when a configuration
    was run more than once, a complete run replaces a cut one (and a longer cut one a
    shorter)."""
    order = {v: k for k, v in enumerate(("corrected", "alternative", "published"))}
    out: list[Row] = []
    for group in GROUPS:
        found: dict[tuple[str, str], Row] = {}
        paths = [summ / f"alg1-verify-{group}.json", *sorted(summ.glob(f"alg1-verify-{group}-*.json"))]
        for path in paths:
            if not path.exists():
                continue
            for r in json.loads(path.read_text()):
                row = Row(**r)
                old = found.get((row.config, row.variant))
                if old is None or (row.complete, row.states) > (old.complete, old.states):
                    found[row.config, row.variant] = row
        names = {c[0]: k for k, c in enumerate(configurations(group))}
        out += sorted(found.values(), key=lambda r: (names.get(r.config, 99), order.get(r.variant, 9)))
    return out


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default="counterexamples", metavar="DIR",
                    help="where the files and summaries are written (default: counterexamples)")
    ap.add_argument("--only", action="append", choices=("reproduce", "verify", "random", "table"),
                    default=None)
    ap.add_argument("--group", action="append", choices=GROUPS, default=None,
                    help="verification groups (default: x1, cc, paper)")
    ap.add_argument("--variant", action="append", choices=(*VARIANTS, "alternative"), default=None,
                    help="variants to verify (default: corrected, published; alternative: see "
                    "alternative_fix)")
    ap.add_argument("--config", default=None, metavar="TEXT",
                    help="only the configurations whose name contains TEXT")
    ap.add_argument("--tag", default="", help="suffix of the summary file name (parallel runs)")
    ap.add_argument("--max-states", type=int, default=3_000_000, help="state budget per exploration")
    ap.add_argument("--timeout", type=float, default=1800.0, help="seconds per exploration")
    ap.add_argument("--random-systems", type=int, default=40)
    ap.add_argument("--random-runs", type=int, default=20)
    args = ap.parse_args(argv)
    out = Path(args.out)
    summ = out / "summary"
    summ.mkdir(parents=True, exist_ok=True)

    parts = args.only or ["reproduce", "verify", "random"]
    if "reproduce" in parts:
        rep = [asdict(r) for r in reproduce(out, max_states=args.max_states, timeout=args.timeout)]
        (summ / "alg1-reproduce.json").write_text(json.dumps(rep, indent=1) + "\n")
    if "verify" in parts:
        for group in args.group or ["x1", "cc", "paper"]:
            rows: list[Row] = []
            path = summ / f"alg1-verify-{group}{args.tag}.json"
            for name, prog, graph, level in configurations(group):
                if args.config and args.config not in name:
                    continue
                for variant in args.variant or list(VARIANTS):
                    if variant == "alternative":
                        with alternative_fix():
                            r = explore_config(name, prog, graph, "corrected", max_states=args.max_states,
                                               timeout=args.timeout, level=level, prune="runs only" in name)
                        r.variant = "alternative"
                    else:
                        r = explore_config(name, prog, graph, variant, max_states=args.max_states,
                                           timeout=args.timeout, level=level, prune="runs only" in name)
                    rows.append(r)
                    print(markdown([r]).splitlines()[-1], file=sys.stderr, flush=True)
                    path.write_text(json.dumps([asdict(x) for x in rows], indent=1) + "\n")
    if "random" in parts:
        systems = random_systems(5, args.random_systems)
        res = {"systems": [{"program": p, "graph": g} for p, g in systems],
               "runs_per_system": args.random_runs,
               "results": [asdict(random_check(v, systems, runs=args.random_runs, seed=9)) for v in VARIANTS]}
        (summ / "alg1-random.json").write_text(json.dumps(res, indent=1) + "\n")
        print(json.dumps(res["results"]))
    if "table" in parts:
        print(markdown(collect(summ)))
    return 0


if __name__ == "__main__":
    sys.exit(main())


__all__ = ["BCAST_1", "BCAST_2", "CC_PROGRAM", "GRAPHS3", "Row", "alternative_fix", "causal_details",
           "configurations", "explore_config", "main", "random_check", "random_systems", "reproduce"]
