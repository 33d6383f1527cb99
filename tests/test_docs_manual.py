"""The docs are a manual for users: a figure or a finding is dated by the commit and the
machine it was measured on, never by a work period ("the fourth round"), by who ran it
("a helper"), or by a working session; and docs/benchmarks.md answers "what is the current
figure for X" in its first screen."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
# docs/contract.md: sections 1-6 are the external contract, kept verbatim; what this
# repository adds starts at this heading.
CONTRACT = DOCS / "contract.md"
ADDITIONS = "\n## 7."

DIARY = re.compile(
    r"\brounds?\b(?!\s*-?\s*(?:trips?|robin))"          # "the fourth round", not "a round trip"
    r"|\bhelpers?\b"                                  # "the helper's figures"
    r"|(?<!Spark )(?<!`local\[2\]` )(?<!`local\[2,4\]` )\bsessions?\b(?!\.py)",  # not a Spark session
    re.IGNORECASE)


def _docs() -> list[tuple[Path, str]]:
    out = []
    for path in sorted([*DOCS.rglob("*.md"), ROOT / "README.md"]):
        text = path.read_text(encoding="utf-8")
        if path == CONTRACT:
            text = text[text.index(ADDITIONS):]
        out.append((path, text))
    return out


def test_the_scan_reads_the_manual():
    names = {p.relative_to(ROOT).as_posix() for p, _ in _docs()}
    assert {"docs/benchmarks.md", "docs/results.md", "docs/algorithm1-correction.md",
            "README.md"} <= names


def test_no_diary_words_in_the_docs():
    found = [f"{p.relative_to(ROOT)}:{text.count(chr(10), 0, m.start()) + 1}: "
             f"{text[max(0, m.start() - 30):m.end() + 10]!r}"
             for p, text in _docs() for m in DIARY.finditer(text)]
    assert found == [], "\n".join(found)


def test_the_pattern_catches_diary_words_and_spares_the_rest():
    for bad in ("the fourth round's idle run", "Rounds 1 to 3", "at the start of the round.",
                "the helper's figures", "other helpers' jobs", "within one session",
                "across sessions", "this session had"):
        assert DIARY.search(bad), bad
    for fine in ("a round trip to the farthest", "a round-trip time", "round-robin",
                 "the Spark session", "`session.py` the SparkSession",
                 "one shared `local[2,4]` session", "rounded to"):
        assert not DIARY.search(fine), fine


def test_benchmarks_open_with_the_current_figures():
    text = (DOCS / "benchmarks.md").read_text(encoding="utf-8")
    first_screen = "\n".join(text.splitlines()[:15])
    assert "## Current figures" in first_screen
    table = text[text.index("## Current figures"):text.index("\n## ", text.index("## Current figures") + 1)]
    header = next(line for line in table.splitlines() if line.startswith("| what"))
    assert [c.strip() for c in header.strip("|").split("|")] == [
        "what", "command", "machine, code", "figure", "target", "met"]
    rows = [line for line in table.splitlines() if line.startswith("| ") and not line.startswith("| what")
            and not line.startswith("| **")]
    assert len(rows) >= 20
    for row in rows:
        cells = [c.strip() for c in row.strip("|").split("|")]
        assert len(cells) == 6, row
    # every section after the table and the method is the appendix
    headings = re.findall(r"^## (.+)$", text, re.MULTILINE)
    assert headings[:2] == ["Current figures", "Method"]
    assert all(h.startswith("Appendix") for h in headings[2:]), headings
