"""Exhaustive exploration of the localized causal broadcast (its LCURB1-5 properties), and the tool that
stores its counterexamples.

:func:`explore` is a plain breadth-first search over :class:`fisheye.impl.lcb.LcbSystem`
(every enabled step, no reduction beyond the system's own ``urb_delivery`` mode), which
checks LCURB1–LCURB5 (:mod:`fisheye.spec.lcurb`) on every terminal state and keeps, per
violated property, a shortest schedule.  :func:`explore_memory` collects the distinct
histories of Algorithm 2 over the broadcast and checks them against consistency models.

``python -m fisheye.checker.lcb_search`` explores ``lcb3`` and ``lcb4`` beyond the fault
threshold (F = 2: at least half the processes crash), stores a shortest run per violated
property as a counterexample file (docs/contract.md §5), the consistency counterexample
of Algorithm 2 over the broadcast, and a summary in ``counterexamples/summary/``.
"""

from __future__ import annotations

import json
import sys
import time
from collections import deque
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from fisheye.impl.api import Step, replay
from fisheye.impl.actors import GlobalState as LcbState
from fisheye.impl.lcb import LcbSystem, check_run, make_lcb_system
from fisheye.spec.graph import ProximityGraph
from fisheye.spec.history import History
from fisheye.spec.lcurb import PROPERTIES, UNIFORM_AGREEMENT, VALIDITY, Violation

from .counterexample import Counterexample
from .engines import check


@dataclass
class Exploration:
    """What :func:`explore` found.  ``violations[prop]``: the number of terminal states
    violating ``prop``; ``shortest[prop]``: a shortest schedule reaching one, and the
    violation's text."""

    states: int = 0
    terminal_states: int = 0
    histories: dict[tuple[Any, ...], tuple[History, tuple[Step, ...]]] = field(default_factory=dict)
    violations: dict[str, int] = field(default_factory=dict)
    shortest: dict[str, tuple[tuple[Step, ...], str]] = field(default_factory=dict)
    seconds: float = 0.0
    complete: bool = True

    @property
    def violated(self) -> tuple[str, ...]:
        return tuple(p for p in PROPERTIES if p in self.violations)


Parents = Mapping[LcbState, tuple[LcbState | None, Step | None]]


def _schedule(parents: Parents, s: LcbState) -> tuple[Step, ...]:
    out: list[Step] = []
    while True:
        prev, step = parents[s]
        if prev is None or step is None:
            return tuple(reversed(out))
        out.append(step)
        s = prev


def _history_key(h: History) -> tuple[Any, ...]:
    return tuple((op.process, op.kind, op.register, op.vkey) for op in h.ops)


def explore(system: LcbSystem, *, checker: Callable[[LcbSystem, LcbState], list[Violation]] = check_run,
            histories: bool = False, until: Callable[[Exploration], bool] | None = None,
            steps_of: Callable[[LcbSystem, LcbState], list[Step]] | None = None,
            terminals: dict[LcbState, tuple[Step, ...]] | None = None) -> Exploration:
    """Visit every reachable state breadth-first; check every terminal state.  With
    ``until``, stop as soon as it holds after a terminal state (``complete`` is then
    false: no claim of exhaustiveness).  ``steps_of``: the steps to explore from a state
    (default: every enabled step; :func:`persistent_steps` for the reduced search).
    ``terminals``: if given, filled with every terminal state and a schedule to it."""
    start = time.perf_counter()
    init = system.initial()
    parents: dict[LcbState, tuple[LcbState | None, Step | None]] = {init: (None, None)}
    queue = deque([init])
    res = Exploration()
    while queue:
        s = queue.popleft()
        steps = system.enabled(s) if steps_of is None else steps_of(system, s)
        if not steps:
            res.terminal_states += 1
            if terminals is not None:
                terminals[s] = _schedule(parents, s)
            first = {}
            for v in checker(system, s):
                first.setdefault(v.property, v)
            for prop, v in first.items():  # one count per terminal state and property
                res.violations[prop] = res.violations.get(prop, 0) + 1
                if prop not in res.shortest:  # BFS: the first one found is a shortest one
                    res.shortest[prop] = (_schedule(parents, s), str(v))
            if histories:
                h = system.history(s)
                res.histories.setdefault(_history_key(h), (h, _schedule(parents, s)))
            if until is not None and until(res):
                res.complete = not queue
                break
            continue
        for step in steps:
            t = system.apply(s, step)
            if t not in parents:
                parents[t] = (s, step)
                queue.append(t)
    res.states = len(parents)
    res.seconds = time.perf_counter() - start
    return res


