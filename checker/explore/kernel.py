"""Which implementation of a system's transitions the explorer runs: the system's
Python form (the reference) or the compiled kernel it offers
(:class:`fisheye.impl.kernel_api.HasCompiledKernel`).  ``auto`` takes the kernel where
one exists for the configuration, ``compiled`` insists on it, ``python`` never uses it."""

from __future__ import annotations

from typing import Any

from fisheye.impl.kernel_api import ExplorationKernel, HasCompiledKernel

KERNELS = ("auto", "compiled", "python")


def select_kernel(ctx: Any, choice: str = "auto", *, exact: bool = False) -> ExplorationKernel | None:
    """The kernel to run for ``ctx`` (None: the Python reference).  A kernel keys its
    visited states by 64-bit fingerprints of its rows: ``exact`` (exact states) runs
    the reference."""
    if choice not in KERNELS:
        raise ValueError(f"unknown kernel {choice!r} (expected one of: {', '.join(KERNELS)})")
    if choice == "python":
        return None
    system = ctx.system
    kernel = None
    if not exact and isinstance(system, HasCompiledKernel):
        kernel = system.compiled_kernel(reduction=ctx.reduction_kind, prune=ctx.prune_deviations)
    if kernel is None and choice == "compiled":
        why = "exact states are kept by the Python path" if exact else \
            "this system has no compiled kernel for this configuration (the built-in one covers the " \
            "protocol level with FIFO channels and stubborn sets; a system's own, what it offers: " \
            "docs/your-protocol.md, section 8)"
        raise ValueError(f"--kernel compiled: {why}")
    return kernel


def kernel_name(kernel: ExplorationKernel | None) -> str:
    return "python" if kernel is None else kernel.name
