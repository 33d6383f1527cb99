"""The protocol level's compact canonical byte encoding of states
(:class:`ProtocolCodec`)."""

from __future__ import annotations

from typing import Any

from fisheye.impl.toco import CATCH_UP, TOCOBC


class ProtocolCodec:
    """A compact, canonical, invertible byte encoding of the protocol level's states
    (``GlobalState`` of :class:`fisheye.impl.system.TocoSystem`).

    Layout: one *segment* per process (``ProcState``), then one per channel, in index
    order.  A segment is a length header (one byte below 255, else ``0xff`` and four
    bytes) and a body: ``0x00`` then the part flattened into small integers, one byte
    each (``0x01`` and four bytes each if one exceeds 255); an empty channel is the
    header 0 alone.  What is not stored is known statically: a message's payload is the
    ``seq``-th write of its sender's program (Algorithm 2, line 2), a TOCOBC's sender is
    its channel's source, register values are indices into the program's value table.
    With a broadcast monitor (``monitor``, :class:`fisheye.impl.broadcast_monitor.MonitorSpec`)
    the logs are empty and one last segment holds the monitor's state.

    Equal states give equal bytes and ``decode(encode(s)) == s``.  Segments repeat
    across states, so both directions are memoised per segment (bounded caches that are
    not pickled): decoding returns shared objects, which the next encoding recognises
    by identity."""

    CACHE = 1 << 18

    def __init__(self, raw: Any, monitor: Any = None):
        from fisheye.impl.programs import Write
        from fisheye.impl.protocol_state import GlobalState, MonitoredState, ProcState
        from fisheye.impl.registers import RegState
        from fisheye.impl.toco import Msg, TocoState

        self._types = (GlobalState, ProcState, TocoState, RegState, Msg)
        self._monitored = MonitoredState
        self.n = n = len(raw.processes)
        ops = raw.program.ops
        self.payloads = tuple(tuple((op.register, op.value) for op in o if isinstance(op, Write))
                              for o in ops)
        values: list[Any] = list(raw.initial().procs[0].reg.copies) if n else []
        for o in ops:
            for op in o:
                if hasattr(op, "value"):
                    values.append(op.value)
        table: list[Any] = []
        for v in values:
            if not any(type(v) is type(w) and v == w for w in table):
                table.append(v)
        if len(set(table)) != len(table):
            raise ValueError("values equal across types (e.g. 1 and True): no compact codec")
        self.values = tuple(table)
        self.vidx = {v: k for k, v in enumerate(table)}
        self.R = len(raw.registers)
        self.monitor = monitor
        self._reset()

    def _reset(self) -> None:
        self._ref: tuple[Any, ...] | None = None   # the last decoded state's parts and segments
        self._penc: dict[int, tuple[Any, bytes]] = {}
        self._parts: dict[int, tuple[Any, tuple[int, ...]]] = {}
        self._cenc: dict[int, tuple[Any, bytes]] = {}
        self._pdec: dict[bytes, Any] = {}
        self._cdec: list[dict[bytes, Any]] = [{} for _ in range(self.n)]
        self._menc: list[Any] = [None, b""]     # the last monitor state encoded, and its segment

    def __getstate__(self) -> dict[str, Any]:
        d = {k: v for k, v in self.__dict__.items() if k not in ("_penc", "_cenc", "_pdec", "_cdec", "_ref",
                                                          "_parts", "_menc")}
        return d

    def __setstate__(self, d: dict[str, Any]) -> None:
        self.__dict__.update(d)
        self._reset()

    # ---- encode ----------------------------------------------------------------------------
    @staticmethod
    def _segment(flat: list[int]) -> bytes:
        try:
            body = b"\x00" + bytes(flat)
        except ValueError:
            from array import array

            body = b"\x01" + array("I", flat).tobytes()
        k = len(body)
        return (bytes((k,)) if k < 255 else b"\xff" + k.to_bytes(4, "little")) + body

    def _proc(self, ps: Any) -> bytes:
        e = self._penc.get(id(ps))
        if e is not None and e[0] is ps:
            return e[1]
        t = ps.toco
        f = [*t.causal, *t.total, t.sent]
        f += self._part(t.pending, self._flat_pending)
        f += self._part(ps.reg, self._flat_reg)
        f += self._part(ps.log, self._flat_log)
        b = self._segment(f)
        if len(self._penc) >= self.CACHE:
            self._penc.clear()
        self._penc[id(ps)] = (ps, b)
        return b

    def _part(self, obj: Any, flat: Any) -> tuple[int, ...]:
        """``flat(obj)``, memoised by identity: a successor shares most parts of a
        process's state (its pending set, Algorithm 2 state, log) with its parent."""
        e = self._parts.get(id(obj))
        if e is not None and e[0] is obj:
            return e[1]
        r = flat(obj)
        if len(self._parts) >= self.CACHE:
            self._parts.clear()
        self._parts[id(obj)] = (obj, r)
        return r

    @staticmethod
    def _flat_pending(pending: tuple[Any, ...]) -> tuple[int, ...]:
        f = [len(pending)]
        for m in pending:
            f.append(m.sender)
            f.append(m.seq)
            f += m.caus
            f.append(m.tot)
        return tuple(f)

    def _flat_reg(self, r: Any) -> tuple[int, ...]:
        vidx = self.vidx
        return (r.pc, 1 if r.waiting else 0, *[vidx[v] for v in r.copies], len(r.results),
                *[vidx[v] for v in r.results])

    @staticmethod
    def _flat_log(log: tuple[Any, ...]) -> tuple[int, ...]:
        f = [len(log)]
        for ev in log:
            f += ev
        return tuple(f)

    def _chan(self, c: tuple[Any, ...]) -> bytes:
        if not c:
            return b"\x00"
        e = self._cenc.get(id(c))
        if e is not None and e[0] is c:
            return e[1]
        f = [len(c)]
        for kind, body in c:
            if kind == TOCOBC:
                f.append(0)
                f.append(body.seq)
                f += body.caus
                f.append(body.tot)
            else:
                f.append(1)
                f.append(body)
        b = self._segment(f)
        if len(self._cenc) >= self.CACHE:
            self._cenc.clear()
        self._cenc[id(c)] = (c, b)
        return b

    def encode(self, state: Any) -> bytes:
        """The state's bytes.  The segments of the parts a state shares (by identity)
        with the last decoded state -- a successor shares all but the stepping process
        and the channels it touched -- are that state's, sliced at decoding."""
        procs, chans = state.procs, state.channels
        ref = self._ref
        if ref is None:
            proc, chan = self._proc, self._chan
            out = [*map(proc, procs), *map(chan, chans)]
        else:
            rp, rc, segs = ref
            proc, chan = self._proc, self._chan
            n = self.n
            out = [segs[k] if ps is rp[k] else proc(ps) for k, ps in enumerate(procs)]
            out += [segs[n + k] if c is rc[k] else chan(c) for k, c in enumerate(chans)]
        if self.monitor is not None:
            out.append(self._mon(state.monitor))
        return b"".join(out)

    def _mon(self, st: Any) -> bytes:
        last = self._menc
        if last[0] is not st:
            flat = st.flat()
            if max(flat, default=0) >= 1 << 32:
                raise ValueError("a broadcast monitor over more than 32 messages has no compact encoding")
            last[0], last[1] = st, self._segment(list(flat))
        return last[1]

    # ---- decode ----------------------------------------------------------------------------
    @staticmethod
    def _ints(body: bytes) -> Any:
        if body[0] == 0:
            return iter(body[1:])
        from array import array

        a = array("I")
        a.frombytes(body[1:])
        return iter(a)

    def _dec_proc(self, body: bytes) -> Any:
        _, ProcState, TocoState, RegState, Msg = self._types
        n, values, payloads = self.n, self.values, self.payloads
        nxt = self._ints(body).__next__
        causal = tuple(nxt() for _ in range(n))
        total = tuple(nxt() for _ in range(n))
        sent = nxt()
        pend = []
        for _ in range(nxt()):
            s, q = nxt(), nxt()
            caus = tuple(nxt() for _ in range(n))
            pend.append(Msg(s, q, caus, nxt(), payloads[s][q]))
        pc = nxt()
        waiting = nxt() == 1
        copies = tuple(values[nxt()] for _ in range(self.R))
        results = tuple(values[nxt()] for _ in range(nxt()))
        log = tuple((nxt(), nxt(), nxt()) for _ in range(nxt()))
        return ProcState(TocoState(causal, total, tuple(pend), sent),
                         RegState(pc, waiting, copies, results), log)

    def _dec_chan(self, src: int, body: bytes) -> tuple[Any, ...]:
        Msg = self._types[4]
        n, payloads = self.n, self.payloads
        nxt = self._ints(body).__next__
        c: list[Any] = []
        for _ in range(nxt()):
            if nxt() == 0:
                q = nxt()
                caus = tuple(nxt() for _ in range(n))
                c.append((TOCOBC, Msg(src, q, caus, nxt(), payloads[src][q])))
            else:
                c.append((CATCH_UP, nxt()))
        return tuple(c)

    def decode(self, data: bytes) -> Any:
        n = self.n
        pos = 0
        procs = []
        segs = []
        pdec = self._pdec
        for _ in range(n):
            start = pos
            seg, pos = _segment(data, pos)
            segs.append(data[start:pos])
            ps = pdec.get(seg)
            if ps is None:
                if len(pdec) >= self.CACHE:
                    pdec.clear()
                ps = pdec[seg] = self._dec_proc(seg)
            procs.append(ps)
        chans: list[Any] = []
        empty: tuple[Any, ...] = ()
        for idx in range(n * n):
            k = data[pos]
            if k == 0:
                pos += 1
                chans.append(empty)
                segs.append(b"\x00")
                continue
            start = pos
            seg, pos = _segment(data, pos)
            segs.append(data[start:pos])
            cd = self._cdec[idx // n]
            c = cd.get(seg)
            if c is None:
                if len(cd) >= self.CACHE:
                    cd.clear()
                c = cd[seg] = self._dec_chan(idx // n, seg)
            chans.append(c)
        monitor = None
        if self.monitor is not None:
            seg, pos = _segment(data, pos)
            monitor = self.monitor.unflat(tuple(self._ints(seg)))
        if pos != len(data):
            raise ValueError("trailing bytes in a state encoding")
        tp, tc = tuple(procs), tuple(chans)
        self._ref = (tp, tc, segs)
        return self._types[0](tp, tc) if monitor is None else self._monitored(tp, tc, monitor)


def _segment(data: bytes, pos: int) -> tuple[bytes, int]:
    """The length-prefixed segment at ``pos`` (one length byte, or 255 and four
    little-endian bytes) and the position after it."""
    k = data[pos]
    if k == 255:
        k = int.from_bytes(data[pos + 1:pos + 5], "little")
        pos += 4
    return data[pos + 1:pos + 1 + k], pos + 1 + k
