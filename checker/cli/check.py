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
import glob
import json
import math
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from fisheye.spec.deadline import Deadline
from fisheye.spec.models import MODEL_NAMES

from ..engines import ENGINE_NAMES
from ..errors import UsageError
from ..formats import EXTENSIONS, FORMATS, NIL_READS, STDIN, source_name
from ..result import Verdict
from .check_batch import (
    BatchReport,
    ReadingTimedOut,
    batch_row,
    check_history,
    human,
    input_json,
    load_file,
    unread_json,
    unread_line,
)
from .outputs import require_writable
from .plain import models_help, parse_size
from .process_end import hold_until_exit


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
                   help="time budget per file, from the start of its reading to the verdict (the "
                        "validation of a consistent verdict's witness included); exit 3 (unknown) "
                        "when it runs out")
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

    from ..engines.warm_up import compile_kernels

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


def run_one(args: argparse.Namespace, path: str) -> int:
    deadline = Deadline.after(args.timeout)
    try:
        history, imported = load_file(args, path, deadline)
    except ReadingTimedOut as e:
        name = source_name(path)
        print(json.dumps(unread_json(args, name, str(e))) if args.json else unread_line(args, name, str(e)))
        return Verdict.UNKNOWN.exit_code
    if args.nil_read is not None and not imported.is_jepsen:
        raise UsageError(f"--nil-read applies only to Jepsen histories (EDN or log), and "
                         f"{imported.source} is JSON")
    result = check_history(args, history, imported.source, deadline)
    hold_until_exit(history, imported, result)
    if args.json:
        out = result.to_json(history)
        out["input"] = input_json(imported)
        print(json.dumps(out))
    else:
        print(human(history, result, imported.source))
        if imported.notes is not None:
            print(f"  {imported.notes.summary()}")
    return result.exit_code


def run_batch(args: argparse.Namespace, files: list[str]) -> int:
    progress = args.progress or sys.stderr.isatty()
    report = BatchReport(args, len(files))
    for i, path in enumerate(files, start=1):
        if progress:
            print(f"fisheye: [{i}/{len(files)}] {source_name(path)}", file=sys.stderr, flush=True)
        report.add(batch_row(args, path))
    return report.finish()


