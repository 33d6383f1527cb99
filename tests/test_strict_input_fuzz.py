"""Fuzzing the history parser through the command line: every mutated file either
parses to exactly what it says or is rejected with exit status 2, one line on stderr
naming the file, and no traceback.  Never a verdict about something else.

"Exactly what it says" is judged by an oracle independent of the parser: the file,
decoded by the standard library while recording duplicated keys, must have only
defined keys, no duplicates, values that are integers or strings, times that are
finite numbers; and the parsed history, written back as JSON, must equal the file's
own data (up to the defaults the contract gives: processes from ``history``, no
``graph``, an empty fourth element, ``"maybe": false``)."""

from __future__ import annotations

import contextlib
import io
import json
import math
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fisheye.checker.cli import main
from fisheye.spec.history import HistoryError, decode_text, parse_history

KEYS = ["processes", "graph", "initial", "history", "grpah", "intial", "t", "maybe", "time", "History"]
JUNK = st.one_of(
    st.none(), st.booleans(), st.integers(-3, 3), st.floats(allow_nan=False, allow_infinity=False),
    st.sampled_from([1.0, 0.5, -0.0, 10**30, "X", "p0", "", "w", "r", "cas", [], {}, [0, 1], [1, None],
                     ["w", "X", 1], ["cas", "X", [0, 1]], {"t": [0, 1]}, {"maybe": True}]),
    st.text(max_size=3),
)
RAW_TEXT_JUNK = ["NaN", "Infinity", "-Infinity", "1e400", "1.0", "true", "null", '"\\ud800"', "9" * 5000]


@st.composite
def valid_objects(draw: st.DrawFn) -> dict[str, Any]:
    """A well-formed history object using every feature of the format."""
    n = draw(st.integers(1, 3))
    procs = [f"p{i}" for i in range(n)]
    timed = draw(st.booleans())
    hist: dict[str, list[Any]] = {}
    clock = 0
    for p in procs:
        ops: list[Any] = []
        k = draw(st.integers(0, 3))
        for i in range(k):
            kind = draw(st.sampled_from(["w", "r", "cas"]))
            reg = draw(st.sampled_from(["X", "Y"]))
            body: Any = [draw(st.integers(0, 2)), draw(st.integers(0, 2))] if kind == "cas" \
                else draw(st.one_of(st.integers(0, 2), st.sampled_from(["a", "b"])))
            op: list[Any] = [kind, reg, body]
            ext: dict[str, Any] = {}
            last = i == k - 1
            if timed:
                start = clock + draw(st.integers(0, 2))
                pending = last and kind != "r" and draw(st.booleans())
                end = None if pending else start + draw(st.integers(0, 3))
                ext["t"] = [start, end]
                clock = end if end is not None else start
            if last and kind != "r" and draw(st.booleans()):
                ext["maybe"] = True
            if ext:
                op.append(ext)
            ops.append(op)
        hist[p] = ops
    obj: dict[str, Any] = {"history": hist}
    if draw(st.booleans()):
        obj["processes"] = procs + draw(st.sampled_from([[], ["idle"]]))
    if n > 1 and draw(st.booleans()):
        obj["graph"] = [["p0", "p1"]]
    if draw(st.booleans()):
        obj["initial"] = {"X": draw(st.sampled_from([0, 1, "a"]))}
    return obj


def _paths(x: Any, prefix: tuple = ()) -> list[tuple]:
    out = [prefix]
    if isinstance(x, dict):
        for k, v in x.items():
            out += _paths(v, prefix + (k,))
    elif isinstance(x, list):
        for i, v in enumerate(x):
            out += _paths(v, prefix + (i,))
    return out


def _get(x: Any, path: tuple) -> Any:
    for k in path:
        x = x[k]
    return x


@st.composite
def mutated_texts(draw: st.DrawFn) -> str:
    obj = draw(valid_objects())
    for _ in range(draw(st.integers(0, 2))):
        paths = _paths(obj)
        path = draw(st.sampled_from(paths))
        target = _get(obj, path)
        action = draw(st.sampled_from(["replace", "add-key", "drop", "append"]))
        if action == "replace" and path:
            _get(obj, path[:-1])[path[-1]] = draw(JUNK)
        elif action == "add-key" and isinstance(target, dict):
            target[draw(st.sampled_from(KEYS))] = draw(JUNK)
        elif action == "drop" and path:
            parent = _get(obj, path[:-1])
            del parent[path[-1]]
        elif action == "append" and isinstance(target, list):
            target.append(draw(JUNK))
    text = json.dumps(obj)
    textual = draw(st.sampled_from(["none", "junk", "duplicate", "cut"]))
    if textual == "junk":
        # replace one number or literal of the text with something json.dumps never writes
        spots = [i for i, c in enumerate(text) if c in "0123456789n"]
        if spots:
            i = draw(st.sampled_from(spots))
            j = i
            while j < len(text) and text[j] not in ",]}":
                j += 1
            text = text[:i] + draw(st.sampled_from(RAW_TEXT_JUNK)) + text[j:]
    elif textual == "duplicate":
        key = draw(st.sampled_from(['"history"', '"p0"', '"t"', '"X"', '"graph"']))
        i = text.find(key + ":")
        if i >= 0:
            j = text.find(",", i)
            if j > 0 and text[i:j].count("[") == text[i:j].count("]") and "{" not in text[i:j]:
                text = text[:j] + ", " + text[i:j] + text[j:]
    elif textual == "cut":
        text = text[: draw(st.integers(0, len(text)))]
    return text


