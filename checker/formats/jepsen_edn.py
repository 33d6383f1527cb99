"""Jepsen / Knossos histories in EDN: a vector (or list) of operation maps, as in Knossos's
``data/`` files, or one operation map after another, as in Jepsen's ``history.edn``.

Each operation is a map with ``:process`` (an integer, or ``:nemesis``), ``:type``,
``:f`` and ``:value``; records written as ``#jepsen.history.Op{...}`` or
``#knossos.op.Op{...}`` are read as their maps.  Other keys (``:time``, ``:index``,
``:error``, ...) are allowed and not used.  The meaning of the events is
:mod:`fisheye.checker.formats.jepsen`'s.
"""

from __future__ import annotations

from typing import Any

from fisheye.spec.history import HistoryError

from .edn import EdnError, EdnMap, Keyword, Tagged, read_all, to_text
from .jepsen import JepsenEvent

FORMAT = "jepsen-edn"
RECORD_TAGS = ("jepsen.history.Op", "knossos.op.Op")


def read_events(text: str, source: str) -> list[JepsenEvent]:
    """The events of an EDN history, in file order."""
    try:
        forms = read_all(text)
    except EdnError as e:
        raise HistoryError(f"is not EDN ({e})", source) from None
    if not forms:
        raise HistoryError("is empty (no operation)", source)
    if len(forms) == 1 and isinstance(forms[0], tuple):
        ops = forms[0]
    elif all(isinstance(f, (dict, Tagged)) for f in forms):
        ops = tuple(forms)
    else:
        raise HistoryError("is neither one vector of operation maps nor a sequence of "
                           "operation maps", source)
    return [_event(op, i, source) for i, op in enumerate(ops)]


def _event(op: Any, i: int, source: str) -> JepsenEvent:
    if isinstance(op, Tagged):
        if op.tag not in RECORD_TAGS or not isinstance(op.value, dict):
            raise HistoryError(f"line {op.line}: operation {i} is tagged #{op.tag}, not an "
                               f"operation record ({', '.join('#' + t for t in RECORD_TAGS)})",
                               source)
        op = op.value
    if not isinstance(op, EdnMap):
        raise HistoryError(f"operation {i} is not a map: {to_text(op)}", source)
    where = f"line {op.line}"

    def get(key: str, required: bool = True) -> Any:
        k = Keyword(key)
        if k not in op and required:
            raise HistoryError(f"{where}: operation {i} has no :{key}", source)
        return op.get(k)

    process = get("process")
    if isinstance(process, Keyword):
        process = process.name
    elif isinstance(process, bool) or not isinstance(process, int):
        raise HistoryError(f"{where}: :process {to_text(process)} is neither an integer nor a "
                           "keyword", source)
    names = []
    for key in ("type", "f"):
        v = get(key)
        if not isinstance(v, Keyword):
            raise HistoryError(f"{where}: :{key} {to_text(v)} is not a keyword", source)
        names.append(v.name)
    return JepsenEvent(process, names[0], names[1], get("value", required=False), where)
