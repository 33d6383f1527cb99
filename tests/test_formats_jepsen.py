"""Jepsen histories (EDN and plain-text logs) translated into the contract's history object,
rule by rule (docs/formats.md), and everything that cannot be imported faithfully rejected
with the file, the line and the reason."""

from __future__ import annotations

from pathlib import Path

import pytest

from fisheye.checker.formats import detect_format, load, read_history_object
from fisheye.spec.history import HistoryError

JEPSEN = Path(__file__).parent / "data" / "jepsen"


def edn(tmp_path: Path, text: str, name: str = "h.edn", **kw):
    path = tmp_path / name
    path.write_text(text)
    return read_history_object(str(path), **kw)


def ops(*lines: str) -> str:
    """An EDN vector of op maps, one per line: ``"0 invoke write 1"``."""
    out = []
    for line in lines:
        p, t, f, v = line.split(" ", 3)
        out.append(f"{{:process {p}, :type :{t}, :f :{f}, :value {v}}}")
    return "[" + "\n ".join(out) + "]\n"


def rejected(tmp_path: Path, text: str, *words: str, name: str = "h.edn") -> str:
    with pytest.raises(HistoryError) as e:
        edn(tmp_path, text, name)
    message = str(e.value)
    assert message.startswith(str(tmp_path / name) + ": ")
    for w in words:
        assert w in message, message
    return message


def test_knossos_rethink_minimal_exact_object():
    imp = read_history_object(str(JEPSEN / "knossos-rethink-fail-minimal.edn"))
    assert imp.format == "jepsen-edn"
    assert imp.obj == {
        "processes": ["0", "1", "2", "3"],
        "initial": {"x": "nil"},
        "history": {"0": [["w", "x", 0, {"t": [0, 1]}]],
                    "1": [["r", "x", 3, {"t": [2, 4]}]],
                    "2": [["w", "x", 4, {"t": [3, 5]}]],
                    "3": [["r", "x", 4, {"t": [6, 7]}]]}}


def test_knossos_files_failed_write_and_never_completed_read_are_left_out():
    imp = read_history_object(str(JEPSEN / "knossos-immediate-failure.edn"))
    assert imp.obj["history"] == {"1": [["r", "x", 3, {"t": [0, 3]}]], "101": []}
    assert imp.notes.failed == 1 and imp.notes.operations == 1
    imp = read_history_object(str(JEPSEN / "knossos-cas-register-bug.edn"))
    assert imp.obj["history"]["6"] == [] and imp.notes.indeterminate_reads == 1
    assert imp.notes.never_completed == 1 and imp.notes.operations == 5


def test_knossos_readme_crashed_write_is_optional_and_open_ended(tmp_path):
    imp = edn(tmp_path, ops("0 invoke read nil", "1 invoke write 3", "1 info write 3",
                            "0 ok read 3"))
    assert imp.obj["history"] == {"0": [["r", "x", 3, {"t": [0, 3]}]],
                                  "1": [["w", "x", 3, {"t": [1, None], "maybe": True}]]}
    assert imp.notes.indeterminate_writes == 1


def test_cas_ok_is_an_atomic_step_and_failed_cas_did_not_happen(tmp_path):
    imp = edn(tmp_path, ops("0 invoke cas [1 2]", "0 ok cas [1 2]",
                            "0 invoke cas [5 6]", "0 fail cas [5 6]",
                            "1 invoke cas [2 3]", "1 info cas [2 3]"))
    assert imp.obj["history"] == {
        "0": [["cas", "x", [1, 2], {"t": [0, 1]}]],
        "1": [["cas", "x", [2, 3], {"t": [4, None], "maybe": True}]]}
    assert imp.notes.failed == 1


def test_a_crashed_process_that_goes_on_becomes_a_new_process(tmp_path):
    imp = edn(tmp_path, ops("3 invoke write 1", "3 info write 1", "3 invoke read nil",
                            "3 ok read 1", "3 invoke write 2", "3 info write 2",
                            "3 invoke write 4", "3 ok write 4"))
    assert imp.obj["processes"] == ["3", "3.1", "3.2"]
    assert [len(imp.obj["history"][p]) for p in ("3", "3.1", "3.2")] == [1, 2, 1]
    assert imp.obj["history"]["3.1"][1][3] == {"t": [4, None], "maybe": True}


def test_a_history_of_failed_operations_only_has_no_operation(tmp_path):
    imp = edn(tmp_path, ops("0 invoke write 1", "0 fail write 1"))
    assert imp.obj["history"] == {"0": []} and imp.notes.failed == 1


def test_indeterminate_read_is_left_out_and_the_process_crashed(tmp_path):
    imp = edn(tmp_path, ops("0 invoke read nil", "0 info read nil", "0 invoke write 1",
                            "0 ok write 1"))
    assert imp.obj["history"] == {"0": [], "0.1": [["w", "x", 1, {"t": [2, 3]}]]}


