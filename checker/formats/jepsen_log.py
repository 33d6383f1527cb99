"""Jepsen's plain-text logs: the lines ``jepsen.util`` writes for each event, as in the
public etcd test data, e.g. ``INFO  jepsen.util - 3	:invoke	:read	nil``.

An event line is ``... jepsen.util - PROCESS :TYPE :F VALUE [ERROR]`` with its fields
separated by any whitespace, tabs (as Jepsen writes them) or spaces (as in some of the
published etcd logs, which Porcupine's parser reads the same way); ``jepsen.util:`` is
accepted for ``jepsen.util -``.  VALUE is one EDN value: when a tab follows it, the text
up to that tab; otherwise the first EDN form after ``:F`` (what follows it is the error
field, not used).  A line that does not mention ``jepsen.util``, or mentions it without an
event after it, is another log message: it is counted and left out.  A line that starts
like an event but is not one is an error.  The meaning of the events is
:mod:`fisheye.checker.formats.jepsen`'s.
"""

from __future__ import annotations

import re

from fisheye.spec.history import HistoryError

from .edn import EdnError, read_all, read_first
from .jepsen import ImportNotes, JepsenEvent

EVENT = re.compile(r"jepsen\.util\s*(?:-|:)\s+(?P<process>-?\d+|:[\w.\-]+)\s+:(?P<type>[\w\-]+)\s+"
                   r":(?P<f>[\w\-]+)\s+(?P<value>\S.*)$")
LOOKS_LIKE_EVENT = re.compile(r"jepsen\.util\s*(?:-|:)\s+(?:-?\d+|:nemesis)\s")
NOT_AN_EVENT = "not a Jepsen event (PROCESS, :TYPE, :F and VALUE separated by whitespace)"


def is_log(text: str) -> bool:
    """True when some line of ``text`` is a Jepsen event line."""
    return any(EVENT.search(line) for line in text.splitlines()[:200])


def read_events(text: str, source: str, notes: ImportNotes) -> list[JepsenEvent]:
    """The events of a log, in file order (other lines are counted in ``notes``)."""
    events = []
    for n, line in enumerate(text.splitlines(), start=1):
        m = EVENT.search(line)
        if m is None:
            if LOOKS_LIKE_EVENT.search(line):
                raise HistoryError(f"line {n}: {NOT_AN_EVENT}", source)
            if line.strip():
                notes.other_lines += 1
            continue
        p = m.group("process")
        process: int | str = p[1:] if p.startswith(":") else int(p)
        events.append(JepsenEvent(process, m.group("type"), m.group("f"),
                                  _value(m.group("value"), n, source), f"line {n}"))
    if not events:
        raise HistoryError("has no Jepsen event line (\"... jepsen.util - 3\t:invoke\t:read\tnil\")",
                           source)
    return events


def _value(text: str, n: int, source: str) -> object:
    """The VALUE field of line ``n``: up to a tab, exactly one EDN form; else the first."""
    try:
        if "\t" not in text:
            return read_first(text)
        field = text.split("\t", 1)[0]
        forms = read_all(field)
    except EdnError as e:
        raise HistoryError(f"line {n}: the value is not EDN ({e.reason})", source) from None
    if len(forms) != 1:
        raise HistoryError(f"line {n}: the value {field!r} is not one EDN value", source)
    return forms[0]