def persistent_steps(system: LcbSystem, state: LcbState) -> list[Step]:
    """A persistent set: all the enabled steps of the smallest set P of processes closed
    under "p ∈ P and q may affect p's steps ⇒ q ∈ P", where q may affect p when the
    channel q -> p is empty (or unordered) and q may still send to p (q could enable a new
    receipt at p), or when q may still crash while the channel q -> p is or may become
    non-empty (its crash would enable losses at p).

    Steps of different processes commute: a step of q changes q's state, pops a channel
    into q, appends to channels out of q, discards dead copies in channels into q, and a
    crash of q clears the channels into q; the crash budget is not shared when each
    crashable process may crash once (the systems :func:`explore_fates` builds).  A step
    outside P can thus neither disable a step of P nor, by the closure, enable a new step
    of P, and the terminal states are all reached (persistent sets, Godefroid 1996).
    Valid only when ``max_crashes >= len(crashable)``."""
    steps = system.enabled(state)
    by_proc: dict[str, list[Step]] = {}
    for st in steps:
        by_proc.setdefault(st.process, []).append(st)
    if len(by_proc) <= 1:
        return list(steps)
    assert system.max_crashes >= len(system.crashable), "a shared crash budget makes crashes dependent"
    n, ranks = system.n, system.ranks
    fifo = system.network.value == "fifo"
    may_crash = {q for q in system.processes if system.may_crash(state, q)}
    ms: dict[tuple[str, str], bool] = {}

    def affects(q: str, p: str) -> bool:
        chan = state.channels[ranks[q] * n + ranks[p]]
        if (q, p) not in ms:
            ms[(q, p)] = system.may_send(state, q, p)
        sends = ms[(q, p)]
        return ((not chan or not fifo) and sends) or (q in may_crash and (bool(chan) or sends))

    best: list[Step] | None = None
    for start in by_proc:
        closed = {start}
        stack = [start]
        while stack:
            p = stack.pop()
            for q in system.processes:
                if q not in closed and affects(q, p):
                    closed.add(q)
                    stack.append(q)
        members = [st for st in steps if st.process in closed]
        if best is None or len(members) < len(best):
            best = members
    assert best is not None
    return best


@dataclass
class FateExploration:
    """The union of the reduced searches over every set of at most F crashable
    processes: the terminal states of the system with at most F crashes."""

    states: int
    terminal_states: int
    violations: dict[str, int]
    shortest: dict[str, tuple[str, tuple[Step, ...], str]]  # prop -> (fate label, schedule, text)
    terminals: dict[LcbState, tuple[tuple[str, ...], tuple[Step, ...]]]
    seconds: float