def test_nil_read_initial_is_the_sentinel_and_any_leaves_it_out(tmp_path):
    text = ops("0 invoke read nil", "0 ok read nil", "1 invoke write 1", "1 ok write 1")
    imp = edn(tmp_path, text)
    assert imp.obj["initial"] == {"x": "nil"}
    assert imp.obj["history"]["0"] == [["r", "x", "nil", {"t": [0, 1]}]]
    imp = edn(tmp_path, text, nil_read="any")
    assert imp.obj["history"]["0"] == [] and imp.notes.nil_reads_dropped == 1
    assert imp.obj["initial"] == {"x": "nil"}


def test_sentinel_avoids_every_string_of_the_history(tmp_path):
    imp = edn(tmp_path, ops('0 invoke write "nil"', '0 ok write "nil"', "1 invoke read nil",
                            "1 ok read nil", "2 invoke cas [nil \"nil'\"]",
                            "2 ok cas [nil \"nil'\"]"))
    assert imp.obj["initial"] == {"x": "nil''"}
    assert imp.obj["history"]["1"][0][2] == "nil''"
    assert imp.obj["history"]["2"][0][2] == ["nil''", "nil'"]


def test_independent_tuples_name_registers(tmp_path):
    imp = edn(tmp_path, ops("0 invoke write [5 1]", "0 ok write [5 1]",
                            "1 invoke read [:k nil]", "1 ok read [:k 2]",
                            '2 invoke cas ["s" [1 2]]', '2 ok cas ["s" [1 2]]'))
    assert imp.obj["history"] == {"0": [["w", "5", 1, {"t": [0, 1]}]],
                                  "1": [["r", "k", 2, {"t": [2, 3]}]],
                                  "2": [["cas", "s", [1, 2], {"t": [4, 5]}]]}
    assert imp.obj["initial"] == {"5": "nil", "k": "nil", "s": "nil"}


def test_one_register_maps_and_transactions(tmp_path):
    imp = edn(tmp_path, ops("0 invoke write {:a 1}", "0 ok write {:a 1}",
                            "1 invoke txn [[:read :b nil]]", "1 ok txn [[:read :b 4]]"))
    assert imp.obj["history"] == {"0": [["w", "a", 1, {"t": [0, 1]}]],
                                  "1": [["r", "b", 4, {"t": [2, 3]}]]}


def test_nemesis_events_and_extra_keys_are_not_store_operations(tmp_path):
    imp = edn(tmp_path, "{:process :nemesis, :type :info, :f :start, :value nil}\n"
                        "{:process 0, :type :invoke, :f :write, :value 1, :time 5, :index 1}\n"
                        "{:process 0, :type :ok, :f :write, :value 1, :error nil}\n")
    assert imp.notes.nemesis_events == 1
    assert imp.obj["history"] == {"0": [["w", "x", 1, {"t": [1, 2]}]]}


def test_jepsen_history_records(tmp_path):
    imp = edn(tmp_path, "#jepsen.history.Op{:index 0, :process 0, :type :invoke, :f :write, "
                        ":value 1}\n#jepsen.history.Op{:index 1, :process 0, :type :ok, "
                        ":f :write, :value 1}")
    assert imp.obj["history"] == {"0": [["w", "x", 1, {"t": [0, 1]}]]}


@pytest.mark.parametrize(("text", "words"), [
    (ops("0 invoke add 1", "0 ok add 1"), ("line 1", ":f :add")),
    (ops("0 ok write 1"), ("line 1", "no invocation pending")),
    (ops("0 invoke write 1", "0 invoke write 2"), ("line 2", "has not completed")),
    (ops("0 invoke write 1", "0 ok read 1"), ("line 2", "invoked :write")),
    (ops("0 invoke write 1", "0 ok write 2"), ("line 2", "invocation at line 1")),
    (ops("0 invoke write 1.5", "0 ok write 1.5"), ("line 2", "1.5", "not an integer")),
    (ops("0 invoke write true", "0 ok write true"), ("line 2", "true")),
    (ops("0 invoke write {:a 1 :b 2}", "0 ok write {:a 1 :b 2}"), ("several registers", ":a, :b")),
    (ops("0 invoke txn [[:write :a 1] [:write :b 2]]", "0 ok txn [[:write :a 1] [:write :b 2]]"),
     ("several registers",)),
    (ops("0 invoke txn [[:append :a 1]]", "0 ok txn [[:append :a 1]]"), ("[:append :a 1]",)),
    (ops("0 invoke write [1 1]", "0 ok write [1 1]", '0 invoke write ["1" 2]', '0 ok write ["1" 2]'),
     ("line 4", "1 and \"1\"")),
    (ops("0 invoke write 1", "0 ok write 1", "0 invoke write [:k 2]", "0 ok write [:k 2]"),
     ("line 4", "independent", "single-register")),
    (ops("0 invoke cas 1", "0 ok cas 1"), ("not a pair",)),
    (ops(":client invoke write 1", ":client ok write 1"), (":process :client",)),
    (ops("0 begin write 1"), (":type :begin",)),
    ("[{:process 0, :f :write, :value 1}]", ("line 1", "no :type")),
    ("[{:process 0.5, :type :invoke, :f :write}]", (":process 0.5",)),
    ("[{:process 0, :type \"ok\", :f :write}]", (':type "ok" is not a keyword',)),
    ("[1 2]", ("operation 0 is not a map",)),
    ("#foo{:a 1}", ("#foo",)),
    ("[{:a 1 :a 2}]", ("is not EDN", "line 1", "repeats the key :a")),
    ("", ("empty",)),
    ("[1] [2]", ("neither one vector",)),
    (ops(":nemesis invoke start nil", ":nemesis info start nil"), ("no client operation",)),
])
def test_what_cannot_be_imported_faithfully_is_rejected(tmp_path, text, words):
    rejected(tmp_path, text, *words)


