"""The library never imports the command line: no module of ``fisheye.spec``,
``fisheye.impl``, ``fisheye.checker`` (outside ``fisheye.checker.cli``), ``fisheye`` or
``fisheye.testing`` imports ``fisheye.checker.cli``, not even inside a function, under
``TYPE_CHECKING`` or through ``importlib.import_module``.  Read statically (ast), so that
an import no test happens to run is found too."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = {"fisheye": ROOT / "fisheye_ns", "fisheye.spec": ROOT / "spec", "fisheye.impl": ROOT / "impl",
            "fisheye.checker": ROOT / "checker"}
CLI = "fisheye.checker.cli"


def _library() -> dict[str, Path]:
    """Every module of the library (``fisheye.testing`` included), by its dotted name."""
    out = {}
    for package, folder in PACKAGES.items():
        for path in folder.rglob("*.py"):
            parts = list(path.relative_to(folder).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            name = ".".join([package, *parts])
            if name != CLI and not name.startswith(CLI + "."):
                out[name] = path
    return out


def _imported(module: str, source: str, is_package: bool) -> Iterator[str]:
    """The dotted names ``source`` (the text of ``module``) imports, wherever the import
    stands; for ``from X import y``, both ``X`` and ``X.y``."""
    here = module.split(".") if is_package else module.split(".")[:-1]
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            yield from (a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = here[:len(here) - node.level + 1] if node.level else []
            target = ".".join([*base, *([node.module] if node.module else [])])
            yield target
            yield from (f"{target}.{a.name}" for a in node.names)
        elif isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant):
            called = getattr(node.func, "attr", getattr(node.func, "id", None))
            if called in ("import_module", "__import__") and isinstance(node.args[0].value, str):
                yield node.args[0].value


def _cli_imports(module: str, source: str, is_package: bool = False) -> list[str]:
    return sorted({t for t in _imported(module, source, is_package) if t == CLI or t.startswith(CLI + ".")})


def test_the_scan_sees_every_part_of_the_library():
    names = set(_library())
    assert {"fisheye", "fisheye._explain", "fisheye.testing.assertions", "fisheye.spec.history",
            "fisheye.impl.api", "fisheye.checker.explain.run", "fisheye.checker.counterexample"} <= names
    assert not any(n.startswith(CLI) for n in names)


def test_the_scan_finds_each_way_of_importing_the_command_line():
    assert _cli_imports("fisheye._explain", "def f():\n    from fisheye.checker.cli.explain import x\n")
    assert _cli_imports("fisheye.checker.spark.corpus", "from ..cli.check import batch_row\n")
    assert _cli_imports("fisheye.checker.explain.run", "from .. import cli\n")
    assert _cli_imports("fisheye.checker", "from .cli import main\n", is_package=True)
    assert _cli_imports("fisheye.impl.api", "import fisheye.checker.cli.plain as p\n")
    assert _cli_imports("fisheye", "import importlib\nimportlib.import_module('fisheye.checker.cli.main')")
    assert not _cli_imports("fisheye.checker.explain.run", "from ..explain import clients\nfrom . import cli")


def test_no_library_module_imports_the_command_line():
    found = {name: _cli_imports(name, path.read_text(encoding="utf-8"), path.name == "__init__.py")
             for name, path in _library().items()}
    assert {name: targets for name, targets in found.items() if targets} == {}