# ---- the oracle ------------------------------------------------------------------------------

def _oracle_decode(text: str) -> tuple[Any, bool]:
    """Standard decoding, recording whether any object had a duplicated key."""
    dup = False

    def hook(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        nonlocal dup
        keys = [k for k, _ in pairs]
        dup = dup or len(keys) != len(set(keys))
        return dict(pairs)

    return json.loads(text, object_pairs_hook=hook), dup


def _is_value(v: Any) -> bool:
    return type(v) in (int, str)


def _expected_json(raw: dict[str, Any]) -> dict[str, Any]:
    """What a history that says exactly ``raw`` writes back (``History.to_json``)."""
    procs = raw.get("processes", list(raw["history"]))
    out: dict[str, Any] = {"processes": procs, "graph": []}
    seen = set()
    for a, b in raw.get("graph", []):
        if frozenset((a, b)) not in seen:
            seen.add(frozenset((a, b)))
            out["graph"].append([a, b])
    if raw.get("initial"):
        out["initial"] = raw["initial"]
    hist: dict[str, Any] = {}
    for p in procs:
        ops = []
        for op in raw["history"].get(p, []):
            op = list(op)
            if len(op) == 4:
                ext = {k: v for k, v in op[3].items() if not (k == "maybe" and v is False)}
                op = op[:3] + ([ext] if ext else [])
            ops.append(op)
        hist[p] = ops
    out["history"] = hist
    return out


def _assert_says_what_it_means(text: str, history_json: dict[str, Any]) -> None:
    raw, dup = _oracle_decode(text)
    assert not dup, "accepted a duplicated key"
    assert isinstance(raw, dict) and set(raw) <= {"processes", "graph", "initial", "history"}
    for v in raw.get("initial", {}).values():
        assert _is_value(v)
    for ops in raw["history"].values():
        for op in ops:
            assert op[0] in ("w", "r", "cas") and isinstance(op[1], str)
            if op[0] == "cas":
                assert len(op[2]) == 2 and all(_is_value(v) for v in op[2])
            else:
                assert _is_value(op[2])
            if len(op) == 4:
                assert set(op[3]) <= {"t", "maybe"}
                for t in op[3].get("t", []):
                    assert t is None or (type(t) in (int, float) and math.isfinite(t))
    assert history_json == _expected_json(raw)


@settings(max_examples=1500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=mutated_texts())
def test_every_mutated_file_parses_to_what_it_says_or_is_rejected_cleanly(tmp_path_factory, text):
    path: Path = tmp_path_factory.mktemp("fuzz") / "h.json"
    path.write_text(text, encoding="utf-8")
    try:
        history = parse_history(decode_text(text, str(path)), str(path))
    except HistoryError:
        history = None
    if history is not None:
        _assert_says_what_it_means(text, history.to_json())
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = main(["check", str(path), "--model", "sc", "--engine", "direct"])
    lines = err.getvalue().splitlines()
    if history is None:
        assert status == 2 and out.getvalue() == ""
        assert len(lines) == 1 and str(path) in lines[0]
    else:
        assert status in (0, 1, 2, 3)
        if status == 2:  # a model not defined on what the file says (e.g. cas): one line
            assert len(lines) == 1 and "Traceback" not in err.getvalue()
        else:
            assert "consistent" in out.getvalue() or "violation" in out.getvalue() \
                or "unknown" in out.getvalue()


@settings(max_examples=300, deadline=None)
@given(obj=valid_objects())
def test_every_well_formed_object_is_accepted_and_round_trips(obj):
    text = json.dumps(obj)
    h = parse_history(decode_text(text, "h.json"), "h.json")
    _assert_says_what_it_means(text, h.to_json())
    assert parse_history(json.loads(json.dumps(h.to_json()))) == h
