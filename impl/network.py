"""The network: one reliable channel per ordered pair of processes, its contents part of
the global state (issue 4, item 2).

Channels are a tuple indexed by ``src * n + dst``; each channel is a tuple of protocol
messages (:data:`fisheye.impl.toco.Wire`).

* ``fifo`` (the papers' assumption, section 4.2): a channel is a queue; only its head
  can be received.
* ``unordered``: a channel is a multiset, kept as a sorted tuple (a canonical form);
  any message in it can be received.  The message is named in the step's ``detail`` by
  :func:`wire_id` (``("TOCOBC", seq)`` or ``("CATCH_UP", date)``), which is
  unique within a channel: TOCOBC messages are unique, and a process's successive
  clock values (hence CATCH_UP dates) strictly increase (Lemma 2, Proposition 2).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from .api import Network
from .toco import TOCOBC, Wire

Channels = tuple[tuple[Wire, ...], ...]


def empty_channels(n: int) -> Channels:
    return ((),) * (n * n)


def wire_id(w: Wire) -> tuple[Any, ...]:
    """A short, deterministic, JSON-able name of a protocol message within a channel."""
    kind, body = w
    if kind == TOCOBC:
        return (TOCOBC, body.seq)  # the sender is the channel's source
    return (kind, body)


def _sort_key(w: Wire) -> tuple[Any, ...]:
    return wire_id(w)


def send_all(channels: Channels, n: int, src: int, sends: Iterable[tuple[int, Wire]],
             network: Network) -> Channels:
    """Append each ``(dst, wire)`` to channel ``src -> dst``."""
    sends = tuple(sends)
    if not sends:
        return channels
    ch = list(channels)
    for dst, w in sends:
        idx = src * n + dst
        if network is Network.FIFO:
            ch[idx] = ch[idx] + (w,)
        else:
            ch[idx] = tuple(sorted(ch[idx] + (w,), key=_sort_key))
    return tuple(ch)


def receivable(channels: Channels, n: int, src: int, dst: int, network: Network
               ) -> tuple[tuple[tuple[Any, ...], Wire], ...]:
    """The messages of channel ``src -> dst`` that may be received now, each with the
    step detail naming it: the head only (detail ``()``) for fifo, any for unordered."""
    c = channels[src * n + dst]
    if not c:
        return ()
    if network is Network.FIFO:
        return (((), c[0]),)
    return tuple((wire_id(w), w) for w in c)


def take(channels: Channels, n: int, src: int, dst: int, network: Network,
         detail: tuple[Any, ...]) -> tuple[Channels, Wire]:
    """Remove the message named by ``detail`` (fifo: the head) from ``src -> dst``."""
    idx = src * n + dst
    c = channels[idx]
    if not c:
        raise ValueError(f"channel {src}->{dst} is empty")
    if network is Network.FIFO:
        w, rest = c[0], c[1:]
    else:
        pos = next((k for k, w in enumerate(c) if wire_id(w) == tuple(detail)), None)
        if pos is None:
            raise ValueError(f"no message {detail} in channel {src}->{dst}")
        w, rest = c[pos], c[:pos] + c[pos + 1:]
    return channels[:idx] + (rest,) + channels[idx + 1:], w


def in_transit(channels: Channels) -> int:
    return sum(len(c) for c in channels)
