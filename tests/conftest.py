"""Shared test fixtures (keep small; others may append)."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from fisheye.checker.cli import main

DATA = Path(__file__).parent / "data"


@dataclass(frozen=True)
class CliRun:
    """The outcome of one in-process ``fisheye`` command."""

    status: int
    out: str
    err: str

    def json(self) -> Any:
        return json.loads(self.out)


@pytest.fixture
def data_dir() -> Path:
    """``tests/data``: history files for CLI tests."""
    return DATA


@pytest.fixture
def run_cli(capsys: pytest.CaptureFixture[str]) -> Callable[..., CliRun]:
    """Run ``fisheye ARGS...`` in process; return status, stdout and stderr."""

    def run(*args: str | Path) -> CliRun:
        capsys.readouterr()
        status = main([str(a) for a in args])
        captured = capsys.readouterr()
        return CliRun(status, captured.out, captured.err)

    return run


@pytest.fixture
def write_file(tmp_path: Path) -> Callable[[str, Any], Path]:
    """Write ``content`` (a string, written as is, or an object, written as JSON) to
    ``tmp_path / name`` and return the path."""

    def write(name: str, content: Any) -> Path:
        path = tmp_path / name
        path.write_text(content if isinstance(content, str) else json.dumps(content), encoding="utf-8")
        return path

    return write
