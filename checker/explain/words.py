"""The words of an explanation: the names of the core's operations (``A, B, ...``), of
the orders (``~>H``, the star order, ``S_p``, ``S``), of values (``nil`` for the value an
import chose to stand for "no value yet") and of operations (``w(X,1)``, ``r(X)->1``)."""

from __future__ import annotations

import string

from fisheye.spec.history import History, Op, Value, format_value, value_key


def op_names(n: int) -> list[str]:
    """``A, B, ..., Z, AA, AB, ..., ZZ, AAA, ...`` (bijective base 26)."""
    letters = string.ascii_uppercase
    out = []
    for i in range(n):
        k, name = i + 1, ""
        while k:
            k, r = divmod(k - 1, 26)
            name = letters[r] + name
        out.append(name)
    return out


def ordinal(i: int) -> str:
    n = i + 1
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def order_name(ctx: str) -> str:
    if ctx == "hb":
        return "~>H"
    if ctx == "star":
        return "the star order"
    if ctx == "S":
        return "S"
    return f"S_{ctx[2:]}"


def is_absent(value: Value | None, absent: Value | None) -> bool:
    """Whether ``value`` is ``absent``, the value an import chose to stand for "no value
    yet" (a Jepsen register's ``nil``, :attr:`fisheye.checker.formats.ImportNotes.sentinel`)."""
    return absent is not None and value is not None and value_key(value) == value_key(absent)


def value_text(value: Value | None, absent: Value | None = None) -> str:
    """A value as the texts show it: its JSON, or ``nil`` for ``absent``."""
    return "nil" if is_absent(value, absent) else format_value(value)


def op_text(op: Op, absent: Value | None = None) -> str:
    if op.is_write:
        return f"w({op.register},{value_text(op.value, absent)})"
    return f"r({op.register})->{value_text(op.value, absent)}"


def start_text(history: History, register: str, absent: Value | None = None) -> str:
    """How ``register`` starts, in words: ``starts at 0``, or ``starts with no value
    (nil)`` when its initial value is ``absent``."""
    init = history.initial_value(register)
    return "starts with no value (nil)" if is_absent(init, absent) else f"starts at {format_value(init)}"


