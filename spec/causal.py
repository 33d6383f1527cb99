"""Read-from maps and the causal order ``~>H`` (section 2.3 of the 2015 conference text;
the same definition in the 2014 research report).

"There is a causal order ~>H on the operations of H, i.e., a partial order that links
each read to at most one latest write (or otherwise to an initial value ⊥), so that the
value returned by the read is the one written by this latest write and ~>H respects the
process order of all processes."

Following Ahamad et al.'s causal memory, which the papers cite as the definition of CC
(Bouajjani, Enea, Guerraoui and Hamza, POPL 2017, call it CM), we read this as:

* a *read-from map* ``rf`` sends every read ``r(X)v`` either to a write ``w(X,v)`` of
  the same register and value, or to ⊥ (the initial value), the latter only when ``v``
  is the initial value of ``X``;
* ``~>H`` is the transitive closure of process order ∪ rf, which must be acyclic.

"Latest" is not imposed as a separate condition: every process's serialisation must be
legal and respect ``~>H``, which already forbids a read from returning a value that is
overwritten in ``~>H`` when written values are distinct.  With repeated values the
read-from map is part of what an engine searches.
"""

from __future__ import annotations

from collections.abc import Mapping

from .history import History, Op, same_value
from .order import ClosedOrder, Cycle, close

ReadFrom = Mapping[int, int | None]
"""uid of a read -> uid of the write it reads from, or None for the initial value."""


def candidate_sources(history: History, read: Op) -> list[int | None]:
    """Every write the read may read from (same register, same value), plus ``None``
    when the value is the register's initial value.  Writes of the reader that follow
    the read in process order are excluded (they would close a cycle)."""
    out: list[int | None] = []
    if read.vkey == _initial_key(history, read.register):
        out.append(None)
    for w in history.ops:
        if (w.is_write and w.register == read.register and w.vkey == read.vkey
                and not (w.process == read.process and w.index > read.index)):
            out.append(w.uid)
    return out


def _initial_key(history: History, register: str):
    from .history import value_key

    return value_key(history.initial_value(register))


def rf_problems(history: History, rf: ReadFrom) -> list[str]:
    """Why ``rf`` is not a read-from map of ``history`` (empty list: it is one)."""
    problems: list[str] = []
    ops = history.ops
    mapped = 0  # reads with an entry
    for r in ops:
        if r.kind != "r":  # not r.is_read, without a call per operation
            continue
        src = rf.get(r.uid, _NO_ENTRY)
        if src is _NO_ENTRY:
            problems.append(f"read {r.label()} has no entry in the read-from map")
            continue
        mapped += 1
        if src is None:
            if r.vkey != _initial_key(history, r.register):
                problems.append(
                    f"read {r.label()} is mapped to the initial value of {r.register}, "
                    f"which is {history.initial_value(r.register)!r}")
            continue
        if not (0 <= src < len(ops)):
            problems.append(f"read {r.label()} is mapped to unknown operation {src}")
            continue
        w = ops[src]
        if not w.is_write:
            problems.append(f"read {r.label()} is mapped to {w.label()}, which is not a write")
        elif w.register != r.register or not same_value(w.value, r.value):
            problems.append(f"read {r.label()} is mapped to {w.label()}: another register or value")
    extra = [] if len(rf) == mapped else [u for u in rf if not (0 <= u < len(ops)) or not ops[u].is_read]
    if extra:
        problems.append(f"the read-from map has entries for operations that are not reads: {extra}")
    return problems


_NO_ENTRY = object()


def rf_edges(rf: ReadFrom) -> list[tuple[int, int]]:
    return [(w, r) for r, w in rf.items() if w is not None]


def causal_order(history: History, rf: ReadFrom) -> ClosedOrder | Cycle:
    """``~>H`` = closure(process order ∪ rf), or the cycle that prevents it."""
    return close(history, rf_edges(rf))