def explore_fates(scenario: str, crashes: int, *, locality: Mapping[str, Iterable[str]] | None = None,
                  network: str = "fifo", reduced: bool = True) -> FateExploration:
    """At most ``crashes`` crashes, explored as one search per set C of at most that many
    processes, with exactly C crashable (each at most once), reduced with
    :func:`persistent_steps`; terminal states are merged (a run in which some process of
    C does not crash also belongs to a smaller C)."""
    from itertools import combinations

    start = time.perf_counter()
    base = make_lcb_system(scenario, crashes=0, locality=locality, network=network)
    terminals: dict[LcbState, tuple[tuple[str, ...], tuple[Step, ...]]] = {}
    states = 0
    for k in range(crashes + 1):
        for fate in combinations(base.processes, k):
            system = LcbSystem(base.processes, base.locality, base.app, crashes=k, network=network,
                               name=base.name, crashable=fate)
            found: dict[LcbState, tuple[Step, ...]] = {}
            res = explore(system, checker=lambda *_: [], steps_of=persistent_steps if reduced else None,
                          terminals=found)
            states += res.states
            for t, sched in found.items():
                terminals.setdefault(t, (fate, sched))
    violations: dict[str, int] = {}
    shortest: dict[str, tuple[str, tuple[Step, ...], str]] = {}
    judge = make_lcb_system(scenario, crashes=crashes, locality=locality, network=network)
    for t, (fate, sched) in terminals.items():
        first: dict[str, Violation] = {}
        for v in check_run(judge, t):
            first.setdefault(v.property, v)
        for prop, v in first.items():
            violations[prop] = violations.get(prop, 0) + 1
            if prop not in shortest or len(sched) < len(shortest[prop][1]):
                shortest[prop] = (",".join(fate), sched, str(v))
    return FateExploration(states, len(terminals), violations, shortest, terminals,
                           time.perf_counter() - start)


@dataclass(frozen=True)
class MemoryReport:
    """Algorithm 2 over the broadcast: distinct histories and, per model, how many are
    violations (with one example each)."""

    scenario: str
    graph: ProximityGraph
    states: int
    terminal_states: int
    histories: int
    verdicts: Mapping[str, Mapping[str, int]]
    examples: Mapping[str, tuple[History, tuple[Step, ...]]]


def explore_memory(system: LcbSystem, models: Iterable[str] = ("cc", "fisheye"),
                   graph: ProximityGraph | None = None) -> MemoryReport:
    """Every complete history of ``system`` (a memory scenario), checked against each
    model (``fisheye``: with the graph of mutual locality unless ``graph`` is given)."""
    res = explore(system, histories=True)
    g = graph if graph is not None else system.graph
    verdicts: dict[str, dict[str, int]] = {}
    examples: dict[str, tuple[History, tuple[Step, ...]]] = {}
    for model in models:
        counts: dict[str, int] = {}
        for h, sched in sorted(res.histories.values(), key=lambda hs: len(hs[1])):
            v = check(h.with_edges(g.edges), model, g).verdict.value
            counts[v] = counts.get(v, 0) + 1
            if v == "violation" and model not in examples:
                examples[model] = (h.with_edges(g.edges), sched)
        verdicts[model] = counts
    return MemoryReport(system.name, g, res.states, res.terminal_states, len(res.histories), verdicts,
                        examples)


# ---- counterexample files -------------------------------------------------------------------

ROOT = Path(__file__).resolve().parent.parent / "counterexamples"


def _slug(prop: str) -> str:
    return prop.replace(" (", "-").replace(")", "").replace(" ", "-")


def broadcast_counterexample(system: LcbSystem, schedule: tuple[Step, ...], prop: str, text: str,
                             search: str) -> Counterexample:
    state = replay(system, schedule)
    h = system.history(state).with_edges(system.graph.edges)
    logs = {p: [list(e) for e in log] for p, log in system.delivery_logs(state).items()}
    return Counterexample(history=h, violates=prop, algorithm="lcb", variant="published", mutant=None,
                          network=system.network.value, schedule=schedule, system_graph=system.graph.edges,
                          scenario=system.name, search=search, details=text, delivery_logs=logs)


def model_counterexample(system: LcbSystem, history: History, schedule: tuple[Step, ...], model: str,
                         search: str) -> Counterexample:
    from .explain import explain

    g = ProximityGraph(history.processes, history.edges)
    exp = explain(history, model, g, schedule=[s.to_json() for s in schedule]).to_json()
    state = replay(system, schedule)
    logs = {p: [list(e) for e in log] for p, log in system.delivery_logs(state).items()}
    return Counterexample(history=history, violates=model, algorithm="lcb", variant="published", mutant=None,
                          network=system.network.value, schedule=schedule, system_graph=system.graph.edges,
                          scenario=system.name, search=search, details="", delivery_logs=logs,
                          explanation=exp)


