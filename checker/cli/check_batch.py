"""One file of ``fisheye check`` and a batch of them: a file loaded and checked as the
options say, its row (outcome, line of text, ``--json`` record), and what a batch prints
and writes (``--output``) as its rows come in, then its summary and exit status (the worst
outcome).  Shared by the batch of this process and the ``--spark`` corpus check
(:mod:`.check_spark`), whose rows are made on executors."""

from __future__ import annotations

import argparse
import json
import signal
import sys
import threading
import time
from collections import Counter
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from typing import Any

from fisheye.spec.deadline import Deadline, OutOfTime
from fisheye.spec.graph import parse_graph_option
from fisheye.spec.history import History, HistoryError
from fisheye.spec.models import Model, unsupported

from ..engines import check
from ..engines.gcpause import StartUp
from ..errors import UsageError
from ..formats import Imported, load, source_name
from ..result import CheckResult, Verdict

MAX_REASONS = 8
"""Reasons of a certificate printed without --json."""
BAD_INPUT = "bad input"
SEVERITY = (BAD_INPUT, Verdict.VIOLATION.value, Verdict.UNKNOWN.value, Verdict.CONSISTENT.value)
"""Outcomes of a batch, worst first: the batch's exit status is its worst file's.  Bad input
comes first (the batch did not check everything it was given); a violation outranks unknown
(it is a definite finding, and unknown means no violation was found)."""
EXIT = {BAD_INPUT: 2, **{v.value: v.exit_code for v in Verdict}}
SUMMARY_ORDER = ("consistent", "violation", "unknown", BAD_INPUT)


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


class ReadingTimedOut(Exception):
    """``--timeout`` ran out before the file was read: the check's outcome is unknown."""

    def __init__(self, source: str, timeout: float):
        super().__init__(f"the timeout of {timeout:g} s ran out while the file was read")
        self.source = source


@contextmanager
def reading_within(deadline: Deadline) -> Iterator[None]:
    """Raise :class:`OutOfTime` in the reading when ``deadline`` passes (an interval timer,
    SIGALRM): the parsers are plain Python loops that look at no clock.  Only in the main
    thread of a process that has the timer (elsewhere the deadline is looked at once the
    reading ends)."""
    left = deadline.left()
    if (left is None or not hasattr(signal, "setitimer")
            or threading.current_thread() is not threading.main_thread()):
        yield
        return

    def ring(_signum: int, _frame: Any) -> None:
        raise OutOfTime("the time limit ran out while the file was read")

    previous = signal.signal(signal.SIGALRM, ring)
    signal.setitimer(signal.ITIMER_REAL, max(left, 0.001))
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def load_file(args: argparse.Namespace, path: str, deadline: Deadline | None = None
              ) -> tuple[History, Imported]:
    """Load one file as the options say, by ``deadline`` (:class:`ReadingTimedOut`
    past it).  Its objects hold no reference cycle, so the cyclic garbage collector is
    paused while they are built and they are then frozen out of its later passes
    (gc.freeze; freed as usual when dropped): on a 100,000-operation history, about 0.3 s
    of CPU that the collector spent traversing them."""
    limit = deadline if deadline is not None else Deadline()
    start_up = StartUp()
    try:
        with reading_within(limit):
            loaded = load(path, fmt=args.format, nil_read=args.nil_read or "initial")
    except OutOfTime:
        raise ReadingTimedOut(source_name(path), args.timeout) from None
    finally:
        start_up.end()  # frozen before the collector runs again (else its first pass walks them all)
    return loaded


def check_file(args: argparse.Namespace, path: str) -> tuple[History, CheckResult, Imported]:
    """Load one file and check it, ``--timeout`` counted from the start of the reading;
    bad input raises :class:`HistoryError`, a reading past the timeout
    :class:`ReadingTimedOut`."""
    deadline = Deadline.after(args.timeout)
    history, imported = load_file(args, path, deadline)
    return history, check_history(args, history, imported.source, deadline), imported


def unread_json(args: argparse.Namespace, name: str, message: str) -> dict[str, Any]:
    """The ``--json`` object of a file whose reading the timeout cut: unknown, no operation
    count (the file was not read to its end)."""
    return {"file": name, "verdict": Verdict.UNKNOWN.value, "model": args.model, "engine": args.engine,
            "message": message, "exit": Verdict.UNKNOWN.exit_code}


def unread_line(args: argparse.Namespace, name: str, message: str) -> str:
    return f"{name}: {Verdict.UNKNOWN.value} under {args.model} ({message})"


def check_history(args: argparse.Namespace, history: History, source: str, deadline: Deadline) -> CheckResult:
    """Check one history by ``deadline`` (``--timeout`` from the start of the file's
    reading); a model not defined on it is bad input naming ``source``."""
    graph = parse_graph_option(args.graph, history.processes, history.edges)
    why = unsupported(history, args.model)
    if why:
        raise HistoryError(why, source)
    left = deadline.left()
    if left is not None:  # in milliseconds, as the engines' messages name it
        left = round(left, 3)
    if left is not None and left <= 0:
        return CheckResult(Verdict.UNKNOWN, Model(args.model), graph, args.engine,
                           message=f"the timeout of {args.timeout:g} s ran out while the file was read")
    try:
        result = check(history, Model(args.model), graph, engine=args.engine, timeout=left,
                       max_steps=args.max_steps, minimal=args.minimal, memory=args.memory,
                       progress=lambda line: print(f"{source}: {line}", file=sys.stderr, flush=True))
    except ModuleNotFoundError as e:  # an engine not installed in this checkout
        raise UsageError(f"engine {args.engine!r} is not available ({e})") from None
    if left is not None and result.verdict is Verdict.UNKNOWN and deadline.passed():
        # the engines were given what the reading left of --timeout: say so
        result = replace(result, message=f"{result.message} (--timeout {args.timeout:g} s, of which "
                                         f"{args.timeout - left:.2f} s went to reading the file)")
    return result


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
    except ReadingTimedOut as e:
        record = json.dumps(unread_json(args, name, str(e))) if args.json or args.output else None
        return BatchRow(name, Verdict.UNKNOWN.value, unread_line(args, name, str(e)), record)
    except HistoryError as e:
        message = e.message if e.source == name else str(e)
        out = FileOutcome(name, BAD_INPUT, error=message)
        line, message_or_none = f"{name}: bad input: {message}", message
    else:
        out = FileOutcome(name, result.verdict.value, history, result, imported)
        line, message_or_none = human(history, result, name).splitlines()[0], None
    record = json.dumps(out.to_json()) if args.json or args.output else None
    return BatchRow(name, out.outcome, line, record, message_or_none)


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
