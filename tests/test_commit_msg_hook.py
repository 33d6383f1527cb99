"""The commit-msg hook of scripts/: a subject of at most 72 characters, a blank line before
the body; and scripts/install-hooks.sh (run by scripts/test.sh) puts it where git runs it,
from a worktree too."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
HOOK = ROOT / "scripts" / "commit-msg"
INSTALL = ROOT / "scripts" / "install-hooks.sh"


def _hook(tmp_path: Path, message: str) -> subprocess.CompletedProcess:
    f = tmp_path / "COMMIT_EDITMSG"
    f.write_text(message, encoding="utf-8")
    return subprocess.run(["bash", str(HOOK), str(f)], capture_output=True, text=True)


@pytest.mark.parametrize("message", [
    "docs: benchmarks open with one table\n",
    "x" * 72 + "\n\nbody line one\nbody line two " + "y" * 200 + "\n",
    "é" * 72 + "\n\nseventy-two characters, more bytes\n",
    "\n\nleading blank lines dropped\n\nbody\n",
    "# a comment git drops\nsubject\n# another\n\nbody\n",
])
def test_good_messages_pass(tmp_path, message):
    r = _hook(tmp_path, message)
    assert r.returncode == 0, r.stderr


@pytest.mark.parametrize("message, words", [
    ("x" * 73 + "\n", "73 characters"),
    ("a subject that says everything, " * 5 + "\n\nbody\n", "at most 72"),
    ("subject\nbody right under it\n", "second line must be blank"),
    ("# comment\n" + "é" * 73 + "\n", "73 characters"),
])
def test_bad_messages_fail_with_a_reason(tmp_path, message, words):
    r = _hook(tmp_path, message)
    assert r.returncode == 1
    assert words in r.stderr


def _git(cwd: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", *args], cwd=cwd,
                          capture_output=True, text=True)


def test_install_puts_the_hook_where_git_runs_it_from_a_worktree(tmp_path):
    clone = tmp_path / "clone"
    (clone / "scripts").mkdir(parents=True)
    for f in (HOOK, INSTALL):
        shutil.copy2(f, clone / "scripts" / f.name)
    assert _git(clone, "init", "-q").returncode == 0
    assert _git(clone, "add", ".").returncode == 0
    assert _git(clone, "commit", "-q", "-m", "first").returncode == 0
    assert _git(clone, "worktree", "add", "-q", str(tmp_path / "wt"), "-b", "wt").returncode == 0
    wt = tmp_path / "wt"
    r = subprocess.run(["bash", "scripts/install-hooks.sh"], cwd=wt, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert (clone / ".git" / "hooks" / "commit-msg").read_bytes() == HOOK.read_bytes()
    (wt / "f").write_text("x")
    _git(wt, "add", "f")
    bad = _git(wt, "commit", "-q", "-m", "s" * 80)
    assert bad.returncode != 0 and "at most 72" in bad.stderr
    good = _git(wt, "commit", "-q", "-m", "short subject\n\nthe body")
    assert good.returncode == 0, good.stderr


def test_install_leaves_another_hook_alone(tmp_path):
    clone = tmp_path / "clone"
    (clone / "scripts").mkdir(parents=True)
    for f in (HOOK, INSTALL):
        shutil.copy2(f, clone / "scripts" / f.name)
    _git(clone, "init", "-q")
    own = clone / ".git" / "hooks" / "commit-msg"
    own.parent.mkdir(exist_ok=True)
    own.write_text("#!/bin/sh\nexit 0\n")
    r = subprocess.run(["bash", "scripts/install-hooks.sh"], cwd=clone, capture_output=True, text=True)
    assert r.returncode == 0
    assert "left as it is" in r.stderr
    assert own.read_text() == "#!/bin/sh\nexit 0\n"


def test_test_sh_installs_the_hook():
    assert "bash scripts/install-hooks.sh" in (ROOT / "scripts" / "test.sh").read_text()
