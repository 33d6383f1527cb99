"""The ``fisheye`` command line (contract section 3).

Each subcommand lives in its own module ``fisheye.checker.cli.<name>`` exposing
``register(subparsers)``; the module adds its parser and sets ``func`` to a function
``(args) -> int`` returning the exit status.

Errors of the user (bad input, bad usage) are one plain line on stderr and exit
status 2, never a traceback.
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import sys
from collections.abc import Sequence

from fisheye.spec.history import HistoryError

from ..errors import UsageError

COMMANDS = ("check", "table1", "simulate", "explore", "explain", "latency")


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # one plain line, exit 2 (no usage dump)
        raise UsageError(f"{message} (see '{self.prog} --help')")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="fisheye", description="Fisheye consistency: check histories, run and "
                     "explore the paper's algorithms, explain counterexamples.")
    from fisheye import __version__

    parser.add_argument("--version", action="version", version=f"fisheye {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    for name in COMMANDS:
        modname = f"fisheye.checker.cli.{name}"
        if importlib.util.find_spec(modname) is None:
            continue
        importlib.import_module(modname).register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
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
    except BrokenPipeError:
        return 0


if __name__ == "__main__":
    sys.exit(main())
