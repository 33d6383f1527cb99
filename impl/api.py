"""The system contract: what every system under test provides, and the optional
capabilities a checker may use, each a typed, runtime-checkable protocol stating the
assumption it makes.

A *system* is a closed set of processes running a program over an explicit network.
Its global state is an immutable, hashable value; its behaviour is a labelled
transition system (every :class:`System` provides all of this):

* ``processes`` and ``graph``: its process names and the proximity graph it runs with
  (the graph of the models of section 3 of the paper; the empty graph when it has
  none); ``info``: what identifies it (:class:`SystemRequest`: the registry name, the
  scenario, the options), the request that rebuilds it (counterexample files, replay);
* ``initial()``, ``enabled(state)`` (the enabled steps, in a deterministic order),
  ``apply(state, step)`` (the successor, a pure function), ``is_final(state)`` (a
  *complete* run's end; a state with no enabled step that is not final is a deadlock);
* ``history(state)`` and ``delivery_logs(state)``: the recorder (the run's register
  history in the history-file format, and per-process logs of the events the
  properties are judged on -- possibly empty);
* ``properties()``: its named properties with expectations (:class:`Property`, from
  :mod:`fisheye.impl.properties`, re-exported here).

No threads, no clocks, no randomness inside: a run is its schedule (the list of steps),
and replaying the schedule from ``initial()`` reproduces it exactly (:func:`replay`).

Optional capabilities (``isinstance(system, Capability)`` tells whether a system has
one; nothing is discovered by attribute look-ups; the structural ones are
runtime-checkable protocols, the one whose assumption a signature cannot show is a base
class to inherit):

* :class:`HasOutcomes` -- named reads whose values are the run's *outcome*;
* :class:`ConditionedRuns` -- reads conditioned on a figure's values (pruning);
* :class:`ConditionsReads` -- the conditioning enforced when reads are enabled;
* :class:`HasInfeasible` -- terminal states that are not runs of a specification;
* :class:`HasChannels` -- an explicit network: the messages in transit per channel
  (and, by :func:`step_sends`, the messages a step sends);
* :class:`MessagePassing` -- declared by inheritance: the processes share nothing but
  the network, and ``may_send`` (the process-level persistent sets);
* :class:`CrashStop` -- declared by inheritance: message passing with crash-stop
  processes (``crash`` and ``lose`` steps), ``may_send`` and ``may_crash``;
* :class:`PorModel` -- a transition model for stubborn sets;
* :class:`Quotient` -- a reduced view of a raw system, with ``lift`` back to it.

Steps are frozen dataclasses with a JSON form (``to_json``) so schedules can be stored
and replayed.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Protocol, TypeVar, runtime_checkable

from fisheye.spec.graph import ProximityGraph
from fisheye.spec.history import History, Value

# re-exported: a system's properties are part of its contract
from .properties import (
    DEADLOCK,  # noqa: F401
    Expectation,  # noqa: F401
    Judgement,  # noqa: F401
    NamedViolation,  # noqa: F401
    Property,  # noqa: F401
    PropertyCheck,  # noqa: F401
    PropertyKind,  # noqa: F401
    Violation,  # noqa: F401
    deadlock_freedom,  # noqa: F401
    model_property,  # noqa: F401
    some_complete_run,  # noqa: F401
)


class Network(StrEnum):
    """Network semantics, an explicit named choice.

    ``fifo``: reliable FIFO channels per ordered pair of processes (the papers'
    assumption, section 4.2 "for simplicity, we assume that the channels are FIFO"; the
    default).  ``unordered``: reliable channels that may deliver in any order."""

    FIFO = "fifo"
    UNORDERED = "unordered"

    @staticmethod
    def parse(text: str | Network) -> Network:
        try:
            return Network(text)
        except ValueError:
            raise ValueError(f"unknown network {text!r} (expected fifo or unordered)") from None


@dataclass(frozen=True, order=True)
class Step:
    """One atomic step of a run.

    ``kind``: ``"op"`` (the process's next program operation: invocation, or the
    return of a waiting write), ``"recv"`` (receipt of a message from channel
    ``src -> process``; ``detail`` identifies which message when channels are
    unordered), ``"deliver"`` (one iteration of a background delivery task),
    ``"crash"`` (the process crashes), ``"lose"`` (a message of a crashed sender in
    channel ``src -> process`` is lost), ``"op+crash"`` / ``"recv+crash"`` (a step, then
    the crash: :class:`CrashStop`), or an algorithm-specific kind.
    """

    kind: str
    process: str
    src: str | None = None
    detail: tuple[Any, ...] = ()

    def to_json(self) -> list[Any]:
        out: list[Any] = [self.kind, self.process]
        if self.src is not None or self.detail:
            out.append(self.src)
        if self.detail:
            out.append(_jsonable(self.detail))
        return out

    @staticmethod
    def from_json(obj: Sequence[Any]) -> Step:
        kind, process = obj[0], obj[1]
        src = obj[2] if len(obj) > 2 else None
        detail = _tuplify(obj[3]) if len(obj) > 3 else ()
        return Step(kind, process, src, detail)

    def __str__(self) -> str:
        s = f"{self.kind} {self.process}"
        if self.src is not None:
            s += f" <- {self.src}"
        if self.detail:
            s += f" {self.detail}"
        return s


def _jsonable(x: Any) -> Any:
    if isinstance(x, tuple):
        return [_jsonable(v) for v in x]
    return x


def _tuplify(x: Any) -> Any:
    if isinstance(x, list):
        return tuple(_tuplify(v) for v in x)
    return x


S = TypeVar("S", bound=Hashable)
S_co = TypeVar("S_co", bound=Hashable, covariant=True)


# ---- identity ---------------------------------------------------------------------------
@dataclass(frozen=True)
class SystemRequest:
    """A system's identity, the one record of it: what a factory is asked for (the
    command line's options, or a counterexample file's keys) and, as the built system's
    ``info``, what it was built as -- so that the header, the files and the printed
    command that reproduces a run are written from one value.  A factory rejects an
    option it does not support with a ``ValueError`` naming it (never ignores it), and
    records the request it keeps, its defaults filled in (``graph`` the
    :class:`ProximityGraph` it runs with, ``system`` the name it was made under).

    ``scenario``: a scenario name or a program in text form (None in a request: the
    factory's default); ``graph``: the proximity graph, as the contract's GRAPH text
    (``paper``, ``empty``, ``complete``, ``p:q,r:s``) or a :class:`ProximityGraph` (None:
    the factory's default); ``options``: further factory options as sorted (name, JSON
    value) pairs; ``system``: the name of its factory in the registry of systems
    (:mod:`fisheye.checker.systems`: a built-in, an entry point, or a user's
    ``package.module:factory``)."""

    scenario: str | None = None
    graph: str | ProximityGraph | None = None
    network: Network = Network.FIFO
    variant: str | None = None
    mutant: str | None = None
    crashes: int = 0
    level: str = "protocol"
    options: tuple[tuple[str, Any], ...] = ()
    system: str = ""

    def option(self, name: str, default: Any = None) -> Any:
        return dict(self.options).get(name, default)

    @property
    def algorithm(self) -> str:
        """``system``, under the key files and reports give it."""
        return self.system

    @property
    def program(self) -> str | None:
        """The program's text when ``scenario`` is a program (it has a ``p:`` part), else None."""
        return self.scenario if self.scenario is not None and ":" in self.scenario else None

    @property
    def scenario_name(self) -> str | None:
        """``scenario`` when it names a scenario, None when it is a program."""
        return None if self.program is not None else self.scenario

    def request(self) -> SystemRequest:
        """The record itself: what rebuilds the system it describes."""
        return self

    def describe(self) -> dict[str, Any]:
        """The JSON object reports and counterexample files show."""
        graph = self.graph.to_json() if isinstance(self.graph, ProximityGraph) else self.graph
        out: dict[str, Any] = {"scenario": self.scenario_name, "algorithm": self.system, "level": self.level,
                               "variant": None if self.variant is None else str(self.variant),
                               "mutant": None if self.mutant is None else str(self.mutant),
                               "network": Network(self.network).value, "graph": graph}
        if self.program is not None:
            out["program"] = self.program
        if self.crashes:
            out["crashes"] = self.crashes
        out.update(dict(self.options))
        return out


def SystemInfo(algorithm: str, scenario: str | None, network: Network, graph: ProximityGraph,  # noqa: N802
               variant: str | None = None, mutant: str | None = None, level: str = "protocol",
               program: str | None = None, crashes: int = 0,
               options: tuple[tuple[str, Any], ...] = ()) -> SystemRequest:
    """Deprecated: a system's record is a :class:`SystemRequest` (``system`` is the
    registry name, ``scenario`` the scenario name or the program's text).  This builds
    one from the former fields."""
    return SystemRequest(scenario=scenario if scenario is not None else program, graph=graph,
                         network=Network(network), variant=variant, mutant=mutant, crashes=crashes,
                         level=level, options=options, system=algorithm)


# ---- every system -----------------------------------------------------------------------
@runtime_checkable
class System(Protocol[S]):
    """What every system provides (see the module doc).  ``processes``, ``graph`` and
    ``info`` are fixed for the system's life."""

    @property
    def processes(self) -> tuple[str, ...]: ...

    @property
    def graph(self) -> ProximityGraph: ...

    @property
    def info(self) -> SystemRequest: ...

    def initial(self) -> S: ...

    def enabled(self, state: S) -> Sequence[Step]: ...

    def apply(self, state: S, step: Step) -> S: ...

    def is_final(self, state: S) -> bool: ...

    def history(self, state: S) -> History: ...

    def delivery_logs(self, state: S) -> Mapping[str, tuple[Any, ...]]: ...

    def properties(self) -> tuple[Property, ...]: ...


SystemFactory = Callable[[SystemRequest], System[Any]]
"""A system factory: the registry (:mod:`fisheye.checker.systems`) maps names to these."""


# ---- optional capabilities ----------------------------------------------------------------
@runtime_checkable
class HasOutcomes(Protocol[S]):
    """Named reads whose returned values are a run's *outcome* (Figure 3's ``a`` and
    ``b``).  Assumes: ``read_names`` is fixed; ``outcome(state)`` maps the names of the
    reads executed so far to their values."""

    @property
    def read_names(self) -> tuple[str, ...]: ...

    def outcome(self, state: S) -> Mapping[str, Value]: ...


@runtime_checkable
class ConditionedRuns(Protocol[S]):
    """Reads conditioned on a figure's values (Figure 6): only the runs whose
    conditioning reads return those values count in the outcomes.  Assumes: once false
    along a run, ``matches_expected`` stays false in every extension (a read's value
    never changes), so an explorer may stop such a run (prune) soundly."""

    def matches_expected(self, state: S) -> bool: ...


@runtime_checkable
class ConditionsReads(Protocol[S]):
    """Conditioning enforced by the system itself: a conditioning read is enabled only
    when it returns the figure's value (as an await), so no run deviates, and the
    explorer never visits the states that follow a deviating read.  Assumes: called only
    on a state with no enabled step; true means a conditioning read waits for a value it
    can no longer get, i.e. without the condition that read would run and deviate, so
    the state is neither a complete run nor a deadlock of the figure's runs (an explorer
    counts it as pruned).  With this, the terminal states are exactly the complete runs
    and deadlocks whose reads match the figure, plus the deviations."""

    def blocked_by_condition(self, state: S) -> bool: ...


@runtime_checkable
class HasInfeasible(Protocol[S]):
    """Runs of a specification rather than an algorithm (Algorithm 2 over every
    delivery order the broadcast specification allows).  Assumes: called only on a
    state with no enabled step; a reason (not None) means the state is not a prefix of
    any execution of the specification, so it is neither a complete run nor a deadlock
    (an explorer counts it apart)."""

    def infeasible(self, state: S) -> str | None: ...


@runtime_checkable
class ChecksBroadcast(Protocol[S]):
    """The system's ``always`` properties of kind ``broadcast``, evaluated at once:
    ``broadcast_violations(state, complete=...)`` lists one violation per failed check,
    ``prop`` the property's name (liveness ones judged only when ``complete``).
    Equivalent to running the checks of those properties one by one, faster."""

    def broadcast_violations(self, state: S, *, complete: bool | None = None
                             ) -> Sequence[NamedViolation]: ...


Channel = tuple[str, str]
"""A channel, as (source, destination)."""


@runtime_checkable
class HasChannels(Protocol[S]):
    """An explicit network (an observation, no assumption about the steps):
    ``in_transit(state)`` gives, for every non-empty channel ``(src, dst)``, the
    messages in transit on it (in sending order with FIFO channels, in the channel's
    canonical order otherwise).  :func:`step_sends` derives from it the messages a
    step sends."""

    network: Network

    def in_transit(self, state: S) -> Mapping[Channel, tuple[Hashable, ...]]: ...


class MessagePassing(HasChannels[S], ABC):
    """Processes that share nothing but the network, for the process-level persistent
    sets (docs/por.md, section 3.3).  Declared, not inferred: a system claims it by
    inheriting this class (the assumption cannot be seen in its methods).

    Assumes (the locality lemma): every step is of kind ``op``, ``deliver`` or
    ``recv``, belongs to the process ``step.process`` and only changes that process's
    local state, removes at most one message from one channel into it, and appends
    messages to channels out of it; so steps of different processes commute, and a
    process can affect another only by sending to it.  ``may_send(state, q, p)``
    over-approximates "q may still append a message to the channel q -> p in some
    extension of the run" (True is always sound)."""

    @abstractmethod
    def may_send(self, state: S, q: str, p: str) -> bool: ...


CRASH_KINDS = frozenset({"crash", "lose", "op+crash", "recv+crash"})
"""The step kinds of crash faults (:class:`CrashStop`)."""


def crashes_in(schedule: Iterable[Step]) -> int:
    """The number of crashes a schedule performs (the ``crash`` and ``...+crash`` steps
    of :class:`CrashStop`)."""
    return sum(1 for s in schedule if s.kind == "crash" or s.kind.endswith("+crash"))


class CrashStop(HasChannels[S], ABC):
    """Processes that share nothing but the network and may *crash* (crash-stop faults:
    the model of the uniform reliable broadcast the localized causal broadcast uses, in
    whose properties LCURB1-5 a process is *correct* when it never crashes).  Declared
    by inheritance, like
    :class:`MessagePassing`, whose locality lemma it extends with these steps of a process
    ``p``:

    * ``crash``: p stops for ever (it takes no further step); every message in transit
      to p is discarded and every later message to p is dropped when sent (p will never
      receive it);
    * ``lose`` (``src``): a message of a *crashed* sender in the channel ``src -> p`` is
      lost (reliable links promise nothing for the messages of a process that crashes);
    * ``op+crash`` / ``recv+crash``: the step, then (``detail[1]``) an ordered selection
      of p's internal steps, then the crash, as one step (a reduction a system may use to
      move crashes next to p's own steps; ``detail[0]`` is the inner step's detail).

    ``may_send(state, q, p)`` over-approximates "q may still append a message to the
    channel q -> p"; ``may_crash(state, q)`` over-approximates "q may still crash".
    ``independent_crashes``: every process that may crash may do so whatever the others
    do (the number of crashes is not a budget shared between processes).  Only then do
    crashes of different processes commute, and only then may the process-level
    persistent sets (docs/por.md, section 3.3) be used: a crash of q can affect p only
    by enabling the loss of a message in the channel q -> p."""

    @property
    @abstractmethod
    def independent_crashes(self) -> bool: ...

    @abstractmethod
    def may_send(self, state: S, q: str, p: str) -> bool: ...

    @abstractmethod
    def may_crash(self, state: S, q: str) -> bool: ...


@runtime_checkable
class PorModel(Protocol[S]):
    """A transition model for stubborn sets (docs/por.md, section 3).  Transitions are
    integers; ``por_enabled(state)`` maps the enabled ones to their steps (the same
    steps as ``enabled``).  Assumes: ``por_dependents(state, t)`` (t enabled)
    over-approximates the transitions that may be dependent with t in some state
    reachable from ``state``; ``por_enablers(state, t)`` (t disabled) is a necessary
    enabling set: every path from ``state`` that enables t contains one of them.
    ``por_supported`` is False when the model does not apply to this configuration
    (then it must not be used)."""

    @property
    def por_supported(self) -> bool: ...

    def por_enabled(self, state: S) -> Mapping[int, Step]: ...

    def por_dependents(self, state: S, t: int) -> Iterable[int]: ...

    def por_enablers(self, state: S, t: int) -> Iterable[int]: ...


@runtime_checkable
class Quotient(Protocol[S]):
    """A reduced view of a raw system (e.g. Algorithm 1's dead-clock quotient).
    Assumes: the quotient map is a stuttering bisimulation that preserves terminal
    states, histories, outcomes, delivery logs and property verdicts; the quotient's
    schedules may omit raw steps, and ``lift(schedule)`` gives the raw schedule that
    replays on ``raw`` (:func:`replay`) to a state with the same history."""

    @property
    def raw(self) -> System[Any]: ...

    def lift(self, schedule: Sequence[Step]) -> list[Step]: ...


@dataclass(frozen=True)
class ExplorationView:
    """What an explorer explores of a system: ``system`` (the system itself, or a
    reduced view of it: a :class:`Quotient`), the ``reduction`` to use, and ``may_send``
    (the system's own over-approximation for the process-level persistent sets; None:
    the explored system's, if any)."""

    system: Any
    reduction: str
    may_send: Callable[[Any, str, str], bool] | None = None


@runtime_checkable
class ExploredAs(Protocol):
    """A system that says how it is best explored: ``explored_as(reduction,
    prune_deviations)`` gives the :class:`ExplorationView` for the reduction asked
    (``auto``, ``none``, ``stubborn``, ``process``) and whether runs whose conditioning
    reads deviate are pruned.  Assumes: the view has the terminal states, histories,
    outcomes, delivery logs and property verdicts of the system (a quotient lifts its
    schedules back).  Without it a system is explored as it is."""

    def explored_as(self, reduction: str, prune_deviations: bool) -> ExplorationView: ...


# ---- replay and observation ---------------------------------------------------------------
class SystemFault(Exception):
    """The system under test failed: it broke the contract (two different messages in
    flight under one name, a state that cannot be encoded) or one of its handlers
    raised.  ``step``: the step being taken (None: while listing the enabled steps of
    ``state``, or building the initial state); an explorer reports it with the
    schedule that reaches it, as a system error (not a violation)."""

    def __init__(self, message: str, *, step: Step | None = None, state: Any = None,
                 schedule: tuple[Step, ...] | None = None):
        super().__init__(message)
        self.message = message
        self.step = step
        self.state = state
        self.schedule = schedule
        """The schedule from the initial state whose last step fails (when known)."""


class ReplayError(ValueError):
    """A schedule step that is not enabled where the schedule puts it."""


def replay(system: System[S], schedule: Sequence[Step]) -> S:
    """Run ``schedule`` from the initial state; every step must be enabled
    (:class:`ReplayError` otherwise).  An exception the system raises taking a step is
    a :class:`SystemFault` carrying the schedule up to that step."""
    state = system.initial()
    for i, step in enumerate(schedule):
        if step not in system.enabled(state):
            raise ReplayError(f"step {i} ({step}) is not enabled")
        try:
            state = system.apply(state, step)
        except Exception as e:
            raise SystemFault(f"{type(e).__name__}: {e} (while taking the step {step})", step=step,
                              state=state, schedule=tuple(schedule[:i + 1])) from e
    return state


def logs_as_json(logs: Mapping[str, Iterable[Any]]) -> dict[str, list[Any]]:
    """Delivery logs in JSON form: the section 4.1 events as ``[kind, sender, seq]``,
    any other event (a tuple) as a list."""
    from fisheye.spec.broadcast import Event

    def event(e: Any) -> Any:
        if isinstance(e, Event):
            return [e.kind, e.msg.sender, e.msg.seq]
        return _jsonable(e)
    return {p: [event(e) for e in log] for p, log in logs.items()}


def step_sends(system: HasChannels[S], before: S, after: S) -> dict[Channel, tuple[Hashable, ...]]:
    """The messages a step appended to each channel, from the states before and after
    it (multiset difference per channel: what is in transit after and was not before)."""
    b, a = system.in_transit(before), system.in_transit(after)
    out: dict[Channel, tuple[Hashable, ...]] = {}
    for ch, msgs in a.items():
        old = list(b.get(ch, ()))
        new = []
        for m in msgs:
            if m in old:
                old.remove(m)
            else:
                new.append(m)
        if new:
            out[ch] = tuple(new)
    return out
