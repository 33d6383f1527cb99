"""``fisheye check FILE... --model MODEL [--graph GRAPH] [--engine z3|direct|auto] [--json]
[--timeout SECONDS] [--format FORMAT] [--nil-read initial|any] [--progress]``.

FILE is a history in the contract's JSON, a counterexample file or ``simulate --json`` output
(their ``history`` is checked), a Jepsen EDN history or a Jepsen log (``docs/formats.md``),
or ``-`` for standard input.

One file: exit status 0 consistent, 1 violation, 2 bad input or usage, 3 unknown; ``--json``
prints one object ``{"verdict", "model", ...}``; a consistent verdict carries its witness, a
violation its certificate.

Several files, or a directory (its ``.json``, ``.edn`` and ``.log`` files, recursively, in
name order): one line per file and a summary line (``--json``: one object per line, then
the summary object); the exit status is the worst of the files' (:data:`SEVERITY`)."""

from __future__ import annotations

import argparse
import gc
import glob
import json
import math
import sys
import time
from collections import Counter
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from fisheye.spec.graph import parse_graph_option
from fisheye.spec.history import History, HistoryError
from fisheye.spec.models import MODEL_NAMES, Model, unsupported

from ..engines import ENGINE_NAMES, check
from ..engines.gcpause import paused_gc
from ..errors import UsageError
from ..formats import EXTENSIONS, FORMATS, NIL_READS, STDIN, Imported, load, source_name
from ..result import CheckResult, Verdict
from .outputs import require_writable
from .plain import models_help, parse_size

MAX_REASONS = 8
"""Reasons of a certificate printed without --json."""
BAD_INPUT = "bad input"
SEVERITY = (BAD_INPUT, Verdict.VIOLATION.value, Verdict.UNKNOWN.value, Verdict.CONSISTENT.value)
"""Outcomes of a batch, worst first: the batch's exit status is its worst file's.  Bad input
comes first (the batch did not check everything it was given); a violation outranks unknown
(it is a definite finding, and unknown means no violation was found)."""
EXIT = {BAD_INPUT: 2, **{v.value: v.exit_code for v in Verdict}}
SUMMARY_ORDER = ("consistent", "violation", "unknown", BAD_INPUT)


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "check", help="decide whether histories are consistent under a model",
        description="Decide whether the history in FILE is consistent under MODEL. FILE is a "
                    "history (JSON), a counterexample file, 'fisheye simulate --json' output, a "
                    "Jepsen EDN history, a Jepsen log, or - for standard input. Exit status: 0 "
                    "consistent, 1 violation, 2 bad input or usage, 3 unknown (a budget ran out). "
                    "--json prints one object; a consistent verdict carries its witness, a "
                    "violation its certificate. Several files or a directory: one line per file, "
                    "a summary line, and the worst exit status (bad input, then violation, then "
                    "unknown).")
    p.add_argument("files", nargs="+", metavar="FILE",
                   help="history file, directory of history files, or - (standard input)")
    p.add_argument("--model", required=True, choices=MODEL_NAMES, metavar="MODEL",
                   help=models_help())
    p.add_argument("--graph", default="file", metavar="GRAPH",
                   help="empty, complete, file (the file's graph, default) or p:q,r:s")
    p.add_argument("--engine", default="auto", choices=ENGINE_NAMES,
                   help="z3, direct or auto (default: the fastest that decides)")
    p.add_argument("--json", action="store_true",
                   help="print one JSON object on stdout (one per line for several files)")
    p.add_argument("--timeout", type=float, default=None, metavar="SECONDS",
                   help="time budget per file; exit 3 (unknown) when it runs out")
    p.add_argument("--max-steps", type=int, default=None, metavar="N",
                   help="search budget per file of the direct engine (configurations of the "
                        "sequential search, closures of the causal one; default: the engine's "
                        "own); exit 3 (unknown) when it runs out, whatever --timeout is left")
    p.add_argument("--memory", default=None, metavar="SIZE",
                   help="memory the check may use, e.g. 4G or 512M; exit 3 (unknown) when it runs "
                        "out (default: no limit of its own)")
    p.add_argument("--minimal", action="store_true",
                   help="reduce a violation's certificate to a minimal core (as 'fisheye explain' "
                        "does; slower: without it, the certificate is the engine's own refutation)")
    p.add_argument("--format", default="auto", choices=FORMATS,
                   help="input format (default: from the file name, else from its content)")
    p.add_argument("--nil-read", choices=NIL_READS, default=None,
                   help="Jepsen histories: a read of nil returns the initial value (initial, the "
                        "default) or may have returned any value (any, as in Knossos)")
    p.add_argument("--progress", action="store_true",
                   help="several files: report each file on stderr as it starts (the default "
                        "when stderr is a terminal)")
    p.add_argument("--output", default=None, metavar="RESULTS.jsonl",
                   help="several files: also write one JSON object per file and the summary there")
    p.add_argument("--spark", action="store_true",
                   help="check the files on Spark, packed into tasks largest first (docs/spark.md)")
    p.add_argument("--master", default=None, metavar="URL",
                   help="with --spark: Spark master URL (default local[*])")
    p.set_defaults(func=run)


