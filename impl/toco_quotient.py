"""The protocol level as the explorer drives it (:class:`ProtocolSystem`): the
dead-clock quotient (:mod:`fisheye.impl.dead_clock`), the stubborn-set transition model
(:mod:`fisheye.impl.protocol_por`) and the compact codec
(:mod:`fisheye.impl.protocol_codec`) of a :class:`fisheye.impl.system.TocoSystem`."""

from __future__ import annotations

from typing import Any

from fisheye.impl.dead_clock import SATURATED, DeadClockSystem
from fisheye.impl.protocol_codec import ProtocolCodec
from fisheye.impl.protocol_por import ProtocolPor

__all__ = ["SATURATED", "DeadClockSystem", "ProtocolCodec", "ProtocolPor", "ProtocolSystem"]


class ProtocolSystem(DeadClockSystem, ProtocolPor):
    """The protocol level as the explorer drives it: the dead-clock quotient of a
    :class:`fisheye.impl.system.TocoSystem`, with the stubborn-set transition model when
    channels are FIFO (with unordered channels, the process-level reduction is used)."""

    def __init__(self, raw: Any):
        DeadClockSystem.__init__(self, raw)
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
            self._codec = ProtocolCodec(self.raw)
        return self._codec

    def compiled_kernel(self, *, reduction: str, prune: bool) -> Any:
        """The compiled kernel of this system (:mod:`fisheye.impl.protocol_kernel`, the
        :class:`fisheye.impl.kernel_api.HasCompiledKernel` capability): for the stubborn
        sets over FIFO channels; None otherwise.  Imports numba on first use."""
        if reduction != "stubborn" or not self.por_supported:
            return None
        k = self._kernels.get(prune)
        if k is None:
            from fisheye.impl.protocol_kernel import ProtocolKernel

            k = self._kernels[prune] = ProtocolKernel(self, prune=prune)
        return k
