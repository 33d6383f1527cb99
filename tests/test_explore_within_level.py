"""The local search saves its checkpoint between two blocks of a level, not only at the
end of one (a level of millions of states would otherwise delay the first save past a
kill), and Ctrl-C stops it between two blocks, with its partial report and a last save,
even when SIGINT was inherited ignored (a background job of a script).  A run resumed
from a save within a level gives the report of an uninterrupted run."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import pytest

from fisheye.checker.explore import engine, make_context, run
from fisheye.checker.explore.report import ReportBuilder

VOLATILE = {"seconds", "states_per_second", "cpu_seconds", "peak_memory_bytes", "visited_bytes",
            "fingerprints", "exact_states", "resumed", "kernel"}
PBN = "paris-berlin-newyork"


def kept(report: dict) -> dict:
    return {k: v for k, v in report.items() if k not in VOLATILE}


class Killed(Exception):
    """Stands for SIGKILL: the run ends where it is, its files as they are."""


def meta(d: str) -> dict:
    with open(os.path.join(d, "checkpoint", "meta.json")) as f:
        return json.load(f)


@pytest.mark.parametrize("later, kernel, exact", [
    (1, "compiled", False), (40, "compiled", False), (1, "python", False), (40, "python", False),
    (40, "python", True)])
def test_a_run_killed_after_a_save_within_a_level_resumes_with_the_same_report(tmp_path, monkeypatch, later,
                                                                               kernel, exact):
    """The run saves after every block of 256 states (a tiny memory budget), and is
    killed ``later`` blocks after its first save within a level: its parent log and next
    level have moved on (by then, over a level's end too) and are cut back on resume.
    The compiled kernel and the Python form (fingerprints, or exact states and the log in
    memory)."""
    ctx = make_context(PBN, "paper")
    whole = run(ctx, kernel=kernel, exact=exact)
    real_save, saves = engine._save, []

    def killing_save(*args, **kwargs):
        within = args[11] if len(args) > 11 else kwargs.get("within")
        if saves and len(saves) >= later:
            raise Killed
        if within is not None or saves:
            saves.append(within is not None)
        real_save(*args, **kwargs)

    d = str(tmp_path / "ck")
    monkeypatch.setattr(engine, "_save", killing_save)
    with pytest.raises(Killed):
        engine.explore(ctx, ReportBuilder(ctx, "protocol"), checkpoint=d, checkpoint_every=0, memory=1,
                       kernel=kernel, exact=exact)
    monkeypatch.setattr(engine, "_save", real_save)
    saved = meta(d)
    assert saves[0], "the first save counted is within a level"
    if later == 1:
        assert saved["expanded"] > 0 and saved["expanded"] % engine.CHUNK == 0
    else:
        assert not all(saves), "a level ended between the first save and the kill"
    resumed = engine.explore(ctx, ReportBuilder(ctx, "protocol"), checkpoint=d, resume=True, memory=1,
                             kernel=kernel, exact=exact)
    assert resumed["resumed"] and resumed["complete"]
    assert kept(resumed) == kept(whole)


def test_saves_within_levels_keep_to_checkpoint_every(tmp_path, monkeypatch):
    """With --checkpoint-every longer than the run, the only save is the first one (due at
    once here): the saves within levels keep to it as those at their ends do."""
    ctx = make_context(PBN, "paper")
    monkeypatch.setattr(engine, "FIRST_CHECKPOINT", 0.0)
    saves = []
    real_save = engine._save
    monkeypatch.setattr(engine, "_save", lambda *a, **k: (saves.append(a[2]), real_save(*a, **k)))
    engine.explore(ctx, ReportBuilder(ctx, "protocol"), checkpoint=str(tmp_path / "ck"), memory=1,
                   checkpoint_every=1e9, kernel="compiled")
    assert len(saves) == 1


def _sigint_ignored() -> None:
    """In the child: SIGINT ignored, as a shell script's background job inherits it."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _cli(*args: str) -> list[str]:
    return [sys.executable, "-m", "fisheye.checker.cli", "explore", *args]


def test_ctrl_c_stops_within_a_level_with_a_last_save_that_resumes(tmp_path):
    """SIGINT in the middle of a level, to a run that inherited it ignored: exit 3 within
    seconds, the partial report, and a save at that very point (its state count is the
    report's) from which the run resumes to the uninterrupted report."""
    d = str(tmp_path / "ck")
    args = (PBN, "--graph", "complete", "--json", "--quiet", "--kernel", "compiled", "--memory", "1M")
    proc = subprocess.Popen(_cli(*args, "--checkpoint", d, "--checkpoint-every", "0"),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=_sigint_ignored)
    until = time.monotonic() + 300
    while True:
        assert proc.poll() is None, "the run ended before it could be interrupted"
        assert time.monotonic() < until, "no checkpoint within a level appeared"
        try:
            if meta(d).get("expanded") and meta(d)["depth"] >= 8:
                break
        except (OSError, ValueError):
            pass
        time.sleep(0.05)
    sent = time.monotonic()
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=120)
    assert time.monotonic() - sent < 10
    assert proc.returncode == 3, err
    partial = json.loads(out)
    assert not partial["complete"] and partial["stopped"] == "interrupted (Ctrl-C)"
    last = meta(d)
    assert last["expanded"] > 0 and last["states"] == partial["states"]
    done = subprocess.run(_cli(*args, "--resume", d), capture_output=True, text=True, timeout=600)
    assert done.returncode in (0, 1), done.stderr
    whole = run(make_context(PBN, "complete"), kernel="compiled")
    assert kept(json.loads(done.stdout)) == kept(whole)
