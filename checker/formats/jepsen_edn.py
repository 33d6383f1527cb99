"""Jepsen / Knossos histories in EDN: a vector (or list) of operation maps, as in Knossos's
``data/`` files, or one operation map after another, as in Jepsen's ``history.edn``.

Each operation is a map with ``:process`` (an integer, or ``:nemesis``), ``:type``,
``:f`` and ``:value``; records written as ``#jepsen.history.Op{...}`` or
``#knossos.op.Op{...}`` are read as their maps.  Other keys (``:time``, ``:index``,
``:error``, ...) are allowed and not used.  The meaning of the events is
:mod:`fisheye.checker.formats.jepsen`'s.

Porcupine's key-value logs (its ``test_data/kv``) are such maps with a ``:key`` beside
``:value``: ``{:process 0, :type :invoke, :f :get, :key "6", :value nil}``.  Their ``:get``
and ``:put`` are a read and a write of register ``:key`` (the event's value becomes
``[key value]``, as in a ``jepsen.independent`` history), and the empty string is the
initial value of every key, as in Porcupine's kv model (it is read as ``nil``, so that the
import's initial value is ``""``).  ``:append`` is not a register operation: a history
that holds one is rejected.
"""

from __future__ import annotations

from typing import Any

from fisheye.spec.history import HistoryError

from .edn import EdnError, EdnMap, Keyword, Tagged, read_all, to_text
from .jepsen import ImportNotes, JepsenEvent

RECORD_TAGS = ("jepsen.history.Op", "knossos.op.Op")
KV_FORMAT_NAME = "Porcupine kv log"
KV_INITIAL = ""
"""The initial value of every key of a Porcupine kv log."""
KV_FS = {"get": "read", "put": "write"}


def read_events(text: str, source: str, notes: ImportNotes) -> list[JepsenEvent]:
    """The events of an EDN history, in file order; a Porcupine kv log is named so in
    ``notes.format``."""
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
    events = [_event(op, i, source) for i, op in enumerate(ops)]
    if any(isinstance(op, dict) and Keyword("key") in op for op in ops):
        notes.format = KV_FORMAT_NAME
    return events


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
    value = get("value", required=False)
    if Keyword("key") in op:
        return _kv_event(process, names[0], names[1], op[Keyword("key")], value, where, i, source)
    return JepsenEvent(process, names[0], names[1], value, where)


def _kv_event(process: int | str, type_: str, f: str, key: Any, value: Any, where: str, i: int,
              source: str) -> JepsenEvent:
    """An operation of a Porcupine kv log as a register event on ``key``."""
    if f not in KV_FS:
        raise HistoryError(f"{where}: operation {i} is a key-value :{f}, which is not a register "
                           "operation (a Porcupine kv log can be checked when its operations are "
                           ":get and :put only)", source)
    return JepsenEvent(process, type_, KV_FS[f], (key, None if value == KV_INITIAL else value), where)
