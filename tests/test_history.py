"""spec.history: the history file format (docs/contract.md, "History files"), loaded and validated."""

from __future__ import annotations

import json

import pytest

from fisheye.spec.history import (
    DEFAULT_INITIAL,
    History,
    HistoryError,
    decode_text,
    load_history,
    parse_history,
    value_key,
)

CONTRACT_EXAMPLE = {
    "processes": ["paris", "berlin", "new-york"],
    "graph": [["paris", "berlin"]],
    "initial": {"X": 0},
    "history": {
        "paris": [["w", "X", 1], ["w", "R", 1], ["r", "X", 2]],
        "berlin": [["w", "X", 2], ["w", "S", 1], ["r", "X", 2]],
        "new-york": [["r", "R", 1], ["r", "S", 1], ["w", "X", 3]],
    },
}


def test_contract_example_parses_with_dense_uids_in_process_order():
    h = parse_history(CONTRACT_EXAMPLE)
    assert h.processes == ("paris", "berlin", "new-york")
    assert h.edges == (("paris", "berlin"),)
    assert [op.uid for op in h.ops] == list(range(9))
    assert [op.label() for op in h.of("berlin")] == ["w(X,2)@berlin#0", "w(S,1)@berlin#1", "r(X)2@berlin#2"]
    assert len(h.writes) == 5 and len(h.reads) == 4
    assert h.registers == ("X", "R", "S")


def test_defaults_processes_from_history_order_no_graph_initial_zero():
    h = parse_history({"history": {"b": [["w", "Y", "v"]], "a": [["r", "Y", 0]]}})
    assert h.processes == ("b", "a")
    assert h.edges == ()
    assert h.initial_value("Y") == DEFAULT_INITIAL == 0


def test_process_without_operations_and_explicit_initial():
    h = parse_history({"processes": ["a", "idle"], "initial": {"X": "s"},
                       "history": {"a": [["r", "X", "s"]]}})
    assert h.processes == ("a", "idle")
    assert h.of("idle") == ()
    assert h.initial_value("X") == "s"


def test_values_compare_by_json_identity():
    assert value_key("1") != value_key(1)
    assert value_key(1) == value_key(1)


def test_to_json_round_trips():
    h = parse_history(CONTRACT_EXAMPLE)
    again = parse_history(json.loads(json.dumps(h.to_json())))
    assert again == h


def test_differentiated_detects_repeated_and_initial_values():
    assert parse_history(CONTRACT_EXAMPLE).differentiated
    assert not History.build({"a": [("w", "X", 1)], "b": [("w", "X", 1)]}).differentiated
    assert not History.build({"a": [("w", "X", 0)]}).differentiated


def test_restrict_renumbers_indices():
    h = parse_history(CONTRACT_EXAMPLE)
    sub = h.restrict([0, 2, 8])
    assert [op.label() for op in sub.ops] == ["w(X,1)@paris#0", "r(X)2@paris#1", "w(X,3)@new-york#0"]


BAD = [
    ("not a map of lists", {"history": [["w", "X", 1]]}, '"history" must be a map'),
    ("a process's ops not a list", {"history": {"a": {"w": 1}}}, "must be a list of operations"),
    ("op of 2 elements", {"history": {"a": [["w", "X"]]}}, "an operation is [kind, register, value]"),
    ("op not a list", {"history": {"a": ["w X 1"]}}, "an operation is [kind, register, value]"),
    ("unknown kind", {"history": {"a": [["x", "X", 1]]}}, "unknown kind"),
    ("register not a string", {"history": {"a": [["w", 7, 1]]}}, "a register is a string"),
    ("value a list", {"history": {"a": [["w", "X", [1]]]}}, "a value is an integer or a string"),
    ("value an object", {"history": {"a": [["r", "X", {"v": 1}]]}}, "a value is an integer or a string"),
    ("edge not a pair", {"graph": [["a"]], "history": {"a": [], "b": []}}, "not a pair"),
    ("edge a string", {"graph": ["a-b"], "history": {"a": [], "b": []}}, "not a pair"),
    ("unknown process in graph", {"graph": [["a", "zz"]], "history": {"a": []}}, 'unknown process "zz"'),
    ("self-loop", {"graph": [["a", "a"]], "history": {"a": []}}, "self-loop"),
    ("top level a list", [1, 2], "top level"),
    ("no history", {"processes": ["a"]}, 'missing key "history"'),
]


