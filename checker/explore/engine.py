"""The local exhaustive search: a level-synchronous breadth-first search over the reduced
state graph (:func:`fisheye.checker.explore.expand.expand`), with states stored as bytes.

Memory (:mod:`fisheye.checker.explore.store`): the visited set holds 64-bit fingerprints
of the encoded states (8 bytes per state; ``exact=True`` keeps the encodings instead);
full states live only in the frontier (encoded, about 150 bytes for fig6), which is
written to disk above the memory budget; the schedule of a violation is rebuilt from a
parent log kept on disk (key, parent key, step index per state), as TLC does.
Breadth-first order makes every reported schedule a shortest one among those explored.

With a compiled kernel (:mod:`fisheye.checker.explore.kernel`) the states are rows of
integers instead of bytes, fingerprinted by the kernel: a level is expanded
``KERNEL_CHUNK`` rows per call (fewer under a small memory budget: :func:`kernel_chunk`),
its successors deduplicated in bulk (sorted arrays of fingerprints,
``numpy.searchsorted``), the frontier kept as arrays
(:class:`~fisheye.checker.explore.store.RowFrontier`, spilled and read back in pieces) and
the parent log appended to disk from arrays; only the states with no successor go
through Python (the reference classifies them).  The report is the reference's, budgets and cuts included.

Budgets: ``max_states`` (distinct states: the report never counts more), ``max_depth``
(states at that depth are visited but not expanded: a bounded search whose report is the
same on every engine) and ``timeout`` (seconds); a run cut short (or interrupted by
Ctrl-C) reports ``complete: false`` and claims nothing about the states it did not visit.

``checkpoint=DIR`` saves the search when ``checkpoint_every`` seconds have passed since
the last save (the first time, ``FIRST_CHECKPOINT`` seconds after the start at most): at
the end of a level, or between two blocks of a level (the level's frontier, the states of
it already expanded, the next level so far and its keys);
``resume=True`` continues from the last save in ``DIR`` (the same scenario and options:
checked).  A resumed run gives the same report as an uninterrupted one (times aside).

Ctrl-C (SIGINT, even when the run was started with it ignored, as a background job of a
script is) is looked at between two blocks: the search stops there with its partial report
and, with ``checkpoint``, a last save there that ``resume`` continues; a second Ctrl-C
stops at once, within a block (the report counts what was admitted; no save).
"""

from __future__ import annotations

import itertools
import json
import os
import pickle
import resource
import shutil
import signal
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, TextIO

import numpy as np

from fisheye.impl.api import System

from .codec import FINGERPRINT_BITS, collision_probability
from .expand import INNER, PRUNED, Context, expand, replayable, schedule_of_path
from .kernel import kernel_name, select_kernel
from .report import ReportBuilder
from .store import NO_PARENT, DiskLog, ExactSet, FingerprintSet, Frontier, MemoryLog, RowFrontier, SortedRuns

FIRST_CHECKPOINT = 60.0     # seconds: the first checkpoint, whatever checkpoint_every says
CHUNK = 256                 # states expanded between two looks at the clock and the budgets
KERNEL_CHUNK = 16 * CHUNK   # states per call of a compiled kernel (a multiple of CHUNK), at most
FANOUT = 16                 # successors per state allowed for when a memory budget sizes the chunk
INTERRUPTED = "interrupted (Ctrl-C)"


class CtrlC:
    """Within the block, SIGINT sets :attr:`seen` (the search looks at it between two
    blocks of states) instead of raising wherever the interpreter happens to be; a second
    one raises :class:`KeyboardInterrupt` at once.  The handler is installed even when
    SIGINT was inherited ignored (a background job of a non-interactive shell), so that
    ``kill -INT`` stops the search as Ctrl-C does; outside the main thread, nothing is
    installed.  ``on_signal``: also called at the first SIGINT, in a thread of its own
    (the Spark search cancels its running job there: a call into the JVM from the
    handler itself would interrupt the one in flight); the block's end waits for it."""

    def __init__(self, on_signal: Callable[[], Any] | None = None) -> None:
        self.seen = False
        self._before: Any = None
        self._on_signal = on_signal
        self._thread: threading.Thread | None = None

    def _handle(self, signum: int, frame: Any) -> None:
        if self.seen:
            raise KeyboardInterrupt
        self.seen = True
        if self._on_signal is not None:
            self._thread = threading.Thread(target=self._on_signal, daemon=True)
            self._thread.start()

    def __enter__(self) -> CtrlC:
        if threading.current_thread() is threading.main_thread():
            self._before = signal.signal(signal.SIGINT, self._handle)
        return self

    def __exit__(self, *exc: Any) -> None:
        if self._before is not None:
            signal.signal(signal.SIGINT, self._before)
        if self._thread is not None:
            self._thread.join(timeout=60)


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


