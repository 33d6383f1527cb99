"""Seeded random histories for the direct checker's benchmarks and offline agreement run
(plain ``random.Random``, so that 100,000 histories are cheap and reproducible).

* :func:`sc_history`: a random serialisation on one memory (consistent for every model
  and graph);
* :func:`cc_history`: a run of a causal memory (vector clocks, causal delivery): cc;
* :func:`fisheye_history`: a causal memory where the writes of each connected component
  of ``G`` are also sequenced (one sequence per component, a process writes only once
  it has applied every earlier write of its component): fisheye for ``G`` (2015);
* :func:`alg2_history`: a random run of Algorithms 1 and 2 (``fisheye.impl``);
* :func:`mutate`: a small random change (a read's value, two adjacent operations
  swapped), usually inconsistent;
* :func:`random_graph`.

``repeated``: values drawn from {0, 1, 2} instead of fresh ones.
"""

from __future__ import annotations

import random
from itertools import combinations
from typing import Any

from fisheye.spec.graph import ProximityGraph
from fisheye.spec.history import History


def procs_of(n: int) -> tuple[str, ...]:
    return tuple(f"p{i}" for i in range(n))


def regs_of(n: int) -> tuple[str, ...]:
    return tuple(chr(ord("X") + i) if n <= 3 else f"R{i}" for i in range(n))


def _build(procs: tuple[str, ...], ops: list[tuple[str, str, str, Any]], edges=()) -> History:
    data: dict[str, list[list[Any]]] = {p: [] for p in procs}
    for p, kind, reg, v in ops:
        data[p].append([kind, reg, v])
    return History.build(data, processes=procs, edges=edges)


def random_graph(rng: random.Random, procs: tuple[str, ...], density: float | None = None) -> ProximityGraph:
    d = rng.random() if density is None else density
    return ProximityGraph(procs, tuple(e for e in combinations(procs, 2) if rng.random() < d))


def sc_history(rng: random.Random, n_procs: int, n_ops: int, n_regs: int, *, repeated: bool = False,
               p_write: float = 0.5) -> History:
    procs, regs = procs_of(n_procs), regs_of(n_regs)
    mem = dict.fromkeys(regs, 0)
    ops = []
    for k in range(n_ops):
        p, x = rng.choice(procs), rng.choice(regs)
        if rng.random() < p_write:
            mem[x] = rng.randint(0, 2) if repeated else k + 1
            ops.append((p, "w", x, mem[x]))
        else:
            ops.append((p, "r", x, mem[x]))
    return _build(procs, ops)


def _components(procs: tuple[str, ...], graph: ProximityGraph | None) -> dict[str, int]:
    comp = {p: i for i, p in enumerate(procs)}
    if graph is None:
        return comp
    changed = True
    while changed:
        changed = False
        for a, b in graph.edges:
            m = min(comp[a], comp[b])
            if comp[a] != m or comp[b] != m:
                comp[a] = comp[b] = m
                changed = True
    return comp


def cc_history(rng: random.Random, n_procs: int, n_ops: int, n_regs: int, *, repeated: bool = False,
               graph: ProximityGraph | None = None, p_write: float = 0.5, p_deliver: float = 0.5) -> History:
    """A causal memory run; with ``graph``, writes are also sequenced per connected
    component (see the module docstring)."""
    procs, regs = procs_of(n_procs), regs_of(n_regs)
    n = n_procs
    comp = _components(procs, graph)
    local = [dict.fromkeys(regs, 0) for _ in procs]
    vc = [[0] * n for _ in procs]
    seen_seq = [dict.fromkeys(set(comp.values()), 0) for _ in procs]
    comp_count = dict.fromkeys(set(comp.values()), 0)
    outbox: list[list[list[tuple]]] = [[[] for _ in procs] for _ in procs]  # [src][dst] FIFO
    ops: list[tuple[str, str, str, Any]] = []
    k = 0
    while len(ops) < n_ops:
        i = rng.randrange(n)
        p = procs[i]
        if rng.random() < p_deliver:
            heads = [j for j in range(n) if outbox[j][i]]
            rng.shuffle(heads)
            for j in heads:
                src, mvc, x, v, c, s = outbox[j][i][0]
                if mvc[src] == vc[i][src] + 1 and all(mvc[t] <= vc[i][t] for t in range(n) if t != src) \
                        and s == seen_seq[i][c] + 1:
                    outbox[j][i].pop(0)
                    local[i][x] = v
                    vc[i][src] = mvc[src]
                    seen_seq[i][c] = s
                    break
            continue
        x = rng.choice(regs)
        k += 1
        c = comp[p]
        if rng.random() < p_write:
            if seen_seq[i][c] != comp_count[c]:
                continue  # wait until every earlier write of the component is applied here
            v = rng.randint(0, 2) if repeated else k
            comp_count[c] += 1
            seen_seq[i][c] = comp_count[c]
            vc[i][i] += 1
            local[i][x] = v
            msg = (i, tuple(vc[i]), x, v, c, comp_count[c])
            for j in range(n):
                if j != i:
                    outbox[i][j].append(msg)
            ops.append((p, "w", x, v))
        else:
            ops.append((p, "r", x, local[i][x]))
    return _build(procs, ops, graph.edges if graph is not None else ())