@pytest.mark.parametrize(("case", "obj", "needle"), BAD, ids=[b[0] for b in BAD])
def test_bad_input_raises_history_error_naming_the_source(case, obj, needle):
    with pytest.raises(HistoryError) as info:
        parse_history(obj, source="h.json")
    assert needle in str(info.value)
    assert str(info.value).startswith("h.json: ")


def test_load_history_names_the_file_for_non_json_and_missing_files(tmp_path):
    bad = tmp_path / "broken.json"
    bad.write_text("{not json", encoding="utf-8")
    with pytest.raises(HistoryError, match=r"broken\.json: is not JSON"):
        load_history(bad)
    with pytest.raises(HistoryError, match=r"absent\.json: no such file"):
        load_history(tmp_path / "absent.json")


def test_a_read_of_an_unwritten_value_is_well_formed():
    h = parse_history({"history": {"a": [["r", "X", 42]]}})
    assert h.reads[0].value == 42


# ---- strict input, cas, real time, maybe-writes -------------------------------------------

TIMED = {
    "history": {
        "a": [["w", "X", 1, {"t": [0, 2]}], ["cas", "X", [1, 2], {"t": [3, 5.5], "maybe": True}]],
        "b": [["r", "X", 1, {"t": [1, 4]}], ["w", "X", 3, {"t": [6, None]}]],
    }
}


def test_cas_time_and_maybe_parse_to_what_they_say_and_round_trip():
    h = parse_history(TIMED)
    a0, a1, b0, b1 = h.ops
    assert (a0.kind, a0.value, a0.invoke, a0.complete, a0.maybe) == ("w", 1, 0, 2, False)
    assert (a1.kind, a1.old, a1.value, a1.observed, a1.invoke, a1.complete, a1.maybe) == (
        "cas", 1, 2, 1, 3, 5.5, True)
    assert a1.writes and a1.observes and not a1.is_write and not a1.is_read
    assert b0.observed == 1 and not b0.writes
    assert b1.pending and not a0.pending
    assert h.timed and h.has_cas and h.has_maybe and h.has_pending
    assert a1.label() == 'cas(X,1,2)@a#1'
    assert a1.to_json() == ["cas", "X", [1, 2], {"t": [3, 5.5], "maybe": True}]
    assert parse_history(json.loads(json.dumps(h.to_json()))) == h


def test_untimed_history_with_maybe_write():
    h = parse_history({"history": {"a": [["w", "X", 1], ["w", "X", 2, {"maybe": True}]]}})
    assert not h.timed and h.ops[1].maybe and h.ops[1].invoke is None
    assert h.ops[0].to_json() == ["w", "X", 1]


def _bad(obj_or_text, tmp_path=None):
    if isinstance(obj_or_text, str):
        return decode_text(obj_or_text, "h.json")
    return parse_history(obj_or_text, "h.json")


