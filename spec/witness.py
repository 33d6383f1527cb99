"""Witnesses: the objects whose existence the definitions ask for.

* ``sc`` (section 2.2): one sequential, legal history ``S`` equivalent to ``H``
  (``sequence``).
* ``cc`` (section 2.3): a read-from map (hence the causal order ``~>H``) and, for each
  process ``p_i``, a sequential legal history ``S_i`` of ``H|(p_i + W)`` respecting
  ``~>H`` (``read_from``, ``views``).
* ``fisheye`` / ``fisheye-2014`` (section 3.2): as ``cc``, plus the star order
  ``*~>H,G`` (``star``), and each ``S_i`` respects the star order instead.

For ``cc`` and the fisheye models, a process absent from ``views`` has for ``S_i`` the
``sequence`` restricted to ``p_i + W``.  That sequence must then hold every write and
every operation of those processes (it may hold more), be equivalent to ``H`` on what
it holds, be legal for the reads of those processes and respect the order on all the
operations it holds; each of its restrictions is then a valid ``S_i``.  A witness built
from a legal serialisation of the whole history (sc implies every model) is so given in
size ``O(|H|)`` instead of one copy of every write per process, and validated in linear
time.

The star order is given by the pairs that *extend* ``~>H``: the order is the
transitive closure of ``~>H ∪ star``.  The definition asks for some partial order
containing ``~>H``; the closure of ``~>H ∪ star`` is one exactly when it is acyclic,
which the validator checks, so nothing is lost by this representation.

Operations are referred to by uid in Python and by ``[process, index]`` in JSON.

An operation marked ``maybe`` (it may or may not have taken effect) took effect in the
witness iff the witness names it (in a view, the sequence, the read-from map or the
star order); the witness is then judged on the history of the definite operations and
those (:func:`effective_history`): a write that took effect is in every view, one that
did not is in none.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from .history import History, Op


@dataclass(frozen=True)
class Witness:
    read_from: Mapping[int, int | None] = field(default_factory=dict)
    star: tuple[tuple[int, int], ...] = ()
    views: Mapping[str, tuple[int, ...]] = field(default_factory=dict)
    sequence: tuple[int, ...] | None = None

    def to_json(self, history: History) -> dict[str, Any]:
        ops = history.ops
        out: dict[str, Any] = {}
        if self.sequence is not None:
            out["serialization"] = [ops[u].ref() for u in self.sequence]
        if self.read_from:
            out["read_from"] = [[ops[r].ref(), None if w is None else ops[w].ref()]
                                for r, w in sorted(self.read_from.items())]
        if self.star:
            out["star"] = [[ops[a].ref(), ops[b].ref()] for a, b in self.star]
        if self.views:
            out["views"] = {p: [ops[u].ref() for u in seq] for p, seq in self.views.items()}
        return out

    @staticmethod
    def from_json(history: History, obj: Mapping[str, Any]) -> Witness:
        index = history.index_of_ref()

        def uid(ref: Any) -> int:
            try:
                return index[(ref[0], int(ref[1]))].uid
            except (KeyError, TypeError, IndexError, ValueError):
                raise ValueError(f"witness names unknown operation {ref!r}") from None

        seq = obj.get("serialization")
        return Witness(
            read_from={uid(r): (None if w is None else uid(w)) for r, w in obj.get("read_from", [])},
            star=tuple((uid(a), uid(b)) for a, b in obj.get("star", [])),
            views={p: tuple(uid(x) for x in s) for p, s in obj.get("views", {}).items()},
            sequence=None if seq is None else tuple(uid(x) for x in seq),
        )


def effective_history(history: History, taken: Iterable[int]) -> tuple[History, tuple[int, ...]]:
    """The history of the definite operations plus the ``maybe`` ones in ``taken``, and
    for each of its uids the uid in ``history``.  A ``maybe`` operation is the last of its
    process, so processes and indices (hence labels) are unchanged."""
    keep = set(taken)
    kept = [op for op in history.ops if not op.maybe or op.uid in keep]
    if len(kept) == len(history.ops):
        return history, tuple(range(len(history.ops)))
    ops = tuple(Op(i, op.process, op.index, op.kind, op.register, op.value, op.old, op.invoke,
                   op.complete, op.maybe) for i, op in enumerate(kept))
    return History(history.processes, ops, history.edges, history.initial), tuple(op.uid for op in kept)


def named_operations(witness: Witness) -> set[int]:
    """Every uid the witness names."""
    out = set(witness.read_from) | {w for w in witness.read_from.values() if w is not None}
    out.update(u for pair in witness.star for u in pair)
    for seq in witness.views.values():
        out.update(seq)
    if witness.sequence is not None:
        out.update(witness.sequence)
    return out


def remap(witness: Witness, new_uid: Mapping[int, int]) -> Witness:
    """The witness with every uid ``u`` replaced by ``new_uid[u]``."""
    m = new_uid.__getitem__
    return Witness(
        read_from={m(r): None if w is None else m(w) for r, w in witness.read_from.items()},
        star=tuple((m(a), m(b)) for a, b in witness.star),
        views={p: tuple(map(m, s)) for p, s in witness.views.items()},
        sequence=None if witness.sequence is None else tuple(map(m, witness.sequence)))