@dataclass
class Tally:
    """The running counts of a search (kept up to date within a level, so that an
    interrupted level still reports what it admitted)."""

    states: int
    transitions: int


@dataclass(frozen=True)
class WithinLevel:
    """Where a level stands between two blocks: ``done`` states of its frontier expanded
    (a multiple of CHUNK), the next level so far (``nxt``) and its keys (``seen``: a
    set on the Python path, sorted runs on the compiled one)."""

    done: int
    nxt: Frontier | RowFrontier
    seen: set[Any] | SortedRuns


@dataclass(frozen=True)
class ScheduleRef:
    """A state of the search named by its depth and key; its schedule is rebuilt from
    the parent log when a report lists it."""

    depth: int
    key: Any


def _signature(ctx: Context, exact: bool, kernel: str) -> dict[str, Any]:
    """What a checkpoint must agree on with the run resuming it: the system's identity,
    its program, the reduction and the options that change the state graph."""
    system = ctx.system
    ident = system.info.describe() if isinstance(system, System) else {}   # the whole record
    return {"system": json.loads(json.dumps(ident, default=str)), "reduction": ctx.reduction_kind,
            "prune": ctx.prune_deviations, "exact": exact, "kernel": kernel,
            "program": str(getattr(system, "program", ""))}


def explore(ctx: Context, builder: ReportBuilder, *, max_states: int | None = None,
            max_depth: int | None = None, timeout: float | None = None, progress: Progress | None = None,
            memory: int | None = None, exact: bool = False, checkpoint: str | None = None,
            resume: bool = False, checkpoint_every: float = 300.0,
            on_level: Callable[[int, int], str | None] | None = None,
            on_terminal: Callable[[Any, str], None] | None = None, kernel: str = "auto") -> dict[str, Any]:
    """Explore every state reachable in the reduced graph; return the report.

    ``memory``: bytes the search may use (the frontier goes to disk beyond what the
    visited set leaves); ``exact``: keep exact states instead of fingerprints;
    ``checkpoint``/``resume``/``checkpoint_every``: see the module doc;
    ``on_terminal(state, kind)`` sees every distinct terminal state (tests);
    ``on_level(depth, states)`` is called after each level; a reason it returns (a
    string) stops the search there (``stopped``, not complete); ``kernel``: ``auto``,
    ``compiled`` or ``python`` (:func:`fisheye.checker.explore.kernel.select_kernel`): a
    compiled kernel expands whole blocks of states, and the report is the reference's."""
    system = ctx.system
    kern = select_kernel(ctx, kernel, exact=exact)
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
    sig = _signature(ctx, exact, kernel_name(kern))

    def budget() -> int | None:
        """The bytes of one frontier held in memory: half of what the visited set, as much
        again for the level's keys and their merge into it, and a fixed allowance leave,
        the other half being the frontier read while this one is written."""
        if memory is None:
            return None
        return max(1 << 16, (memory - 2 * visited.nbytes - (256 << 20)) // 2)

    transitions = 0
    within: WithinLevel | None = None    # a level resumed from a save within it
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
        if kern is None:
            frontier = Frontier.load(os.path.join(ck, "frontier.bin"), spill_dir, budget(), f"d{depth}")
        else:
            frontier = RowFrontier.load(os.path.join(ck, "frontier.bin"), spill_dir, budget(), f"d{depth}",
                                        kern.width, kern.dtype)
        within = _load_within(ck, meta, log, depth, spill_dir, budget(), kern)
    else:
        if kern is None:
            b0 = ctx.codec.encode(system.initial())
            k0 = key(b0)
        else:
            r0 = kern.encode(system.initial())[None, :]
            k0 = int(kern.fingerprints(r0)[0])
        log.add(k0, 0 if not exact else None, NO_PARENT)
        log.end_level(0)
        visited.merge([k0])
        if kern is None:
            frontier = Frontier(spill_dir, budget(), "d0")
            frontier.append(b0)
        else:
            frontier = RowFrontier(spill_dir, budget(), "d0", kern.width, kern.dtype)
            frontier.extend(r0)
        states, depth = 1, 0
    if max_states is not None and states > max_states:
        raise ValueError("max_states is smaller than the checkpoint's state count")
    stopped: str | None = None
    # the first save comes within FIRST_CHECKPOINT seconds, so that a run killed early resumes
    last_ckpt = time.perf_counter() - max(0.0, checkpoint_every - FIRST_CHECKPOINT)
    tally = Tally(states, transitions)

    def elapsed() -> float:
        return elapsed_before + time.perf_counter() - start

    def save(at: WithinLevel | None = None) -> None:
        nonlocal last_ckpt
        _save(base, sig, depth, tally.states, tally.transitions, elapsed(),
              cpu_before + time.process_time() - cpu0, visited, frontier, builder,
              log if exact else None, at, None if at is None else log.logged())
        last_ckpt = time.perf_counter()

    def save_within(at: WithinLevel, stopped: str | None) -> None:
        """After a block of a level: save there when it is time, or when Ctrl-C stopped
        the search."""
        if checkpoint is not None and (stopped == INTERRUPTED or stopped is None and
                                       time.perf_counter() - last_ckpt >= checkpoint_every):
            save(at)

    try:
        with CtrlC() as ctrl_c:
            while len(frontier) and stopped is None:
                if max_depth is not None and depth >= max_depth:
                    stopped = f"depth bound ({max_depth}) reached"
                    break
                level = Level(ctx, visited, log, builder, depth, max_states, progress, timeout, elapsed,
                              on_terminal, tally, ctrl_c)
                if kern is None:
                    if within is None:
                        within = WithinLevel(0, Frontier(spill_dir, budget(), f"d{depth + 1}"), set())
                    nxt, new, stopped = level.python(frontier, within, save_within)
                else:
                    if within is None:
                        within = WithinLevel(0, RowFrontier(spill_dir, budget(), f"d{depth + 1}", kern.width,
                                                            kern.dtype), SortedRuns())
                    nxt, new, stopped = level.compiled(
                        kern, frontier, within,
                        kernel_chunk(budget(), kern.width * np.dtype(kern.dtype).itemsize), save_within)
                within = None
                frontier.discard()
                log.end_level(depth + 1)
                visited.merge(new)
                del new
                if on_level is not None:
                    why = on_level(depth, tally.states)
                    if why and stopped is None and len(nxt):
                        stopped = why
                frontier = nxt
                if stopped is None and len(frontier):
                    depth += 1
                    if checkpoint is not None and time.perf_counter() - last_ckpt >= checkpoint_every:
                        save()
    except KeyboardInterrupt:
        stopped = INTERRUPTED
    states, transitions = tally.states, tally.transitions
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
        "kernel": kernel_name(kern),
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
          cpu: float, visited: Any, frontier: Frontier | RowFrontier, builder: ReportBuilder, log: Any,
          within: WithinLevel | None = None, logged: int | None = None) -> None:
    """Write the checkpoint atomically: a complete directory, then renamed into place.
    ``within``: the save comes between two blocks of the level of ``frontier`` (which is
    saved whole, with the rows already expanded, the next level so far and its keys, and
    ``logged``, the states of the parent log's level being written)."""
    tmp = os.path.join(base, "checkpoint.tmp")
    shutil.rmtree(tmp, ignore_errors=True)
    os.makedirs(tmp)
    visited.save(os.path.join(tmp, "visited.bin"))
    frontier.save(os.path.join(tmp, "frontier.bin"))
    position: dict[str, int] = {}
    if within is not None:
        assert logged is not None
        within.nxt.save(os.path.join(tmp, "next.bin"))
        with open(os.path.join(tmp, "next-keys.bin"), "wb") as f:
            if isinstance(within.seen, SortedRuns):
                np.save(f, within.seen.sorted())
            else:
                pickle.dump(within.seen, f, protocol=pickle.HIGHEST_PROTOCOL)
        position = {"expanded": within.done, "logged": logged}
    with open(os.path.join(tmp, "builder.pkl"), "wb") as f:
        pickle.dump(builder.snapshot(), f, protocol=pickle.HIGHEST_PROTOCOL)
    if log is not None:
        with open(os.path.join(tmp, "log.pkl"), "wb") as f:
            pickle.dump(log, f, protocol=pickle.HIGHEST_PROTOCOL)
    with open(os.path.join(tmp, "meta.json"), "w") as f:
        json.dump({"signature": sig, "depth": depth, "states": states, "transitions": transitions,
                   "seconds": seconds, "cpu_seconds": cpu, **position}, f)
    final, old = os.path.join(base, "checkpoint"), os.path.join(base, "checkpoint.old")
    shutil.rmtree(old, ignore_errors=True)
    if os.path.isdir(final):
        os.replace(final, old)
    os.replace(tmp, final)
    shutil.rmtree(old, ignore_errors=True)


