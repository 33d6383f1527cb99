"""The import graph of one of fisheye's packages, read from the source with ``ast``:
which of the package's modules each module imports, and whether at its top level (an
import inside a function, a class or an ``if`` is seen too: such imports hide cycles)."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def modules(folder: Path) -> list[str]:
    return sorted(p.stem for p in folder.glob("*.py") if p.stem != "__init__")


def imports(folder: Path, name: str, module: str) -> dict[str, bool]:
    """The modules of package ``name`` (in ``folder``) that ``module`` imports, each with
    whether the import is at the module's top level."""
    tree = ast.parse((folder / f"{module}.py").read_text(encoding="utf-8"))
    top = {id(node) for node in tree.body}
    known = set(modules(folder))
    out: dict[str, bool] = {}
    for node in ast.walk(tree):
        if not isinstance(node, ast.ImportFrom):
            continue
        if node.level == 1:
            targets = [node.module.split(".")[0]] if node.module else [a.name for a in node.names]
        elif node.level == 0 and (node.module or "").startswith(name + "."):
            targets = [node.module[len(name) + 1:].split(".")[0]]
        else:
            continue
        for t in targets:
            if t in known:
                out[t] = out.get(t, False) or id(node) in top
    return out


def graph(folder: Path, name: str) -> dict[str, set[str]]:
    return {m: set(imports(folder, name, m)) for m in modules(folder)}
