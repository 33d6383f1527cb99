"""The first checkpoint of a local exploration comes early (engine.FIRST_CHECKPOINT),
so that a run killed before its first regular save can be resumed."""

from __future__ import annotations

import os

from fisheye.checker.explore import make_context
from fisheye.checker.explore.report import ReportBuilder


def test_the_first_checkpoint_comes_early_whatever_checkpoint_every_says(tmp_path, monkeypatch):
    """A run killed before its first regular save can be resumed: the first save comes
    within engine.FIRST_CHECKPOINT seconds (here 0) even with a long --checkpoint-every."""
    from fisheye.checker.explore import engine

    monkeypatch.setattr(engine, "FIRST_CHECKPOINT", 0.0)
    d = str(tmp_path / "ck")
    ctx = make_context("fig6", "paper")
    engine.explore(ctx, ReportBuilder(ctx, "protocol"), max_states=2000, checkpoint=d,
                   checkpoint_every=1e9)
    assert os.path.exists(os.path.join(d, "checkpoint", "meta.json"))
    monkeypatch.setattr(engine, "FIRST_CHECKPOINT", 60.0)
    d2 = str(tmp_path / "ck2")
    engine.explore(ctx, ReportBuilder(ctx, "protocol"), max_states=2000, checkpoint=d2,
                   checkpoint_every=1e9)
    assert not os.path.exists(os.path.join(d2, "checkpoint"))


def test_a_checkpoint_resumes_only_the_same_system_record(tmp_path):
    """The checkpoint's signature is the system's whole record: another number of
    crashes (or level, or option) is another exploration, refused."""
    import pytest

    from fisheye.checker.explore import engine

    d = str(tmp_path / "ck")
    one = make_context("lcb3", algorithm="lcb", crashes=1)
    engine.explore(one, ReportBuilder(one, "protocol", model=None), max_states=300, checkpoint=d,
                   checkpoint_every=0)
    none = make_context("lcb3", algorithm="lcb", crashes=0)
    with pytest.raises(ValueError, match="another exploration"):
        engine.explore(none, ReportBuilder(none, "protocol", model=None), checkpoint=d, resume=True)
    again = engine.explore(one, ReportBuilder(one, "protocol", model=None), max_states=400, checkpoint=d,
                           resume=True)
    assert again["resumed"]
