"""Code, tests, scripts, benchmarks and docs say what a thing does and cite the paper
(section, definition, algorithm line) or a document of this repository: never a work
item ("issue N"), a numbered section of the contract instead of its title, an item of
notes kept outside the repository, or a path outside it."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SUFFIXES = {".py", ".md", ".sh", ".toml"}
SKIP_DIRS = {".git", ".venv", "node_modules", "__pycache__", ".pytest_cache", ".ruff_cache"}
# docs/contract.md: sections 1-6 are the external contract, kept verbatim; what this
# repository adds starts at this heading.
CONTRACT = ROOT / "docs" / "contract.md"
ADDITIONS = "\n## 7."

FORBIDDEN = re.compile(
    r"\bissues? ?#?\d"            # a work item by number
    r"|\(issues?\b"               # "(issue 5, item 3)"
    r"|\bcontract,? sections? \d"  # the contract's section by number, not by title
    r"|\bnotes,? items? \d"       # notes outside the repository
    r"|/work/\w|shared/papers",   # paths outside the repository
    re.IGNORECASE)


def _texts() -> list[tuple[Path, str]]:
    out = []
    for path in sorted(ROOT.rglob("*")):
        if path.suffix not in SUFFIXES or not path.is_file():
            continue
        if SKIP_DIRS & set(path.relative_to(ROOT).parts) or path == Path(__file__).resolve():
            continue                # this file spells out what it forbids
        text = path.read_text(encoding="utf-8", errors="replace")
        if path == CONTRACT:
            text = text[text.index(ADDITIONS):]
        out.append((path, text))
    return out


def test_the_scan_reads_code_tests_and_docs():
    names = {p.relative_to(ROOT).as_posix() for p, _ in _texts()}
    assert {"spec/models.py", "checker/explain/argument.py", "tests/conftest.py",
            "docs/results.md", "README.md"} <= names
    assert not any(n.startswith(".venv/") for n in names)


def test_no_work_item_or_outside_reference():
    found = [f"{p.relative_to(ROOT)}:{text.count(chr(10), 0, m.start()) + 1}: {m.group(0)!r}"
             for p, text in _texts() for m in FORBIDDEN.finditer(text)]
    assert found == [], "\n".join(found)


def test_the_pattern_catches_what_it_forbids():
    for bad in ("(issue 5, items 3 and 4)", "Issue 9: the published", "contract section 3",
                "contract sections 3 and 4", "(notes, item 8)", "notes item 9",
                "see /work/shared/contract.md", "shared/papers/x.md"):
        assert FORBIDDEN.search(bad), bad
    for fine in ('docs/contract.md, "Command line"', "an operation is issued at its arrival",
                 "the issue of a request", "for ref in ('issue', 'contract section')"):
        assert not FORBIDDEN.search(fine), fine