def fisheye_history(rng: random.Random, n_procs: int, n_ops: int, n_regs: int, graph: ProximityGraph, *,
                    repeated: bool = False) -> History:
    return cc_history(rng, n_procs, n_ops, n_regs, repeated=repeated, graph=graph)


def alg2_history(rng: random.Random, n_procs: int, n_ops: int, n_regs: int, graph: ProximityGraph,
                 *, p_write: float = 0.5) -> History:
    """A random complete run of Algorithm 2 over Algorithm 1 (``fisheye.impl``), random
    programs with fresh written values."""
    from fisheye.impl.programs import Program, Read, Write
    from fisheye.impl.system import TocoSystem

    procs, regs = procs_of(n_procs), regs_of(n_regs)
    progs: dict[str, list[Any]] = {p: [] for p in procs}
    for k in range(n_ops):
        p, x = rng.choice(procs), rng.choice(regs)
        progs[p].append(Write(x, k + 1) if rng.random() < p_write else Read(x))
    system = TocoSystem(Program.of(progs), ProximityGraph.of(procs, graph.edges))
    state = system.initial()
    while not system.is_final(state):
        steps = system.enabled(state)
        if not steps:
            raise RuntimeError("Algorithm 2 run deadlocked")
        state = system.apply(state, rng.choice(steps))
    return system.history(state)


def interleaving(rng: random.Random, h: History) -> dict[int, int]:
    """Each operation's place (uid -> position) in a random interleaving of the
    processes of ``h``: a random topological order of the process order."""
    left = {p: [op.uid for op in ops] for p, ops in h.by_process.items() if ops}
    out: dict[int, int] = {}
    while left:
        p = rng.choice(sorted(left))
        out[left[p].pop(0)] = len(out)
        if not left[p]:
            del left[p]
    return out


def pairs_along(rng: random.Random, pos: dict[int, int], count: int) -> list[tuple[int, int]]:
    """Up to ``count`` random pairs of distinct operations, each oriented along ``pos``
    (:func:`interleaving`): with the process order, any set of them is acyclic."""
    n = len(pos)
    pairs = ((rng.randrange(n), rng.randrange(n)) for _ in range(count))
    return [(a, b) if pos[a] < pos[b] else (b, a) for a, b in pairs if a != b]


def mutate(rng: random.Random, h: History) -> History:
    """A small random change: a read returns another value of its register, or two
    adjacent operations of a process are swapped."""
    data = {p: [op.to_json() for op in ops] for p, ops in h.by_process.items()}
    reads = [op for op in h.ops if op.is_read]
    if reads and rng.random() < 0.7:
        r = rng.choice(reads)
        values = {0} | {op.value for op in h.ops if op.is_write and op.register == r.register}
        values.discard(r.value)
        if values:
            data[r.process][r.index][2] = rng.choice(sorted(values, key=str))
            return History.build(data, processes=h.processes, edges=h.edges)
    p = rng.choice([p for p in h.processes if len(data[p]) > 1] or [h.processes[0]])
    ops = data[p]
    if len(ops) > 1:
        i = rng.randrange(len(ops) - 1)
        ops[i], ops[i + 1] = ops[i + 1], ops[i]
    return History.build(data, processes=h.processes, edges=h.edges)


_NEVER = object()
"""The value of a timed-out write that never takes effect."""


