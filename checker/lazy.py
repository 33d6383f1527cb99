"""Public names of a package loaded on first use (a module ``__getattr__``, PEP 562), so
that importing the package costs only what a command uses of it: ``fisheye check`` of a
JSON history loads no Jepsen parser, ``fisheye simulate`` not the explorer's search."""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Mapping
from typing import Any


def lazy_names(package: str, where: Mapping[str, str]) -> Callable[[str], Any]:
    """The ``__getattr__`` of the module ``package``: each name of ``where`` is taken from
    the module it maps to (``.name``: relative to ``package``), imported at the first
    use of the name and then kept in the package's namespace; any other name is an
    ``AttributeError``."""

    def __getattr__(name: str) -> Any:
        if name not in where:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(where[name], package), name)
        setattr(sys.modules[package], name, value)
        return value

    return __getattr__