def generate(root: Path = ROOT, *, scenarios: Iterable[str] = ("lcb3", "lcb4"), out: Any = sys.stdout,
             expect: Mapping[str, Iterable[str]] | None = None) -> dict[str, Any]:
    """Explore lcb3 and lcb4 with F = 2, and Algorithm 2 over the broadcast on
    lcb-mem3; store a shortest counterexample per violated property and one summary
    file per search.  ``expect[scenario]``: stop that (breadth-first) search once these
    properties are violated (lcb4 with F = 2 is too large to explore fully here).
    Returns the summaries."""
    expect = {"lcb4": (UNIFORM_AGREEMENT, VALIDITY)} if expect is None else expect
    summaries: dict[str, Any] = {}
    for scenario in scenarios:
        name = f"urb-{scenario}-f2"
        system = make_lcb_system(scenario, crashes=2)
        wanted = set(expect.get(scenario, ()))
        until = (lambda r, w=frozenset(wanted): w <= set(r.violations)) if wanted else None
        res = explore(system, until=until)
        found = {}
        for prop in res.violated:
            sched, text = res.shortest[prop]
            fname = f"{name}--{_slug(prop)}.json"
            broadcast_counterexample(system, sched, prop, text, search=name).save(root / fname)
            found[prop] = fname
        summaries[name] = {
            "name": name,
            "description": f"localized causal broadcast over majority-ack URB, scenario {scenario} "
                           f"({len(system.processes)} processes), at most 2 crashes (at least half the "
                           f"processes)" + (": exhaustive" if res.complete else ""),
            "bound": (f"every schedule, {res.states} states, {res.terminal_states} complete runs"
                      if res.complete else
                      f"breadth-first until {' and '.join(sorted(wanted))} found: {res.states} states, "
                      f"{res.terminal_states} complete runs (not exhaustive)"),
            "found": found, "runs": res.terminal_states, "systems": 1, "exhaustive": int(res.complete),
            "exhaustive_violations": sum(res.violations.values()), "seconds": round(res.seconds, 1),
            "notes": [f"{p}: {n} complete runs" for p, n in res.violations.items()],
        }
        print(f"{name}: {res.states} states, {res.terminal_states} complete runs, {res.violations}", file=out)
    name = "urb-lcb-mem3"
    system = make_lcb_system("lcb-mem3", crashes=0)
    mem = explore_memory(system, models=("cc",))
    found = {}
    if "cc" in mem.examples:
        h, sched = mem.examples["cc"]
        fname = f"{name}--cc.json"
        model_counterexample(system, h, sched, "cc", search=name).save(root / fname)
        found["cc"] = fname
    summaries[name] = {
        "name": name,
        "description": "Algorithm 2 over the localized causal broadcast (lcb-mem3: q does not have p in "
                       "its locality), every complete history checked against cc: exhaustive",
        "bound": f"every schedule, {mem.states} states, {mem.histories} histories",
        "found": found, "runs": mem.terminal_states, "systems": 1, "exhaustive": 1,
        "exhaustive_violations": mem.verdicts["cc"].get("violation", 0), "seconds": 0.0,
        "notes": [f"cc verdicts: {dict(mem.verdicts['cc'])}"],
    }
    print(f"{name}: {mem.histories} histories, cc: {dict(mem.verdicts['cc'])}", file=out)
    (root / "summary").mkdir(parents=True, exist_ok=True)
    for name, data in summaries.items():
        (root / "summary" / f"{name}.json").write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
    return summaries


def main(argv: list[str]) -> int:
    """``python -m fisheye.checker.lcb_search [SCENARIO...]``: store the counterexamples
    (default lcb3 and lcb4); ``... fates SCENARIO F``: the reduced exhaustive search with
    at most F crashes (the numbers of docs/results.md)."""
    if argv[:1] == ["fates"] and len(argv) == 3:
        res = explore_fates(argv[1], int(argv[2]))
        print(f"{argv[1]} F={argv[2]}: {res.states} states (summed over the crash fates), "
              f"{res.terminal_states} complete runs, violations {res.violations}, {res.seconds:.1f} s")
        return 1 if res.violations else 0
    generate(scenarios=argv or ("lcb3", "lcb4"))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
