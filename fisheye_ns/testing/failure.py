"""What a failed check raises, and where it writes its files: the directory the pytest
plugin (:mod:`fisheye.testing.plugin`) gives each test (``.fisheye/`` under the rootdir,
``--fisheye-dir``), or a fresh temporary directory outside pytest.  Light on purpose:
the plugin imports it in every pytest run."""

from __future__ import annotations

import re
import shlex
import tempfile
from collections.abc import Callable, Sequence
from contextvars import ContextVar
from pathlib import Path

SAVE_DIR: ContextVar[Path | None] = ContextVar("fisheye_save_dir", default=None)
"""Where a failed check writes its files (None: a fresh temporary directory)."""


class VerificationFailure(AssertionError):
    """A check that failed: the message explains it; ``files`` are the counterexample
    (or history) files written and ``replays`` the command that replays each
    (``fisheye explain FILE`` unless given).  A message given as a function is built
    when first shown (Hypothesis fails many runs while it shrinks, and shows one)."""

    def __init__(self, message: str | Callable[[], str], files: Sequence[Path] = (),
                 replays: Sequence[str] | None = None):
        super().__init__(message if isinstance(message, str) else "")
        self._message = message
        self.files = tuple(files)
        self.replays = tuple(replays) if replays is not None else tuple(
            shlex.join(["fisheye", "explain", str(f)]) for f in self.files)

    def __str__(self) -> str:
        if not isinstance(self._message, str):
            self._message = self._message()
            self.args = (self._message,)
        return self._message


def save_dir() -> Path:
    """The directory for this check's files (made if missing)."""
    d = SAVE_DIR.get() or Path(tempfile.mkdtemp(prefix="fisheye-"))
    d.mkdir(parents=True, exist_ok=True)
    return d


def slug(text: str) -> str:
    """``text`` as a file name part."""
    return re.sub(r"[^A-Za-z0-9_.-]+", "-", text).strip("-")[:60] or "check"
