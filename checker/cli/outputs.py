"""The files a command writes (``check --output``, ``convert -o``, ``explain --svg`` and
``--html``, ``latency --plot``): checked before the work starts, so that an unwritable
path is one line on stderr and exit status 2 at once, with nothing written, rather than an
error after minutes of work; then written with the same one-line error if writing still
fails."""

from __future__ import annotations

import os
from pathlib import Path

from ..errors import UsageError


def require_writable(path: str, option: str) -> None:
    """Raise :class:`UsageError` naming ``option`` and ``path`` unless ``path`` can be
    created or overwritten: its directory exists and is writable, and it is not itself a
    directory.  Nothing is created."""
    target = Path(path)
    parent = target.parent
    if target.is_dir():
        raise UsageError(f"{option} {path}: is a directory")
    if not parent.exists():
        raise UsageError(f"{option} {path}: the directory {parent} does not exist")
    if not parent.is_dir():
        raise UsageError(f"{option} {path}: {parent} is not a directory")
    writable = os.access(target, os.W_OK) if target.exists() else os.access(parent, os.W_OK | os.X_OK)
    if not writable:
        raise UsageError(f"{option} {path}: permission denied")


def write_text(path: str, text: str, option: str) -> None:
    """Write ``text`` to ``path`` (UTF-8); an error is one line naming ``option``."""
    try:
        Path(path).write_text(text, encoding="utf-8")
    except OSError as e:
        raise UsageError(f"{option} {path}: cannot be written ({e.strerror})") from None
