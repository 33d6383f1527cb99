"""The searches allocate many small containers (configurations, clock rows) and keep
them alive, which makes Python's cyclic garbage collector run often over all of them;
they create no reference cycles, so the collector is paused while they run (on a
100,000-operation lin check with indeterminate writes, 2.7 s of CPU instead of 3.5).
A command's start-up is the same case (:class:`StartUp`)."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def paused_gc() -> Iterator[None]:
    """Within the block, the cyclic garbage collector does not run."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


class StartUp:
    """The collector paused from creation until :meth:`end`: a command's start-up (numpy,
    numba and fisheye's modules imported, a compiled kernel loaded from numba's cache, a
    system set up) allocates a few hundred thousand long-lived objects and no garbage
    worth a collection, so the collector's young passes only traverse survivors (about
    230 passes and 40 ms of CPU before ``fisheye explore`` expands its first state).  At
    :meth:`end` (idempotent) what is alive is frozen out of later passes (``gc.freeze``;
    freed as usual when dropped) and the collector runs again if it ran before."""

    def __init__(self) -> None:
        self._was = gc.isenabled()
        self.over = False
        gc.disable()

    def end(self) -> None:
        if self.over:
            return
        self.over = True
        gc.freeze()
        if self._was:
            gc.enable()
