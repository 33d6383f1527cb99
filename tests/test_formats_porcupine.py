"""Histories as Porcupine reads them: Jepsen logs whose fields are separated by any
whitespace, Porcupine's key-value logs (their :get and :put are register operations, an
:append is refused in one line), and input nested at any depth, which is bad input (exit
2, one line) that leaves the other files of a batch checked."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from fisheye.checker.formats import read_history_object
from fisheye.checker.formats.edn import MAX_DEPTH, EdnError, read_all
from fisheye.spec.history import HistoryError

TAB_LOG = ("INFO  jepsen.util - 0\t:invoke\t:write\t1\n"
           "INFO  jepsen.util - 1\t:invoke\t:cas\t[1 2]\n"
           "INFO  jepsen.util - 0\t:ok\t:write\t1\n"
           "INFO  jepsen.util - 1\t:ok\t:cas\t[1 2]\n"
           "INFO  jepsen.util - 2\t:invoke\t:read\tnil\n"
           "INFO  jepsen.util - 2\t:fail\t:read\t:timed-out\n"
           "INFO  jepsen.util - 3\t:invoke\t:read\tnil\n"
           "INFO  jepsen.util - 3\t:ok\t:read\t2\n")

KV_OK = ('{:process 0, :type :invoke, :f :put, :key "1", :value "a"}\n'
         '{:process 1, :type :invoke, :f :get, :key "1", :value nil}\n'
         '{:process 0, :type :ok, :f :put, :key "1", :value "a"}\n'
         '{:process 1, :type :ok, :f :get, :key "1", :value ""}\n'
         '{:process 1, :type :invoke, :f :get, :key "2", :value nil}\n'
         '{:process 1, :type :ok, :f :get, :key "2", :value ""}\n'
         '{:process 0, :type :invoke, :f :get, :key "1", :value nil}\n'
         '{:process 0, :type :ok, :f :get, :key "1", :value "a"}\n')


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


@pytest.mark.parametrize("sep", [" ", "  ", " \t ", "\t "])
def test_log_fields_separated_by_any_whitespace_read_as_with_tabs(tmp_path, sep):
    spaced = TAB_LOG.replace("\t", sep)
    a = read_history_object(str(write(tmp_path, "tab.log", TAB_LOG)))
    b = read_history_object(str(write(tmp_path, "spaced.log", spaced)))
    assert b.obj == a.obj and b.notes == a.notes
    assert a.obj["history"]["1"] == [["cas", "x", [1, 2], {"t": [1, 3]}]]
    assert a.notes.failed == 1 and a.notes.operations == 3


def test_spaced_log_is_detected_and_its_error_field_is_not_the_value(tmp_path):
    text = "INFO  jepsen.util - 0 :invoke :write 3\nINFO  jepsen.util - 0 :info :write 3 :timed-out x{\n"
    imp = read_history_object(str(write(tmp_path, "spaced.txt", text)))
    assert imp.format == "jepsen-log"
    assert imp.obj["history"]["0"] == [["w", "x", 3, {"t": [0, None], "maybe": True}]]


@pytest.mark.parametrize(("line", "words"), [
    ("INFO  jepsen.util - 0 :invoke :write\n", ("line 1", "separated by whitespace")),
    ("INFO  jepsen.util - 0 :invoke\t:write\t[1\n", ("line 1", "not EDN")),
    ("INFO  jepsen.util - 0\t:invoke\t:write\t1 2\t:e\n", ("line 1", "not one EDN value")),
])
def test_malformed_event_lines_are_rejected_naming_the_line(tmp_path, line, words):
    path = write(tmp_path, "bad.log", line)
    with pytest.raises(HistoryError) as e:
        read_history_object(str(path))
    assert str(e.value).startswith(f"{path}: ") and all(w in str(e.value) for w in words)


def test_porcupine_kv_log_gets_and_puts_are_register_operations(tmp_path):
    imp = read_history_object(str(write(tmp_path, "c01-ok.txt", KV_OK)))
    assert imp.format == "jepsen-edn" and imp.notes.format == "Porcupine kv log"
    assert imp.obj["initial"] == {"1": "", "2": ""}
    assert imp.obj["history"] == {
        "0": [["w", "1", "a", {"t": [0, 2]}], ["r", "1", "a", {"t": [6, 7]}]],
        "1": [["r", "1", "", {"t": [1, 3]}], ["r", "2", "", {"t": [4, 5]}]]}
    assert imp.notes.summary() == "imported from Porcupine kv log: 4 operations"


def test_porcupine_kv_verdicts_and_append_refused_in_one_line(run_cli, tmp_path):
    ok = write(tmp_path, "ok.txt", KV_OK)
    bad = write(tmp_path, "bad.txt", KV_OK.replace(':key "2", :value ""', ':key "2", :value "a"'))
    append = write(tmp_path, "append.txt", KV_OK.replace(":put", ":append"))
    assert run_cli("check", ok, "--model", "lin").status == 0
    r = run_cli("check", bad, "--model", "lin")
    assert r.status == 1 and "violation under lin" in r.out
    r = run_cli("check", append, "--model", "lin")
    assert r.status == 2 and r.out == ""
    assert r.err == (f"fisheye: {append}: line 1: operation 0 is a key-value :append, which is not a "
                     "register operation (a Porcupine kv log can be checked when its operations are "
                     ":get and :put only)\n")


def test_a_kv_operation_among_plain_register_operations_is_rejected(tmp_path):
    plain = "{:process 5, :type :invoke, :f :write, :value 1} {:process 5, :type :ok, :f :write, :value 1}"
    text = f"[{plain}\n" + KV_OK.replace("\n", " ") + "]"
    with pytest.raises(HistoryError, match="independent operation in a history whose earlier"):
        read_history_object(str(write(tmp_path, "mixed.edn", text)))


@pytest.mark.parametrize("text", ["[" * 100_000, "#a " * 100_000 + "1", "#_ " * 100_000 + "1 " * 100_000,
                                  "{:a " * 100_000])
def test_edn_nested_at_any_depth_is_an_edn_error(text):
    with pytest.raises(EdnError, match=f"nested more than {MAX_DEPTH} levels deep"):
        read_all(text)


def test_edn_nested_up_to_the_limit_is_read():
    assert read_all("[" * MAX_DEPTH + "]" * MAX_DEPTH)[0] is not None
    assert read_all("[" + "#_ 1 " * 100_000 + "2]") == [(2,)]


def test_deep_input_in_a_batch_is_bad_input_and_the_other_files_are_checked(run_cli, tmp_path, data_dir):
    d = tmp_path / "batch"
    d.mkdir()
    (d / "a.edn").write_text("[" * 400 + "]" * 400)
    (d / "b.json").write_text('{"history": ' + "[" * 100_000 + "]" * 100_000 + "}")
    (d / "c.log").write_text("INFO  jepsen.util - 0 :invoke :write " + "[" * 5000 + "\n")
    (d / "d.json").write_text((data_dir / "figure1.json").read_text())
    r = run_cli("check", d, "--model", "cc", "--json")
    assert r.status == 2
    rows = [json.loads(line) for line in r.out.splitlines()]
    assert [row["exit"] for row in rows[:3]] == [2, 2, 2] and "verdict" in rows[3]
    assert "nested more than 100 levels deep" in rows[0]["error"] and "nested" in rows[1]["error"]
    assert "nested more than 100 levels deep" in rows[2]["error"]
    assert rows[4]["summary"]["bad_input"] == 3 and len(r.err.splitlines()) == 3
