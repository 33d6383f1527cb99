"""The pure, state-local core of an exploration, shared by the local search
(:mod:`fisheye.checker.explore.engine`) and the Spark one (:mod:`fisheye.checker.spark`).

* :func:`successors` -- the (reduced) successors of a state: a deterministic function of
  the state alone, so every engine builds the same reduced state graph;
* ``Context.codec`` -- the canonical, invertible byte encoding of states
  (:mod:`fisheye.checker.explore.codec`), and :func:`fingerprint`, the one 64-bit digest
  (BLAKE2b of those bytes; never Python's salted ``hash``);
* :func:`expand` / :func:`expand_bytes` -- one visited state's reduced steps, encoded
  successors, kind and terminal record, in one call (what every engine does per state);
  :func:`schedule_of_path` rebuilds the steps of a path of successor indices;
* :func:`classify` -- what a visited state is: ``pruned`` (not expanded: a conditioning
  read deviated from the figure), ``inner`` (has successors), or a terminal kind:
  ``final`` (a complete run), ``infeasible`` (abstraction level: not a prefix of any
  execution of the broadcast specification), ``deadlock`` (no step enabled, not
  complete: a liveness violation);
* :func:`terminal_record` -- what the report needs from a terminal state (its history,
  outcome, and the judgement of every property but the model, :mod:`fisheye.checker.judge`;
  the report checks each distinct history against the model once).

An :class:`Context` bundles the system with the step function and the options; it
pickles (cloudpickle) when the system does.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from fisheye.impl.api import (
    ConditionedRuns,
    ConditionsReads,
    HasInfeasible,
    HasOutcomes,
    Judgement,
    PropertyKind,
    Step,
    SystemFault,
)
from fisheye.spec.history import History

from ..judge import Judge
from .codec import StateCodec, codec_of, encode
from .codec import fingerprint as fingerprint_bytes
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
    _codec: StateCodec | None = field(default=None, repr=False)
    _judge: Judge | None = field(default=None, repr=False)

    @property
    def judge(self) -> Judge:
        """The judge of the system's properties (:class:`fisheye.checker.judge.Judge`);
        built at the start of an exploration, so that a property it cannot judge is an
        error before any state is visited."""
        if self._judge is None:
            self._judge = Judge.of(self.system)
        return self._judge

    @property
    def codec(self) -> StateCodec:
        """The system's canonical byte encoding (:func:`codec_of`)."""
        if self._codec is None:
            self._codec = codec_of(self.system)
        return self._codec

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
        d["_codec"] = None
        d["_judge"] = None
        return d


def successors(ctx: Context, state: Any) -> list[tuple[Step, Any]]:
    """The successors to explore from ``state`` (empty for a pruned state)."""
    if is_pruned(ctx, state):
        return []
    apply = ctx.system.apply
    return [(s, apply(state, s)) for s in ctx.steps(state)]


def has(ctx: Context, capability: type) -> bool:
    """Whether the context's system has ``capability`` (an :mod:`fisheye.impl.api`
    protocol), computed once per context (runtime protocol checks are slow)."""
    caps = ctx.__dict__.setdefault("_capabilities", {})
    r = caps.get(capability)
    if r is None:
        r = caps[capability] = isinstance(ctx.system, capability)
    return r


def is_pruned(ctx: Context, state: Any) -> bool:
    if not ctx.prune_deviations or not has(ctx, ConditionedRuns):
        return False
    return not ctx.system.matches_expected(state)


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
    if ctx.prune_deviations and has(ctx, ConditionsReads) and system.blocked_by_condition(state):
        return PRUNED
    if has(ctx, HasInfeasible) and system.infeasible(state):
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
    judged: Judgement = Judgement()   # every property but the model (checker.judge)

    @property
    def broadcast(self) -> tuple[str, ...]:
        """The broadcast properties that fail here (names, sorted)."""
        return tuple(sorted(v.prop for v in self.judged.failed if v.kind is PropertyKind.BROADCAST))


def history_key(h: History) -> tuple[Any, ...]:
    return tuple((op.process, op.kind, op.register, op.vkey) for op in h.ops)


def read_names(system: Any) -> tuple[str, ...]:
    """The names of the reads whose values are a run's outcome (none unless the system
    has :class:`~fisheye.impl.api.HasOutcomes`)."""
    return tuple(system.read_names) if isinstance(system, HasOutcomes) else ()