def test_etcd_log_from_porcupine():
    imp = read_history_object(str(JEPSEN / "porcupine-etcd_002.log"))
    n = imp.notes
    assert imp.format == "jepsen-log" and n.events == 154 and n.other_lines == 0
    assert (n.operations, n.failed, n.indeterminate_writes) == (64, 13, 19)
    assert imp.obj["history"]["4"][0] == ["r", "x", "nil", {"t": [0, 1]}]
    assert ["cas", "x", [2, 4], {"t": [3, 8]}] in imp.obj["history"]["2"]
    maybe = [o for ops in imp.obj["history"].values() for o in ops if o[3].get("maybe")]
    assert len(maybe) == 19 and all(o[3]["t"][1] is None and o[0] in ("w", "cas") for o in maybe)


def test_log_other_lines_are_counted_and_malformed_event_lines_rejected(tmp_path):
    good = ("2017-01-01 INFO  jepsen.core - Running test\n"
            "INFO  jepsen.util - 0\t:invoke\t:write\t1\n"
            "INFO  jepsen.util - :nemesis\t:info\t:start\tnil\n"
            "INFO  jepsen.util - 0\t:ok\t:write\t1\t\n")
    imp = edn(tmp_path, good, "a.log")
    assert imp.notes.other_lines == 1 and imp.notes.nemesis_events == 1
    assert imp.obj["history"] == {"0": [["w", "x", 1, {"t": [0, 2]}]]}
    rejected(tmp_path, "INFO  jepsen.util - 0 :invoke :write\n", "line 1", "whitespace",
             name="b.log")
    rejected(tmp_path, "INFO  jepsen.util - 0\t:invoke\t:write\t[1\n", "line 1", "not EDN",
             name="c.log")
    rejected(tmp_path, "hello\n", "no Jepsen event line", name="d.log")


@pytest.mark.parametrize(("name", "text", "fmt"), [
    ("a.json", "[1]", "json"), ("a.EDN", "{}", "jepsen-edn"), ("a.log", "", "jepsen-log"),
    ("a", ' {"history": {}}', "json"), ("a", "{}", "json"), ("a", "{:process 1}", "jepsen-edn"),
    ("a", "; c\n[]", "jepsen-edn"), ("-", "[{:a 1}]", "jepsen-edn"),
    ("a.txt", "INFO  jepsen.util - 0\t:invoke\t:read\tnil\n", "jepsen-log"),
])
def test_format_detection(name, text, fmt):
    assert detect_format(text, name, name) == fmt


def test_undetectable_format_is_rejected():
    with pytest.raises(HistoryError, match="a.txt: is neither a JSON history"):
        detect_format("hello", "a.txt", "a.txt")


@pytest.mark.parametrize("name", sorted(p.name for p in JEPSEN.iterdir() if p.suffix in (".edn", ".log")))
@pytest.mark.parametrize("nil_read", ["initial", "any"])
def test_every_shipped_history_imports_to_what_the_contract_parser_accepts(name, nil_read):
    history, imp = load(str(JEPSEN / name), nil_read=nil_read)
    assert history.timed and len(history.ops) == imp.notes.operations
    assert sum(op.maybe for op in history.ops) == imp.notes.indeterminate_writes
    assert all(op.pending == op.maybe for op in history.ops)
    assert history.to_json()["history"] == imp.obj["history"]


def test_log_in_the_later_jepsen_layout(tmp_path):
    text = ("2017-05-23 14:04:04,539{GMT}\tINFO\t[jepsen worker 0] jepsen.util: 0\t:invoke\t:write\t1\n"
            "2017-05-23 14:04:04,540{GMT}\tINFO\t[jepsen worker 0] jepsen.util: 0\t:ok\t:write\t1\n"
            '2017-05-23 14:04:05,540{GMT}\tINFO\t[jepsen nemesis] jepsen.util: :nemesis\t:info'
            '\t:start\t"p"\n')
    imp = edn(tmp_path, text, "j.log")
    assert imp.obj["history"] == {"0": [["w", "x", 1, {"t": [0, 1]}]]}
    assert imp.notes.nemesis_events == 1 and imp.notes.other_lines == 0