H1 = {"a": [["w", "X", 1]]}
STRICT_BAD = [
    ("unknown top-level key", {"grpah": [], "history": H1}, 'unknown key "grpah" at the top level'),
    ("misspelt initial", {"intial": {"X": 1}, "history": H1}, 'unknown key "intial"'),
    ("duplicated top-level key", '{"history": {"a": [["w", "X", 1]]}, "history": {}}',
     'duplicated key "history"'),
    ("duplicated process", '{"history": {"a": [], "a": [["w", "X", 1]]}}', 'duplicated key "a"'),
    ("NaN", '{"history": {"a": [["w", "X", NaN]]}}', "NaN is not a JSON number"),
    ("Infinity", '{"history": {"a": [["w", "X", 1, {"t": [0, Infinity]}]]}}',
     "Infinity is not a JSON number"),
    ("1e400", '{"history": {"a": [["w", "X", 1e400]]}}', "too large"),
    ("boolean value", {"history": {"a": [["w", "X", True]]}},
     "has value true; a value is an integer or a string"),
    ("null value", {"history": {"a": [["r", "X", None]]}}, "has value null"),
    ("float value", {"history": {"a": [["w", "X", 1.5]]}}, "has value 1.5"),
    ("1.0 is not 1", {"history": {"a": [["w", "X", 1.0]]}}, "has value 1.0"),
    ("boolean initial", {"initial": {"X": False}, "history": H1}, '"initial" value of register "X" is false'),
    ("null processes", {"processes": None, "history": H1}, '"processes" must be a list'),
    ("null graph", {"graph": None, "history": H1}, '"graph" must be a list'),
    ("null initial", {"initial": None, "history": H1}, '"initial" must be a map'),
    ("process named twice", {"processes": ["a", "a"], "history": H1}, '"processes" names "a" twice'),
    ("unknown op key", {"history": {"a": [["w", "X", 1, {"time": [0, 1]}]]}}, 'unknown key "time"'),
    ("op extension not an object", {"history": {"a": [["w", "X", 1, [0, 1]]]}}, "fourth element [0, 1]"),
    ("cas of one value", {"history": {"a": [["cas", "X", [1]]]}}, "a cas carries [old, new]"),
    ("cas with a float", {"history": {"a": [["cas", "X", [1, 2.5]]]}}, "a cas carries [old, new]"),
    ("maybe read", {"history": {"a": [["r", "X", 0, {"maybe": True}]]}}, 'is a read marked "maybe"'),
    ("maybe not boolean", {"history": {"a": [["w", "X", 0, {"maybe": 1}]]}},
     '"maybe": 1; allowed: true or false'),
    ("maybe not last", {"history": {"a": [["w", "X", 0, {"maybe": True}], ["r", "X", 0]]}},
     'is "maybe" but not the last operation'),
    ("time not a pair", {"history": {"a": [["w", "X", 0, {"t": [1]}]]}},
     '"t": [1]; allowed: [invoke, complete]'),
    ("time boolean", {"history": {"a": [["w", "X", 0, {"t": [True, 2]}]]}}, '"t": [true, 2]'),
    ("null invocation", {"history": {"a": [["w", "X", 0, {"t": [None, 2]}]]}}, '"t": [null, 2]'),
    ("completes before invoked", {"history": {"a": [["w", "X", 0, {"t": [3, 2]}]]}},
     "completes at 2, before"),
    ("overlapping in a process",
     {"history": {"a": [["w", "X", 0, {"t": [0, 2]}], ["r", "X", 0, {"t": [1, 3]}]]}},
     "before the previous operation of its process completed"),
    ("pending not last", {"history": {"a": [["w", "X", 0, {"t": [0, None]}], ["r", "X", 0, {"t": [1, 3]}]]}},
     "never completed"),
    ("pending read", {"history": {"a": [["r", "X", 0, {"t": [0, None]}]]}}, "a read that never completed"),
    ("mixed timed and untimed", {"history": {"a": [["w", "X", 0, {"t": [0, 1]}]], "b": [["r", "X", 0]]}},
     'either every operation has "t" or none'),
    ("lone surrogate", '{"history": {"\\ud800": []}}', "lone surrogate"),
    ("huge integer", '{"history": {"a": [["w", "X", ' + "9" * 5000 + "]]}}", "is not usable JSON"),
    ("python repr never printed", {"history": {"a": [["w", 1, 1]]}},
     "has register 1; a register is a string"),
]


@pytest.mark.parametrize(("case", "obj", "needle"), STRICT_BAD, ids=[b[0] for b in STRICT_BAD])
def test_strict_input_is_bad_input_with_one_line_naming_place_and_rule(case, obj, needle):
    with pytest.raises(HistoryError) as info:
        text = obj if isinstance(obj, str) else json.dumps(obj)
        parse_history(decode_text(text, "h.json"), "h.json")
    msg = str(info.value)
    assert msg.startswith("h.json: ") and "\n" not in msg
    assert needle in msg
    assert "'" not in msg.replace("h.json: ", "")  # JSON quotes, never Python reprs


def test_equal_times_at_a_process_boundary_are_accepted():
    h = parse_history({"history": {"a": [["w", "X", 0, {"t": [0, 1]}], ["r", "X", 0, {"t": [1, 1]}]]}})
    assert [op.invoke for op in h.ops] == [0, 1]


def test_large_integers_and_unicode_names_are_values():
    h = parse_history(decode_text('{"history": {"pé": [["w", "Ω", 12345678901234567890123]]}}', "h"))
    assert h.ops[0].value == 12345678901234567890123 and h.ops[0].register == "Ω"
