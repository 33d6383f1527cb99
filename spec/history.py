"""Histories: the contract's JSON format, decoded strictly, validated and built.

A history (section 2.1 of the papers) is a set of operations with, for each process, a
total *process order*.  Operations act on read/write registers:

* ``["w", X, v]``: the write of ``v`` to ``X``;
* ``["r", X, v]``: a read of ``X`` that returned ``v``;
* ``["cas", X, [old, new]]``: a successful compare-and-set, an atomic read of ``old``
  and write of ``new`` (a read-modify-write, defined for the sequential models only).

An optional fourth element, an object, extends an operation:

* ``"t": [invoke, complete]``: real time (Herlihy and Wing's invocation and response
  events, on one clock): finite numbers with ``invoke <= complete``; ``complete`` is
  ``null`` for an operation that never returned (then it is the last of its process,
  and no read: a read that never returned has no value).  Either every operation of a
  history carries ``"t"`` or none does.  Per process, an operation is invoked at or
  after the completion of the previous one.
* ``"maybe": true`` (``"w"`` and ``"cas"`` only): the operation may or may not have
  taken effect (a client that timed out); it is the last of its process.  If it took
  effect, it did so between its invocation and its completion.

Values are JSON integers or strings (``1.0``, ``true``, ``null`` are not values).
Each operation is identified by its process and its index in that process's order;
``Op.uid`` numbers all operations densely (process by process, in the order of
``History.processes``) so that engines can use plain integers.

Decoding is strict (:func:`decode_json`): a duplicated key at any level, ``NaN``,
``Infinity`` or a number that overflows to infinity is bad input; so is any key the
format does not define.  Every message names the place in the file and what is
allowed there, and prints JSON (never a Python repr).
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any, Literal

Kind = Literal["w", "r", "cas"]
Value = int | str
Time = int | float
DEFAULT_INITIAL: Value = 0  # "a register not listed starts at 0, as in the paper's figures"
TOP_LEVEL_KEYS: tuple[str, ...] = ("processes", "graph", "initial", "history")
OPERATION_KEYS: tuple[str, ...] = ("t", "maybe")
KINDS: tuple[str, ...] = ("w", "r", "cas")


class HistoryError(ValueError):
    """A history file or object that does not follow the contract (exit status 2)."""

    def __init__(self, message: str, source: str | None = None):
        super().__init__(message)
        self.message = message
        self.source = source

    def __str__(self) -> str:
        return f"{self.source}: {self.message}" if self.source else self.message


def is_value(v: Any) -> bool:
    """A value of the contract: a JSON integer or string (never a boolean or a float)."""
    return (isinstance(v, int) and not isinstance(v, bool)) or isinstance(v, str)


def value_key(value: Value) -> tuple[str, Any]:
    """A hashable key that compares values by JSON identity (``"1"`` != ``1``)."""
    if isinstance(value, str):
        return ("str", value)
    return ("num", value)


def same_value(a: Value, b: Value) -> bool:
    """``value_key(a) == value_key(b)``: the same JSON value, without building the keys
    when the two have the same type (the common case)."""
    return a == b and (type(a) is type(b) or value_key(a) == value_key(b))


def format_value(value: Any) -> str:
    """A value (or any JSON datum) as JSON text."""
    return json.dumps(value)


@dataclass(frozen=True)
class Op:
    """One operation at ``process``, ``index``-th in its process order.

    ``value`` is the value written (``w``), returned (``r``) or written by a cas
    (``cas``, whose ``old`` is the value it read).  ``invoke``/``complete`` are its
    real-time interval (``None`` when the history has no times; ``complete`` is
    ``None`` too when it never returned); ``maybe``: it may not have taken effect."""

    uid: int
    process: str
    index: int
    kind: Kind
    register: str
    value: Value
    old: Value | None = None
    invoke: Time | None = None
    complete: Time | None = None
    maybe: bool = False

    @property
    def is_write(self) -> bool:
        """A plain write (not a cas)."""
        return self.kind == "w"

    @property
    def is_read(self) -> bool:
        """A plain read (not a cas)."""
        return self.kind == "r"

    @property
    def is_cas(self) -> bool:
        return self.kind == "cas"

    @property
    def writes(self) -> bool:
        """Changes its register (a write or a cas)."""
        return self.kind != "r"

    @property
    def observes(self) -> bool:
        """Depends on its register's value (a read or a cas)."""
        return self.kind != "w"

    @property
    def observed(self) -> Value | None:
        """The value this operation read: ``value`` for a read, ``old`` for a cas."""
        return self.value if self.kind == "r" else self.old

    @property
    def pending(self) -> bool:
        """Invoked, never returned (timed histories only)."""
        return self.invoke is not None and self.complete is None

    @property
    def vkey(self) -> tuple[str, Any]:
        return value_key(self.value)

    def short(self, show: Callable[[Value], str] = format_value) -> str:
        """``w(X,1)``, ``r(X)2`` or ``cas(X,1,2)``: the operation without its process, its
        values shown by ``show`` (JSON by default)."""
        v = show(self.value)
        if self.kind == "w":
            return f"w({self.register},{v})"
        if self.kind == "r":
            return f"r({self.register}){v}"
        return f"cas({self.register},{show(self.old)},{v})"  # type: ignore[arg-type]

    def label(self) -> str:
        """``w(X,1)@paris#0``: unique within a history."""
        return f"{self.short()}@{self.process}#{self.index}"

    def ref(self) -> list[Any]:
        """JSON reference to this operation: ``[process, index]``."""
        return [self.process, self.index]

    def extension(self) -> dict[str, Any]:
        """The operation's optional fourth element (empty when it has none)."""
        ext: dict[str, Any] = {}
        if self.invoke is not None:
            ext["t"] = [self.invoke, self.complete]
        if self.maybe:
            ext["maybe"] = True
        return ext

    def to_json(self) -> list[Any]:
        body: Any = [self.old, self.value] if self.kind == "cas" else self.value
        out: list[Any] = [self.kind, self.register, body]
        ext = self.extension()
        if ext:
            out.append(ext)
        return out


