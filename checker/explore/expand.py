"""The pure, state-local core of an exploration, shared by the local search
(:mod:`fisheye.checker.explore.engine`) and the Spark one (:mod:`fisheye.checker.spark`).

* :func:`successors` -- the (reduced) successors of a state: a deterministic function of
  the state alone, so every engine builds the same reduced state graph;
* :func:`fingerprint` -- a 64-bit digest of a state, stable across processes and runs
  (blake2b of a canonical encoding; never Python's salted ``hash``);
* :func:`classify` -- what a visited state is: ``pruned`` (not expanded: a conditioning
  read deviated from the figure), ``inner`` (has successors), or a terminal kind:
  ``final`` (a complete run), ``infeasible`` (abstraction level: not a prefix of any
  execution of the broadcast specification), ``deadlock`` (no step enabled, not
  complete: a liveness violation);
* :func:`terminal_record` -- what the report needs from a terminal state (its history,
  outcome, broadcast-property violations).

An :class:`Context` bundles the system with the step function and the options; it
pickles (cloudpickle) when the system does.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from enum import Enum
from typing import Any

from fisheye.impl.api import Judgement, Step, System, explorer_judged, judge
from fisheye.spec.history import History

from .reduction import kind_of, reducer

PRUNED, INNER, FINAL, INFEASIBLE, DEADLOCK = "pruned", "inner", "final", "infeasible", "deadlock"
TERMINAL_KINDS = (FINAL, INFEASIBLE, DEADLOCK)


@dataclass
class Context:
    """A system with its exploration options.  ``reduction``: ``auto`` (the best the
    system supports), ``none``, ``stubborn`` or ``process``; ``prune_deviations``: stop
    a run as soon as a read with a figure value (``Read.expect``) returned another value
    (fig6, sound: such a run never counts in the outcomes)."""

    system: Any
    reduction: str = "auto"
    prune_deviations: bool = True
    may_send: Callable[[Any, str, str], bool] | None = None
    _step_fn: Callable[[Any], Sequence[Step]] | None = field(default=None, repr=False)

    @property
    def reduction_kind(self) -> str:
        return kind_of(self.system, self.reduction)

    def steps(self, state: Any) -> Sequence[Step]:
        if self._step_fn is None:
            self._step_fn = reducer(self.system, self.reduction, may_send=self.may_send)
        return self._step_fn(state)

    def __getstate__(self) -> dict[str, Any]:
        d = dict(self.__dict__)
        d["_step_fn"] = None
        return d


def successors(ctx: Context, state: Any) -> list[tuple[Step, Any]]:
    """The successors to explore from ``state`` (empty for a pruned state)."""
    if is_pruned(ctx, state):
        return []
    apply = ctx.system.apply
    return [(s, apply(state, s)) for s in ctx.steps(state)]


def is_pruned(ctx: Context, state: Any) -> bool:
    if not ctx.prune_deviations:
        return False
    m = getattr(ctx.system, "matches_expected", None)
    return m is not None and not m(state)


def classify(ctx: Context, state: Any, n_successors: int) -> str:
    """The kind of a visited state given its number of (reduced) successors.  A reduced
    state has no successor exactly when it has no enabled step at all."""
    if is_pruned(ctx, state):
        return PRUNED
    if n_successors:
        return INNER
    system = ctx.system
    if system.is_final(state):
        return FINAL
    infeasible = getattr(system, "infeasible", None)
    if infeasible is not None and infeasible(state):
        return INFEASIBLE
    return DEADLOCK


@dataclass(frozen=True)
class TerminalRecord:
    """What the report keeps of a terminal state."""

    kind: str
    history_key: tuple[Any, ...]
    history: History
    outcome: tuple[Any, ...]          # values of the scenario's named reads, in order
    matches: bool                     # every conditioning read returned the figure's value
    broadcast: tuple[str, ...]        # violated section 4.1 properties (names), sorted
    judged: Judgement = Judgement()   # the system's own properties (impl.api.explorer_judged)


def history_key(h: History) -> tuple[Any, ...]:
    return tuple((op.process, op.kind, op.register, op.vkey) for op in h.ops)


def read_names(system: Any) -> tuple[str, ...]:
    prog = getattr(system, "program", None)
    return tuple(prog.read_names) if prog is not None else ()


def terminal_record(ctx: Context, state: Any, kind: str) -> TerminalRecord:
    system = ctx.system
    h = system.history(state)
    names = read_names(system)
    oc = system.outcome(state) if hasattr(system, "outcome") else {}
    outcome = tuple(oc.get(n) for n in names)
    m = getattr(system, "matches_expected", None)
    matches = True if m is None else bool(m(state))
    bv = getattr(system, "broadcast_violations", None)
    props: tuple[str, ...] = ()
    if bv is not None:
        props = tuple(sorted({v.prop for v in bv(state, complete=(kind == FINAL))}))
    judged = Judgement()
    if isinstance(system, System):
        judged = judge(explorer_judged(system.properties()), state, kind == FINAL)
    return TerminalRecord(kind, history_key(h), h, outcome, matches, props, judged)


# ---- fingerprints -------------------------------------------------------------------------
def _encode(x: Any, out: bytearray) -> None:
    if x is None:
        out += b"N"
    elif x is True:
        out += b"T"
    elif x is False:
        out += b"F"
    elif isinstance(x, int):
        b = str(x).encode()
        out += b"i" + len(b).to_bytes(2, "little") + b
    elif isinstance(x, str):
        b = x.encode()
        out += b"s" + len(b).to_bytes(4, "little") + b
    elif isinstance(x, float):
        b = repr(x).encode()
        out += b"f" + len(b).to_bytes(2, "little") + b
    elif isinstance(x, Enum):
        _encode(x.value, out)
    elif isinstance(x, (tuple, list)):
        out += b"(" + len(x).to_bytes(4, "little")
        for v in x:
            _encode(v, out)
    elif isinstance(x, (frozenset, set)):
        parts = []
        for v in x:
            b = bytearray()
            _encode(v, b)
            parts.append(bytes(b))
        out += b"{" + len(parts).to_bytes(4, "little")
        for b in sorted(parts):
            out += b
    elif isinstance(x, bytes):
        out += b"b" + len(x).to_bytes(4, "little") + x
    elif hasattr(x, "__dataclass_fields__"):
        out += b"D" + type(x).__name__.encode() + b":"
        _encode(tuple(getattr(x, f) for f in x.__dataclass_fields__), out)
    else:
        raise TypeError(f"cannot fingerprint a {type(x).__name__}")


def encode(state: Any) -> bytes:
    """A canonical byte encoding of a state (sets sorted, NamedTuples as tuples)."""
    out = bytearray()
    _encode(state, out)
    return bytes(out)


def fingerprint(state: Any) -> int:
    """64-bit digest of :func:`encode`, the same in every process and every run."""
    return int.from_bytes(hashlib.blake2b(encode(state), digest_size=8).digest(), "little")
