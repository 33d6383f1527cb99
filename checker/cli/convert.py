"""``fisheye convert FILE --to json [--format FORMAT] [--nil-read initial|any] [-o OUT]``:
write the history in FILE (``-``: standard input) in the contract's JSON format.

FILE is read as by ``fisheye check`` (``docs/formats.md``); the result is validated by the
contract's parser before it is written.  What an import left out is summarised on stderr.
Exit status: 0 written, 2 bad input or usage."""

from __future__ import annotations

import argparse
import sys

from fisheye.spec.history import parse_history

from ..errors import UsageError
from ..formats import FORMATS, NIL_READS, json_text, read_history_object
from .outputs import require_writable, write_text


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "convert", help="write a history (Jepsen EDN or log, ...) in fisheye's JSON format",
        description="Read FILE (a Jepsen EDN history, a Jepsen log, a counterexample file, "
                    "'fisheye simulate --json' output or a JSON history; - for standard input) "
                    "and write its history in fisheye's JSON format. Exit status: 0 written, 2 "
                    "bad input or usage.")
    p.add_argument("file", metavar="FILE", help="the history to convert, or - (standard input)")
    p.add_argument("--to", required=True, choices=("json",), help="output format (json)")
    p.add_argument("--format", default="auto", choices=FORMATS,
                   help="input format (default: from the file name, else from its content)")
    p.add_argument("--nil-read", choices=NIL_READS, default=None,
                   help="Jepsen histories: a read of nil returns the initial value (initial, the "
                        "default) or may have returned any value (any: such reads are left out)")
    p.add_argument("-o", "--output", metavar="OUT", default=None,
                   help="write to OUT instead of standard output")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    if args.output is not None:
        require_writable(args.output, "--output")
    imported = read_history_object(args.file, fmt=args.format, nil_read=args.nil_read or "initial")
    if args.nil_read is not None and not imported.is_jepsen:
        raise UsageError(f"--nil-read applies only to Jepsen histories (EDN or log), and "
                         f"{imported.source} is JSON")
    parse_history(imported.obj, imported.source)
    text = json_text(imported.obj)
    if args.output is None:
        sys.stdout.write(text)
    else:
        write_text(args.output, text, "--output")
    if imported.notes is not None:
        print(f"fisheye: {imported.source}: {imported.notes.summary()}", file=sys.stderr)
    return 0
