"""The ``fisheye`` command line (docs/cli.md).

Each subcommand lives in its own module ``fisheye.checker.cli.<name>`` exposing
``register(subparsers)``; the module adds its parser and sets ``func`` to a function
``(args) -> int`` returning the exit status.

Errors of the user (bad input, bad usage) are one plain line on stderr and exit
status 2, never a traceback.
"""

from __future__ import annotations

import argparse
import atexit
import gc
import importlib
import importlib.util
import os
import sys
from collections.abc import Sequence
from typing import Any, TextIO

from fisheye.spec.history import HistoryError

from ..errors import UsageError
from .process_end import end_at_exit, returned

COMMANDS = {
    "check": "decide whether histories are consistent under a model",
    "convert": "write a history (Jepsen EDN or log, ...) in fisheye's JSON format",
    "table1": "reproduce Table 1 (Figure 6) of the paper",
    "simulate": "run one random complete execution of a scenario, or replay a counterexample",
    "explore": "explore every schedule of a scenario (exhaustive, with partial-order reduction)",
    "explain": "explain why a history violates a model",
    "latency": "simulate a geo-replicated deployment and measure what each graph costs",
}
"""Each command and its one-line summary (what ``fisheye --help`` lists without importing
the command's module; a test checks it against the summary the module registers)."""
EVERY_COMMAND = None


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # one plain line, exit 2 (no usage dump)
        raise UsageError(f"{message} (see '{self.prog} --help')")


def build_parser(only: str | None = EVERY_COMMAND) -> argparse.ArgumentParser:
    """The parser of every command; with ``only`` (a command's name, or ``""`` for none),
    that command's full parser alone and a summary entry for each other, so that a
    command imports its own module only (start-up time)."""
    parser = _Parser(prog="fisheye", description="Fisheye consistency: check histories, run and "
                     "explore the paper's algorithms, explain counterexamples.")
    from fisheye import __version__

    parser.add_argument("--version", action="version", version=f"fisheye {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    for name, summary in COMMANDS.items():
        modname = f"fisheye.checker.cli.{name}"
        if only is not EVERY_COMMAND and name != only:
            sub.add_parser(name, help=summary, add_help=False)
        elif importlib.util.find_spec(modname) is not None:
            importlib.import_module(modname).register(sub)
    return parser


def command_named(argv: Sequence[str]) -> str:
    """The command ``argv`` names (its first word that is not an option; the top-level
    options take no value), or ``""``."""
    word = next((a for a in argv if not a.startswith("-")), "")
    return word if word in COMMANDS else ""


class ClosedPipeTolerant:
    """Standard output that a reader may close early (``fisheye check ... | head -1``):
    once the pipe is closed, what is written is dropped (the file descriptor is pointed
    at the null device) and the command goes on to its own exit status, so a closed pipe
    never turns a violation or bad input into 0."""

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream
        self.closed_early = False

    def _drop_the_rest(self) -> None:
        self.closed_early = True
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, self._stream.fileno())
        os.close(null)

    def write(self, text: str) -> int:
        if self.closed_early:
            return len(text)
        try:
            return self._stream.write(text)
        except BrokenPipeError:
            self._drop_the_rest()
            return len(text)

    def flush(self) -> None:
        try:
            self._stream.flush()
        except BrokenPipeError:
            self._drop_the_rest()
            self._stream.flush()  # what the buffer held goes to the null device

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


def main(argv: Sequence[str] | None = None) -> int:
    # One OpenBLAS thread unless the user says otherwise, set before any command imports
    # numpy: no command does linear algebra, and OpenBLAS would start a thread per core at
    # numpy's import (about 30 ms of CPU per command on two cores, more on larger machines).
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    if argv is None:
        # Run as the program (the arguments are sys.argv's): the process ends without
        # freeing what the command loaded (.process_end); should it end as usual after
        # all, what is alive at exit is frozen first, so that the interpreter's last
        # collection does not traverse every module and object only to drop them.
        end_at_exit()
        atexit.register(gc.freeze)
    stdout = sys.stdout
    sys.stdout = guarded = ClosedPipeTolerant(stdout)  # type: ignore[assignment]
    try:
        return returned(_run(argv))
    finally:
        guarded.flush()  # a pipe closed before the last flush is seen here, not at exit
        sys.stdout = stdout


def _run(argv: Sequence[str] | None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    parser = build_parser(command_named(argv))
    try:
        args = parser.parse_args(argv)
        if not getattr(args, "func", None):
            parser.print_help(sys.stderr)
            return 2
        return int(args.func(args))
    except (UsageError, HistoryError) as e:
        print(f"fisheye: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("fisheye: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # output written past the guard (ClosedPipeTolerant) to a closed pipe
        print("fisheye: standard output was closed before the end (exit 3: unknown)", file=sys.stderr)
        return 3
    except MemoryError:  # outside an engine (reading a file, say): unknown, never a verdict
        print("fisheye: ran out of memory (exit 3: unknown)", file=sys.stderr)
        return 3


if __name__ == "__main__":
    sys.exit(main())
