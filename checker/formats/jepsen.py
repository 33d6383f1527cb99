"""Jepsen operation histories translated into the contract's history object.

A Jepsen history (Kingsbury's Jepsen, checked by Knossos) is a sequence of *events*: each
client operation appears as an ``:invoke`` event and, later, a completion of the same
``:process`` and ``:f``: ``:ok`` (it happened), ``:fail`` (it certainly did not happen) or
``:info`` (indeterminate: it may or may not have happened, at any time after its
invocation).  The order of the events in the file is the real-time order in which the
test observed them (the order Knossos checks); ``:time`` and ``:index`` are not used.

The translation (documented for users in ``docs/formats.md``) is, per paired operation:

- ``:ok`` read of ``v`` -> ``["r", reg, v, {"t": [invoke, complete]}]``;
  ``:ok`` write of ``v`` -> ``["w", reg, v, {"t": ...}]``;
  ``:ok`` cas ``[old new]`` -> ``["cas", reg, [old, new], {"t": ...}]`` (an atomic read of
  ``old`` and write of ``new``);
- ``:fail`` -> nothing (the operation did not take effect);
- ``:info`` (or no completion at all) write or cas -> the same with ``"t": [invoke, null]``
  and ``"maybe": true``; ``:info`` read -> nothing (its value is unknown);
- a process whose operation was indeterminate has crashed: Jepsen gives its successor a new
  process number; if the same number invokes again, it becomes a new process ``"P.1"``,
  ``"P.2"``, ...

Registers: a history of plain values has one register, ``x``; ``jepsen.independent``
histories (values ``[key value]``) have one register per key; map-valued operations
(``{:x 1}``) and single-step transactions (``[[:write :x 1]]``) name their register.
An operation on several registers at once is atomic across them, which the contract's
one-register operations cannot express: it is rejected.  ``nil`` (the register's absent,
initial value) becomes a string sentinel, the ``initial`` value of every register.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from fisheye.spec.history import HistoryError

from . import NilRead
from .edn import Keyword, to_text

SINGLE_REGISTER = "x"
"""The register of a history whose values are plain (not ``[key value]`` tuples)."""

_TYPES = ("invoke", "ok", "fail", "info")
_FS = ("read", "write", "cas", "txn")
_TXN_READ = ("read", "r")
_TXN_WRITE = ("write", "w")


@dataclass(frozen=True)
class JepsenEvent:
    """One event of a Jepsen history, as read from a file.

    ``process``: an ``int`` for a client, or the keyword's name (``"nemesis"``);
    ``type`` and ``f``: keyword names; ``value``: an EDN value; ``where``: ``"line 12"``.
    """

    process: int | str
    type: str
    f: str
    value: Any
    where: str


@dataclass
class ImportNotes:
    """What an import kept and what it left out (all left out by the documented rules)."""

    format: str
    events: int = 0
    operations: int = 0
    failed: int = 0
    indeterminate_writes: int = 0
    indeterminate_reads: int = 0
    never_completed: int = 0
    nil_reads_dropped: int = 0
    nemesis_events: int = 0
    other_lines: int = 0
    sentinel: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {k: v for k, v in self.__dict__.items() if v not in (0, None) or k == "operations"}

    def summary(self) -> str:
        """``imported from Jepsen EDN: 120 operations; left out: 3 failed ...``."""
        left = [f"{n} {one if n == 1 else many}" for n, one, many in (
            (self.failed, "failed", "failed"),
            (self.indeterminate_reads, "indeterminate read", "indeterminate reads"),
            (self.nil_reads_dropped, "read of nil", "reads of nil"),
            (self.nemesis_events, "nemesis event", "nemesis events"),
            (self.other_lines, "other log line", "other log lines")) if n]
        text = f"imported from {self.format}: {self.operations} operation" + \
            ("" if self.operations == 1 else "s")
        if self.indeterminate_writes:
            text += f" ({self.indeterminate_writes} indeterminate)"
        return text + ("; left out: " + ", ".join(left) if left else "")


_NIL = object()
"""Stands for Jepsen's ``nil`` until the sentinel is chosen."""


@dataclass
class _Pending:
    event: JepsenEvent
    at: int


@dataclass
class _Translation:
    source: str
    nil_read: NilRead
    notes: ImportNotes
    nil_text: str
    shape: str | None = None
    registers: dict[str, Any] = field(default_factory=dict)  # name -> original key
    history: dict[str, list[list[Any]]] = field(default_factory=dict)
    strings: set[str] = field(default_factory=set)

    def bad(self, where: str, message: str) -> HistoryError:
        return HistoryError(f"{where}: {message}", self.source)


