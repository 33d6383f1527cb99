"""Loading the research drivers of ``scripts/research/`` (scripts, not modules of the
package) by path, for the tests of what they compute."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

SCRIPTS = Path(__file__).resolve().parent.parent / "scripts" / "research"


def load(name: str) -> ModuleType:
    """The script ``scripts/research/NAME.py`` as a module (loaded once)."""
    key = f"fisheye_research_{name}"
    if key in sys.modules:
        return sys.modules[key]
    spec = importlib.util.spec_from_file_location(key, SCRIPTS / f"{name}.py")
    assert spec is not None and spec.loader is not None, name
    module = importlib.util.module_from_spec(spec)
    sys.modules[key] = module      # dataclasses look their module up while the script runs
    spec.loader.exec_module(module)
    return module