@dataclass(frozen=True)
class FileOutcome:
    """The outcome of one file: a check result, or the bad input that stopped it."""

    name: str
    outcome: str
    history: History | None = None
    result: CheckResult | None = None
    imported: Imported | None = None
    error: str | None = None

    @property
    def exit_code(self) -> int:
        return EXIT[self.outcome]

    def to_json(self) -> dict[str, Any]:
        if self.result is None or self.history is None:
            return {"file": self.name, "error": self.error, "exit": 2}
        out = {"file": self.name, **self.result.to_json(self.history)}
        if self.imported is not None:
            out["input"] = input_json(self.imported)
        out["exit"] = self.exit_code
        return out


def run(args: argparse.Namespace) -> int:
    if args.timeout is not None and not (math.isfinite(args.timeout) and args.timeout > 0):
        raise UsageError(f"--timeout must be a positive number of seconds, not {args.timeout:g}")
    if args.max_steps is not None and args.max_steps < 1:
        raise UsageError(f"--max-steps must be a positive number, not {args.max_steps}")
    if args.master is not None and not args.spark:
        raise UsageError("--master applies to --spark")
    if args.output is not None:
        require_writable(args.output, "--output")
    args.memory = None if args.memory is None else parse_size("--memory", args.memory)
    files = expand(args.files)
    if args.spark:
        from .check_spark import run_corpus

        return run_corpus(args, files)
    with memory_limit(args.memory):
        if len(files) == 1 and not Path(args.files[0]).is_dir() and args.output is None:
            if args.progress:
                raise UsageError("--progress applies to several files or a directory, not to one file")
            return run_one(args, files[0])
        return run_batch(args, files)


@contextmanager
def memory_limit(size: int | None) -> Iterator[None]:
    """Within the block, the process's address space is limited to ``size`` bytes more
    than it holds now (an allocation beyond raises :class:`MemoryError`, which the engines'
    facade answers with *unknown*); the limit is lifted after."""
    if size is None:
        yield
        return
    import resource

    from ..engines.closure_kernel import compile_kernels

    # the native libraries (numpy's BLAS, LLVM) are loaded and the kernels compiled before
    # the limit: under it, a library that cannot allocate while loading or compiling ends
    # the process (status 1, or an abort) where no handler can answer unknown
    compile_kernels()

    before = resource.getrlimit(resource.RLIMIT_AS)
    with open("/proc/self/statm") as statm:
        held = int(statm.read().split()[0]) * resource.getpagesize()
    cap = held + size if before[1] == resource.RLIM_INFINITY else min(held + size, before[1])
    resource.setrlimit(resource.RLIMIT_AS, (cap, before[1]))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_AS, before)


