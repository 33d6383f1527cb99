"""Packaging: every package folder is installed under its namespaced name (the mapping in
pyproject.toml is explicit, so a forgotten subpackage would be missing from a wheel)."""

from __future__ import annotations

import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FOLDERS = {"spec": "fisheye.spec", "impl": "fisheye.impl", "checker": "fisheye.checker"}


def test_every_package_folder_is_listed_in_pyproject():
    cfg = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    listed = set(cfg["packages"])
    found = set()
    for folder, name in FOLDERS.items():
        assert cfg["package-dir"][name] == folder
        for init in (ROOT / folder).rglob("__init__.py"):
            rel = init.parent.relative_to(ROOT / folder)
            found.add(".".join([name, *rel.parts]) if rel.parts else name)
    assert found, "no package found"
    assert found <= listed, f"not listed in pyproject.toml: {sorted(found - listed)}"


def test_no_bare_top_level_packages_are_importable_by_name():
    # The folders must only be reachable as fisheye.*; the installed distribution must not
    # expose bare `spec`, `impl` or `checker` packages.
    cfg = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    assert all(p == "fisheye" or p.startswith("fisheye.") for p in cfg["packages"])
