"""The local exhaustive search: a level-synchronous breadth-first search over the reduced
state graph (:func:`fisheye.checker.explore.expand.expand`), with states stored as bytes.

Memory (:mod:`fisheye.checker.explore.store`): the visited set holds 64-bit fingerprints
of the encoded states (8 bytes per state; ``exact=True`` keeps the encodings instead);
full states live only in the frontier (encoded, about 150 bytes for fig6), which is
written to disk above the memory budget; the schedule of a violation is rebuilt from a
parent log kept on disk (key, parent key, step index per state), as TLC does.
Breadth-first order makes every reported schedule a shortest one among those explored.

Budgets: ``max_states`` (distinct states: the report never counts more), ``max_depth``
(states at that depth are visited but not expanded: a bounded search whose report is the
same on every engine) and ``timeout`` (seconds); a run cut short (or interrupted by
Ctrl-C) reports ``complete: false`` and claims nothing about the states it did not visit.

``checkpoint=DIR`` saves the search at the end of a level when ``checkpoint_every``
seconds have passed since the last save; ``resume=True`` continues from the last save in
``DIR`` (the same scenario and options: checked).  A resumed run gives the same report as
an uninterrupted one (times aside).
"""

from __future__ import annotations

import json
import os
import pickle
import resource
import shutil
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TextIO

from fisheye.impl.api import System

from .codec import FINGERPRINT_BITS, collision_probability
from .expand import INNER, PRUNED, Context, expand, replayable, schedule_of_path
from .report import ReportBuilder
from .store import NO_PARENT, DiskLog, ExactSet, FingerprintSet, Frontier, MemoryLog

CHUNK = 256                 # states expanded between two looks at the clock and the budgets


def rss_bytes() -> int:
    """The resident memory of this process now (Linux ``/proc``; else the peak)."""
    try:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return peak_rss_bytes()


def peak_rss_bytes() -> int:
    r = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return r if sys.platform == "darwin" else r * 1024


class Progress:
    """A live progress line on stderr, shown once a run has lasted ``after`` seconds and
    refreshed every ``every`` seconds: distinct states, states per second, the depth and
    width of the level being expanded, memory in use, elapsed time."""

    def __init__(self, stream: TextIO | None = None, after: float = 3.0, every: float = 1.0,
                 label: str = "explore"):
        self.stream = stream if stream is not None else sys.stderr
        self.after, self.every, self.label = after, every, label
        self.start = time.perf_counter()
        self.last = self.start
        self.shown = False

    def update(self, states: int, depth: int, frontier: int, force: bool = False, *,
               memory: int | None = None, elapsed: float | None = None) -> None:
        now = time.perf_counter()
        if not force and (now - self.start < self.after or now - self.last < self.every):
            return
        if force and not self.shown:
            return
        self.last = now
        el = elapsed if elapsed is not None else now - self.start
        rate = states / el if el > 0 else 0.0
        self.shown = True
        mem = f"  {memory / 2**20:,.0f} MiB" if memory is not None else ""
        end = "\n" if force else "\r"
        self.stream.write(f"{self.label}: {states:,} states  {rate:,.0f} states/s  depth {depth}  "
                          f"level width {frontier:,}{mem}  {el:,.1f}s   {end}")
        self.stream.flush()


@dataclass(frozen=True)
class ScheduleRef:
    """A state of the search named by its depth and key; its schedule is rebuilt from
    the parent log when a report lists it."""

    depth: int
    key: Any


IDENTITY = ("scenario", "algorithm", "variant", "mutant", "network", "graph")


def _signature(ctx: Context, exact: bool) -> dict[str, Any]:
    """What a checkpoint must agree on with the run resuming it: the system's identity,
    its program, the reduction and the options that change the state graph."""
    system = ctx.system
    desc = system.info.describe() if isinstance(system, System) else {}
    ident = {k: desc.get(k) for k in IDENTITY}
    return {"system": json.loads(json.dumps(ident, default=str)), "reduction": ctx.reduction_kind,
            "prune": ctx.prune_deviations, "exact": exact,
            "program": str(getattr(system, "program", ""))}


