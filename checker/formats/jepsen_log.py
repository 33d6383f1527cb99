"""Jepsen's plain-text logs: the lines ``jepsen.util`` writes for each event, as in the
public etcd test data, e.g. ``INFO  jepsen.util - 3	:invoke	:read	nil``.

An event line is ``... jepsen.util - PROCESS<TAB>:TYPE<TAB>:F<TAB>VALUE[<TAB>ERROR]``
(``jepsen.util:`` is accepted for ``jepsen.util -``); VALUE is EDN.  A line that does not
mention ``jepsen.util``, or mentions it without a tab-separated event after it, is another
log message: it is counted and left out.  A line that starts like an event but is not one
is an error.  The meaning of the events is :mod:`fisheye.checker.formats.jepsen`'s.
"""

from __future__ import annotations

import re

from fisheye.spec.history import HistoryError

from .edn import EdnError, read_all
from .jepsen import ImportNotes, JepsenEvent

FORMAT = "jepsen-log"
EVENT = re.compile(r"jepsen\.util\s*(?:-|:)\s+(?P<rest>[^\t]+\t.*)$")
FIELDS = re.compile(r"(?P<process>-?\d+|:[\w.\-]+)\t:(?P<type>[\w\-]+)\t:(?P<f>[\w\-]+)\t"
                    r"(?P<value>[^\t]*)(?:\t.*)?")
LOOKS_LIKE_EVENT = re.compile(r"jepsen\.util\s*(?:-|:)\s+(?:-?\d+|:nemesis)\s")


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
                raise HistoryError(f"line {n}: not a Jepsen event (PROCESS, :TYPE, :F and VALUE "
                                   "separated by tabs)", source)
            if line.strip():
                notes.other_lines += 1
            continue
        f = FIELDS.fullmatch(m.group("rest"))
        if f is None:
            raise HistoryError(f"line {n}: not a Jepsen event (PROCESS, :TYPE, :F and VALUE "
                               "separated by tabs)", source)
        p = f.group("process")
        process: int | str = p[1:] if p.startswith(":") else int(p)
        try:
            forms = read_all(f.group("value"))
        except EdnError as e:
            raise HistoryError(f"line {n}: the value is not EDN ({e.reason})", source) from None
        if len(forms) != 1:
            raise HistoryError(f"line {n}: the value {f.group('value')!r} is not one EDN value",
                               source)
        events.append(JepsenEvent(process, f.group("type"), f.group("f"), forms[0], f"line {n}"))
    if not events:
        raise HistoryError("has no Jepsen event line (\"... jepsen.util - 3\t:invoke\t:read\tnil\")",
                           source)
    return events
