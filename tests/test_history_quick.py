"""The quick reading of an operation (:func:`fisheye.spec.history._quick_op`, most of a
large history's reading) against the full one it shortcuts (``_parse_op``, which names
what is wrong): whatever the quick one accepts, the full one accepts as the same
operation; the usual operations are read quickly."""

from __future__ import annotations

from hypothesis import example, given, settings
from hypothesis import strategies as st

from fisheye.spec.history import HistoryError, Op, _parse_op, _quick_op, _Where

VALUES = st.one_of(st.integers(-3, 3), st.sampled_from(["a", "", "1"]), st.booleans(), st.none(),
                   st.floats(allow_nan=True), st.just([1, 2]))
GOOD_VALUES = st.one_of(st.integers(-3, 3), st.sampled_from(["a", "", "1"]))
TIMES = st.one_of(st.integers(-2, 5), st.floats(-2, 5), st.floats(allow_nan=True, allow_infinity=True),
                  st.none(), st.booleans(), st.just("1"))
GOOD_TIMES = st.one_of(st.integers(-2, 5), st.floats(-2, 5), st.none())
T = st.one_of(st.lists(GOOD_TIMES, min_size=2, max_size=2), st.lists(TIMES, max_size=3), st.none(),
              st.integers(0, 1))
MAYBE = st.one_of(st.booleans(), st.none(), st.integers(0, 1))
EXTS = st.one_of(st.fixed_dictionaries({}, optional={"t": T, "maybe": MAYBE}),
                 st.fixed_dictionaries({"x": st.none()}, optional={"t": T, "maybe": MAYBE}))
BODIES = st.one_of(GOOD_VALUES, st.lists(GOOD_VALUES, min_size=2, max_size=2), VALUES,
                   st.lists(VALUES, max_size=3))
WITH_EXT = st.tuples(st.sampled_from(["w", "r", "cas"]), st.sampled_from(["X", "Y"]), BODIES, EXTS).map(list)
RAW = st.one_of(
    WITH_EXT, WITH_EXT, WITH_EXT,
    st.tuples(st.sampled_from(["w", "r", "cas", "x", 1]), st.sampled_from(["X", 1, None]), BODIES).map(list),
    VALUES, st.lists(st.integers(), max_size=5))


def _bad(message: str) -> HistoryError:
    return HistoryError(message)


@settings(max_examples=3000, deadline=None)
@given(raw=RAW)
@example(raw=["r", "X", 1, {"maybe": True}])
@example(raw=["r", "X", 1, {"t": [0, None]}])
@example(raw=["cas", "X", [None, 1]])
@example(raw=["cas", "X", [True, 1]])
@example(raw=["w", "X", 1, {"t": [2, 1]}])
@example(raw=["w", "X", 1, {"t": [0, 1], "maybe": 1}])
@example(raw=["w", "X", 1, {"t": [0, 1], "x": 1}])
def test_what_the_quick_reading_accepts_the_full_one_accepts_alike(raw):
    quick = _quick_op(raw, 7, "p", 2)
    if quick is None:
        return
    full = _parse_op(raw, 7, "p", 2, _Where("p", 2), _bad)
    assert quick == full
    assert vars(quick) == vars(full)
    assert hash(quick) == hash(full) and repr(quick) == repr(full)


@given(kind=st.sampled_from(["w", "r", "cas"]),
       t=st.one_of(st.none(), st.tuples(st.integers(0, 3), st.one_of(st.integers(3, 6), st.none()))),
       maybe=st.booleans(), value=st.one_of(st.integers(), st.text()))
def test_the_usual_operations_are_read_quickly(kind, t, maybe, value):
    body = [value, value] if kind == "cas" else value
    ext: dict = {}
    if t is not None and not (kind == "r" and t[1] is None):  # a read that never returned has no value
        ext["t"] = list(t)
    if maybe and kind != "r":
        ext["maybe"] = True
    raw = [kind, "X", body, ext] if ext else [kind, "X", body]
    quick = _quick_op(raw, 0, "p", 0)
    assert isinstance(quick, Op)
    assert quick == _parse_op(raw, 0, "p", 0, _Where("p", 0), _bad)
