"""Reading the histories users bring: the contract's JSON, the files fisheye's own tools
write around it, and the formats of the field (Jepsen / Knossos EDN, Jepsen's plain-text
logs), all turned into the contract's history object.

``read_history_object(path)`` detects the format (``docs/formats.md``) and returns an
:class:`Imported`; ``load(path)`` also validates it into a
:class:`fisheye.spec.history.History`.  ``path`` ``-`` is standard input.
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from fisheye.spec.history import History, HistoryError, decode_text, parse_history, read_text_file

from ..lazy import lazy_names

if TYPE_CHECKING:
    from .jepsen import ImportNotes

STDIN = "-"
JEPSEN_EDN = "jepsen-edn"
JEPSEN_LOG = "jepsen-log"
FORMATS = ("auto", "json", JEPSEN_EDN, JEPSEN_LOG)
EXTENSIONS = {".json": "json", ".edn": JEPSEN_EDN, ".log": JEPSEN_LOG}
FORMAT_NAMES = {"json": "JSON", JEPSEN_EDN: "Jepsen EDN", JEPSEN_LOG: "Jepsen log"}

NilRead = Literal["initial", "any"]
"""How a Jepsen read of nil is taken (``--nil-read``, :mod:`.jepsen`)."""
NIL_READS: tuple[NilRead, ...] = ("initial", "any")

_LAZY = {"ImportNotes": ".jepsen"}
"""Public names of the parsers' modules, loaded on first use: reading a JSON history
imports none of the Jepsen parsers (start-up time of a small check)."""

__all__ = ["EXTENSIONS", "FORMATS", "NIL_READS", "STDIN", "ImportNotes", "Imported",
           "detect_format", "load", "read_history_object", "source_name"]

__getattr__ = lazy_names(__name__, _LAZY)


@dataclass(frozen=True)
class Imported:
    """A history object read from ``source``: its ``format``, what an import left out
    (``notes``, None for JSON), and for JSON the kind of file that held it: ``history``,
    ``counterexample`` or ``simulate`` (the output of ``fisheye simulate --json``), whose
    whole object is ``document`` (None for a plain history)."""

    obj: dict[str, Any]
    source: str
    format: str
    notes: ImportNotes | None = None
    container: str = "history"
    document: dict[str, Any] | None = None

    @property
    def is_jepsen(self) -> bool:
        return self.notes is not None


def source_name(path: str) -> str:
    return "<stdin>" if path == STDIN else path


def read_history_object(path: str, *, fmt: str = "auto", nil_read: NilRead = "initial"
                        ) -> Imported:
    """Read ``path`` (``-``: standard input) in format ``fmt`` (``auto``: detected)."""
    source = source_name(path)
    text = _read_text(path, source)
    if fmt == "auto":
        fmt = detect_format(text, path, source)
    if fmt == "json":
        return _unwrap(decode_text(text, source), source)
    from . import jepsen_edn, jepsen_log
    from .jepsen import ImportNotes, translate

    notes = ImportNotes(FORMAT_NAMES[fmt])
    if fmt == JEPSEN_EDN:
        events = jepsen_edn.read_events(text, source, notes)
    else:
        events = jepsen_log.read_events(text, source, notes)
    nil_text = jepsen_edn.KV_INITIAL if notes.format == jepsen_edn.KV_FORMAT_NAME else "nil"
    obj = translate(events, nil_read=nil_read, notes=notes, source=source, nil_text=nil_text)
    return Imported(obj, source, fmt, notes)


def load(path: str, *, fmt: str = "auto", nil_read: NilRead = "initial"
         ) -> tuple[History, Imported]:
    """:func:`read_history_object`, validated by the contract's parser."""
    imported = read_history_object(path, fmt=fmt, nil_read=nil_read)
    return parse_history(imported.obj, imported.source), imported


def detect_format(text: str, path: str, source: str) -> str:
    """The format of a file: by its extension (``.json``, ``.edn``, ``.log``), else by its
    first non-blank character (``{"``: JSON; ``[``, ``(``, ``{:``, ``#``, ``;``: EDN), else
    a Jepsen log if some line is a Jepsen event line."""
    ext = Path(path).suffix.lower() if path != STDIN else ""
    if ext in EXTENSIONS:
        return EXTENSIONS[ext]
    head = text.lstrip()[:200]
    if head.startswith("{") and head[1:].lstrip()[:1] in ('"', "}"):
        return "json"
    if head[:1] in ("[", "(", "{", "#", ";"):
        return JEPSEN_EDN
    from .jepsen_log import is_log

    if is_log(text):
        return JEPSEN_LOG
    raise HistoryError("is neither a JSON history, a Jepsen EDN history nor a Jepsen log "
                       "(name it .json, .edn or .log, or give --format)", source)


def _read_text(path: str, source: str) -> str:
    if path == STDIN:
        try:
            return sys.stdin.read()
        except UnicodeDecodeError:
            raise HistoryError("is not UTF-8 text", source) from None
    return read_text_file(path)


def _unwrap(obj: Any, source: str) -> Imported:
    """A history object as is; a counterexample file or ``simulate --json`` output (an
    object whose ``history`` is itself a history object): that ``history``."""
    inner = obj.get("history") if isinstance(obj, dict) else None
    if not (isinstance(inner, dict) and isinstance(inner.get("history"), dict)):
        return Imported(obj, source, "json")
    if "violates" in obj:
        return Imported(inner, source, "json", container="counterexample", document=obj)
    if "scenario" in obj and "schedule" in obj:
        return Imported(inner, source, "json", container="simulate", document=obj)
    raise HistoryError("holds a history object under 'history' but is neither a counterexample "
                       "file (with 'violates') nor the output of 'fisheye simulate --json' (with "
                       "'scenario' and 'schedule')", source)


def json_text(obj: dict[str, Any]) -> str:
    """The contract's JSON text of a history object: one process per line."""
    lines = []
    for p, ops in obj["history"].items():
        lines.append(f"    {json.dumps(p)}: [" + ", ".join(json.dumps(o) for o in ops) + "]")
    head = {k: v for k, v in obj.items() if k != "history"}
    body = ",\n".join(f'  {json.dumps(k)}: {json.dumps(v)}' for k, v in head.items())
    return "{\n" + body + (",\n" if body else "") + '  "history": {\n' + ",\n".join(lines) + "\n  }\n}\n"
