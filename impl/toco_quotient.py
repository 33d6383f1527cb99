"""The protocol level as the explorer drives it (:class:`ProtocolSystem`): the
dead-clock quotient (:mod:`fisheye.impl.dead_clock`), the stubborn-set transition model
(:mod:`fisheye.impl.protocol_por`) and the compact codec
(:mod:`fisheye.impl.protocol_codec`) of a :class:`fisheye.impl.system.TocoSystem`; with
``monitors``, the delivery logs replaced by the broadcast monitor's state
(:mod:`fisheye.impl.broadcast_monitor`, docs/por.md section 4.4)."""

from __future__ import annotations

from typing import Any

from fisheye.impl.api import Property, Step
from fisheye.impl.broadcast_monitor import MonitorState
from fisheye.impl.dead_clock import SATURATED, DeadClockSystem
from fisheye.impl.protocol_codec import ProtocolCodec
from fisheye.impl.protocol_por import ProtocolPor
from fisheye.impl.protocol_state import MonitoredState

__all__ = ["SATURATED", "DeadClockSystem", "ProtocolCodec", "ProtocolPor", "ProtocolSystem"]


class ProtocolSystem(DeadClockSystem, ProtocolPor):
    """The protocol level as the explorer drives it: the dead-clock quotient of a
    :class:`fisheye.impl.system.TocoSystem`, with the stubborn-set transition model when
    channels are FIFO (with unordered channels, the process-level reduction is used).

    ``monitors``: the states keep no delivery log; the broadcast's judgement is the
    monitor's (:attr:`monitor`, :meth:`broadcast_violations`), folded in at each step
    from the one event the raw step logs.  A state is then the image of the full state
    under the map "logs -> monitor state" (docs/por.md): runs that differ only in
    already-judged history merge."""

    def __init__(self, raw: Any, *, monitors: bool = False):
        DeadClockSystem.__init__(self, raw)
        self.monitor = raw.monitor_spec() if monitors else None
        self._por_init(raw)
        self._fcache: list[Any] = [None, None]
        self._pp_cache: dict[int, tuple[Any, tuple[Any, ...]]] = {}
        self.por_supported = raw.network.value == "fifo"
        self._codec: ProtocolCodec | None = None
        self._kernels: dict[bool, Any] = {}

    def __getstate__(self) -> dict[str, Any]:
        d = dict(self.__dict__)
        d["_fcache"], d["_pp_cache"], d["_dc_cache"], d["_dv_memo"] = [None, None], {}, {}, {}
        d["_dv_last"] = [None, None, None, None]
        d["_kernels"] = {}
        return d

    def state_codec(self) -> ProtocolCodec:
        """The compact canonical byte encoding of this system's states."""
        if self._codec is None:
            self._codec = ProtocolCodec(self.raw, self.monitor)
        return self._codec

    # ---- broadcast monitors -------------------------------------------------------------
    def initial(self) -> Any:
        s = DeadClockSystem.initial(self)
        return s if self.monitor is None else MonitoredState(s.procs, s.channels, self.monitor.initial())

    def apply(self, state: Any, step: Step) -> Any:
        child = DeadClockSystem.apply(self, state, step)
        if self.monitor is None:
            return child
        return self.fold_event(child, self._pindex[step.process], state.monitor)

    def fold_event(self, child: Any, i: int, monitor: MonitorState) -> Any:
        """``child`` (a raw successor, p_i's log holding the one event of its step, or
        none) with that event folded into ``monitor`` and the log emptied."""
        ps = child.procs[i]
        if not ps.log:
            return MonitoredState(child.procs, child.channels, monitor)
        ((kind, sender, seq),) = ps.log
        spec = self.monitor
        assert spec is not None
        g = spec.first[sender] + seq
        monitor = spec.on_deliver(monitor, i, g) if kind else spec.on_broadcast(monitor, g)
        procs = child.procs
        return MonitoredState(procs[:i] + (ps._replace(log=()),) + procs[i + 1:], child.channels, monitor)

    def broadcast_violations(self, state: Any, *, complete: bool | None = None) -> Any:
        if self.monitor is None:
            return self.raw.broadcast_violations(state, complete=complete)
        if complete is None:
            complete = self.is_final(state)
        return self.monitor.violations(state.monitor, complete=complete)

    def delivery_logs(self, state: Any) -> Any:
        if self.monitor is not None:
            raise ValueError("a state explored with broadcast monitors keeps no delivery log: replay its "
                             "schedule on the system itself")
        return self.raw.delivery_logs(state)

    def properties(self) -> tuple[Property, ...]:
        return self.raw.properties_judged_by(self)

    def compiled_kernel(self, *, reduction: str, prune: bool) -> Any:
        """The compiled kernel of this system (:mod:`fisheye.impl.protocol_kernel`, the
        :class:`fisheye.impl.kernel_api.HasCompiledKernel` capability): for the stubborn
        sets over FIFO channels (with monitors, over at most
        :data:`~fisheye.impl.protocol_kernel.MONITOR_MESSAGES` messages); None otherwise.
        Imports numba on first use."""
        if reduction != "stubborn" or not self.por_supported:
            return None
        k = self._kernels.get(prune)
        if k is None:
            from fisheye.impl.protocol_kernel import MONITOR_MESSAGES, ProtocolKernel

            if self.monitor is not None and len(self.monitor.messages) > MONITOR_MESSAGES:
                return None
            k = self._kernels[prune] = ProtocolKernel(self, prune=prune)
        return k