@dataclass(frozen=True)
class History:
    """A validated history: processes, operations in process order, graph, initial values.

    ``edges`` is the proximity graph stored *in the file*; checks take a
    :class:`fisheye.spec.graph.ProximityGraph` separately so that ``--graph`` can
    override it.
    """

    processes: tuple[str, ...]
    ops: tuple[Op, ...]
    edges: tuple[tuple[str, str], ...] = ()
    initial: Mapping[str, Value] = field(default_factory=dict)

    # ---- derived views (cheap, computed on demand) ---------------------------------
    def of(self, process: str) -> tuple[Op, ...]:
        """Operations of ``process`` in process order."""
        return tuple(op for op in self.ops if op.process == process)

    @property
    def by_process(self) -> dict[str, tuple[Op, ...]]:
        out: dict[str, list[Op]] = {p: [] for p in self.processes}
        for op in self.ops:
            out[op.process].append(op)
        return {p: tuple(v) for p, v in out.items()}

    @property
    def writes(self) -> tuple[Op, ...]:
        """The plain writes."""
        return tuple(op for op in self.ops if op.is_write)

    @property
    def reads(self) -> tuple[Op, ...]:
        """The plain reads."""
        return tuple(op for op in self.ops if op.is_read)

    @property
    def registers(self) -> tuple[str, ...]:
        seen: dict[str, None] = {}
        for op in self.ops:
            seen.setdefault(op.register, None)
        for r in self.initial:
            seen.setdefault(r, None)
        return tuple(seen)

    @property
    def timed(self) -> bool:
        """Every operation carries its real-time interval (the history is not empty)."""
        return bool(self.ops) and self.ops[0].invoke is not None

    @cached_property
    def has_cas(self) -> bool:
        return any(op.is_cas for op in self.ops)

    @cached_property
    def has_maybe(self) -> bool:
        return any(op.maybe for op in self.ops)

    @cached_property
    def has_pending(self) -> bool:
        return any(op.pending for op in self.ops)

    def initial_value(self, register: str) -> Value:
        return self.initial.get(register, DEFAULT_INITIAL)

    def op(self, process: str, index: int) -> Op:
        for op in self.ops:
            if op.process == process and op.index == index:
                return op
        raise KeyError(f"no operation {index} at {process}")

    def index_of_ref(self) -> dict[tuple[str, int], Op]:
        return {(op.process, op.index): op for op in self.ops}

    @cached_property
    def differentiated(self) -> bool:
        """True when no two writes to the same register write the same value, and no
        write writes its register's initial value (then each read has at most one
        possible source).  Computed once (a pass over the operations)."""
        seen: set[tuple[str, Any]] = set()
        for op in self.ops:
            if not op.writes:
                continue
            key = (op.register, op.vkey)
            if key in seen or op.vkey == value_key(self.initial_value(op.register)):
                return False
            seen.add(key)
        return True

    def __len__(self) -> int:
        return len(self.ops)

    # ---- construction ---------------------------------------------------------------
    @staticmethod
    def build(
        history: Mapping[str, Iterable[tuple[Any, ...] | list[Any]]],
        *,
        processes: Iterable[str] | None = None,
        edges: Iterable[tuple[str, str]] = (),
        initial: Mapping[str, Value] | None = None,
    ) -> History:
        """Build a history from Python data (validated like a file)."""
        obj: dict[str, Any] = {"history": {p: [_as_list(o) for o in ops] for p, ops in history.items()}}
        if processes is not None:
            obj["processes"] = list(processes)
        obj["graph"] = [list(e) for e in edges]
        if initial:
            obj["initial"] = dict(initial)
        return parse_history(obj)

    def to_json(self) -> dict[str, Any]:
        """The contract's JSON object, graph included."""
        obj: dict[str, Any] = {
            "processes": list(self.processes),
            "graph": [list(e) for e in self.edges],
        }
        if self.initial:
            obj["initial"] = dict(self.initial)
        obj["history"] = {p: [op.to_json() for op in ops] for p, ops in self.by_process.items()}
        return obj

    def with_edges(self, edges: Iterable[tuple[str, str]]) -> History:
        return History(self.processes, self.ops, tuple(edges), self.initial)

    def restrict(self, keep: Iterable[int]) -> History:
        """The sub-history made of the operations whose uid is in ``keep`` (process
        order preserved, indices renumbered).  Dropping operations of a timed history
        keeps it valid (intervals only separate further)."""
        keep_set = set(keep)
        data = {p: [op.to_json() for op in ops if op.uid in keep_set]
                for p, ops in self.by_process.items()}
        return History.build(data, processes=self.processes, edges=self.edges,
                             initial=self.initial)


