"""The compiled-kernel capability: a system may hand the explorer a second, compiled
implementation of its reduced transition system over fixed-width integer rows.

The explorer asks a system for it with ``compiled_kernel(reduction=..., prune=...)``
(:class:`HasCompiledKernel`); ``None`` means "no kernel for this configuration", and the
explorer then runs the system's Python form, which stays the reference.  A kernel must
give, for every state, the successors the reference gives under the same reduction, in
the same order (the reference's ``steps`` order: a path of successor indices names the
same schedule on both), each as the row of the reference's successor; a state with no
successor is handed back (``NO_STEP``) and the reference classifies it and builds its
terminal record.  The built-in kernel is :mod:`fisheye.impl.protocol_kernel`; a kernel
of a user's system may build on :class:`fisheye.impl.row_kernel.RowKernel`.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum
from typing import Any, Protocol, runtime_checkable

import numpy as np


class KernelStatus(IntEnum):
    """A state's status in a :class:`KernelBatch` (integers: compiled code reads them)."""

    INNER = 0       # expanded: its successors are in the batch
    PRUNED = 1      # a conditioning read deviated: not expanded
    NO_STEP = 2     # no successor: the reference classifies it (final, deadlock, ...)


INNER, PRUNED, NO_STEP = KernelStatus


@dataclass(frozen=True)
class KernelBatch:
    """The expansion of k rows: ``status[k]`` (:class:`KernelStatus`: ``INNER``,
    ``PRUNED``: a conditioning read deviated, not expanded; ``NO_STEP``: the reference
    classifies it),
    ``children[m, width]`` the successor rows, ``parent[m]`` the index in the batch of
    each child's state, ``step[m]`` the child's position among its state's reduced
    steps, ``keys[m]`` the children's 64-bit fingerprints (``uint64``).  The last four
    may be views of buffers that the kernel's next ``expand`` overwrites."""

    status: np.ndarray
    children: np.ndarray
    parent: np.ndarray
    step: np.ndarray
    keys: np.ndarray


class ExplorationKernel(Protocol):
    """A compiled reduced transition system over rows of ``width`` integers of
    ``dtype``.  ``name`` is what the report says ran."""

    name: str
    width: int
    dtype: Any

    def encode(self, state: Any) -> np.ndarray: ...

    def decode(self, row: np.ndarray) -> Any: ...

    def expand(self, states: np.ndarray) -> KernelBatch: ...

    def fingerprints(self, states: np.ndarray) -> np.ndarray: ...


@runtime_checkable
class HasCompiledKernel(Protocol):
    """A system that offers a compiled kernel for some configurations (see module doc)."""

    def compiled_kernel(self, *, reduction: str, prune: bool) -> ExplorationKernel | None: ...
