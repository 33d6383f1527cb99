"""The API reference (docs/api, Sphinx autodoc) builds offline with warnings as errors,
and documents every public name of ``fisheye`` and ``fisheye.testing``."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import fisheye
import fisheye.testing

ROOT = Path(__file__).resolve().parent.parent


def test_the_api_reference_builds_and_documents_every_public_name(tmp_path):
    out = tmp_path / "html"
    run = subprocess.run([sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q", "-E", "-b", "html",
                          str(ROOT / "docs" / "api"), str(out)], capture_output=True, text=True, cwd=ROOT)
    assert run.returncode == 0, run.stderr
    facade = (out / "fisheye.html").read_text(encoding="utf-8")
    missing = [n for n in fisheye.__all__ if f'id="fisheye.{n}"' not in facade]
    assert not missing, f"not in docs/api/fisheye.rst: {missing}"
    testing = (out / "testing.html").read_text(encoding="utf-8")
    names = [n for n in fisheye.testing.__all__ if n != "strategies"]
    missing = [n for n in names if f'id="fisheye.testing.{n}"' not in testing]
    assert not missing, f"not in docs/api/testing.rst: {missing}"
    assert 'id="fisheye.testing.strategies.programs"' in testing
