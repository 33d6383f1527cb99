"""Random Jepsen histories, well formed or not: every one either imports to an object the
contract's parser accepts, with every operation accounted for, or is rejected as bad input
(one line naming the file); never a traceback."""

from __future__ import annotations

import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fisheye.checker.cli import main
from fisheye.checker.formats import read_history_object
from fisheye.spec.history import HistoryError, parse_history

VALUES = st.one_of(st.sampled_from(["nil", "0", "1", "2", '"nil"', '"a"', ":k", "1.5", "true"]),
                   st.sampled_from(["[1 2]", "[nil 1]", "[:k 1]", "[0 [1 2]]", "{:a 1}",
                                    "{:a 1 :b 2}", "[[:write :a 1]]", "[[:read :a nil]]"]))
PROCESS = st.sampled_from(["0", "1", "2", ":nemesis"])
TYPE = st.sampled_from(["invoke", "invoke", "ok", "fail", "info"])
EVENT = st.tuples(PROCESS, TYPE, st.sampled_from(["read", "write", "cas", "txn"]), VALUES)
SMALL = st.sampled_from(["nil", "0", "1", "2"])
WELL_TYPED = st.one_of(  # values of the single-register shape, by :f
    st.tuples(PROCESS, TYPE, st.just("read"), SMALL),
    st.tuples(PROCESS, TYPE, st.just("write"), SMALL),
    st.tuples(PROCESS, TYPE, st.just("cas"), st.builds("[{} {}]".format, SMALL, SMALL)))


def edn_text(events: list[tuple[str, str, str, str]]) -> str:
    return "[" + "\n".join(f"{{:process {p}, :type :{t}, :f :{f}, :value {v}}}"
                           for p, t, f, v in events) + "]"


def paired(events: list[tuple[str, str, str, str]]) -> list[tuple[str, str, str, str]]:
    """Make most random histories well formed: each invocation completed in turn."""
    out = []
    for p, t, f, v in events:
        out.append((p, "invoke", f, v))
        out.append((p, t if t != "invoke" else "ok", f, v))
    return out


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.one_of(EVENT, WELL_TYPED, WELL_TYPED, WELL_TYPED), max_size=12), st.booleans(),
       st.sampled_from(["initial", "any"]))
def test_random_histories_import_faithfully_or_are_rejected(events, pair, nil_read):
    if pair:
        events = paired(events)
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "h.edn"
        path.write_text(edn_text(events))
        try:
            imp = read_history_object(str(path), nil_read=nil_read)
        except HistoryError as e:
            assert str(e).startswith(f"{path}: ") and "\n" not in str(e)
            return
        history = parse_history(imp.obj, str(path))
        n = imp.notes
        assert len(history.ops) == n.operations
        client = [e for e in events if e[0] != ":nemesis"]
        invoked = sum(1 for _, t, _, _ in client if t == "invoke")
        completions = len(client) - invoked
        assert n.nemesis_events == len(events) - len(client)
        assert invoked == n.operations + n.failed + n.indeterminate_reads + n.nil_reads_dropped
        assert n.never_completed == invoked - completions
        assert sum(op.maybe for op in history.ops) == n.indeterminate_writes


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.one_of(EVENT, WELL_TYPED), max_size=8))
def test_check_on_random_logs_exits_with_a_status_and_no_traceback(events):
    lines = [f"INFO  jepsen.util - {p}\t:{t}\t:{f}\t{v}" for p, t, f, v in paired(events)]
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "h.log"
        path.write_text("\n".join(lines) + "\n")
        status = main(["check", str(path), "--model", "sc", "--json"])
    assert status in (0, 1, 2, 3)
