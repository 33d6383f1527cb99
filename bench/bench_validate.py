"""CPU time of the spec's witness validation (``fisheye.spec.validate.problems``, what
``fisheye check`` adds after the search to give a consistent verdict), per model.

The witnesses are the engines' (``fisheye.checker.engines.check`` with
``validate_witness=False``), found once per history and model; each validation is then
timed ``--repeat`` times, with the garbage collector paused as the facade pauses it, and
the best CPU time (``process_time``, robust to a loaded machine) is printed.
``--baseline COMMIT`` times the spec of that commit (``git archive COMMIT spec``) on the
same witnesses, alternating with the working tree's, and prints the ratio: before/after
figures measured back to back in one process.

Histories: the files given, and ``--size N``: the size suite's random histories of
``bench_check.py`` (seed 0) of N operations, under each model.  Run from the
repository's root:

    .venv/bin/python bench/bench_validate.py /tmp/ck/alg2/alg2_100000_0.json --baseline main
    .venv/bin/python bench/bench_validate.py --size 100000 --baseline main

One line per history and model: ``file model ops witness-shape seconds [baseline ratio]``.
"""

from __future__ import annotations

import argparse
import gc
import importlib
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

MODELS = ("fisheye-2014", "fisheye", "cc", "sc")


def _baseline_spec(commit: str, into: Path) -> Any:
    """The ``spec`` package of ``commit``, importable as ``baseline_spec``."""
    archive = subprocess.run(["git", "archive", commit, "spec"], cwd=HERE.parent, check=True,
                             capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive, check=True)
    (into / "spec").rename(into / "baseline_spec")
    sys.path.insert(0, str(into))
    return importlib.import_module("baseline_spec")


def _cpu(fn: Any, args: tuple[Any, ...], repeat: int) -> float:
    """The best CPU time of ``repeat`` calls ``fn(*args)``."""
    best = float("inf")
    for _ in range(repeat):
        gc.disable()
        try:
            t = time.process_time()
            fn(*args)
            best = min(best, time.process_time() - t)
        finally:
            gc.enable()
    return best


def _histories(files: list[str], size: int | None, models: list[str]):
    from fisheye.spec.graph import ProximityGraph
    from fisheye.spec.history import load_history

    for f in files:
        h = load_history(f)
        for model in models:
            yield Path(f).name, model, h, ProximityGraph(h.processes, h.edges)
    if size:
        from bench_check import _history

        for model in models:
            h, g = _history(model, model, size, 0, None)
            yield f"size-{size}", model, h, g


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("files", nargs="*")
    ap.add_argument("--size", type=int, default=None)
    ap.add_argument("--models", default=",".join(MODELS))
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--baseline", default=None, metavar="COMMIT")
    args = ap.parse_args()
    from fisheye.checker.engines import check
    from fisheye.spec.validate import problems

    with tempfile.TemporaryDirectory() as tmp:
        base = _baseline_spec(args.baseline, Path(tmp)) if args.baseline else None
        if base is not None:
            importlib.import_module("baseline_spec.validate")
        for name, model, h, g in _histories(args.files, args.size, args.models.split(",")):
            res = check(h, model, g, validate_witness=False)
            w = res.witness
            if w is None:
                print(f"{name} {model} {len(h.ops)} no witness ({res.verdict.value})", flush=True)
                continue
            shape = f"views={len(w.views)},sequence={w.sequence is not None},star={len(w.star)}"
            assert problems(h, model, g, w) == [], "the engine's witness is rejected"
            line = f"{name} {model} {len(h.ops)} {shape}"
            if base is None:
                print(f"{line} {_cpu(problems, (h, model, g, w), args.repeat):.3f}", flush=True)
                continue
            bh = base.history.parse_history(h.to_json())
            bg = base.graph.ProximityGraph(g.processes, g.edges)
            bw = base.witness.Witness(read_from=dict(w.read_from), star=tuple(w.star),
                                      views=dict(w.views), sequence=w.sequence)
            new = old = float("inf")
            for _ in range(args.repeat):  # alternate, so that both see the same load
                old = min(old, _cpu(base.validate.problems, (bh, model, bg, bw), 1))
                new = min(new, _cpu(problems, (h, model, g, w), 1))
            print(f"{line} {new:.3f} baseline {old:.3f} ratio {old / new:.2f}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