def expand(paths: list[str]) -> list[str]:
    """The files named: a directory stands for its history files (by extension,
    recursively, hidden ones left out), in name order; a pattern that names no file
    (``'corpus/**/*.edn'``, quoted so that the shell leaves it) for the files it matches,
    in name order."""
    out: list[str] = []
    for p in paths:
        path = Path(p)
        if p != STDIN and not path.exists() and any(c in p for c in "*?["):
            found = sorted(f for f in glob.glob(p, recursive=True) if Path(f).is_file())
            if not found:
                raise UsageError(f"{p}: the pattern matches no file")
            out += found
        elif p != STDIN and path.is_dir():
            found = sorted(str(f) for f in path.rglob("*")
                           if f.is_file() and f.suffix.lower() in EXTENSIONS
                           and not any(part.startswith(".") for part in f.relative_to(path).parts))
            if not found:
                raise UsageError(f"{p}: directory holds no history file (.json, .edn or .log)")
            out += found
        else:
            out.append(p)
    if out.count(STDIN) > 1:
        raise UsageError("- (standard input) can be given only once")
    return out


def load_file(args: argparse.Namespace, path: str) -> tuple[History, Imported]:
    """Load one file as the options say.  Its objects hold no reference cycle, so the
    cyclic garbage collector is paused while they are built and they are then frozen out
    of its later passes (gc.freeze; freed as usual when dropped): on a 100,000-operation
    history, about 0.3 s of CPU that the collector spent traversing them."""
    with paused_gc():
        loaded = load(path, fmt=args.format, nil_read=args.nil_read or "initial")
    gc.freeze()
    return loaded


def check_file(args: argparse.Namespace, path: str) -> tuple[History, CheckResult, Imported]:
    """Load one file and check it; bad input raises :class:`HistoryError`."""
    history, imported = load_file(args, path)
    return history, check_history(args, history, imported.source), imported


def check_history(args: argparse.Namespace, history: History, source: str) -> CheckResult:
    """Check one history; a model not defined on it is bad input naming ``source``."""
    graph = parse_graph_option(args.graph, history.processes, history.edges)
    why = unsupported(history, args.model)
    if why:
        raise HistoryError(why, source)
    try:
        return check(history, Model(args.model), graph, engine=args.engine, timeout=args.timeout,
                     max_steps=args.max_steps, minimal=args.minimal, memory=args.memory,
                     progress=lambda line: print(f"{source}: {line}", file=sys.stderr, flush=True))
    except ModuleNotFoundError as e:  # an engine not installed in this checkout
        raise UsageError(f"engine {args.engine!r} is not available ({e})") from None


def run_one(args: argparse.Namespace, path: str) -> int:
    history, imported = load_file(args, path)
    if args.nil_read is not None and not imported.is_jepsen:
        raise UsageError(f"--nil-read applies only to Jepsen histories (EDN or log), and "
                         f"{imported.source} is JSON")
    result = check_history(args, history, imported.source)
    if args.json:
        out = result.to_json(history)
        out["input"] = input_json(imported)
        print(json.dumps(out))
    else:
        print(human(history, result, imported.source))
        if imported.notes is not None:
            print(f"  {imported.notes.summary()}")
    return result.exit_code


@dataclass(frozen=True)
class BatchRow:
    """One file of a batch as reported: its outcome, its line of text, its ``--json``
    object as JSON text (None when neither ``--json`` nor ``--output`` asks for it), and
    for bad input the error (also printed on stderr)."""

    name: str
    outcome: str
    line: str
    record: str | None
    error: str | None = None


def batch_row(args: argparse.Namespace, path: str) -> BatchRow:
    """Check one file of a batch; bad input is its row, never an exception."""
    name = source_name(path)
    try:
        history, result, imported = check_file(args, path)
    except HistoryError as e:
        message = e.message if e.source == name else str(e)
        out = FileOutcome(name, BAD_INPUT, error=message)
        line, message_or_none = f"{name}: bad input: {message}", message
    else:
        out = FileOutcome(name, result.verdict.value, history, result, imported)
        line, message_or_none = human(history, result, name).splitlines()[0], None
    record = json.dumps(out.to_json()) if args.json or args.output else None
    return BatchRow(name, out.outcome, line, record, message_or_none)


