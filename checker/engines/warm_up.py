"""Every numba kernel of the checker compiled, or loaded from numba's on-disk cache, at
once: at install (``scripts/bootstrap.sh``), or before a check limits its memory."""

from __future__ import annotations

import sys

from . import closure_kernel, lin_kernel  # noqa: F401  (importing them lists their kernels)
from .compiled_kernel import _KERNELS, _compile, cache_counts


def compile_kernels() -> None:
    """Compile every kernel (this module's and :mod:`.lin_kernel`'s), or load it from
    numba's cache; a caller may do it before the first compiled call (before limiting the
    process's memory, say, or at install)."""
    for kernel in _KERNELS:
        _compile(kernel)


def warm_up() -> None:
    """Compile every kernel into numba's on-disk cache, so that the first check of a large
    history loads machine code instead of compiling it (several seconds of CPU).  Run
    once after installing (``scripts/bootstrap.sh``); the cache lies next to this module
    (``__pycache__``, an editable install or a clone), or where ``NUMBA_CACHE_DIR``
    says; numba recompiles by itself when this file changes.  Says on stderr how many it
    compiled, if any."""
    compile_kernels()
    hits, misses = cache_counts()
    if misses:
        print(f"numba: {misses} kernels compiled into the cache, {hits} already there", file=sys.stderr)
