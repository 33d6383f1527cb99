"""Offline agreement run: the direct and Z3 engines on many random histories.

Usage::

    .venv/bin/python bench/offline_agreement.py --count 100000 --seed 1 --out /tmp/agree.json

Each history is drawn (seed ``seed + i``) from one of the generators of
:mod:`histgen`: random serialisations (sc), causal memory runs (cc), per-component
sequenced causal memory runs (fisheye for the drawn graph), each as is or mutated, with
fresh or repeated values, and fully random histories; 1 to 5 processes, 0 to 12
operations, 1 to 3 registers; a random graph; a random model.  Both engines run through
the facade (so consistent witnesses are re-validated by the spec) with a timeout per
history; an *unknown* from either side is counted separately, never as agreement.
Progress is written to ``--out`` every ``--every`` histories, so a run cut short still
reports what it checked.  Disagreements are saved in full (history, graph, model).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from histgen import (  # noqa: E402
    cc_history,
    fisheye_history,
    mutate,
    procs_of,
    random_graph,
    regs_of,
    sc_history,
)

from fisheye.checker.engines import check  # noqa: E402
from fisheye.checker.result import Verdict  # noqa: E402
from fisheye.spec.history import History  # noqa: E402
from fisheye.spec.models import MODEL_NAMES  # noqa: E402

KINDS = ("sc", "cc", "fisheye", "random")


def _random_history(rng: random.Random, n: int, ops: int, regs: int, repeated: bool) -> History:
    procs, names = procs_of(n), regs_of(regs)
    data: dict[str, list[list[Any]]] = {p: [] for p in procs}
    fresh = 0
    for _ in range(ops):
        p, x = rng.choice(procs), rng.choice(names)
        if rng.random() < 0.5:
            fresh += 1
            data[p].append(["w", x, rng.randint(0, 2) if repeated else fresh])
        else:
            data[p].append(["r", x, rng.randint(0, 2) if repeated else rng.randint(0, max(fresh, 1))])
    return History.build(data, processes=procs)


def draw(seed: int) -> tuple[str, History, Any, str]:
    rng = random.Random(seed)
    n, ops, regs = rng.randint(1, 5), rng.randint(0, 12), rng.randint(1, 3)
    repeated = rng.random() < 0.3
    kind = rng.choice(KINDS)
    graph = random_graph(rng, procs_of(n))
    if kind == "sc":
        h = sc_history(rng, n, ops, regs, repeated=repeated)
    elif kind == "cc":
        h = cc_history(rng, n, ops, regs, repeated=repeated)
    elif kind == "fisheye":
        h = fisheye_history(rng, n, ops, regs, graph, repeated=repeated)
    else:
        h = _random_history(rng, n, ops, regs, repeated)
    if kind != "random" and rng.random() < 0.5:
        h = mutate(rng, h)
        kind += "+mutated"
    return kind + ("+repeated" if repeated else ""), h, graph, rng.choice(MODEL_NAMES)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--count", type=int, default=100_000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--timeout", type=float, default=20.0, help="seconds per history and engine")
    ap.add_argument("--out", default="offline_agreement.json")
    ap.add_argument("--every", type=int, default=1000)
    args = ap.parse_args(argv)

    start = time.perf_counter()
    verdicts: Counter[str] = Counter()
    per_model: Counter[str] = Counter()
    kinds: Counter[str] = Counter()
    unknown = {"direct": 0, "z3": 0}
    disagreements: list[dict[str, Any]] = []
    errors: list[dict[str, Any]] = []
    seconds = {"direct": 0.0, "z3": 0.0}
    done = 0

    def report(final: bool) -> None:
        obj = {
            "complete": final and done == args.count, "checked": done, "requested": args.count,
            "seed": args.seed, "timeout_per_history": args.timeout,
            "agreements": done - len(disagreements) - len(errors) - sum(unknown.values()),
            "disagreements": len(disagreements), "errors": len(errors), "unknown": unknown,
            "verdicts": dict(verdicts), "models": dict(per_model), "kinds": dict(kinds),
            "engine_seconds": {k: round(v, 1) for k, v in seconds.items()},
            "wall_seconds": round(time.perf_counter() - start, 1),
            "machine": {"platform": platform.platform(), "python": platform.python_version(),
                        "cpus": os.cpu_count()},
            "disagreement_cases": disagreements[:50], "error_cases": errors[:50],
        }
        Path(args.out).write_text(json.dumps(obj, indent=1))

    for i in range(args.count):
        kind, h, g, model = draw(args.seed + i)
        kinds[kind.split("+")[0]] += 1
        per_model[model] += 1
        res: dict[str, Verdict] = {}
        try:
            for engine in ("direct", "z3"):
                t = time.perf_counter()
                res[engine] = check(h, model, g, engine=engine, timeout=args.timeout).verdict
                seconds[engine] += time.perf_counter() - t
        except Exception as e:  # an EngineBug or a crash: recorded, never counted as agreement
            errors.append({"seed": args.seed + i, "model": model, "error": f"{type(e).__name__}: {e}",
                           "history": h.to_json(), "graph": g.to_json()})
        else:
            a, b = res["direct"], res["z3"]
            if Verdict.UNKNOWN in (a, b):
                for k, v in res.items():
                    unknown[k] += v is Verdict.UNKNOWN
            elif a != b:
                disagreements.append({"seed": args.seed + i, "model": model, "direct": a.value,
                                      "z3": b.value, "history": h.to_json(), "graph": g.to_json()})
            else:
                verdicts[a.value] += 1
        done += 1
        if done % args.every == 0:
            report(False)
    report(True)
    print(json.dumps({k: v for k, v in json.loads(Path(args.out).read_text()).items()
                      if not k.endswith("_cases")}))
    return 0 if not disagreements and not errors else 1


if __name__ == "__main__":
    sys.exit(main())