def translate(events: Iterable[JepsenEvent], *, nil_read: NilRead, notes: ImportNotes,
              source: str, nil_text: str = "nil") -> dict[str, Any]:
    """The contract's history object for a sequence of Jepsen events (rules above);
    ``nil_text``: the string preferred for ``nil``, the initial value.

    Raises :class:`HistoryError` naming the event's line and the reason for anything that
    cannot be imported faithfully."""
    tr = _Translation(source, nil_read, notes, nil_text)
    pending: dict[int, _Pending] = {}
    names: dict[int, str] = {}
    incarnation: dict[int, int] = {}
    crashed: set[int] = set()
    at = -1
    for at, ev in enumerate(events):
        notes.events += 1
        if ev.type not in _TYPES:
            raise tr.bad(ev.where, f":type :{ev.type} is not :invoke, :ok, :fail or :info")
        if isinstance(ev.process, str):
            if ev.process == "nemesis":
                notes.nemesis_events += 1
                continue
            raise tr.bad(ev.where, f":process :{ev.process} is neither a client (an integer) "
                                   "nor :nemesis")
        if ev.f not in _FS:
            raise tr.bad(ev.where, f":f :{ev.f} is not an operation on registers (:read, :write, "
                                   ":cas, or a one-step :txn)")
        p = ev.process
        if ev.type == "invoke":
            if p in pending:
                prev = pending[p].event
                raise tr.bad(ev.where, f"process {p} invokes :{ev.f} while its :{prev.f} invoked at "
                                       f"{prev.where} has not completed (a process runs one "
                                       "operation at a time)")
            if p not in names or p in crashed:
                k = incarnation.get(p, -1) + 1
                incarnation[p] = k
                names[p] = str(p) if k == 0 else f"{p}.{k}"
                crashed.discard(p)
                tr.history.setdefault(names[p], [])
            pending[p] = _Pending(ev, at)
            continue
        inv = pending.pop(p, None)
        if inv is None:
            raise tr.bad(ev.where, f"an :{ev.type} completion of process {p} with no invocation "
                                   "pending")
        if inv.event.f != ev.f:
            raise tr.bad(ev.where, f"process {p} completes :{ev.f} but invoked :{inv.event.f} at "
                                   f"{inv.event.where}")
        _complete(tr, names[p], inv, ev, at)
        if ev.type == "info":
            crashed.add(p)
    for p, inv in sorted(pending.items(), key=lambda kv: kv[1].at):
        notes.never_completed += 1
        _complete(tr, names[p], inv, None, at + 1)
    if not tr.history:
        raise HistoryError("no client operation in the history", source)
    return _finish(tr)


def _complete(tr: _Translation, process: str, inv: _Pending, done: JepsenEvent | None,
              at: int) -> None:
    """Add the operation invoked by ``inv`` and completed by ``done`` (None: never)."""
    ev = inv.event
    kind = done.type if done is not None else "info"
    if ev.f == "read" and kind != "ok":  # its value is unknown: left out (still validated)
        if ev.value is not None:
            _step_of(tr, ev, ev.value, None)
        if kind == "fail":
            tr.notes.failed += 1
        else:
            tr.notes.indeterminate_reads += 1
        return
    step = _step_of(tr, ev, done.value if kind == "ok" and done is not None else ev.value, done)
    if kind == "ok" and done is not None and ev.value is not None:
        invoked = _step_of(tr, ev, ev.value, None)
        if invoked[:2] != step[:2] or (step[0] != "r" and invoked != step):
            raise tr.bad(done.where, f"the :ok :{ev.f} has value {to_text(done.value)} but its "
                                     f"invocation at {ev.where} has {to_text(ev.value)}")
    if kind == "fail":
        tr.notes.failed += 1
        return
    op, reg, payload = step
    if kind == "info" and op == "r":
        tr.notes.indeterminate_reads += 1
        return
    if op == "r" and payload is _NIL and tr.nil_read == "any":
        tr.notes.nil_reads_dropped += 1
        return
    ext: dict[str, Any] = {"t": [inv.at, at if kind == "ok" else None]}
    if kind == "info":
        ext["maybe"] = True
        tr.notes.indeterminate_writes += 1
    tr.history[process].append([op, reg, payload, ext])
    tr.notes.operations += 1


