"""The network: one reliable channel per ordered pair of processes, its contents part of
the global state; the same for every system (section 4.2 of the paper: "the channels
are FIFO"; unordered channels are the named alternative, :class:`~.api.Network`).

Channels are a tuple indexed by ``src * n + dst``; each channel is a tuple of messages
(any hashable values).

* ``fifo``: a channel is a queue; only its head can be received.
* ``unordered``: a channel is a multiset, kept as a tuple sorted by the messages'
  names (a canonical form); any message in it can be received, named in the receipt
  step's ``detail`` by the protocol's ``name`` function (short, JSON-able, and unique
  within a channel).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable
from typing import Any

from .api import Network

Channels = tuple[tuple[Any, ...], ...]
MessageName = Callable[[Any], tuple[Any, ...]]


def empty_channels(n: int) -> Channels:
    return ((),) * (n * n)


def send_all(channels: Channels, n: int, src: int, sends: Iterable[tuple[int, Hashable]],
             network: Network, name: MessageName, order: Callable[[Any], Any] | None = None) -> Channels:
    """Append each ``(dst, message)`` to channel ``src -> dst`` (unordered: the channel
    sorted by ``order``, by default by the messages' names)."""
    sends = tuple(sends)
    if not sends:
        return channels
    ch = list(channels)
    for dst, m in sends:
        idx = src * n + dst
        if network is Network.FIFO:
            ch[idx] = ch[idx] + (m,)
        else:
            ch[idx] = tuple(sorted(ch[idx] + (m,), key=order or name))
    return tuple(ch)


def take(channels: Channels, n: int, src: int, dst: int, network: Network,
         detail: tuple[Any, ...], name: MessageName) -> tuple[Channels, Any]:
    """Remove the message named by ``detail`` (fifo: the head) from ``src -> dst``."""
    idx = src * n + dst
    c = channels[idx]
    if not c:
        raise ValueError(f"channel {src}->{dst} is empty")
    if network is Network.FIFO:
        m, rest = c[0], c[1:]
    else:
        pos = next((k for k, m in enumerate(c) if name(m) == tuple(detail)), None)
        if pos is None:
            raise ValueError(f"no message {detail} in channel {src}->{dst}")
        m, rest = c[pos], c[:pos] + c[pos + 1:]
    return channels[:idx] + (rest,) + channels[idx + 1:], m


def in_transit(channels: Channels, processes: tuple[str, ...]) -> dict[tuple[str, str], tuple[Any, ...]]:
    """The messages in transit per non-empty channel ``(src, dst)``."""
    n = len(processes)
    return {(processes[k // n], processes[k % n]): c for k, c in enumerate(channels) if c}
