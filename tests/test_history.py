"""spec.history: the contract's history format (section 1), loaded and validated."""

from __future__ import annotations

import json

import pytest

from fisheye.spec.history import (
    DEFAULT_INITIAL,
    History,
    HistoryError,
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
    assert value_key(True) != value_key(1)
    assert value_key("1") != value_key(1)
    assert value_key(None) == value_key(None)


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
    ("not a map of lists", {"history": [["w", "X", 1]]}, "'history' must be a map"),
    ("a process's ops not a list", {"history": {"a": {"w": 1}}}, "must be a list of operations"),
    ("op of 2 elements", {"history": {"a": [["w", "X"]]}}, "not a 3-element list"),
    ("op not a list", {"history": {"a": ["w X 1"]}}, "not a 3-element list"),
    ("unknown kind", {"history": {"a": [["x", "X", 1]]}}, "unknown kind"),
    ("register not a string", {"history": {"a": [["w", 7, 1]]}}, "register that is not a string"),
    ("value a list", {"history": {"a": [["w", "X", [1]]]}}, "not a JSON scalar"),
    ("value an object", {"history": {"a": [["r", "X", {"v": 1}]]}}, "not a JSON scalar"),
    ("edge not a pair", {"graph": [["a"]], "history": {"a": [], "b": []}}, "not a pair"),
    ("edge a string", {"graph": ["a-b"], "history": {"a": [], "b": []}}, "not a pair"),
    ("unknown process in graph", {"graph": [["a", "zz"]], "history": {"a": []}}, "unknown process 'zz'"),
    ("self-loop", {"graph": [["a", "a"]], "history": {"a": []}}, "self-loop"),
    ("top level a list", [1, 2], "top level"),
    ("no history", {"processes": ["a"]}, "missing key 'history'"),
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