def explore(ctx: Context, builder: ReportBuilder, *, max_states: int | None = None,
            max_depth: int | None = None, timeout: float | None = None, progress: Progress | None = None,
            memory: int | None = None, exact: bool = False, checkpoint: str | None = None,
            resume: bool = False, checkpoint_every: float = 300.0,
            on_level: Callable[[int, int], str | None] | None = None,
            on_terminal: Callable[[Any, str], None] | None = None) -> dict[str, Any]:
    """Explore every state reachable in the reduced graph; return the report.

    ``memory``: bytes the search may use (the frontier goes to disk beyond what the
    visited set leaves); ``exact``: keep exact states instead of fingerprints;
    ``checkpoint``/``resume``/``checkpoint_every``: see the module doc;
    ``on_terminal(state, kind)`` sees every distinct terminal state (tests);
    ``on_level(depth, states)`` is called after each level; a reason it returns (a
    string) stops the search there (``stopped``, not complete)."""
    system, codec = ctx.system, ctx.codec
    encode, decode = codec.encode, codec.decode
    start = time.perf_counter()
    cpu0 = time.process_time()
    scratch = None
    if checkpoint is not None:
        base = checkpoint
        os.makedirs(base, exist_ok=True)
    else:
        if resume:
            raise ValueError("resume needs a checkpoint directory")
        scratch = tempfile.TemporaryDirectory(prefix="fisheye-explore-")
        base = scratch.name
    spill_dir = os.path.join(base, "frontier")
    shutil.rmtree(spill_dir, ignore_errors=True)       # a killed run's spilled levels
    os.makedirs(spill_dir)
    visited = ExactSet() if exact else FingerprintSet()
    key = visited.key
    log = MemoryLog() if exact else DiskLog(os.path.join(base, "log"))
    sig = _signature(ctx, exact)

    def budget() -> int | None:
        if memory is None:
            return None
        return max(1 << 16, memory - 2 * visited.nbytes - (256 << 20))

    transitions = 0
    elapsed_before = 0.0
    cpu_before = 0.0
    if resume:
        ck = os.path.join(base, "checkpoint")
        if not os.path.isdir(ck):      # killed while swapping in a newer one
            ck = os.path.join(base, "checkpoint.old")
        if not os.path.isdir(ck):
            raise ValueError(f"{base}: no checkpoint to resume")
        with open(os.path.join(ck, "meta.json")) as f:
            meta = json.load(f)
        if meta["signature"] != sig:
            raise ValueError(f"{base}: the checkpoint is of another exploration "
                             f"({meta['signature']['system'].get('scenario')}, other options)")
        visited.load(os.path.join(ck, "visited.bin"))
        if exact:
            with open(os.path.join(ck, "log.pkl"), "rb") as f:
                log = pickle.load(f)
        depth, states, transitions = meta["depth"], meta["states"], meta["transitions"]
        elapsed_before, cpu_before = meta["seconds"], meta["cpu_seconds"]
        with open(os.path.join(ck, "builder.pkl"), "rb") as f:
            builder.restore(pickle.load(f))
        log.truncate(depth)
        frontier = Frontier.load(os.path.join(ck, "frontier.bin"), spill_dir, budget(), f"d{depth}")
    else:
        b0 = encode(system.initial())
        k0 = key(b0)
        log.add(k0, 0 if not exact else None, NO_PARENT)
        log.end_level(0)
        visited.merge([k0])
        frontier = Frontier(spill_dir, budget(), "d0")
        frontier.append(b0)
        states, depth = 1, 0
    if max_states is not None and states > max_states:
        raise ValueError("max_states is smaller than the checkpoint's state count")
    stopped: str | None = None
    last_ckpt = time.perf_counter()

    def elapsed() -> float:
        return elapsed_before + time.perf_counter() - start

    try:
        while len(frontier) and stopped is None:
            if max_depth is not None and depth >= max_depth:
                stopped = f"depth bound ({max_depth}) reached"
                break
            width = len(frontier)
            nxt = Frontier(spill_dir, budget(), f"d{depth + 1}")
            new: set[Any] = set()
            chunk: list[bytes] = []
            it = iter(frontier)
            exhausted = False
            while not exhausted and stopped is None:
                chunk.clear()
                for data in it:
                    chunk.append(data)
                    if len(chunk) >= CHUNK:
                        break
                else:
                    exhausted = True
                cands: list[tuple[Any, bytes, Any, int]] = []
                for data in chunk:
                    state = decode(data)
                    e = expand(ctx, state)
                    if e.kind == INNER:
                        pk = key(data)
                        for idx, child in enumerate(e.children):
                            cands.append((key(child), child, pk, idx))
                        transitions += len(e.children)
                    elif e.kind == PRUNED:
                        builder.add_pruned()
                    else:
                        if on_terminal is not None:
                            on_terminal(state, e.kind)
                        assert e.record is not None
                        builder.add_terminal(e.record, depth, ScheduleRef(depth, key(data)))
                known = visited.known([c[0] for c in cands])
                for (k, child, pk, idx), kn in zip(cands, known, strict=True):
                    if kn or k in new:
                        continue
                    if max_states is not None and states >= max_states:
                        stopped = f"max-states budget ({max_states:,}) reached"
                        break
                    new.add(k)
                    nxt.append(child)
                    log.add(k, pk, idx)
                    states += 1
                if timeout is not None and elapsed() >= timeout and stopped is None:
                    stopped = f"timeout ({timeout:g} s) reached"
                if progress is not None:
                    progress.update(states, depth, width, memory=rss_bytes(), elapsed=elapsed())
            log.end_level(depth + 1)
            visited.merge(new)
            del new
            if on_level is not None:
                why = on_level(depth, states)
                if why and stopped is None and len(nxt):
                    stopped = why
            frontier = nxt
            if stopped is None and len(frontier):
                depth += 1
                if checkpoint is not None and time.perf_counter() - last_ckpt >= checkpoint_every:
                    _save(base, sig, depth, states, transitions, elapsed(),
                          cpu_before + time.process_time() - cpu0, visited, frontier, builder,
                          log if exact else None)
                    last_ckpt = time.perf_counter()
    except KeyboardInterrupt:
        stopped = "interrupted (Ctrl-C)"
    if progress is not None:
        progress.update(states, depth, len(frontier), force=True, memory=rss_bytes(), elapsed=elapsed())

    def resolve(refs: list[ScheduleRef]) -> list[list[Any]]:
        paths = log.paths([(r.depth, r.key) for r in refs])
        return [replayable(ctx, schedule_of_path(ctx, p)) for p in paths]

    seconds = elapsed()
    extra = {
        "fingerprints": None if exact else {
            "bits": FINGERPRINT_BITS, "collision_probability": collision_probability(states)},
        "exact_states": exact,
        "visited_bytes": visited.nbytes,
        "peak_memory_bytes": peak_rss_bytes(),
        "cpu_seconds": round(cpu_before + time.process_time() - cpu0, 3),
    }
    if resume:
        extra["resumed"] = True
    report = builder.build(complete=stopped is None, states=states, transitions=transitions,
                           max_depth=depth, seconds=seconds, stopped=stopped, extra=extra,
                           resolve=resolve)
    if scratch is not None:
        scratch.cleanup()
    return report


