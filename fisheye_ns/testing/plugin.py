"""The pytest plugin of fisheye (entry point ``pytest11``, loaded by pytest once fisheye
is installed): each test's failed checks write their files to a directory of their
own, ``.fisheye/<test>/`` under the rootdir (``--fisheye-dir DIR`` for another), and
the report of a test that failed a check lists them in a section
``fisheye counterexamples`` with the command that replays each (and in the JUnit XML
as the property ``fisheye_counterexample``).  ``-p no:fisheye`` turns it off."""

from __future__ import annotations

from collections.abc import Generator
from pathlib import Path
from typing import Any

import pytest

from .failure import SAVE_DIR, VerificationFailure, slug


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.getgroup("fisheye").addoption(
        "--fisheye-dir", default=None, metavar="DIR",
        help="where failed fisheye checks write their counterexample files (default: .fisheye/ under "
             "the rootdir; one subdirectory per test)")


def _directory(item: pytest.Item) -> Path:
    base = item.config.getoption("--fisheye-dir")
    root = Path(base) if base else item.config.rootpath / ".fisheye"
    return root / slug(item.nodeid.replace("::", "--"))


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Generator[None, None, None]:
    token = SAVE_DIR.set(_directory(item))
    try:
        yield
    finally:
        SAVE_DIR.reset(token)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[Any]) -> Generator[None, Any, None]:
    outcome = yield
    report = outcome.get_result()
    failure = call.excinfo.value if call.excinfo is not None else None
    if isinstance(failure, VerificationFailure) and failure.files:
        replays = zip(failure.files, failure.replays, strict=True)
        lines = [f"{f}\n  replay: {command}" for f, command in replays]
        report.sections.append(("fisheye counterexamples", "\n".join(lines)))
        for f in failure.files:
            item.user_properties.append(("fisheye_counterexample", str(f)))
