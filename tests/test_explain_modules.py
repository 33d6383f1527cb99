"""The modules of ``fisheye.checker.explain`` import one another at their top level only
(no import inside a function or under ``TYPE_CHECKING``; that they form no cycle is
checked for every package by test_import_cycles), and each module imports on its own,
first, in a fresh interpreter."""

from __future__ import annotations

import subprocess
import sys

from import_graph import ROOT, imports, modules

PACKAGE = ROOT / "checker" / "explain"
NAME = "fisheye.checker.explain"


def _modules() -> list[str]:
    return modules(PACKAGE)


def _imports(module: str) -> dict[str, bool]:
    return imports(PACKAGE, NAME, module)


def test_the_scan_sees_the_package():
    assert {"argument", "core", "explanation", "prover", "explainers", "verify", "words"} <= set(_modules())
    assert _imports("explanation").get("prover") is True


def test_no_module_of_the_package_is_imported_inside_a_function():
    hidden = {m: sorted(t for t, at_top in _imports(m).items() if not at_top) for m in _modules()}
    assert {m: t for m, t in hidden.items() if t} == {}


def test_each_module_imports_first_in_a_fresh_interpreter():
    code = (
        "import importlib, sys\n"
        f"for m in {_modules()!r}:\n"
        "    for k in [k for k in sys.modules if k.startswith('fisheye')]:\n"
        "        del sys.modules[k]\n"
        f"    importlib.import_module('{NAME}.' + m)\n"
        "print('ok')\n")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0 and r.stdout.strip() == "ok", r.stderr