def _save(base: str, sig: dict[str, Any], depth: int, states: int, transitions: int, seconds: float,
          cpu: float, visited: Any, frontier: Frontier, builder: ReportBuilder, log: Any) -> None:
    """Write the checkpoint atomically: a complete directory, then renamed into place."""
    tmp = os.path.join(base, "checkpoint.tmp")
    shutil.rmtree(tmp, ignore_errors=True)
    os.makedirs(tmp)
    visited.save(os.path.join(tmp, "visited.bin"))
    frontier.save(os.path.join(tmp, "frontier.bin"))
    with open(os.path.join(tmp, "builder.pkl"), "wb") as f:
        pickle.dump(builder.snapshot(), f, protocol=pickle.HIGHEST_PROTOCOL)
    if log is not None:
        with open(os.path.join(tmp, "log.pkl"), "wb") as f:
            pickle.dump(log, f, protocol=pickle.HIGHEST_PROTOCOL)
    with open(os.path.join(tmp, "meta.json"), "w") as f:
        json.dump({"signature": sig, "depth": depth, "states": states, "transitions": transitions,
                   "seconds": seconds, "cpu_seconds": cpu}, f)
    final, old = os.path.join(base, "checkpoint"), os.path.join(base, "checkpoint.old")
    shutil.rmtree(old, ignore_errors=True)
    if os.path.isdir(final):
        os.replace(final, old)
    os.replace(tmp, final)
    shutil.rmtree(old, ignore_errors=True)