def terminal_record(ctx: Context, state: Any, kind: str) -> TerminalRecord:
    system = ctx.system
    h = system.history(state)
    outcome: tuple[Any, ...] = ()
    if has(ctx, HasOutcomes):
        oc = system.outcome(state)
        outcome = tuple(oc.get(n) for n in system.read_names)
    matches = not has(ctx, ConditionedRuns) or bool(system.matches_expected(state))
    judged = ctx.judge(state, kind == FINAL)
    return TerminalRecord(kind, history_key(h), h, outcome, matches, judged)


# ---- bytes: the form in which engines store, compare and ship states ------------------------

@dataclass(frozen=True)
class Expansion:
    """Everything an engine needs from one visited state (see :func:`expand`).

    ``kind``: ``inner``, ``pruned`` or a terminal kind (``final``, ``infeasible``,
    ``deadlock``); ``steps``: the reduced steps explored from it, in order (empty unless
    ``inner``); ``children``: their successor states, encoded, aligned with ``steps``
    (successor ``k`` of a state is reached by ``steps[k]``: a *path* of such indices from
    the initial state names a schedule); ``record``: the terminal record (terminal kinds
    only)."""

    kind: str
    steps: tuple[Step, ...]
    children: tuple[bytes, ...]
    record: TerminalRecord | None


def expand(ctx: Context, state: Any) -> Expansion:
    """The expansion of a decoded state: reduced successors (encoded), or why there are
    none, with the terminal record of a terminal state."""
    try:
        if is_pruned(ctx, state):
            return Expansion(PRUNED, (), (), None)
        steps = tuple(ctx.steps(state))
    except Exception as e:
        raise fault(e, state, None, "listing the enabled steps") from e
    if steps:
        apply, enc = ctx.system.apply, ctx.codec.encode
        children = []
        for s in steps:
            try:
                child = apply(state, s)
            except Exception as e:
                raise fault(e, state, s, "taking the step") from e
            try:
                children.append(enc(child))
            except Exception as e:
                raise fault(e, state, s, "encoding the state it reaches (a state must be built of "
                            "tuples, frozen dataclasses, strings, numbers)") from e
        return Expansion(INNER, steps, tuple(children), None)
    try:
        kind = classify(ctx, state, 0)
        if kind == PRUNED:
            return Expansion(PRUNED, (), (), None)
        return Expansion(kind, (), (), terminal_record(ctx, state, kind))
    except Exception as e:
        raise fault(e, state, None, "judging the end of the run") from e


def fault(e: Exception, state: Any, step: Step | None, doing: str) -> SystemFault:
    """``e``, raised by the system while ``doing`` (at ``state``, taking ``step``), as a
    :class:`~fisheye.impl.api.SystemFault` (one line: the exception's type and text)."""
    if isinstance(e, MemoryError):
        raise e
    where = f"{doing} {step}" if step is not None and doing == "taking the step" else doing
    what = e.message if isinstance(e, SystemFault) else f"{type(e).__name__}: {e}"
    return SystemFault(f"{what} (while {where})", step=step, state=state)


def expand_bytes(ctx: Context, data: bytes) -> Expansion:
    """:func:`expand` of an encoded state."""
    return expand(ctx, ctx.codec.decode(data))


def initial_bytes(ctx: Context) -> bytes:
    try:
        return ctx.codec.encode(ctx.system.initial())
    except Exception as e:
        raise fault(e, None, None, "building and encoding the initial state") from e


def schedule_of_path(ctx: Context, path: Sequence[int]) -> list[Step]:
    """The steps of a path of successor indices from the initial state (the explored
    system's steps; :func:`replayable` makes them a schedule of the raw system)."""
    state = ctx.system.initial()
    out: list[Step] = []
    for k in path:
        steps = ctx.steps(state)
        step = steps[k]
        out.append(step)
        state = ctx.system.apply(state, step)
    return out


def replayable(ctx: Context, steps: Sequence[Step]) -> list[Step]:
    """A schedule of the explored system as the raw system replays it (a quotient
    lifts it back)."""
    lift = getattr(ctx.system, "lift", None)
    return list(lift(steps)) if lift is not None else list(steps)


def fingerprint(x: Any) -> int:
    """The one 64-bit fingerprint (BLAKE2b, 8-byte digest, little-endian): of ``x``
    itself when it is ``bytes`` (an encoded state), else of its generic canonical
    encoding (:func:`fisheye.checker.explore.codec.encode`)."""
    return fingerprint_bytes(x if isinstance(x, bytes) else encode(x))