def run_batch(args: argparse.Namespace, files: list[str]) -> int:
    progress = args.progress or sys.stderr.isatty()
    report = BatchReport(args, len(files))
    for i, path in enumerate(files, start=1):
        if progress:
            print(f"fisheye: [{i}/{len(files)}] {source_name(path)}", file=sys.stderr, flush=True)
        report.add(batch_row(args, path))
    return report.finish()


class BatchReport:
    """What a batch prints as its files are checked (one line or ``--json`` object per
    file, each bad file's error on stderr, then the summary), and with ``--output`` the
    same JSON lines written to that file."""

    def __init__(self, args: argparse.Namespace, files: int, start: float | None = None):
        self.json, self.files = args.json, files
        self.output = open(args.output, "w", encoding="utf-8") if args.output else None  # noqa: SIM115
        self.counts: Counter[str] = Counter()
        self.start = time.perf_counter() if start is None else start

    def add(self, row: BatchRow) -> None:
        self.counts[row.outcome] += 1
        if row.error is not None:
            print(f"fisheye: {row.name}: {row.error}", file=sys.stderr)
        print(row.record if self.json else row.line, flush=True)
        if self.output is not None:
            self.output.write(f"{row.record}\n")

    def finish(self) -> int:
        """Print (and write) the summary; the batch's exit status."""
        worst = worst_outcome(self.counts)
        seconds = time.perf_counter() - self.start
        summary = json.dumps({"summary": {"files": self.files,
                                          **{o.replace(" ", "_"): self.counts[o] for o in SUMMARY_ORDER}},
                              "exit": EXIT[worst], "seconds": round(seconds, 3)})
        if self.output is not None:
            self.output.write(summary + "\n")
            self.output.close()
        if self.json:
            print(summary)
        else:
            parts = ", ".join(f"{self.counts[o]} {o}" for o in SUMMARY_ORDER)
            print(f"{self.files} files: {parts} ({seconds:.3f} s)")
        return EXIT[worst]


def worst_outcome(outcomes: Iterable[str]) -> str:
    """The worst outcome present (:data:`SEVERITY`); ``consistent`` for none."""
    present = set(outcomes)
    return next((o for o in SEVERITY if o in present), Verdict.CONSISTENT.value)


def input_json(imported: Imported) -> dict[str, Any]:
    """Where the checked history came from (``--json``'s ``input``)."""
    out: dict[str, Any] = {"format": imported.format}
    if imported.container != "history":
        out["container"] = imported.container
    if imported.notes is not None:
        out["import"] = imported.notes.to_json()
    return out


def human(history: History, result: CheckResult, name: str) -> str:
    """A short human report: one line, plus a few reasons for a violation."""
    graph = result.graph.describe() if result.model.uses_graph else "-"
    lines = [f"{name}: {result.verdict.value} under {result.model.value} (graph {graph}, engine "
             f"{result.engine}, {len(history.ops)} operations, {result.seconds:.3f} s)"]
    if result.verdict is Verdict.VIOLATION and result.certificate:
        lines.append("  no witness can satisfy all of:")
        lines += [f"  - {r.text}" for r in result.certificate[:MAX_REASONS]]
        if len(result.certificate) > MAX_REASONS:
            lines.append(f"  ... and {len(result.certificate) - MAX_REASONS} more (see --json)")
    elif result.message and result.verdict is not Verdict.CONSISTENT:
        lines.append(f"  {result.message}")
    if result.verdict is Verdict.UNKNOWN:
        lines.append("  (--max-steps and --timeout raise the budgets)")
    return "\n".join(lines)
