"""Canonical byte encodings of states, and the one 64-bit fingerprint.

Every engine (the local search, the Spark search, the research scripts) stores and
compares states as *bytes*:

* a :class:`StateCodec` turns a state into bytes and back.  Its guarantee: for states of
  one system, ``encode(a) == encode(b)`` if and only if ``a == b``, and
  ``decode(encode(s)) == s``.  The bytes are the same in every process, every run and
  every machine (no salted ``hash``, no object identities, no pickle memo);
* :func:`fingerprint` is BLAKE2b with an 8-byte digest of those bytes, read little-endian:
  a 64-bit integer, stable everywhere.

A system may declare its own, compact codec (:class:`CodecProvider`: a method
``state_codec()``; the protocol level's is
:class:`fisheye.impl.protocol_codec.ProtocolCodec`, about one byte per small integer of the
state).  Any other system gets :class:`TaggedCodec`, a self-describing encoding of trees of
tuples, named tuples, frozen dataclasses, frozensets, enums and scalars.
"""

from __future__ import annotations

import hashlib
import importlib
from collections.abc import Callable
from enum import Enum
from typing import Any, Protocol, runtime_checkable

FINGERPRINT_BITS = 64


def fingerprint(data: bytes) -> int:
    """The 64-bit fingerprint of an encoded state: BLAKE2b (8-byte digest), little-endian."""
    return int.from_bytes(hashlib.blake2b(data, digest_size=8).digest(), "little")


def collision_probability(states: int, bits: int = FINGERPRINT_BITS) -> float:
    """Birthday bound on the probability that two of ``states`` distinct states share a
    fingerprint (TLC's "calculated" probability): n(n-1) / 2^(bits+1)."""
    return min(1.0, states * (states - 1) / 2.0 ** (bits + 1))


@runtime_checkable
class StateCodec(Protocol):
    """Canonical, invertible bytes of a system's states (see the module doc)."""

    def encode(self, state: Any) -> bytes: ...

    def decode(self, data: bytes) -> Any: ...


@runtime_checkable
class CodecProvider(Protocol):
    """A system that knows a compact codec for its own states."""

    def state_codec(self) -> StateCodec: ...


def codec_of(system: Any) -> StateCodec:
    """The system's own codec if it declares one; else :class:`ComponentCodec` when its
    initial state is a named tuple of tuples (a global state: processes, channels), else
    :class:`TaggedCodec`."""
    if isinstance(system, CodecProvider):
        return system.state_codec()
    s0 = system.initial()
    if isinstance(s0, tuple) and hasattr(s0, "_fields") and all(type(f) is tuple for f in s0):
        return ComponentCodec(type(s0))
    return TaggedCodec()


# ---- the generic codec ----------------------------------------------------------------------
# Tags: N None, T True, F False, i int, s str, f float, b bytes, ( tuple, [ list,
# { frozenset (members sorted by their bytes), n named tuple, d dataclass, e enum.
# Classes are named by module and qualified name (the same on every machine).

def _lenb(k: int) -> bytes:
    return k.to_bytes(4, "little")


def _classname(cls: type) -> bytes:
    b = f"{cls.__module__}:{cls.__qualname__}".encode()
    return len(b).to_bytes(2, "little") + b


def _enc(x: Any, out: bytearray) -> None:
    if x is None:
        out += b"N"
    elif x is True:
        out += b"T"
    elif x is False:
        out += b"F"
    elif type(x) is int:
        b = str(x).encode()
        out += b"i" + len(b).to_bytes(2, "little") + b
    elif type(x) is str:
        b = x.encode()
        out += b"s" + _lenb(len(b)) + b
    elif type(x) is float:
        b = repr(x).encode()
        out += b"f" + len(b).to_bytes(2, "little") + b
    elif type(x) is bytes:
        out += b"b" + _lenb(len(x)) + x
    elif type(x) is tuple:
        out += b"(" + _lenb(len(x))
        for v in x:
            _enc(v, out)
    elif isinstance(x, Enum):
        out += b"e" + _classname(type(x))
        _enc(x.value, out)
    elif isinstance(x, tuple) and hasattr(x, "_fields"):
        out += b"n" + _classname(type(x)) + _lenb(len(x))
        for v in x:
            _enc(v, out)
    elif type(x) is list:
        out += b"[" + _lenb(len(x))
        for v in x:
            _enc(v, out)
    elif isinstance(x, frozenset):
        parts = []
        for v in x:
            b = bytearray()
            _enc(v, b)
            parts.append(bytes(b))
        out += b"{" + _lenb(len(parts))
        for b in sorted(parts):
            out += b
    elif hasattr(x, "__dataclass_fields__"):
        names = tuple(x.__dataclass_fields__)
        out += b"d" + _classname(type(x)) + _lenb(len(names))
        for f in names:
            _enc(getattr(x, f), out)
    else:
        raise TypeError(f"cannot encode a {type(x).__name__}")


_CLASSES: dict[bytes, type] = {}


def _cls(name: bytes) -> type:
    c = _CLASSES.get(name)
    if c is None:
        mod, _, qual = name.decode().partition(":")
        obj: Any = importlib.import_module(mod)
        for part in qual.split("."):
            obj = getattr(obj, part)
        c = _CLASSES[name] = obj
    return c


