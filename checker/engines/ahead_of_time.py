"""Kernels compiled ahead of time: a module's kernels marked ``ahead_of_time`` (see
:func:`.compiled_kernel._kernel`) built by numba's ``pycc`` into a plain extension module
at install (``scripts/bootstrap.sh``, through :func:`.warm_up.warm_up`), which a check
then imports without importing numba at all (numba's import and the loading of a kernel
from its cache cost about 0.25 s of CPU, more than the linearizability search itself on
100,000 operations).  The extension lies in the kernels' ``__pycache__``, named by a hash
of their module's source and numpy's version: a module edited since the build, or
another numpy, finds none and falls back to numba's just-in-time compilation (the same
Python function, compiled from the same signature: the tests compare both)."""

from __future__ import annotations

import hashlib
import importlib.machinery
import importlib.util
import sys
import types
import warnings
from pathlib import Path
from typing import Any, Protocol


class Kernel(Protocol):
    """What this module needs of a kernel (:class:`.compiled_kernel.Kernel` has it; named
    here so that the two modules do not import each other)."""

    py_func: Any
    signature: str
    ahead_of_time: bool

    def exported(self) -> Any:
        """The Python function to compile, its callee kernels named compiled."""

_LOADED: dict[str, types.ModuleType | None] = {}
"""Per kernel module, its ahead-of-time extension (None: not built, or stale)."""


def host_processor() -> bytes:
    """The processor an extension is built for (``target_cpu = "host"``: the instructions
    of this machine's processor, as numba's just-in-time compilation uses them), as Linux
    describes it: its model and flags (empty where ``/proc/cpuinfo`` is not readable).
    An extension built on another processor is then not found, rather than run with
    instructions this one may lack."""
    try:
        with open("/proc/cpuinfo", "rb") as info:
            lines = info.read(1 << 16).splitlines()
    except OSError:
        return b""
    return b"".join(line for line in lines if line.startswith((b"model name", b"flags")))[:4096]


def extension_path(module: str) -> Path:
    """Where the ahead-of-time extension of the kernel module ``module`` lies (or would)."""
    import numpy

    source = Path(sys.modules[module].__file__)  # type: ignore[arg-type]
    digest = hashlib.sha256(source.read_bytes() + numpy.__version__.encode() + host_processor()
                            ).hexdigest()[:16]
    name = f"_aot_{source.stem}_{digest}"
    return source.parent / "__pycache__" / f"{name}{importlib.machinery.EXTENSION_SUFFIXES[0]}"


def function(kernel: Kernel) -> Any | None:
    """The kernel compiled ahead of time, or None when its module's extension is not built
    for this source (or cannot be loaded)."""
    module = kernel.py_func.__module__
    if module not in _LOADED:
        _LOADED[module] = load(extension_path(module))
    return getattr(_LOADED[module], kernel.py_func.__name__, None)


def load(path: Path) -> types.ModuleType | None:
    """The extension at ``path``, or None when there is none or it cannot be loaded."""
    if not path.is_file():
        return None
    name = path.name.split(".")[0]
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        return None
    try:
        extension = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(extension)
    except (ImportError, OSError):
        return None
    return extension


def build(kernels: list[Kernel], out: Path | None = None) -> list[Path]:
    """Build the extension of each module holding some of ``kernels`` marked
    ``ahead_of_time`` (their callees compiled into it), into ``out`` or the module's
    ``__pycache__``; modules already built are left as they are.  Imports numba; returns
    the paths built."""
    built = []
    for module in dict.fromkeys(k.py_func.__module__ for k in kernels if k.ahead_of_time):
        path = extension_path(module)
        if out is not None:
            path = out / path.name
        if path.is_file():
            continue
        with warnings.catch_warnings():  # pycc is deprecated in favour of a successor not yet released
            warnings.simplefilter("ignore")
            from numba.pycc import CC

            cc = CC(path.name.split(".")[0])
            cc.output_dir = str(path.parent)
            cc.output_file = path.name
            cc.verbose = False
            # this machine's processor (host_processor), as numba's just-in-time kernels:
            # pycc's generic x86-64 made the star search's closures 1.6x slower
            cc.target_cpu = "host"
            for kernel in kernels:
                if kernel.ahead_of_time and kernel.py_func.__module__ == module:
                    cc.export(kernel.py_func.__name__, kernel.signature)(kernel.exported())
            path.parent.mkdir(parents=True, exist_ok=True)
            cc.compile()
        _LOADED.pop(module, None)
        built.append(path)
    return built
