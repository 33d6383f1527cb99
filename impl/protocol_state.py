"""The global state of Algorithms 1+2 over an explicit network (section 4: Algorithm 1's
broadcast, Algorithm 2's registers): one ProcState per process (its Algorithm 1 state,
its Algorithm 2 register copies and its delivery log) and the channels in transit; with
broadcast monitors (:mod:`fisheye.impl.broadcast_monitor`), a MonitoredState: the logs
are empty and the monitor's state stands for them.
Kept apart from the system's transitions so that the codec, the compiled kernel and the
system all read the same types without importing one another."""

from __future__ import annotations

from typing import NamedTuple

from . import network as net
from . import registers
from .broadcast_monitor import MonitorState
from .toco import TocoState


class ProcState(NamedTuple):
    toco: TocoState
    reg: registers.RegState
    log: tuple[tuple[int, int, int], ...]


class GlobalState(NamedTuple):
    procs: tuple[ProcState, ...]
    channels: net.Channels


class MonitoredState(NamedTuple):
    """A global state whose logs are empty, with the broadcast monitor's state."""

    procs: tuple[ProcState, ...]
    channels: net.Channels
    monitor: MonitorState
