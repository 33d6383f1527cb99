"""The budgets of one check that every engine honours the same way: a deadline
(:class:`~fisheye.spec.deadline.Deadline`) that the building of a Z3 encoding checks as
it goes (Z3's own ``timeout`` covers only the solving), and the memory Z3 may use.
Running out of either is *unknown*, never a verdict and never a traceback."""

from __future__ import annotations

from fisheye.spec.deadline import Deadline as Deadline
from fisheye.spec.deadline import OutOfTime as OutOfTime


def out_of_memory(error: BaseException) -> bool:
    """Whether an engine's exception says the check ran out of memory: Python's
    :class:`MemoryError` (the process's limit), a native library that could not be
    mapped under that limit (the cause of the error its loader raises), or Z3's own
    (its ``memory_max_size``, or an allocation that failed inside Z3)."""
    seen: BaseException | None = error
    while seen is not None:
        text = str(seen).lower()
        if isinstance(seen, MemoryError) or any(t in text for t in ("failed to map segment",
                                                                     "cannot allocate memory")):
            return True
        if type(seen).__name__ == "Z3Exception" and ("out of memory" in text or "memory exceeded" in text):
            return True
        seen = seen.__cause__ or seen.__context__
    return False


def limit_z3_memory(memory: int | None) -> None:
    """Let Z3 use at most ``memory`` bytes (``None``: no limit of its own)."""
    import z3

    z3.set_param("memory_max_size", 0 if memory is None else max(1, memory >> 20))