def _as_list(o: Any) -> list[Any]:
    out = list(o)
    if len(out) == 3 and out[0] == "cas" and isinstance(out[2], tuple):
        out[2] = list(out[2])
    return out


# ---- strict decoding ------------------------------------------------------------------

def _describe(v: Any) -> str:
    try:
        text = json.dumps(v, allow_nan=False)
    except (TypeError, ValueError):
        text = "a non-JSON value"
    return text if len(text) <= 40 else text[:37] + "..."


def _q(name: str) -> str:
    """A name (process, register, key) quoted as JSON."""
    return json.dumps(name)


class _StrictDecodeError(ValueError):
    pass


def _pairs_hook(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out = dict(pairs)
    if len(out) < len(pairs):
        seen: set[str] = set()
        for k, _ in pairs:
            if k in seen:
                raise _StrictDecodeError(f"duplicated key {_q(k)}")
            seen.add(k)
    return out


def _reject_constant(name: str) -> Any:
    raise _StrictDecodeError(f"{name} is not a JSON number (numbers must be finite)")


def _finite_float(text: str) -> float:
    x = float(text)
    if not math.isfinite(x):
        raise _StrictDecodeError(f"the number {text[:30]} is too large (numbers must be finite)")
    return x


def decode_json(text: str) -> Any:
    """Decode JSON strictly: duplicated keys, ``NaN``/``Infinity`` and numbers that
    overflow are rejected with :class:`ValueError` (a one-line message)."""
    try:
        obj = json.loads(text, object_pairs_hook=_pairs_hook, parse_constant=_reject_constant,
                         parse_float=_finite_float)
        if _SURROGATE_ESCAPE.search(text) or not _is_text(text):
            _check_strings(obj)
        return obj
    except _StrictDecodeError:
        raise
    except json.JSONDecodeError as e:
        raise ValueError(f"is not JSON ({e.msg} at line {e.lineno}, column {e.colno})") from None
    except RecursionError:
        raise ValueError("is nested too deeply") from None
    except ValueError as e:  # e.g. an integer with more digits than Python converts
        raise ValueError(f"is not usable JSON ({str(e).splitlines()[0]})") from None


_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")
"""Where JSON text may escape a surrogate (``\\ud800``); without one, and when the text
itself is Unicode, every decoded string is (the walk below is then skipped)."""


def _is_text(s: str) -> bool:
    try:
        s.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _check_strings(obj: Any) -> None:
    """Reject strings that are not Unicode text (lone surrogates escaped as ``\\ud800``):
    they cannot be printed or written back."""
    stack = [obj]
    while stack:
        x = stack.pop()
        if isinstance(x, str):
            _check_text(x)
        elif isinstance(x, list):
            stack.extend(x)
        elif isinstance(x, dict):
            for k, v in x.items():
                _check_text(k)
                stack.append(v)


def _check_text(s: str) -> None:
    if not _is_text(s):
        raise _StrictDecodeError(f"the string {_describe(s)} is not Unicode text "
                                 "(it holds a lone surrogate)")


def _is_time(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


def parse_history(obj: Any, source: str | None = None) -> History:
    """Validate a decoded JSON object against the contract and build a
    :class:`History`.  Raises :class:`HistoryError` naming the first problem found."""

    def bad(msg: str) -> HistoryError:
        return HistoryError(msg, source)

    if not isinstance(obj, dict):
        raise bad("the top level must be a JSON object with a \"history\" key")
    allowed = ", ".join(_q(k) for k in TOP_LEVEL_KEYS)
    for key in obj:
        if key not in TOP_LEVEL_KEYS:
            raise bad(f"unknown key {_q(key)} at the top level (allowed: {allowed})")
    if "history" not in obj:
        raise bad("missing key \"history\" (a map from process names to lists of operations)")
    hist = obj["history"]
    if not isinstance(hist, dict):
        raise bad("\"history\" must be a map from process names to lists of operations")
    for p, ops in hist.items():
        if not isinstance(ops, list):
            raise bad(f"\"history\" of process {_q(p)} must be a list of operations, not {_describe(ops)}")

    if "processes" in obj:
        procs = obj["processes"]
        if not isinstance(procs, list) or not all(isinstance(p, str) for p in procs):
            raise bad(f"\"processes\" must be a list of process names (strings), not {_describe(procs)}")
        seen_p: set[str] = set()
        for p in procs:
            if p in seen_p:
                raise bad(f"\"processes\" names {_q(p)} twice")
            seen_p.add(p)
        missing = [p for p in hist if p not in seen_p]
        if missing:
            raise bad(f"process {_q(missing[0])} has a history but is not in \"processes\"")
        processes = tuple(procs)
    else:
        processes = tuple(hist)
    if not processes:
        raise bad("the history has no process")

    initial: dict[str, Value] = {}
    if "initial" in obj:
        init = obj["initial"]
        if not isinstance(init, dict):
            raise bad(f"\"initial\" must be a map from registers to values, not {_describe(init)}")
        for reg, v in init.items():
            if not is_value(v):
                raise bad(f"\"initial\" value of register {_q(reg)} is {_describe(v)}; "
                          "a value is an integer or a string")
            initial[reg] = v

    ops: list[Op] = []
    timed: bool | None = None
    for p in processes:
        raw_ops = hist.get(p, [])
        last_complete: Time | None = None
        last = len(raw_ops) - 1
        for i, raw in enumerate(raw_ops):
            op = _quick_op(raw, len(ops), p, i)
            if op is None:
                op = _parse_op(raw, len(ops), p, i, _Where(p, i), bad)
            has_t = op.invoke is not None
            if timed is None:
                timed = has_t
                first = op
            elif has_t != timed:
                with_t, without = (op, first) if has_t else (first, op)
                raise bad(f"{_Where(with_t.process, with_t.index)} has real time (\"t\") but "
                          f"{_Where(without.process, without.index)} has none: either every "
                          "operation has \"t\" or none")
            if op.maybe and i != last:
                raise bad(f"{_Where(p, i)} is \"maybe\" but not the last operation of its process "
                          "(a process goes on only after its operation returned)")
            if has_t:
                if op.complete is None and i != last:
                    raise bad(f"{_Where(p, i)} never completed (\"t\" ends with null) but is not the "
                              "last operation of its process")
                assert op.invoke is not None
                if last_complete is not None and op.invoke < last_complete:
                    raise bad(f"{_Where(p, i)} is invoked at {_describe(op.invoke)}, before the previous "
                              f"operation of its process completed (at {_describe(last_complete)})")
                last_complete = op.complete
            ops.append(op)

    edges = parse_edge_list(obj["graph"], processes, source) if "graph" in obj else ()
    return History(processes, tuple(ops), edges, initial)


@dataclass(frozen=True, slots=True)
class _Where:
    """``operation 3 of process "p"``, for a message: formatted only when one is written
    (a large history's operations are parsed without quoting their processes)."""

    process: str
    index: int

    def __str__(self) -> str:
        return f"operation {self.index} of process {_q(self.process)}"


_VALUE_TYPES = (int, str)
_TIME_TYPES = (int, float)
_isfinite = math.isfinite


def _quick_op(raw: Any, uid: int, p: str, i: int) -> Op | None:
    """The operation ``raw`` when it is well formed in the way JSON decoding gives it
    (exact ``list``, ``dict``, ``int``, ``str``, ``float``, ``bool`` types), else None,
    and :func:`_parse_op` judges it (and names what is wrong): the same operation for
    the same input, checked in fewer steps (most of a large history's reading)."""
    if type(raw) is not list:
        return None
    n = len(raw)
    if n == 3:
        kind, reg, body = raw
        ext = None
    elif n == 4:
        kind, reg, body, ext = raw
        if type(ext) is not dict:
            return None
    else:
        return None
    if type(reg) is not str:
        return None
    if kind == "cas":
        if not (type(body) is list and len(body) == 2):
            return None
        old, value = body
        if type(old) not in _VALUE_TYPES:
            return None
    elif kind == "w" or kind == "r":
        old, value = None, body
    else:
        return None
    if type(value) not in _VALUE_TYPES:
        return None
    invoke = complete = None
    maybe = False
    if ext:
        t = ext.get("t")
        maybe = ext.get("maybe", False)
        if len(ext) != (t is not None) + ("maybe" in ext) or type(maybe) is not bool:
            return None  # a key the format does not define, or a "maybe" that is not a boolean
        if maybe and kind == "r":
            return None
        if t is not None:
            if not (type(t) is list and len(t) == 2):
                return None
            invoke, complete = t
            if type(invoke) not in _TIME_TYPES or not _isfinite(invoke):
                return None
            if complete is None:
                if kind == "r":
                    return None
            elif type(complete) not in _TIME_TYPES or not _isfinite(complete) or complete < invoke:
                return None
    return Op(uid, p, i, kind, reg, value, old, invoke, complete, maybe)


def _parse_op(raw: Any, uid: int, p: str, i: int, where: _Where, bad: Any) -> Op:
    if not isinstance(raw, list) or len(raw) not in (3, 4):
        raise bad(f"{where} is {_describe(raw)}; an operation is [kind, register, value] with an "
                  "optional fourth element {\"t\": [invoke, complete], \"maybe\": true}")
    kind, reg, body = raw[0], raw[1], raw[2]
    if kind not in KINDS:
        raise bad(f"{where} has unknown kind {_describe(kind)} (allowed: \"w\", \"r\", \"cas\")")
    if not isinstance(reg, str):
        raise bad(f"{where} has register {_describe(reg)}; a register is a string")
    old: Value | None = None
    if kind == "cas":
        if not (isinstance(body, list) and len(body) == 2 and all(is_value(x) for x in body)):
            raise bad(f"{where} is a cas with {_describe(body)}; a cas carries [old, new], two values "
                      "(integers or strings)")
        old, value = body
    else:
        if not is_value(body):
            raise bad(f"{where} has value {_describe(body)}; a value is an integer or a string")
        value = body
    invoke: Time | None = None
    complete: Time | None = None
    maybe = False
    if len(raw) == 4:
        ext = raw[3]
        if not isinstance(ext, dict):
            raise bad(f"{where} has fourth element {_describe(ext)}; it must be an object with keys "
                      "\"t\" and/or \"maybe\"")
        for key in ext:
            if key not in OPERATION_KEYS:
                raise bad(f"{where} has unknown key {_q(key)} (allowed: \"t\", \"maybe\")")
        if "maybe" in ext:
            m = ext["maybe"]
            if not isinstance(m, bool):
                raise bad(f"{where} has \"maybe\": {_describe(m)}; allowed: true or false")
            if m and kind == "r":
                raise bad(f"{where} is a read marked \"maybe\"; only \"w\" and \"cas\" may be "
                          "(a read whose value is unknown is left out of the history)")
            maybe = m
        if "t" in ext:
            t = ext["t"]
            if not (isinstance(t, list) and len(t) == 2 and _is_time(t[0])
                    and (t[1] is None or _is_time(t[1]))):
                raise bad(f"{where} has \"t\": {_describe(t)}; allowed: [invoke, complete], finite "
                          "numbers, complete null for an operation that never returned")
            invoke, complete = t
            if complete is not None and complete < invoke:
                raise bad(f"{where} completes at {_describe(complete)}, before its invocation at "
                          f"{_describe(invoke)}")
            if complete is None and kind == "r":
                raise bad(f"{where} is a read that never completed (\"t\" ends with null); a read "
                          "that never returned has no value: leave it out")
    return Op(uid, p, i, kind, reg, value, old, invoke, complete, maybe)


def parse_edge_list(raw: Any, processes: Iterable[str], source: str | None = None
                    ) -> tuple[tuple[str, str], ...]:
    """Validate the contract's ``graph``: a list of pairs of known, distinct processes.
    Edges are undirected: each is returned once, in the order first given."""
    procs = set(processes)
    if not isinstance(raw, list):
        raise HistoryError(f"\"graph\" must be a list of edges [p, q], not {_describe(raw)}", source)
    out: list[tuple[str, str]] = []
    seen: set[frozenset[str]] = set()
    for e in raw:
        if not isinstance(e, list) or len(e) != 2 or not all(isinstance(x, str) for x in e):
            raise HistoryError(f"edge {_describe(e)} in \"graph\" is not a pair of process names", source)
        a, b = e
        for x in (a, b):
            if x not in procs:
                raise HistoryError(f"edge {_describe(e)} names unknown process {_q(x)}", source)
        if a == b:
            raise HistoryError(f"edge {_describe(e)} is a self-loop", source)
        key = frozenset((a, b))
        if key not in seen:
            seen.add(key)
            out.append((a, b))
    return tuple(out)


def read_json_file(path: str | Path) -> Any:
    """Read and strictly decode a JSON file (:func:`decode_json`); every problem is a
    :class:`HistoryError` whose message names the file (shared by every command that
    reads a history or counterexample file)."""
    return decode_text(read_text_file(path), str(path))


def read_text_file(path: str | Path) -> str:
    """The text of a UTF-8 file; every problem is a :class:`HistoryError` naming the file."""
    source = str(path)
    try:
        return Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise HistoryError("no such file", source) from None
    except IsADirectoryError:
        raise HistoryError("is a directory, not a history file", source) from None
    except OSError as e:
        raise HistoryError(f"cannot be read ({e.strerror})", source) from None
    except UnicodeDecodeError:
        raise HistoryError("is not UTF-8 text", source) from None


def decode_text(text: str, source: str | None) -> Any:
    """:func:`decode_json`, with problems as :class:`HistoryError` naming ``source``."""
    try:
        return decode_json(text)
    except ValueError as e:
        raise HistoryError(str(e), source) from None


def load_history(path: str | Path) -> History:
    """Read and validate a history file.  Every problem is a :class:`HistoryError`
    whose message names the file."""
    return parse_history(read_json_file(path), str(path))
