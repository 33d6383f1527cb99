"""No import cycle inside any of fisheye's packages, not even one that an import inside a
function hides (such an import may stay, to load a heavy module late, but never to break
a cycle): the model (spec), the algorithms (impl) and each package of the checker."""

from __future__ import annotations

from graphlib import CycleError, TopologicalSorter

import pytest
from import_graph import ROOT, graph

PACKAGES = {
    "fisheye.spec": ROOT / "spec",
    "fisheye.impl": ROOT / "impl",
    "fisheye.checker": ROOT / "checker",
    **{f"fisheye.checker.{d.name}": d for d in sorted((ROOT / "checker").iterdir())
       if (d / "__init__.py").exists()},
}


def cycle_in(g: dict[str, set[str]]) -> list[str] | None:
    try:
        list(TopologicalSorter(g).static_order())
    except CycleError as e:
        return list(e.args[1])
    return None


@pytest.mark.parametrize("name", sorted(PACKAGES))
def test_no_import_cycle_in_the_package(name):
    g = graph(PACKAGES[name], name)
    assert len(g) > 1
    cycle = cycle_in(g)
    assert cycle is None, f"import cycle in {name}: {' -> '.join(cycle or [])}"


def test_the_scan_sees_imports_inside_functions():
    """impl.system loads the protocol level's quotient only when asked for it."""
    assert "toco_quotient" in graph(PACKAGES["fisheye.impl"], "fisheye.impl")["system"]


def test_the_check_catches_a_cycle():
    assert cycle_in({"a": {"b"}, "b": {"c"}, "c": {"a"}}) is not None
    assert cycle_in({"a": {"b"}, "b": {"c"}, "c": set()}) is None
