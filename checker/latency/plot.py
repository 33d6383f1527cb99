"""Plots of latency runs (the only module of the package that imports matplotlib).

Every function writes one PNG and returns nothing; figures use the non-interactive Agg
backend, so no display is needed.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

from .metrics import latencies, staleness  # noqa: E402
from .run import LatencyReport  # noqa: E402


def _cdf(ax, values: Sequence[float], label: str, **kw) -> None:
    a = np.sort(np.asarray(values, dtype=float))
    if a.size == 0:
        return
    y = np.arange(1, a.size + 1) / a.size
    ax.step(a, y, where="post", label=f"{label} (n={a.size})", **kw)


def _floor(values: Sequence[float], floor: float = 0.01) -> list[float]:
    """Log axes cannot show 0: values below ``floor`` are drawn at ``floor``."""
    return [max(v, floor) for v in values]


def plot_run(report: LatencyReport, out: str) -> None:
    """One run: write latency per process (CDF), and the staleness of reads (CDF)."""
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(11, 4.2))
    ops = report.run.ops
    for p in report.graph.processes:
        site = report.config.site_of[p]
        _cdf(ax1, _floor(latencies(ops, "w", p)), f"{p} ({site})")
    ax1.set_xscale("log")
    ax1.set_xlabel("write latency (ms, log scale)")
    ax1.set_ylabel("fraction of writes")
    ax1.set_title(f"writes, graph {report.graph_name}")
    ax1.grid(True, which="both", alpha=0.3)
    ax1.legend(fontsize=8, loc="lower right")
    stale = staleness(ops)
    _cdf(ax2, stale, "all reads")
    ax2.set_xlabel("staleness of reads (ms)")
    ax2.set_ylabel("fraction of reads")
    ax2.set_title("reads: how far behind the latest write")
    ax2.grid(True, alpha=0.3)
    ax2.legend(fontsize=8, loc="lower right")
    v = ", ".join(f"{m}: {x.value}" for m, x in report.verdicts.items())
    fig.suptitle(f"{report.config.algorithm}, seed {report.config.seed} -- {v}", fontsize=10)
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    plt.close(fig)


def plot_compare(reports: Mapping[str, Sequence[LatencyReport]], out: str, title: str = "") -> None:
    """Several graphs on the same deployment and workload, each with one or more runs
    (seeds) pooled: write latency CDF per graph (left) and staleness CDF (right)."""
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(11, 4.6))
    for name, reps in reports.items():
        _cdf(ax1, _floor([x for r in reps for x in latencies(r.run.ops, "w")]), name)
        _cdf(ax2, [x for r in reps for x in staleness(r.run.ops)], name)
    ax1.set_xscale("log")
    ax1.set_xlabel("write latency (ms, log scale)")
    ax1.set_ylabel("fraction of writes")
    ax1.set_title("writes (reads are local: one processing step in every graph)", fontsize=10)
    ax2.set_xlabel("staleness of reads (ms)")
    ax2.set_ylabel("fraction of reads")
    ax2.set_title("staleness of reads", fontsize=10)
    for ax in (ax1, ax2):
        ax.grid(True, which="both", alpha=0.3)
    handles, labels = ax1.get_legend_handles_labels()
    fig.legend(handles, [lb.split(" (n=")[0] for lb in labels], loc="lower center", ncol=len(labels),
               fontsize=9, frameon=False)
    if title:
        fig.suptitle(title, fontsize=10)
    fig.tight_layout(rect=(0, 0.07, 1, 1))
    fig.savefig(out, dpi=110)
    plt.close(fig)


def plot_sweep(xs: Sequence[float], series: Mapping[str, Sequence[float | None]], out: str, *,
               xlabel: str, ylabel: str, title: str = "", logx: bool = False, logy: bool = False,
               bands: Mapping[str, Sequence[float | None]] | None = None) -> None:
    """One line per series against ``xs`` (``bands``: an upper value per point, drawn as
    a dashed line of the same colour, e.g. the 95th percentile over a median)."""
    fig, ax = plt.subplots(figsize=(7.5, 4.5))
    for name, ys in series.items():
        pts = [(x, y) for x, y in zip(xs, ys, strict=True) if y is not None]
        (line,) = ax.plot([x for x, _ in pts], [y for _, y in pts], marker="o", label=name)
        if bands and name in bands:
            up = [(x, y) for x, y in zip(xs, bands[name], strict=True) if y is not None]
            ax.plot([x for x, _ in up], [y for _, y in up], linestyle="--", color=line.get_color(),
                    alpha=0.7, label=f"{name} (p95)")
    if logx:
        ax.set_xscale("log")
    if logy:
        ax.set_yscale("log")
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    if title:
        ax.set_title(title, fontsize=10)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    plt.close(fig)
