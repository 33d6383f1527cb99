"""``fisheye latency CONFIG.json [--graph G] [--seed N] [--json] [--plot OUT.png]``.

Simulates the deployment and workload of CONFIG (format: ``docs/latency.md``) with the
reference implementation, in simulated time, and reports the latency of reads and writes
per process (median, 95th, 99th percentiles), messages and bytes per operation, the
staleness of reads, and the verdicts of the produced history under sc, fisheye(G) and cc.

G: ``sites`` (processes of the same site are neighbours), ``near:MS`` (processes at most MS
ms apart), ``empty``, ``complete``, or edges ``p:q,r:s``; default: the configuration's.

Exit status: 0 the run is complete and its history satisfies every model the algorithm
guarantees; 1 it does not (a bug of the implementation); 2 bad input or usage; 3 a
verdict is unknown (the checker's budget ran out).  Progress goes to stderr on long runs.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from typing import Any

from ..errors import UsageError
from ..result import Verdict
from .outputs import require_writable

PROGRESS_AFTER_S = 1.0


def register(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "latency", help="simulate a geo-replicated deployment and measure what each graph costs",
        description="Simulate the deployment and workload of CONFIG.json with the reference "
                    "implementation in simulated time; report read and write latencies per process, "
                    "messages and bytes per operation, staleness of reads, and the sc, fisheye and cc "
                    "verdicts of the produced history.")
    p.add_argument("config", metavar="CONFIG.json", help="latency configuration (docs/latency.md)")
    p.add_argument("--graph", default=None, metavar="G",
                   help="sites, near:MS, empty, complete or p:q,r:s (default: the configuration's)")
    p.add_argument("--seed", type=int, default=None, help="seed of workload and jitter (default: the "
                   "configuration's)")
    p.add_argument("--json", action="store_true", help="print one JSON object on stdout")
    p.add_argument("--plot", default=None, metavar="OUT.png", help="write a PNG of the run's distributions")
    p.add_argument("--quiet", action="store_true", help="no progress on stderr")
    p.set_defaults(func=run)


class _Progress:
    """Prints the simulated time reached, at most once a second, after the first second."""

    def __init__(self, total_ms: float, quiet: bool):
        self.total_ms, self.quiet = total_ms, quiet
        self.start = self.last = time.monotonic()

    def __call__(self, now_ms: float, steps: int) -> None:
        t = time.monotonic()
        if self.quiet or t - self.start < PROGRESS_AFTER_S or t - self.last < 1.0:
            return
        self.last = t
        print(f"fisheye latency: simulated {now_ms / 1000:.2f} s of {self.total_ms / 1000:.2f} s "
              f"({steps} steps)", file=sys.stderr, flush=True)


def run(args: argparse.Namespace) -> int:
    from ..latency import ConfigError, load_config, resolve_graph, run_latency  # not for --help
    from ..latency.systems import expected_models

    if args.plot:
        require_writable(args.plot, "--plot")
    try:
        cfg = load_config(args.config)
        if args.graph is not None:
            resolve_graph(cfg, args.graph)
    except ConfigError as e:
        raise UsageError(str(e) if e.source or args.graph is None else f"--graph: {e}") from None
    progress = _Progress(cfg.duration_s * 1000, args.quiet)
    report = run_latency(cfg, args.graph, seed=args.seed, progress=progress)
    if args.plot:
        from ..latency.plot import plot_run

        try:
            plot_run(report, args.plot)
        except OSError as e:
            raise UsageError(f"--plot {args.plot}: cannot be written ({e.strerror})") from None
    out = report.to_json()
    expected = expected_models(cfg.algorithm, report.graph)
    verdicts = [report.verdicts[m] for m in expected]
    if not report.run.complete or Verdict.VIOLATION in verdicts:
        status = 1
    elif Verdict.UNKNOWN in verdicts:
        status = 3
    else:
        status = 0
    if args.json:
        print(json.dumps(out))
        return status
    print(human(out))
    return status


def _ms(x: float | None) -> str:
    return "-" if x is None else f"{x:.2f}"


def human(out: dict[str, Any]) -> str:
    lines = [f"{out['algorithm']} on graph {out['graph_name']} ({len(out['graph'])} edges), "
             f"seed {out['seed']}: {out['operations']} operations in "
             f"{out['simulated_ms'] / 1000:.2f} simulated s "
             f"({out['cpu_seconds']:.2f} CPU s)"]
    lines.append(f"  {'process':<12} {'site':<12} {'reads':>6} {'r med':>8} {'r p99':>8} "
                 f"{'writes':>6} {'w med':>8} {'w p95':>8} {'w p99':>8}   (ms)")
    rows = list(out["per_process"].items()) + [("all", {"reads": out["reads"], "writes": out["writes"]})]
    for p, d in rows:
        r, w = d["reads"], d["writes"]
        lines.append(f"  {p:<12} {out['sites'].get(p, ''):<12} {r['count']:>6} {_ms(r['median_ms']):>8} "
                     f"{_ms(r['p99_ms']):>8} {w['count']:>6} {_ms(w['median_ms']):>8} {_ms(w['p95_ms']):>8} "
                     f"{_ms(w['p99_ms']):>8}")
    st = out["staleness"]
    lines.append(f"  messages per operation {out['messages_per_op']}, "
                 f"bytes per operation {out['bytes_per_op']}")
    lines.append(f"  stale reads {st['stale_reads']} of {st['count']} "
                 f"(median staleness {_ms(st['median_ms'])} ms, p99 {_ms(st['p99_ms'])} ms)")
    lines.append("  verdicts: " + ", ".join(f"{m} {v}" for m, v in out["verdicts"].items())
                 + f" (guaranteed: {', '.join(out['expected'])})")
    if not out["complete"]:
        lines.append("  INCOMPLETE: the run stopped before every operation returned")
    return "\n".join(lines)
