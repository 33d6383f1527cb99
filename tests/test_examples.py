"""The documentation inside the repository says what the tools do: the examples' table,
the README's history and commands, the paths the documents name, the program syntax's
examples, and ``--help`` texts without references to anything outside the repository."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from fisheye.checker.cli import main
from fisheye.checker.cli.main import COMMANDS, build_parser

ROOT = Path(__file__).parent.parent
EXAMPLES = ROOT / "examples"
MODELS = ("sc", "cc", "fisheye", "fisheye-2014")
STATUS = {"consistent": 0, "violation": 1}


def _table_rows() -> list[tuple[str, dict[str, str]]]:
    rows = []
    for line in (EXAMPLES / "README.md").read_text().splitlines():
        m = re.match(r"\| `([^`]+\.json)` \|[^|]+\|(.*)\|\s*$", line)
        if m:
            cells = [c.strip() for c in m.group(2).split("|")]
            rows.append((m.group(1), dict(zip(MODELS, cells, strict=True))))
    return rows


def test_the_examples_table_lists_every_example():
    listed = {f for f, _ in _table_rows()}
    assert listed == {p.name for p in EXAMPLES.glob("*.json")} and "fig4.json" in listed


@pytest.mark.parametrize("name,verdicts", _table_rows())
def test_each_example_verdict_is_what_the_table_says(name, verdicts, capsys):
    for model, verdict in verdicts.items():
        code = main(["check", str(EXAMPLES / name), "--model", model])
        capsys.readouterr()
        assert code == STATUS[verdict], (name, model)


def test_the_readme_history_is_examples_fig4(capsys):
    readme = (ROOT / "README.md").read_text()
    block = re.search(r"```json\n(.*?)```", readme, re.S).group(1)
    assert json.loads(block) == json.loads((EXAMPLES / "fig4.json").read_text())
    assert "examples/fig4.json" in readme
    assert main(["explain", str(EXAMPLES / "fig4.json"), "--model", "fisheye", "--quiet"]) == 0
    assert "a contradiction!" in capsys.readouterr().out


def test_the_readme_quick_start_is_two_commands():
    readme = (ROOT / "README.md").read_text()
    quick = readme.split("## Quick start", 1)[1].split("\n## ", 1)[0]
    block = re.search(r"```sh\n(.*?)```", quick, re.S).group(1)
    commands = [line.split("#")[0].strip() for line in block.splitlines() if line.strip()]
    assert commands == ["bash scripts/demo.sh", "bash scripts/test.sh"]


@pytest.mark.parametrize("doc", ["README.md", "docs/cli.md", "examples/README.md"])
def test_paths_named_by_the_documents_exist(doc):
    text = (ROOT / doc).read_text()
    names = set(re.findall(r"`((?:docs|examples|counterexamples|scripts|bench|tests)/[\w./-]+)`", text))
    assert names
    missing = sorted(n for n in names if not (ROOT / n).exists() and "*" not in n)
    assert not missing


def test_program_examples_of_the_syntax_document_run(capsys):
    text = (ROOT / "docs" / "cli.md").read_text()
    programs = re.findall(r"fisheye (?:explore|simulate) '([^']+)'", text)
    assert len(programs) >= 2
    for prog in programs:
        assert main(["simulate", prog, "--seed", "1"]) == 0
        capsys.readouterr()


def _helps() -> dict[str, str]:
    parser = build_parser()
    sub = next(a for a in parser._actions if a.dest == "command")
    return {"fisheye": parser.format_help(), **{n: sub.choices[n].format_help() for n in sub.choices}}


@pytest.mark.parametrize("command", [c for c in COMMANDS if c != "check"] + ["fisheye"])
def test_help_texts_have_no_internal_references(command):
    text = _helps()[command]
    for ref in ("issue", "contract section", "/work/", "shared/"):
        assert ref not in text.lower(), (command, ref)
    # every option documents itself
    parser = build_parser()
    sub = next(a for a in parser._actions if a.dest == "command")
    p = parser if command == "fisheye" else sub.choices[command]
    for action in p._actions:
        if action.option_strings and action.help != "==SUPPRESS==":
            assert action.help, (command, action.option_strings)


def test_the_readme_explore_save_explain_replay_sequence(tmp_path, capsys, monkeypatch):
    readme = (ROOT / "README.md").read_text()
    lines = [ln.split(".venv/bin/fisheye ", 1)[1] for ln in readme.splitlines()
             if ln.startswith(".venv/bin/fisheye ") and "found" in ln]
    assert len(lines) == 3
    import shlex

    monkeypatch.chdir(tmp_path)
    codes = [main(shlex.split(ln) + (["--quiet"] if ln.startswith(("explore", "explain")) else []))
             for ln in lines]
    out = capsys.readouterr().out
    assert codes == [1, 0, 1]
    assert "fisheye explain found/program--cc--3.json" in out and "REPRODUCED" in out


@pytest.mark.parametrize("command", ["explain", "simulate", "explore"])
def test_help_examples_run(command, tmp_path, capsys, monkeypatch):
    """Every example of a command's --help runs as printed (a saved or written file goes to a
    scratch directory), with no bad-usage exit."""
    import shlex

    text = _helps()[command]
    lines = [ln.strip().split("  #")[0] for ln in text.split("examples:", 1)[1].splitlines()
             if ln.strip().startswith("fisheye ")]
    assert lines
    for sub in ("examples", "counterexamples", "tests"):
        (tmp_path / sub).symlink_to(ROOT / sub)
    monkeypatch.chdir(tmp_path)
    for line in lines:
        argv = shlex.split(line)[1:]
        code = main(argv + (["--quiet"] if command in ("explain", "explore") else []))
        out, err = capsys.readouterr()
        assert code in (0, 1), (line, code, err)


@pytest.mark.parametrize("argv", [
    ["explore", "fig6", "--level", "abstract", "--quiet"],
    ["explore", "p0: write(X,1), read(X); p1: write(X,2), read(X)", "--graph", "p0:p1", "--mutant",
     "no-catch-up", "--quiet"],
    ["explore", "p0: write(X,1); p1: a=read(X)", "--quiet"],
    ["simulate", "fig6", "--seed", "2"],
    ["simulate", "--replay", "counterexamples/mutant-no-catch-up--deadlock.json"],
    ["explain", "counterexamples/alg2-published-4p--fisheye-2014.json", "--quiet"],
    ["explain", "counterexamples/mutant-no-catch-up--deadlock.json", "--quiet"],
    ["explain", "examples/fig6-x2.json", "--model", "fisheye", "--quiet"],
])
def test_default_output_is_in_plain_words(argv, capsys):
    main(argv)
    out = capsys.readouterr().out
    assert out
    for jargon in ("toco-spec", "reduction:", "stubborn", "deadlock (deadlock)", " 1 histories",
                   " 1 states", " 1 runs", " -- ", "(0,)", "Traceback"):
        assert jargon not in out, (argv, jargon)
    assert "p-q" not in out and "p0-p1" not in out and "p2 -- p3" not in out   # edges are p:q


def test_the_models_table_of_the_docs_is_the_checkers_list_of_models():
    """docs/cli.md lists every model the checker has, as generated from the one list
    (:class:`fisheye.spec.models.Model`); so does ``check --help``."""
    from fisheye.checker.cli.plain import models_table
    from fisheye.spec.models import MODEL_NAMES

    table = models_table()
    assert table in (ROOT / "docs" / "cli.md").read_text(), "regenerate with checker.cli.plain.models_table()"
    assert [ln.split("`")[1] for ln in table.splitlines()[2:]] == list(MODEL_NAMES)
    sub = next(a for a in build_parser()._actions if a.dest == "command")
    model = next(a for a in sub.choices["check"]._actions if a.dest == "model")
    assert tuple(model.choices) == MODEL_NAMES
    assert [part.split(":")[0] for part in model.help.split("; ")] == list(MODEL_NAMES)
