"""A small, strict reader for EDN (extensible data notation), the text format of Jepsen and
Knossos histories.

Why not the ``edn-format`` package: it silently keeps the last of two equal map keys, its
``loads`` ignores every form after the first, it reports no line numbers, and it writes
parser tables into its install directory.  An import must reject what it does not fully
understand and say where, so this reader is strict and positional:

- maps keep their source line (:class:`EdnMap`); a repeated map key or set element is an
  error naming its line;
- ``nil``/``true``/``false``, integers (``N`` suffix allowed), floats, strings, characters,
  keywords, symbols, vectors, lists, maps, sets, ``#_`` (discard), ``;`` comments and
  tagged elements ``#tag form`` (kept as :class:`Tagged`, to be interpreted by the caller)
  are read; anything else is an :class:`EdnError` with its line;
- collections and tags nested deeper than :data:`MAX_DEPTH` are an :class:`EdnError` (a
  Jepsen history nests four deep; the limit keeps any input, however deep, a one-line
  error rather than a ``RecursionError``).

Vectors and lists are read as tuples (EDN compares them equal), maps as :class:`EdnMap`
(a ``dict``), sets as ``frozenset``.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any


class EdnError(ValueError):
    """Text that is not EDN this reader understands; ``line`` is 1-based."""

    def __init__(self, message: str, line: int):
        super().__init__(f"line {line}: {message}")
        self.line = line
        self.reason = message


@dataclass(frozen=True)
class Keyword:
    """``:name`` or ``:ns/name`` (``name`` holds the text after the colon)."""

    name: str

    def __str__(self) -> str:
        return ":" + self.name


@dataclass(frozen=True)
class Symbol:
    name: str

    def __str__(self) -> str:
        return self.name


@dataclass(frozen=True)
class Char:
    char: str

    def __str__(self) -> str:
        return "\\" + self.char


@dataclass(frozen=True)
class Tagged:
    """``#tag form``: a tagged element, left to the caller to interpret."""

    tag: str
    value: Any
    line: int


class EdnMap(dict):
    """A map, with the line where it starts (for messages about the operation it holds)."""

    line: int = 0


_TOKEN = re.compile(r"""
  (?P<ws>(?:[\s,]+|;[^\n]*)+)
| (?P<str>"(?:[^"\\]|\\.)*")
| (?P<open>\#\{|[\[({])
| (?P<close>[\])}])
| (?P<discard>\#_)
| (?P<tag>\#[A-Za-z][^\s,\[\](){}";]*)
| (?P<char>\\(?:newline|return|space|tab|formfeed|backspace|u[0-9A-Fa-f]{4}|[^\s,\[\](){}]))
| (?P<atom>[^\s,\[\](){}";\\#][^\s,\[\](){}";]*)
| (?P<bad>.)
""", re.VERBOSE | re.DOTALL)

_INT = re.compile(r"[+-]?(?:0|[1-9][0-9]*)N?")
_FLOAT = re.compile(r"[+-]?(?:0|[1-9][0-9]*)(?:\.[0-9]*)?(?:[eE][+-]?[0-9]+)?M?")
_NAME = re.compile(r"[A-Za-z*+!\-_?<>=.$%&|'][A-Za-z0-9*+!\-_?<>=.$%&|':#/]*|/")
_ESCAPES = {"t": "\t", "r": "\r", "n": "\n", "\\": "\\", '"': '"', "b": "\b", "f": "\f"}
_CHARS = {"newline": "\n", "return": "\r", "space": " ", "tab": "\t", "formfeed": "\f",
          "backspace": "\b"}
_CLOSER = {"[": "]", "(": ")", "{": "}", "#{": "}"}
_END = object()
MAX_DEPTH = 100
"""Collections and tagged elements nested deeper than this are rejected."""


def read_all(text: str) -> list[Any]:
    """Every top-level form of ``text``, in order."""
    return _Reader(text).forms()


def read_first(text: str) -> Any:
    """The first form of ``text``; the text after it is not read."""
    form = _Reader(text).form(None)
    if form is _END:
        raise EdnError("no form", 1)
    return form


