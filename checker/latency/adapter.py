"""What the simulator observes of a system, through the system contract of
:mod:`fisheye.impl.api` only (no system's private fields).

A timed simulation needs two facts about each step besides the step API:

1. **the messages in transit per channel, and those the step sent**
   (:class:`fisheye.impl.api.HasChannels`: ``in_transit(state)``, and
   :func:`fisheye.impl.api.step_sends`): each sent message gets a send time and an
   arrival time, and the messages still in transit keep theirs;
2. **the writes a step completes**: Algorithm 2's write returns when its own WRITE
   message is delivered at its writer (line 11 of Algorithm 2).  The simulator sees it
   through ``enabled`` (the writer's next operation becomes enabled); for a process's
   last operation, which has no next one, through the writer's delivery log (the step
   API's recorder ``delivery_logs``, :func:`own_deliveries`).
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping
from typing import Any

from fisheye.impl.api import HasChannels, step_sends

Channel = tuple[str, str]


class UnsupportedSystem(TypeError):
    """A system whose messages in transit the simulator cannot see."""


def require_channels(system: Any) -> HasChannels:
    if not isinstance(system, HasChannels):
        raise UnsupportedSystem(f"{type(system).__name__} does not show its messages in transit "
                                "(HasChannels), so it cannot be simulated in time")
    return system


def in_transit(system: HasChannels, state: Any) -> Mapping[Channel, tuple[Hashable, ...]]:
    """The messages in transit per non-empty channel ``(src, dst)``, in sending order."""
    return system.in_transit(state)


def sent_by(system: HasChannels, before: Any, after: Any) -> dict[Channel, tuple[Hashable, ...]]:
    """The messages the step from ``before`` to ``after`` appended to each channel."""
    return step_sends(system, before, after)


def _delivered_sender(event: Any) -> str | None:
    """The sender of a delivery event of either recorder format (``Event(kind, MsgId)``
    of the G-fisheye broadcast's logs, ``("deliver", sender, m)`` of the localized
    broadcast's), or None for another event."""
    if not event or event[0] != "deliver":
        return None
    who = event[1]
    return who if isinstance(who, str) else who.sender


def own_deliveries(system: Any, state: Any, process: str) -> int:
    """How many of ``process``'s own broadcasts ``process`` has delivered in ``state``."""
    log = system.delivery_logs(state).get(process, ())
    return sum(1 for e in log if _delivered_sender(e) == process)
