"""docs/your-protocol.md is written on the public names only: every Python block imports
nothing of fisheye but ``fisheye`` and ``fisheye.testing``, and the blocks run, in order,
as one module next to examples/lww/lww.py (the guide's protocol) and lww_kernel.py (its
compiled kernel)."""

from __future__ import annotations

import ast
import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
GUIDE = ROOT / "docs" / "your-protocol.md"
LWW = ROOT / "examples" / "lww"
ALLOWED = {"fisheye", "fisheye.testing", "lww", "lww_kernel", "typing", "__future__"}


def blocks() -> list[str]:
    return re.findall(r"^```python\n(.*?)^```", GUIDE.read_text(encoding="utf-8"), re.M | re.S)


def imported(source: str) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            names.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            names.add(node.module or "")
    return names


def test_the_guide_has_a_block_per_step():
    assert len(blocks()) >= 5


def test_every_block_imports_only_the_public_names():
    for block in blocks():
        extra = imported(block) - ALLOWED
        assert not extra, f"docs/your-protocol.md imports {sorted(extra)}:\n{block}"


def test_the_scan_sees_an_internal_import():
    source = "from fisheye.impl.actors import Actor\nimport fisheye"
    assert imported(source) - ALLOWED == {"fisheye.impl.actors"}


def test_the_blocks_run_in_order(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(LWW))
    namespace: dict[str, object] = {"__name__": "guide"}
    for block in blocks():
        exec(compile(block, str(GUIDE), "exec"), namespace)   # noqa: S102 -- the guide's own code
    assert (tmp_path / "found").is_dir() and len(list((tmp_path / "found").glob("*.json"))) == 1
    assert "The history violates cc." in capsys.readouterr().out
    assert [p.name for p in (tmp_path / "found").iterdir()] == ["causal--cc--1.json"]   # as the guide says
    sys.modules.pop("lww", None)
    sys.modules.pop("lww_kernel", None)


@pytest.mark.parametrize("name", ["Actor", "ActorSystem", "SystemRequest", "Property", "parse_program",
                                  "HasOutcomes", "System", "Program", "Read", "Write", "Await",
                                  "ExplorationKernel", "KernelBatch", "KernelStatus", "RowKernel",
                                  "persistent_processes", "row_fingerprint", "row_width", "Network"])
def test_the_names_the_guide_uses_are_public(name):
    import fisheye

    assert name in fisheye.__all__ and getattr(fisheye, name) is not None
