"""Uniform reliable broadcast by majority acknowledgement, one process's state machine.

The algorithm is the classical "Majority-Ack Uniform Reliable Broadcast" (Cachin,
Guerraoui, Rodrigues, *Introduction to Reliable and Secure Distributed Programming*,
algorithm 3.5), which the localized causal broadcast document
(S. Volodin's *Localized causal broadcast* note, "Uses: UniformReliableBroadcast")
runs on::

    upon urb-Broadcast(m):       pending := pending ∪ {(self, m)}; beb-Broadcast [DATA, self, m]
    upon beb-Deliver(p, [DATA, s, m]):
                                 ack[m] := ack[m] ∪ {p}
                                 if (s, m) ∉ pending: pending := pending ∪ {(s, m)}
                                                      beb-Broadcast [DATA, s, m]
    upon exists (s, m) ∈ pending with candeliver(m) and m ∉ delivered:
                                 delivered := delivered ∪ {m}; urb-Deliver(s, m)
    candeliver(m) := #ack[m] > N/2

It is *uniform* (a message delivered by any process, even one that later crashes, is
delivered by every correct process) only while fewer than half the processes crash: a
delivery needs a majority of relays, and a majority always contains a correct process
whose relay reaches everybody.  Beyond that threshold the guarantee is expected to fail.

Modelling choices (named, so that nothing is hidden):

* best-effort broadcast is "send to every process over reliable links"; the copy a
  process sends *to itself* is handed over at once, inside the same step (a local call,
  no network), so ``beb-Broadcast`` acknowledges the sender immediately;
* the ``upon exists ... candeliver`` rule is an internal step of its own
  (:func:`deliverable` lists what it may deliver; the system decides when);
* once a message can be delivered (a majority acknowledged it), further acknowledgements
  can no longer influence anything: its acknowledgement set is dropped and the message
  moves to ``ready`` (an exact reduction that merges otherwise identical states);
  :func:`is_dead` tells which further copies of it are no-ops on receipt.

States are immutable and hashable; every function is pure.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from functools import cached_property

Payload = Hashable
Key = tuple[str, Payload]
"""A broadcast message is identified by its origin and payload, ``(s, m)``."""


@dataclass(frozen=True)
class Data:
    """The network message ``[DATA, s, m]``."""

    origin: str
    payload: Payload

    @cached_property
    def _hash(self) -> int:
        return hash((self.origin, self.payload))

    def __hash__(self) -> int:  # cached: states are hashed many times by explorers
        return self._hash

    @property
    def key(self) -> Key:
        return (self.origin, self.payload)


@dataclass(frozen=True)
class UrbState:
    """``pending`` (the messages seen), ``acks`` (who relayed each message that a
    majority has not yet acknowledged, as sorted pairs), ``ready`` (acknowledged by a
    majority, not yet delivered: ``candeliver``), ``delivered``."""

    pending: frozenset[Key] = frozenset()
    acks: tuple[tuple[Key, frozenset[str]], ...] = ()
    ready: frozenset[Key] = frozenset()
    delivered: frozenset[Key] = frozenset()

    @cached_property
    def _hash(self) -> int:
        return hash((self.pending, self.acks, self.ready, self.delivered))

    def __hash__(self) -> int:  # cached: states are hashed many times by explorers
        return self._hash

    def ack_set(self, key: Key) -> frozenset[str]:
        for k, s in self.acks:
            if k == key:
                return s
        return frozenset()


Sends = tuple[tuple[str, Data], ...]
"""Messages to put on the network: ``(destination, message)`` in destination order."""


def _add_ack(state: UrbState, key: Key, who: str, n: int) -> UrbState:
    if key in state.delivered or key in state.ready:  # reduction: acks are irrelevant now
        return state
    acks = dict(state.acks)
    s = acks.get(key, frozenset()) | {who}
    if 2 * len(s) > n:  # candeliver(m)
        acks.pop(key, None)
        return UrbState(state.pending, tuple(sorted(acks.items(), key=repr)), state.ready | {key},
                        state.delivered)
    acks[key] = s
    return UrbState(state.pending, tuple(sorted(acks.items(), key=repr)), state.ready, state.delivered)


def _beb(self_: str, processes: Sequence[str], msg: Data, state: UrbState) -> tuple[UrbState, Sends]:
    """beb-Broadcast: the copy to ``self_`` is beb-delivered at once (an acknowledgement
    by ``self_``), the others go on the network."""
    state = _add_ack(state, msg.key, self_, len(processes))
    return state, tuple((q, msg) for q in processes if q != self_)


def broadcast(state: UrbState, self_: str, processes: Sequence[str], payload: Payload
              ) -> tuple[UrbState, Sends]:
    """``upon urb-Broadcast(m)``."""
    msg = Data(self_, payload)
    state = UrbState(state.pending | {msg.key}, state.acks, state.ready, state.delivered)
    return _beb(self_, processes, msg, state)


def receive(state: UrbState, self_: str, processes: Sequence[str], src: str, msg: Data
            ) -> tuple[UrbState, Sends]:
    """``upon beb-Deliver(src, [DATA, s, m])``: acknowledge ``src``; relay the first time."""
    state = _add_ack(state, msg.key, src, len(processes))
    if msg.key in state.pending:
        return state, ()
    state = UrbState(state.pending | {msg.key}, state.acks, state.ready, state.delivered)
    return _beb(self_, processes, msg, state)


def is_dead(state: UrbState, key: Key) -> bool:
    """Whether receiving one more copy of ``key`` is a no-op: it was already relayed
    (``key ∈ pending``) and a majority already acknowledged it.  Such a copy can be
    discarded from the network without changing any behaviour (its receipt, or its
    loss, would change nothing but the channel)."""
    return key in state.ready or key in state.delivered


def deliverable(state: UrbState) -> tuple[Key, ...]:
    """The messages the ``candeliver`` rule may deliver now (``#ack > N/2``, in
    ``pending``, not delivered), sorted."""
    return tuple(sorted(state.ready, key=repr))


def deliver(state: UrbState, key: Key) -> UrbState:
    """The ``candeliver`` rule fires for ``key``: record it delivered (the caller hands
    ``(s, m)`` to the layer above)."""
    if key not in state.ready:
        raise ValueError(f"{key!r} cannot be delivered")
    return UrbState(state.pending, state.acks, state.ready - {key}, state.delivered | {key})