def _step_of(tr: _Translation, ev: JepsenEvent, value: Any, done: JepsenEvent | None
             ) -> tuple[str, str, Any]:
    """The one register step ``(kind, register, payload)`` of an operation whose value is
    ``value``; every shape that cannot be imported faithfully is rejected."""
    where = (done or ev).where
    f = ev.f
    if f == "txn":
        shape = "multi-register"
        micro = _txn_micro_ops(tr, where, value)
        if len(micro) != 1:
            raise _several(tr, where, [k for _, k, _ in micro], "transaction")
        mf, key, v = micro[0]
        reg = _register(tr, where, key)
        _check_shape(tr, where, shape)
        return ("r" if mf in _TXN_READ else "w", reg, _scalar(tr, where, v))
    if isinstance(value, dict):
        _check_shape(tr, where, "multi-register")
        if len(value) != 1:
            raise _several(tr, where, list(value), "map-valued operation")
        (key, inner), = value.items()
        return _step(tr, where, f, _register(tr, where, key), inner)
    independent = _is_tuple(value) and (f != "cas" or _is_tuple(value[1]))
    _check_shape(tr, where, "independent" if independent else "single-register")
    if independent:
        key, inner = value
        return _step(tr, where, f, _register(tr, where, key), inner)
    return _step(tr, where, f, _register(tr, where, None), value)


def _step(tr: _Translation, where: str, f: str, reg: str, v: Any) -> tuple[str, str, Any]:
    if f == "read":
        return ("r", reg, _scalar(tr, where, v))
    if f == "write":
        return ("w", reg, _scalar(tr, where, v))
    if not _is_tuple(v):
        raise tr.bad(where, f"the :cas value {to_text(v)} is not a pair [old new]")
    return ("cas", reg, (_scalar(tr, where, v[0]), _scalar(tr, where, v[1])))


def _scalar(tr: _Translation, where: str, v: Any) -> Any:
    if v is None:
        return _NIL
    if isinstance(v, bool) or not isinstance(v, (int, str)):
        raise tr.bad(where, f"the value {to_text(v)} is not an integer, a string or nil")
    if isinstance(v, str):
        tr.strings.add(v)
    return v


def _is_tuple(v: Any) -> bool:
    return isinstance(v, tuple) and len(v) == 2


def _txn_micro_ops(tr: _Translation, where: str, value: Any) -> list[tuple[str, Any, Any]]:
    if not isinstance(value, tuple):
        raise tr.bad(where, f"the :txn value {to_text(value)} is not a list of [f key value] steps")
    out = []
    for m in value:
        if not (isinstance(m, tuple) and len(m) == 3 and isinstance(m[0], Keyword)
                and m[0].name in _TXN_READ + _TXN_WRITE):
            raise tr.bad(where, f"the :txn step {to_text(m)} is not [:read key value] or "
                                "[:write key value]")
        out.append((m[0].name, m[1], m[2]))
    return out


def _several(tr: _Translation, where: str, keys: Sequence[Any], what: str) -> HistoryError:
    """The error for an operation on no register or on several at once."""
    if not keys:
        return tr.bad(where, f"a {what} on no register")
    names = ", ".join(to_text(k) for k in keys)
    return tr.bad(where, f"a {what} on several registers ({names}) is atomic across them, which "
                        "the contract's one-register operations cannot express")


def _check_shape(tr: _Translation, where: str, shape: str) -> None:
    if tr.shape is None:
        tr.shape = shape
    elif tr.shape != shape:
        raise tr.bad(where, f"a {shape} operation in a history whose earlier operations are "
                            f"{tr.shape}")


def _register(tr: _Translation, where: str, key: Any) -> str:
    """The register name of a key: ``x`` for none, integers in decimal, strings as they
    are, keywords without their colon; two keys with one name are rejected."""
    if key is None:
        name = SINGLE_REGISTER
    elif isinstance(key, bool) or not isinstance(key, (int, str, Keyword)):
        raise tr.bad(where, f"the key {to_text(key)} is not an integer, a string or a keyword")
    else:
        name = key.name if isinstance(key, Keyword) else str(key)
    if tr.registers.setdefault(name, key) != key:
        raise tr.bad(where, f"the keys {to_text(tr.registers[name])} and {to_text(key)} would "
                            f"both be register {name!r}")
    return name


def _finish(tr: _Translation) -> dict[str, Any]:
    sentinel = tr.nil_text
    while sentinel in tr.strings:
        sentinel += "'"
    tr.notes.sentinel = sentinel

    def v(x: Any) -> Any:
        return sentinel if x is _NIL else x

    history = {}
    for p, ops in tr.history.items():
        out = []
        for kind, reg, payload, ext in ops:
            payload = [v(payload[0]), v(payload[1])] if kind == "cas" else v(payload)
            out.append([kind, reg, payload, ext])
        history[p] = out
    return {
        "processes": list(history),
        "initial": {reg: sentinel for reg in tr.registers},
        "history": history,
    }
