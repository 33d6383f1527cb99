"""Histories: the contract's JSON format (contract section 1), loaded and validated.

A history (section 2.1 of the papers) is a set of operations with, for each process,
a total *process order*.  Operations are reads and writes of read/write registers.
Each operation is identified by its process and its index in that process's order;
``Op.uid`` numbers all operations of a history densely (process by process, in the
order of ``History.processes``) so that engines can use plain integers.

Values are JSON scalars.  They are compared by JSON identity: ``1``, ``1.0`` is not
an issue in JSON, but ``true`` is never equal to ``1`` (we tag values by type).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

Kind = Literal["w", "r"]
Value = int | str | float | bool | None
DEFAULT_INITIAL: Value = 0  # "a register not listed starts at 0, as in the paper's figures"


class HistoryError(ValueError):
    """A history file or object that does not follow the contract (exit status 2)."""

    def __init__(self, message: str, source: str | None = None):
        super().__init__(message)
        self.message = message
        self.source = source

    def __str__(self) -> str:
        return f"{self.source}: {self.message}" if self.source else self.message


def value_key(value: Value) -> tuple[str, Any]:
    """A hashable key that compares values by JSON identity (``true`` != ``1``)."""
    if isinstance(value, bool):
        return ("bool", value)
    if value is None:
        return ("null", None)
    if isinstance(value, (int, float)):
        return ("num", value)
    return ("str", value)


def format_value(value: Value) -> str:
    return json.dumps(value)


@dataclass(frozen=True)
class Op:
    """One operation: ``w(X,v)`` or ``r(X)->v`` at ``process``, ``index``-th in its order."""

    uid: int
    process: str
    index: int
    kind: Kind
    register: str
    value: Value

    @property
    def is_write(self) -> bool:
        return self.kind == "w"

    @property
    def is_read(self) -> bool:
        return self.kind == "r"

    @property
    def vkey(self) -> tuple[str, Any]:
        return value_key(self.value)

    def short(self) -> str:
        """``w(X,1)`` or ``r(X)2``: the operation without its process."""
        v = format_value(self.value)
        return f"w({self.register},{v})" if self.is_write else f"r({self.register}){v}"

    def label(self) -> str:
        """``w(X,1)@paris#0``: unique within a history."""
        return f"{self.short()}@{self.process}#{self.index}"

    def ref(self) -> list[Any]:
        """JSON reference to this operation: ``[process, index]``."""
        return [self.process, self.index]

    def to_json(self) -> list[Any]:
        return [self.kind, self.register, self.value]


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
        return tuple(op for op in self.ops if op.is_write)

    @property
    def reads(self) -> tuple[Op, ...]:
        return tuple(op for op in self.ops if op.is_read)

    @property
    def registers(self) -> tuple[str, ...]:
        seen: dict[str, None] = {}
        for op in self.ops:
            seen.setdefault(op.register, None)
        for r in self.initial:
            seen.setdefault(r, None)
        return tuple(seen)

    def initial_value(self, register: str) -> Value:
        return self.initial.get(register, DEFAULT_INITIAL)

    def op(self, process: str, index: int) -> Op:
        for op in self.ops:
            if op.process == process and op.index == index:
                return op
        raise KeyError(f"no operation {index} at {process}")

    def index_of_ref(self) -> dict[tuple[str, int], Op]:
        return {(op.process, op.index): op for op in self.ops}

    @property
    def differentiated(self) -> bool:
        """True when no two writes to the same register write the same value, and no
        write writes its register's initial value (then each read has at most one
        possible source)."""
        seen: set[tuple[str, Any]] = set()
        for op in self.writes:
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
        history: Mapping[str, Iterable[tuple[Kind, str, Value] | list[Any]]],
        *,
        processes: Iterable[str] | None = None,
        edges: Iterable[tuple[str, str]] = (),
        initial: Mapping[str, Value] | None = None,
    ) -> History:
        """Build a history from Python data (validated like a file)."""
        obj: dict[str, Any] = {"history": {p: [list(o) for o in ops] for p, ops in history.items()}}
        if processes is not None:
            obj["processes"] = list(processes)
        obj["graph"] = [list(e) for e in edges]
        if initial:
            obj["initial"] = dict(initial)
        return parse_history(obj)

    def to_json(self) -> dict[str, Any]:
        """The contract's JSON object (section 1), graph included."""
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
        order preserved, indices renumbered)."""
        keep_set = set(keep)
        data = {p: [op.to_json() for op in ops if op.uid in keep_set]
                for p, ops in self.by_process.items()}
        return History.build(data, processes=self.processes, edges=self.edges,
                             initial=self.initial)


_SCALARS = (int, float, str, bool, type(None))


def _is_scalar(v: Any) -> bool:
    return isinstance(v, _SCALARS)


def _describe(v: Any) -> str:
    text = json.dumps(v)
    return text if len(text) <= 40 else text[:37] + "..."


def parse_history(obj: Any, source: str | None = None) -> History:
    """Validate a decoded JSON object against the contract (section 1) and build a
    :class:`History`.  Raises :class:`HistoryError` naming the first problem found."""

    def bad(msg: str) -> HistoryError:
        return HistoryError(msg, source)

    if not isinstance(obj, dict):
        raise bad("the top level must be a JSON object with a 'history' key")
    unknown = set(obj) - {"processes", "graph", "initial", "history"}
    # Extra keys are tolerated (counterexample files carry more); nothing to check.
    del unknown
    if "history" not in obj:
        raise bad("missing key 'history'")
    hist = obj["history"]
    if not isinstance(hist, dict):
        raise bad("'history' must be a map from process names to lists of operations")
    for p, ops in hist.items():
        if not isinstance(ops, list):
            raise bad(f"'history' of process {p!r} must be a list of operations")

    if "processes" in obj and obj["processes"] is not None:
        procs = obj["processes"]
        if not isinstance(procs, list) or not all(isinstance(p, str) for p in procs):
            raise bad("'processes' must be a list of process names (strings)")
        if len(set(procs)) != len(procs):
            dup = next(p for p in procs if procs.count(p) > 1)
            raise bad(f"'processes' names {dup!r} twice")
        missing = [p for p in hist if p not in procs]
        if missing:
            raise bad(f"process {missing[0]!r} has a history but is not in 'processes'")
        processes = tuple(procs)
    else:
        processes = tuple(hist)
    if not processes:
        raise bad("the history has no process")

    initial: dict[str, Value] = {}
    if "initial" in obj and obj["initial"] is not None:
        init = obj["initial"]
        if not isinstance(init, dict):
            raise bad("'initial' must be a map from registers to values")
        for reg, v in init.items():
            if not _is_scalar(v):
                raise bad(f"initial value of register {reg!r} is not a JSON scalar: {_describe(v)}")
            initial[reg] = v

    ops: list[Op] = []
    for p in processes:
        for i, raw in enumerate(hist.get(p, [])):
            where = f"operation {i} of process {p!r}"
            if not isinstance(raw, list) or len(raw) != 3:
                raise bad(f"{where} is not a 3-element list [kind, register, value]: {_describe(raw)}")
            kind, reg, v = raw
            if kind not in ("w", "r"):
                raise bad(f"{where} has unknown kind {_describe(kind)} (expected \"w\" or \"r\")")
            if not isinstance(reg, str):
                raise bad(f"{where} has a register that is not a string: {_describe(reg)}")
            if not _is_scalar(v):
                raise bad(f"{where} has a value that is not a JSON scalar: {_describe(v)}")
            ops.append(Op(len(ops), p, i, kind, reg, v))

    edges = parse_edge_list(obj.get("graph"), processes, source) if obj.get("graph") is not None else ()
    return History(processes, tuple(ops), edges, initial)


def parse_edge_list(raw: Any, processes: Iterable[str], source: str | None = None
                    ) -> tuple[tuple[str, str], ...]:
    """Validate the contract's ``graph``: a list of pairs of known, distinct processes.
    Edges are undirected: each is returned once, in the order first given."""
    procs = set(processes)
    if not isinstance(raw, list):
        raise HistoryError("'graph' must be a list of edges [p, q]", source)
    out: list[tuple[str, str]] = []
    seen: set[frozenset[str]] = set()
    for e in raw:
        if not isinstance(e, list) or len(e) != 2 or not all(isinstance(x, str) for x in e):
            raise HistoryError(f"edge {_describe(e)} in 'graph' is not a pair of process names", source)
        a, b = e
        for x in (a, b):
            if x not in procs:
                raise HistoryError(f"edge {_describe(e)} names unknown process {x!r}", source)
        if a == b:
            raise HistoryError(f"edge {_describe(e)} is a self-loop", source)
        key = frozenset((a, b))
        if key not in seen:
            seen.add(key)
            out.append((a, b))
    return tuple(out)


def read_json_file(path: str | Path) -> Any:
    """Read and decode a JSON file; every problem is a :class:`HistoryError` whose message
    names the file (shared by every command that reads a history or counterexample file)."""
    source = str(path)
    try:
        text = Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise HistoryError("no such file", source) from None
    except IsADirectoryError:
        raise HistoryError("is a directory, not a history file", source) from None
    except OSError as e:
        raise HistoryError(f"cannot be read ({e.strerror})", source) from None
    except UnicodeDecodeError:
        raise HistoryError("is not UTF-8 text", source) from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as e:
        raise HistoryError(f"is not JSON ({e.msg} at line {e.lineno}, column {e.colno})", source) from None


def load_history(path: str | Path) -> History:
    """Read and validate a history file.  Every problem is a :class:`HistoryError`
    whose message names the file."""
    return parse_history(read_json_file(path), str(path))
