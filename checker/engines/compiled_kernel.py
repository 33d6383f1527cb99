"""Numba kernels behind one small interface: a :class:`Kernel` is the readable Python
function (the reference, and what runs on small histories) and, found at its first
compiled call, its native version: built ahead of time at install
(:mod:`.ahead_of_time`) or by numba from an explicit signature, cached on disk.
:func:`compiled_for` chooses per check (:data:`~.compiled.COMPILED_FROM`); the kernels
themselves live in :mod:`.closure_kernel`, :mod:`.lin_kernel` and :mod:`.lookup_kernel`."""

from __future__ import annotations

import threading
import types
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from .compiled import COMPILED_FROM
from .gcpause import StartUp


class Kernel:
    """One kernel: the Python function and, built at the first compiled call, its native
    version: compiled ahead of time when its module's extension is built
    (:mod:`.ahead_of_time`, for kernels marked ``ahead_of_time``), else by numba from an
    explicit signature, cached on disk (where numba finds no writable cache directory,
    compiled in memory instead of failing).  A call runs the Python function or the
    native code as :func:`compiled_for` chose in the calling thread."""

    compiled_now = True
    """Whether calls run the compiled code where no :func:`compiled_for` is in effect in
    the calling thread."""

    def __init__(self, function: Callable[..., Any], signature: str, ahead_of_time: bool = False) -> None:
        self.py_func = function
        self.signature = signature
        self.ahead_of_time = ahead_of_time
        self._compiled: Callable[..., Any] | None = None
        self._jit: Any = None

    def __call__(self, *args: Any) -> Any:
        if not getattr(_this_thread, "compiled", Kernel.compiled_now):
            return self.py_func(*args)
        return (self._compiled or _compile(self))(*args)

    def exported(self) -> types.FunctionType:
        """The Python function an ahead-of-time build compiles: a copy whose callee
        kernels are named compiled by numba (:func:`with_callees`, :func:`jit`)."""
        return with_callees(self, jit)


_KERNELS: list[Kernel] = []
"""Every kernel in definition order (a kernel's callees come before it)."""


def _compile(kernel: Kernel) -> Callable[..., Any]:
    """The native code a compiled call of the kernel runs, found at its first compiled
    call: the ahead-of-time version where there is one, else :func:`jit`."""
    if kernel._compiled is None:
        native = None
        if kernel.ahead_of_time:
            from .ahead_of_time import function

            native = function(kernel)
        kernel._compiled = native if native is not None else jit(kernel)
    return kernel._compiled


def jit(kernel: Kernel) -> Any:
    """The kernel compiled by numba (or loaded from numba's cache) with its callees: it is
    compiled from a copy of its Python function whose globals name the compiled callees
    (:func:`with_callees`).  Only the kernels a check calls are loaded (each costs about
    20 ms).  Numba and the machine code it loads are long-lived objects: the collector is
    paused while they load, then they are frozen (:class:`.gcpause.StartUp`)."""
    if kernel._jit is None:
        start_up = StartUp()
        try:
            from numba import njit

            copy = with_callees(kernel, jit)
            try:
                kernel._jit = njit(kernel.signature, cache=True)(copy)
            except RuntimeError:  # numba: "cannot cache function ...: no locator available"
                kernel._jit = njit(kernel.signature)(copy)
        finally:
            start_up.end()
        if not kernel.ahead_of_time:  # what its compiled calls run (a callee's too)
            kernel._compiled = kernel._jit
    return kernel._jit


def with_callees(kernel: Kernel, compiled: Callable[[Kernel], Any]) -> types.FunctionType:
    """A copy of the kernel's Python function whose globals (its module's) name its callee
    kernels compiled by ``compiled``: numba resolves them when it compiles, and cannot
    call a :class:`Kernel`."""
    f = kernel.py_func
    namespace = dict(f.__globals__)
    for name in f.__code__.co_names:
        callee = namespace.get(name)
        if isinstance(callee, Kernel):
            namespace[name] = compiled(callee)
    copy = types.FunctionType(f.__code__, namespace, f.__name__, f.__defaults__, f.__closure__)
    copy.__qualname__, copy.__doc__ = f.__qualname__, f.__doc__
    return copy


def cache_counts() -> tuple[int, int]:
    """How many of the compiled kernels this process loaded from numba's on-disk cache,
    and how many it had to compile (numba's dispatcher statistics); (0, 0) before
    :func:`compile_kernels`."""
    hits = misses = 0
    for kernel in _KERNELS:
        if kernel._jit is not None:
            stats = kernel._jit.stats
            hits += sum(stats.cache_hits.values())
            misses += sum(stats.cache_misses.values())
    return hits, misses


_this_thread = threading.local()
"""Per thread, the choice of its innermost :func:`compiled_for` (``compiled``; absent
outside one): checks running in several threads at once (an exploration checking its runs'
histories, a corpus checked by threads) each keep their own."""


def compiled_in_this_thread() -> bool:
    """Whether a kernel called now, in this thread, runs its compiled code."""
    return getattr(_this_thread, "compiled", Kernel.compiled_now)


@contextmanager
def compiled_for(operations: int) -> Iterator[None]:
    """Within the block, in this thread, the kernels run compiled iff a history of
    ``operations`` operations is worth it (:data:`COMPILED_FROM`)."""
    before = getattr(_this_thread, "compiled", None)
    _this_thread.compiled = operations >= COMPILED_FROM
    try:
        yield
    finally:
        if before is None:
            del _this_thread.compiled
        else:
            _this_thread.compiled = before


def _kernel(signature: str, ahead_of_time: bool = False) -> Callable[[Callable[..., Any]], Kernel]:
    """A kernel of this signature; ``ahead_of_time``: built by :mod:`.ahead_of_time`
    at install (numba's just-in-time compilation when that is not built)."""

    def wrap(function: Callable[..., Any]) -> Kernel:
        kernel = Kernel(function, signature, ahead_of_time)
        _KERNELS.append(kernel)
        return kernel

    return wrap
