"""Numba kernels behind one small interface: a :class:`Kernel` is the readable Python
function (the reference, and what runs on small histories) and, built at its first
compiled call, its numba version with an explicit signature, cached on disk.
:func:`compiled_for` chooses per check (:data:`~.compiled.COMPILED_FROM`); the kernels
themselves live in :mod:`.closure_kernel` and :mod:`.lin_kernel`."""

from __future__ import annotations

import types
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from .compiled import COMPILED_FROM
from .gcpause import StartUp


class Kernel:
    """One kernel: the Python function and, built at the first compiled call, its numba
    version (an explicit signature, cached on disk; where numba finds no writable cache
    directory, compiled in memory instead of failing).  A call runs one or the other
    as :func:`compiled_for` chose."""

    compiled_now = True
    """Whether calls run the compiled code (the default outside :func:`compiled_for`)."""

    def __init__(self, function: Callable[..., Any], signature: str) -> None:
        self.py_func = function
        self.signature = signature
        self._compiled: Callable[..., Any] | None = None

    def __call__(self, *args: Any) -> Any:
        if not Kernel.compiled_now:
            return self.py_func(*args)
        return (self._compiled or _compile(self))(*args)


_KERNELS: list[Kernel] = []
"""Every kernel in definition order (a kernel's callees come before it)."""


def _compile(kernel: Kernel) -> Callable[..., Any]:
    """The kernel compiled (or loaded from numba's cache) with its callees, done at its
    first compiled call: it is compiled from a copy of its Python function whose globals
    (its module's) name the compiled callees (numba resolves them when it compiles, and
    cannot call a :class:`Kernel`).  Only the kernels a check calls are loaded (each
    costs about 20 ms).  Numba and the machine code it loads are long-lived objects: the
    collector is paused while they load, then they are frozen (:class:`.gcpause.StartUp`)."""
    if kernel._compiled is None:
        start_up = StartUp()
        try:
            from numba import njit

            f = kernel.py_func
            namespace = dict(f.__globals__)
            for name in f.__code__.co_names:
                callee = namespace.get(name)
                if isinstance(callee, Kernel):
                    namespace[name] = _compile(callee)
            copy = types.FunctionType(f.__code__, namespace, f.__name__, f.__defaults__, f.__closure__)
            copy.__qualname__, copy.__doc__ = f.__qualname__, f.__doc__
            try:
                kernel._compiled = njit(kernel.signature, cache=True)(copy)
            except RuntimeError:  # numba: "cannot cache function ...: no locator available"
                kernel._compiled = njit(kernel.signature)(copy)
        finally:
            start_up.end()
    return kernel._compiled


def cache_counts() -> tuple[int, int]:
    """How many of the compiled kernels this process loaded from numba's on-disk cache,
    and how many it had to compile (numba's dispatcher statistics); (0, 0) before
    :func:`compile_kernels`."""
    hits = misses = 0
    for kernel in _KERNELS:
        if kernel._compiled is not None:
            stats = kernel._compiled.stats
            hits += sum(stats.cache_hits.values())
            misses += sum(stats.cache_misses.values())
    return hits, misses


@contextmanager
def compiled_for(operations: int) -> Iterator[None]:
    """Within the block, the kernels run compiled iff a history of ``operations``
    operations is worth it (:data:`COMPILED_FROM`)."""
    before = Kernel.compiled_now
    Kernel.compiled_now = operations >= COMPILED_FROM
    try:
        yield
    finally:
        Kernel.compiled_now = before


def _kernel(signature: str) -> Callable[[Callable[..., Any]], Kernel]:
    def wrap(function: Callable[..., Any]) -> Kernel:
        kernel = Kernel(function, signature)
        _KERNELS.append(kernel)
        return kernel

    return wrap
