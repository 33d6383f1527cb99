"""What the simulator needs to see of a system beyond the step API, in one place.

The step API (:mod:`fisheye.impl.api`) says which steps are enabled and what state a step
leads to; a timed simulation needs two more facts about each step:

1. **the messages in transit per channel** (:func:`channel_contents`): comparing them
   before and after a step tells which messages the step sent (each then gets a send time
   and an arrival time), and which it consumed;
2. **the writes a step completes** (:func:`own_deliveries`): Algorithm 2's write returns
   when its own WRITE message is delivered at its writer (line 11 of Algorithm 2), so the
   simulator counts, per step, the deliveries of the stepping process's own messages.

Until the systems document these as capabilities of their own, the two functions below
read the states of the two systems of :mod:`fisheye.impl` (Algorithms 1 and 2,
:class:`~fisheye.impl.system.TocoSystem`; the localized causal broadcast,
:class:`~fisheye.impl.lcb.LcbSystem`).  Nothing else in this package looks inside a
system's state.
"""

from __future__ import annotations

from typing import Any

from fisheye.impl.lcb import LcbSystem
from fisheye.impl.system import TocoSystem


class UnsupportedSystem(TypeError):
    """A system whose messages in transit the simulator cannot see."""


def channel_contents(system: Any, state: Any) -> tuple[tuple[Any, ...], ...]:
    """The messages in transit, one tuple per channel, channel ``src -> dst`` at index
    ``src * n + dst`` (processes numbered in the order of ``system.processes``), each in
    its channel's order (sending order for FIFO channels)."""
    if isinstance(system, TocoSystem):
        return state.channels
    if isinstance(system, LcbSystem):
        return state.chans
    raise UnsupportedSystem(f"cannot see the channels of {type(system).__name__}")


def own_deliveries(system: Any, before: Any, after: Any, process: str) -> int:
    """How many of ``process``'s own broadcasts the step from ``before`` to ``after``
    delivered at ``process`` (the delivery events its delivery log gained)."""
    if isinstance(system, TocoSystem):
        i = system.processes.index(process)
        old, new = before.procs[i].log, after.procs[i].log
        return sum(1 for kind, sender, _ in new[len(old):] if kind == 1 and sender == i)
    if isinstance(system, LcbSystem):
        i = system.ranks[process]
        old, new = before.procs[i].log, after.procs[i].log
        return sum(1 for e in new[len(old):] if e[0] == "deliver" and e[1] == process)
    raise UnsupportedSystem(f"cannot see the deliveries of {type(system).__name__}")
