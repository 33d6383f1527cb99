"""docs/cli.md against the parser: every command has its section, and every option of
a command is named in that section (or, for ``--help``, needs not be)."""

from __future__ import annotations

import argparse
import re
from pathlib import Path

from fisheye.checker.cli.main import build_parser

DOC = Path(__file__).resolve().parents[1] / "docs" / "cli.md"


def sections() -> dict[str, str]:
    text = DOC.read_text()
    return {m.group(1): m.group(2) for m in re.finditer(r"^## (\S+)\n(.*?)(?=^## |\Z)", text, re.S | re.M)}


def commands() -> dict[str, argparse.ArgumentParser]:
    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return dict(sub.choices)


def test_every_command_has_a_section_and_a_row_in_the_table():
    found = sections()
    table = DOC.read_text().split("## Exit statuses")[0]
    for name in commands():
        assert name in found, f"docs/cli.md has no section '## {name}'"
        assert f"| `{name}" in table, f"docs/cli.md's table of commands has no row for {name}"


def test_every_option_is_documented_in_its_commands_section():
    found = sections()
    missing = [f"{name} {opt}" for name, parser in commands().items()
               for action in parser._actions for opt in action.option_strings
               if opt.startswith("--") and opt != "--help"
               and not re.search(re.escape(opt) + r"(?![\w-])", found.get(name, ""))]
    assert missing == []