class _Reader:
    def __init__(self, text: str):
        self.tokens = _TOKEN.finditer(text)
        self.text = text
        self.line = 1
        self.depth = 0

    def forms(self) -> list[Any]:
        out = []
        while True:
            form = self.form(None)
            if form is _END:
                return out
            out.append(form)

    def next_token(self) -> tuple[str, str, int] | None:
        for m in self.tokens:
            kind = m.lastgroup
            tok = m.group()
            line = self.line
            if kind in ("ws", "str"):
                self.line += tok.count("\n")
            if kind == "ws":
                continue
            assert kind is not None
            return kind, tok, line
        return None

    def form(self, closer: str | None) -> Any:
        """The next form; ``_END`` at the end of the text; the closing token when it
        matches ``closer``."""
        while True:
            t = self.next_token()
            if t is None:
                if closer is not None:
                    raise EdnError(f"the text ends before a closing {closer!r}", self.line)
                return _END
            kind, tok, line = t
            if kind != "discard":
                break
            self.nested(line, self.required, line, "#_")
        if kind == "close":
            if tok != closer:
                raise EdnError(f"unexpected {tok!r}", line)
            return _Close
        if kind == "open":
            return self.nested(line, self.collection, tok, line)
        if kind == "str":
            return _string(tok, line)
        if kind == "atom":
            return _atom(tok, line)
        if kind == "char":
            name = tok[1:]
            if name in _CHARS:
                return Char(_CHARS[name])
            if len(name) == 5 and name[0] == "u":
                return Char(chr(int(name[1:], 16)))
            return Char(name)
        if kind == "tag":
            return Tagged(tok[1:], self.nested(line, self.required, line, tok), line)
        raise EdnError(f"unexpected character {tok!r}", line)

    def nested(self, line: int, read: Callable[..., Any], *args: Any) -> Any:
        """``read(*args)`` one level deeper (at most :data:`MAX_DEPTH`)."""
        if self.depth >= MAX_DEPTH:
            raise EdnError(f"nested more than {MAX_DEPTH} levels deep", line)
        self.depth += 1
        try:
            return read(*args)
        finally:
            self.depth -= 1

    def required(self, line: int, after: str) -> Any:
        form = self.form(None)
        if form is _END:
            raise EdnError(f"{after} is not followed by a form", line)
        return form

    def collection(self, opener: str, line: int) -> Any:
        closer = _CLOSER[opener]
        items = []
        while True:
            form = self.form(closer)
            if form is _Close:
                break
            items.append(form)
        if opener in ("[", "("):
            return tuple(items)
        if opener == "#{":
            try:
                out = frozenset(items)
            except TypeError:
                raise EdnError("a set holds a map (not supported)", line) from None
            if len(out) != len(items):
                raise EdnError("a set repeats an element", line)
            return out
        if len(items) % 2:
            raise EdnError("a map has a key without a value", line)
        m = EdnMap()
        m.line = line
        for k, v in zip(items[::2], items[1::2], strict=True):
            try:
                if k in m:
                    raise EdnError(f"a map repeats the key {to_text(k)}", line)
            except TypeError:
                raise EdnError("a map has a map as a key (not supported)", line) from None
            m[k] = v
        return m


class _CloseType:
    pass


_Close = _CloseType()


def _string(tok: str, line: int) -> str:
    body = tok[1:-1]
    if "\\" not in body:
        return body
    out = []
    i = 0
    while i < len(body):
        c = body[i]
        if c != "\\":
            out.append(c)
            i += 1
            continue
        e = body[i + 1]
        if e in _ESCAPES:
            out.append(_ESCAPES[e])
            i += 2
        elif e == "u" and re.fullmatch(r"[0-9A-Fa-f]{4}", body[i + 2:i + 6]):
            out.append(chr(int(body[i + 2:i + 6], 16)))
            i += 6
        else:
            raise EdnError(f"unknown escape \\{e} in a string", line)
    return "".join(out)


def _atom(tok: str, line: int) -> Any:
    if tok == "nil":
        return None
    if tok == "true":
        return True
    if tok == "false":
        return False
    c = tok[0]
    if c.isdigit() or (c in "+-" and len(tok) > 1 and tok[1].isdigit()):
        if _INT.fullmatch(tok):
            return int(tok.rstrip("N"))
        if _FLOAT.fullmatch(tok):
            return float(tok.rstrip("M"))
        raise EdnError(f"{tok!r} is not a number EDN allows", line)
    if c == ":":
        if len(tok) > 1 and _NAME.fullmatch(tok[1:]):
            return Keyword(tok[1:])
        raise EdnError(f"{tok!r} is not a keyword", line)
    if _NAME.fullmatch(tok):
        return Symbol(tok)
    raise EdnError(f"{tok!r} is not an EDN symbol", line)


def to_text(v: Any) -> str:
    """EDN text of a value read by this module (for messages); long texts are cut."""
    s = _text(v)
    return s if len(s) <= 40 else s[:37] + "..."


def _text(v: Any) -> str:
    if v is None:
        return "nil"
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, str):
        return '"' + v.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(v, tuple):
        return "[" + " ".join(_text(x) for x in v) + "]"
    if isinstance(v, frozenset):
        return "#{" + " ".join(_text(x) for x in v) + "}"
    if isinstance(v, dict):
        return "{" + ", ".join(f"{_text(k)} {_text(x)}" for k, x in v.items()) + "}"
    if isinstance(v, Tagged):
        return f"#{v.tag} {_text(v.value)}"
    return str(v)
