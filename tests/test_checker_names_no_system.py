"""checker/ names no built-in system: what it says of one and which options it accepts
come from the system's registry entry (fisheye.impl.builtin_systems), so no string of
checker/ outside docstrings (which cite the paper's algorithms) holds a built-in's name."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from fisheye.impl.builtin_systems import BUILTIN

CHECKER = Path(__file__).resolve().parent.parent / "checker"


def named_systems(source: str) -> list[tuple[int, str]]:
    """(line, string) of each string constant, docstrings aside, naming a built-in."""
    word = re.compile(r"\b(?:" + "|".join(map(re.escape, BUILTIN)) + r")\b")
    tree = ast.parse(source)
    docstrings = {id(node.body[0].value) for node in ast.walk(tree)
                  if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
                  and node.body and isinstance(node.body[0], ast.Expr)
                  and isinstance(node.body[0].value, ast.Constant)}
    return [(node.lineno, node.value) for node in ast.walk(tree)
            if isinstance(node, ast.Constant) and isinstance(node.value, str)
            and id(node) not in docstrings and word.search(node.value)]


def test_no_string_of_checker_names_a_builtin_system():
    found = [f"{path.relative_to(CHECKER.parent)}:{line}: {text[:60]!r}"
             for path in sorted(CHECKER.rglob("*.py"))
             for line, text in named_systems(path.read_text(encoding="utf-8"))]
    assert not found, "\n".join(found)


def test_the_scan_finds_a_name_but_not_a_docstring():
    name = next(iter(BUILTIN))
    source = f'"""{name} in a docstring."""\nif algorithm == "{name}":\n    x = f"run {name} now"\n'
    assert [line for line, _ in named_systems(source)] == [2, 3]


def imported_modules(source: str) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            names.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
    return names


# the modules of the built-in systems' algorithms, and the one checker module about one
ALGORITHM_MODULES = {"fisheye.impl.system", "fisheye.impl.toco", "fisheye.impl.abstract", "fisheye.impl.lcb",
                     "fisheye.impl.urb", "fisheye.impl.toco_quotient"}
ABOUT_ONE = {"lcb_search.py": {"fisheye.impl.lcb"}}   # the localized broadcast's own searches


def test_no_module_of_checker_imports_an_algorithm():
    found = {}
    for path in sorted(CHECKER.rglob("*.py")):
        used = (imported_modules(path.read_text(encoding="utf-8")) & ALGORITHM_MODULES) - ABOUT_ONE.get(
            path.name, set())
        if used:
            found[str(path.relative_to(CHECKER.parent))] = sorted(used)
    assert not found, found