def _dec(b: bytes, k: int) -> tuple[Any, int]:
    t = b[k:k + 1]
    k += 1
    if t == b"N":
        return None, k
    if t == b"T":
        return True, k
    if t == b"F":
        return False, k
    if t in (b"i", b"f"):
        m = int.from_bytes(b[k:k + 2], "little")
        s = b[k + 2:k + 2 + m]
        return (int(s) if t == b"i" else float(s)), k + 2 + m
    if t in (b"s", b"b"):
        m = int.from_bytes(b[k:k + 4], "little")
        raw = b[k + 4:k + 4 + m]
        return (raw.decode() if t == b"s" else bytes(raw)), k + 4 + m
    if t in (b"(", b"[", b"{"):
        m = int.from_bytes(b[k:k + 4], "little")
        k += 4
        items = []
        for _ in range(m):
            v, k = _dec(b, k)
            items.append(v)
        return (tuple(items) if t == b"(" else items if t == b"[" else frozenset(items)), k
    if t in (b"n", b"d", b"e"):
        m = int.from_bytes(b[k:k + 2], "little")
        cls = _cls(bytes(b[k + 2:k + 2 + m]))
        k += 2 + m
        if t == b"e":
            v, k = _dec(b, k)
            return cls(v), k
        m = int.from_bytes(b[k:k + 4], "little")
        k += 4
        items = []
        for _ in range(m):
            v, k = _dec(b, k)
            items.append(v)
        return cls(*items), k
    raise ValueError(f"bad state encoding at byte {k - 1}")


class TaggedCodec:
    """A self-describing canonical encoding for any state built of tuples, lists, named
    tuples, frozen dataclasses (fields in declaration order, rebuilt positionally),
    frozensets (members sorted by their bytes), enums, ints, strings, floats, bytes,
    booleans and None.  Booleans are tagged apart from integers, so ``True`` and ``1``
    encode differently (a system's state should not mix them in one position)."""

    def encode(self, state: Any) -> bytes:
        out = bytearray()
        _enc(state, out)
        return bytes(out)

    def decode(self, data: bytes) -> Any:
        v, k = _dec(data, 0)
        if k != len(data):
            raise ValueError("trailing bytes in a state encoding")
        return v


class ComponentCodec:
    """:class:`TaggedCodec` per component for states that are a named tuple ``cls`` of
    tuples (``GlobalState(procs, channels)``): a successor shares all but a few
    components with its parent, so each component's bytes are memoised by identity when
    encoding and by value when decoding (bounded caches, not pickled), and decoding
    returns shared component objects that the next encoding recognises.

    Layout: ``0x01``, the number of fields, then per field its length and per component
    its byte length and its :class:`TaggedCodec` bytes.  A state of another shape is
    ``0x00`` and its :class:`TaggedCodec` bytes, so every state has exactly one
    encoding."""

    CACHE = 1 << 18

    def __init__(self, cls: type):
        self.cls = cls
        self._reset()

    def _reset(self) -> None:
        self._enc: dict[int, tuple[Any, bytes]] = {}
        self._dec: dict[bytes, Any] = {}

    def __getstate__(self) -> dict[str, Any]:
        return {"cls": self.cls}

    def __setstate__(self, d: dict[str, Any]) -> None:
        self.cls = d["cls"]
        self._reset()

    def _component(self, x: Any) -> bytes:
        e = self._enc.get(id(x))
        if e is not None and e[0] is x:
            return e[1]
        out = bytearray()
        _enc(x, out)
        b = bytes(out)
        if len(self._enc) >= self.CACHE:
            self._enc.clear()
        self._enc[id(x)] = (x, b)
        return b

    def encode(self, state: Any) -> bytes:
        if type(state) is not self.cls or not all(type(f) is tuple for f in state):
            return b"\x00" + TaggedCodec().encode(state)
        out = [b"\x01", _lenb(len(state))]
        comp = self._component
        for f in state:
            out.append(_lenb(len(f)))
            for x in f:
                b = comp(x)
                out.append(_lenb(len(b)))
                out.append(b)
        return b"".join(out)

    def decode(self, data: bytes) -> Any:
        if data[:1] == b"\x00":
            return TaggedCodec().decode(data[1:])
        if data[:1] != b"\x01":
            raise ValueError("not a component encoding")
        k = 1
        nf = int.from_bytes(data[k:k + 4], "little")
        k += 4
        dec = self._dec
        fields = []
        for _ in range(nf):
            m = int.from_bytes(data[k:k + 4], "little")
            k += 4
            items = []
            for _ in range(m):
                ln = int.from_bytes(data[k:k + 4], "little")
                b = data[k + 4:k + 4 + ln]
                k += 4 + ln
                x = dec.get(b)
                if x is None:
                    v, end = _dec(b, 0)
                    if end != len(b):
                        raise ValueError("trailing bytes in a component encoding")
                    if len(dec) >= self.CACHE:
                        dec.clear()
                    x = dec[b] = v
                    if len(self._enc) < self.CACHE:
                        self._enc[id(x)] = (x, bytes(b))
                items.append(x)
            fields.append(tuple(items))
        if k != len(data):
            raise ValueError("trailing bytes in a state encoding")
        return self.cls(*fields)


def encode(state: Any) -> bytes:
    """The generic canonical encoding (:class:`TaggedCodec`) of any value."""
    return TaggedCodec().encode(state)


Encoder = Callable[[Any], bytes]