def _load_within(ck: str, meta: dict[str, Any], log: Any, depth: int, spill_dir: str, budget: int | None,
                 kern: Any) -> WithinLevel | None:
    """The position within the level of a checkpoint saved between two blocks (None for
    one saved at the end of a level); the parent log is cut back to the checkpoint."""
    if "expanded" not in meta:
        log.truncate(depth)
        return None
    log.resume_level(depth, meta["logged"])
    path = os.path.join(ck, "next.bin")
    if kern is None:
        with open(os.path.join(ck, "next-keys.bin"), "rb") as f:
            return WithinLevel(meta["expanded"], Frontier.load(path, spill_dir, budget, f"d{depth + 1}"),
                               pickle.load(f))
    runs = SortedRuns()
    with open(os.path.join(ck, "next-keys.bin"), "rb") as f:
        runs.add(np.load(f))
    nxt = RowFrontier.load(path, spill_dir, budget, f"d{depth + 1}", kern.width, kern.dtype)
    return WithinLevel(meta["expanded"], nxt, runs)


@dataclass
class Level:
    """The expansion of one level of the search, into the next frontier; the counts go
    to ``tally`` as states are admitted."""

    ctx: Context
    visited: Any
    log: Any
    builder: ReportBuilder
    depth: int
    max_states: int | None
    progress: Progress | None
    timeout: float | None
    elapsed: Callable[[], float]
    on_terminal: Callable[[Any, str], None] | None
    tally: Tally
    ctrl_c: CtrlC | None = None

    def _full(self) -> bool:
        return self.max_states is not None and self.tally.states >= self.max_states

    def _budget_stop(self) -> str:
        return f"max-states budget ({self.max_states:,}) reached"

    def _after_chunk(self, width: int) -> str | None:
        if self.ctrl_c is not None and self.ctrl_c.seen:
            return INTERRUPTED
        if self.progress is not None:
            self.progress.update(self.tally.states, self.depth, width, memory=rss_bytes(),
                                 elapsed=self.elapsed())
        if self.timeout is not None and self.elapsed() >= self.timeout:
            return f"timeout ({self.timeout:g} s) reached"
        return None

    def _terminal(self, state: Any, key: Any) -> None:
        """A state with no reduced successor: the reference classifies it."""
        e = expand(self.ctx, state)
        if e.kind == PRUNED:
            self.builder.add_pruned()
            return
        if e.kind == INNER:
            raise AssertionError("the compiled kernel found no step where the reference has some")
        if self.on_terminal is not None:
            self.on_terminal(state, e.kind)
        assert e.record is not None
        self.builder.add_terminal(e.record, self.depth, ScheduleRef(self.depth, key))

    def python(self, frontier: Frontier, at: WithinLevel,
               after_block: Callable[[WithinLevel, str | None], None] | None = None
               ) -> tuple[Frontier, set[Any], str | None]:
        """The level with the system's Python form, from ``at`` (its start, or where a
        checkpoint within it stood), CHUNK states at a time; ``after_block`` as for
        :meth:`compiled`."""
        ctx, tally, log, builder = self.ctx, self.tally, self.log, self.builder
        decode, key = ctx.codec.decode, self.visited.key
        width = len(frontier)
        stopped: str | None = None
        nxt, new, done = at.nxt, at.seen, at.done
        assert isinstance(nxt, Frontier) and isinstance(new, set)
        chunk: list[bytes] = []
        it = iter(frontier)
        for _ in itertools.islice(it, done):    # expanded before the checkpoint
            pass
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
                    tally.transitions += len(e.children)
                elif e.kind == PRUNED:
                    builder.add_pruned()
                else:
                    if self.on_terminal is not None:
                        self.on_terminal(state, e.kind)
                    assert e.record is not None
                    builder.add_terminal(e.record, self.depth, ScheduleRef(self.depth, key(data)))
            known = self.visited.known([c[0] for c in cands])
            for (k, child, pk, idx), kn in zip(cands, known, strict=True):
                if kn or k in new:
                    continue
                if self._full():
                    stopped = self._budget_stop()
                    break
                new.add(k)
                nxt.append(child)
                log.add(k, pk, idx)
                tally.states += 1
            if stopped is None:
                done += len(chunk)
                stopped = self._after_chunk(width)
                if after_block is not None and (stopped is not None or done < width):
                    after_block(WithinLevel(done, nxt, new), stopped)
        return nxt, new, stopped

    def compiled(self, kern: Any, frontier: RowFrontier, at: WithinLevel, chunk: int = KERNEL_CHUNK,
                 after_block: Callable[[WithinLevel, str | None], None] | None = None
                 ) -> tuple[RowFrontier, np.ndarray, str | None]:
        """The level with a compiled kernel, from ``at`` (its start, or where a checkpoint
        within it stood), ``chunk`` states per call, deduplicated in bulk (sorted
        fingerprints); ``after_block`` sees where the level stands after each block and
        why the search stops there, if it does (except for ``max_states``, which may stop
        within a block).  The report is the Python form's: blocks start at multiples of
        CHUNK of the level, and a search cut by ``max_states`` counts the states,
        transitions and terminals of the CHUNK-state pieces the Python form expands
        before it stops."""
        from fisheye.impl.kernel_api import INNER as K_INNER
        from fisheye.impl.kernel_api import PRUNED as K_PRUNED

        tally, builder = self.tally, self.builder
        width = len(frontier)
        stopped: str | None = None
        nxt, seen = at.nxt, at.seen                 # the next level and its keys, so far
        done = at.done
        for rows in _blocks(frontier, chunk, kern.width, kern.dtype, skip=done):
            batch = kern.expand(rows)
            keys = batch.keys
            cand = np.flatnonzero(~self.visited.known(keys))
            if cand.size:
                _, first = np.unique(keys[cand], return_index=True)
                cand = cand[np.sort(first)]
                if len(seen):
                    cand = cand[~seen.known(keys[cand])]
            limit = rows.shape[0]                   # the states whose expansion counts
            if self.max_states is not None and tally.states + cand.size > self.max_states:
                room = max(self.max_states - tally.states, 0)
                limit = (int(batch.parent[cand[room]]) // CHUNK + 1) * CHUNK
                cand = cand[:room]
                stopped = self._budget_stop()
            if cand.size:
                ck = keys[cand]
                seen.add(ck)
                nxt.extend(batch.children[cand])
                parents = kern.fingerprints(rows)
                self.log.add_many(ck, parents[batch.parent[cand]], batch.step[cand])
                tally.states += int(cand.size)
            status = batch.status[:limit]
            tally.transitions += int(np.count_nonzero(batch.parent < limit))
            for _ in range(int(np.count_nonzero(status == K_PRUNED))):
                builder.add_pruned()
            others = np.flatnonzero((status != K_INNER) & (status != K_PRUNED))
            if others.size:
                pkeys = kern.fingerprints(rows[others])
                for idx, pk in zip(others.tolist(), pkeys.tolist(), strict=True):
                    self._terminal(kern.decode(rows[idx]), pk)
            if stopped is not None:
                break
            done += rows.shape[0]
            stopped = self._after_chunk(width)
            if after_block is not None and (stopped is not None or done < width):
                after_block(WithinLevel(done, nxt, seen), stopped)
            if stopped is not None:
                break
        return nxt, seen.sorted(), stopped


def kernel_chunk(budget: int | None, row_bytes: int) -> int:
    """The states per call of a compiled kernel under a frontier ``budget`` (bytes): a
    multiple of CHUNK, at most KERNEL_CHUNK, whose successors (``FANOUT`` per state at
    most, with their keys and parents) take a quarter of the budget at most."""
    if budget is None:
        return KERNEL_CHUNK
    fit = budget // (4 * FANOUT * (row_bytes + 24))
    return max(CHUNK, min(KERNEL_CHUNK, fit // CHUNK * CHUNK))


def _blocks(frontier: RowFrontier, size: int, width: int, dtype: Any, skip: int = 0) -> Iterator[np.ndarray]:
    """The frontier's rows after the first ``skip`` in blocks of ``size`` (the last one
    shorter), in order."""
    buf: list[np.ndarray] = []
    held = 0
    for rows in frontier:
        if skip >= rows.shape[0]:
            skip -= rows.shape[0]
            continue
        rows, skip = rows[skip:], 0
        start = 0
        while start < rows.shape[0]:
            take = min(size - held, rows.shape[0] - start)
            buf.append(rows[start:start + take])
            held += take
            start += take
            if held == size:
                yield np.concatenate(buf) if len(buf) > 1 else buf[0]
                buf, held = [], 0
    if held:
        yield np.concatenate(buf) if len(buf) > 1 else buf[0]
