"""``fisheye convert FILE --to json``: the contract's JSON for every input format, validated,
with what an import left out on stderr; bad input is one line and exit 2."""

from __future__ import annotations

import io
import json
from pathlib import Path

from fisheye.checker.formats import read_history_object
from fisheye.spec.history import load_history, parse_history

JEPSEN = Path(__file__).parent / "data" / "jepsen"


def test_log_to_json_round_trips_through_the_contract_parser(run_cli, tmp_path):
    src = JEPSEN / "porcupine-etcd_000.log"
    r = run_cli("convert", src, "--to", "json")
    assert r.status == 0
    assert r.err.splitlines() == [f"fisheye: {src}: imported from Jepsen log: 65 operations "
                                  "(16 indeterminate); left out: 20 failed"]
    obj = json.loads(r.out)
    assert obj == read_history_object(str(src)).obj
    assert parse_history(obj).to_json()["history"] == obj["history"]


def test_output_file_and_nil_read_any(run_cli, tmp_path):
    out = tmp_path / "h.json"
    r = run_cli("convert", JEPSEN / "porcupine-etcd_002.log", "--to", "json", "-o", out,
                "--nil-read", "any")
    assert r.status == 0 and r.out == "" and "1 read of nil" in r.err
    h = load_history(out)
    assert h.initial == {"x": "nil"} and not any(op.value == "nil" for op in h.ops if op.is_read)


def test_edn_from_standard_input(run_cli, monkeypatch):
    text = (JEPSEN / "knossos-rethink-fail-minimal.edn").read_text()
    monkeypatch.setattr("sys.stdin", io.StringIO(text))
    r = run_cli("convert", "-", "--to", "json")
    assert r.status == 0 and json.loads(r.out)["history"]["1"] == [["r", "x", 3, {"t": [2, 4]}]]
    assert r.err.startswith("fisheye: <stdin>: imported from Jepsen EDN: 4 operations")


def test_counterexample_file_to_its_history(run_cli):
    path = Path(__file__).parent.parent / "counterexamples" / "alg2-published-4p--fisheye-2014.json"
    r = run_cli("convert", path, "--to", "json")
    assert r.status == 0 and r.err == ""
    assert json.loads(r.out) == load_history_of(path)


def load_history_of(path: Path) -> dict:
    return parse_history(json.loads(path.read_text())["history"]).to_json()


def test_bad_input_is_one_line_exit_2(run_cli, tmp_path):
    bad = tmp_path / "bad.edn"
    bad.write_text("[{:process 0, :type :ok, :f :write, :value 1}]")
    r = run_cli("convert", bad, "--to", "json")
    assert r.status == 2 and r.out == ""
    assert r.err.splitlines() == [f"fisheye: {bad}: line 1: an :ok completion of process 0 with "
                                  "no invocation pending"]


def test_to_is_required_and_json_only(run_cli):
    for args in ([], ["--to", "edn"]):
        r = run_cli("convert", JEPSEN / "porcupine-etcd_000.log", *args)
        assert r.status == 2 and len(r.err.splitlines()) == 1 and "--to" in r.err
