"""Every numba kernel of the checker compiled, or loaded from numba's on-disk cache, at
once: at install (``scripts/bootstrap.sh``), or before a check limits its memory."""

from __future__ import annotations

import sys

from . import closure_kernel, lin_kernel, lookup_kernel  # noqa: F401  (importing them lists their kernels)
from .ahead_of_time import build
from .compiled_kernel import _KERNELS, _compile, cache_counts, jit


def compile_kernels() -> None:
    """Load every kernel's native code (:mod:`.closure_kernel`'s, :mod:`.lin_kernel`'s and
    :mod:`.lookup_kernel`'s:
    built ahead of time, else compiled by numba or loaded from its cache); a caller may
    do it before the first compiled call (before limiting the process's memory, say)."""
    for kernel in _KERNELS:
        _compile(kernel)


def warm_up() -> None:
    """Compile every kernel into numba's on-disk cache, so that the first check of a large
    history loads machine code instead of compiling it (several seconds of CPU).  Run
    once after installing (``scripts/bootstrap.sh``); the cache lies next to this module
    (``__pycache__``, an editable install or a clone), or where ``NUMBA_CACHE_DIR``
    says; numba recompiles by itself when this file changes.  Then builds the kernels
    marked ahead of time (:mod:`.ahead_of_time`) where they are not built yet.  Says on
    stderr how many it compiled, if any."""
    for kernel in _KERNELS:
        jit(kernel)
    hits, misses = cache_counts()
    if misses:
        print(f"numba: {misses} kernels compiled into the cache, {hits} already there", file=sys.stderr)
    try:
        built = build(_KERNELS)
    except OSError as e:  # a read-only install: the just-in-time kernels serve
        print(f"numba: no kernel compiled ahead of time ({e})", file=sys.stderr)
    else:
        if built:
            print(f"numba: {len(built)} kernel modules compiled ahead of time", file=sys.stderr)