def jepsen_register_history(rng: random.Random, n_ops: int = 5000, *, threads: int = 50,
                            per_key: int = 5, n_keys: int = 100, values: int | None = 5,
                            p_info: float = 0.06, p_write: float = 0.5,
                            p_stale: float = 0.0, maybe: bool = True, timed: bool = False) -> History:
    """A history shaped like a Jepsen register test of a replicated store
    (``jepsen.independent`` over a linearizable register per key, as in Jepsen's MongoDB
    and etcd tests): ``threads`` client threads in groups of ``per_key``; each group works
    on one key until that key has its share of the operations, then moves to the next
    unused key; written values are drawn from ``range(values)`` (repeated values; ``None``:
    every write writes a fresh value).
    An operation takes effect at a random moment between its
    invocation and its completion (so the run is linearizable, hence sequentially
    consistent); with probability ``p_stale`` a read returns instead the value its key
    had a few writes earlier (a stale read, as a lagging replica gives).  With probability
    ``p_info`` an operation times out (Jepsen's ``:info``): a read is dropped, a write
    took effect or not (each half of the time) and is kept marked ``maybe`` (with
    ``maybe=False``: kept, unmarked, only when it did); the thread then continues as a
    new process, as Jepsen's do, so the history has about ``threads + p_info * n_ops``
    processes.  Every key starts at ``"nil"`` (as Jepsen's ``nil``).  ``timed``: every
    operation carries its invocation and completion step (``null`` completion for a
    timed-out write, as Jepsen's ``:info``)."""
    keys = [f"k{i}" for i in range(n_keys)]
    quota = max(1, -(-n_ops // n_keys)) + 2  # a little over: timed-out reads are dropped
    groups = [list(range(g, min(g + per_key, threads))) for g in range(0, threads, per_key)]
    next_key = 0
    key_of_group: dict[int, int] = {}
    done_on_key = [0] * n_keys
    mem: dict[str, Any] = dict.fromkeys(keys, "nil")
    past: dict[str, list[Any]] = {k: ["nil"] for k in keys}
    proc_of_thread = list(range(threads))
    n_procs = threads
    pending: dict[int, tuple] = {}  # thread -> (process, kind, key, value, took_effect)
    ops: list[tuple[str, str, str, Any]] = []
    exhausted: set[int] = set()
    issued = 0
    never_value: dict[int, Any] = {}
    invoked: dict[int, int] = {}
    now = 0
    while len(ops) < n_ops and (pending or len(exhausted) < len(groups)):
        now += 1
        t = rng.randrange(threads)
        g = t // per_key
        if t in pending:
            proc, kind, key, v, took, info = pending[t]
            if not took and not (info and kind == "w" and v is _NEVER):
                if rng.random() < 0.5:
                    continue  # takes effect later
                if kind == "w":
                    mem[key] = v
                    past[key].append(v)
                else:
                    v = mem[key]
                    if p_stale and rng.random() < p_stale:
                        v = rng.choice(past[key][-4:])
                pending[t] = (proc, kind, key, v, True, info)
                continue
            del pending[t]
            if info:
                proc_of_thread[t] = n_procs
                n_procs += 1
                if kind == "r" or (v is _NEVER and not maybe):
                    continue  # a read whose value is unknown, or a write that did not happen
                if v is _NEVER:
                    v = never_value.pop(t)
            ops.append((f"p{proc}", kind, key, v, info, (invoked[t], None if info else now)))
            continue
        if g not in key_of_group or done_on_key[key_of_group[g]] >= quota:
            if next_key >= n_keys:
                exhausted.add(g)
                continue
            key_of_group[g] = next_key
            next_key += 1
        k = key_of_group[g]
        done_on_key[k] += 1
        key = keys[k]
        info = rng.random() < p_info
        invoked[t] = now
        issued += 1
        fresh = issued
        if rng.random() < p_write:
            v = fresh if values is None else rng.randrange(values)
            if info and rng.random() < 0.5:
                never_value[t], v = v, _NEVER
            pending[t] = (proc_of_thread[t], "w", key, v, False, info)
        else:
            pending[t] = (proc_of_thread[t], "r", key, None, False, info)
    for t, (proc, kind, key, v, took, _) in sorted(pending.items()):
        # still running when the test ends: a write that may have taken effect (Jepsen
        # completes them as :info); one that has taken effect must stay when unmarked
        if kind == "w" and (maybe or took):
            ops.append((f"p{proc}", kind, key, never_value.get(t, v) if v is _NEVER else v, True,
                        (invoked[t], None)))
    procs = tuple(f"p{i}" for i in range(n_procs))
    data: dict[str, list[list[Any]]] = {p: [] for p in procs}
    for p, kind, reg, v, info, when in ops:
        ext: dict[str, Any] = {"t": list(when)} if timed else {}
        if info and maybe:
            ext["maybe"] = True
        data[p].append([kind, reg, v, ext] if ext else [kind, reg, v])
    data = {p: o for p, o in data.items() if o}
    return History.build(data, processes=tuple(data), initial=dict.fromkeys(keys, "nil"))
