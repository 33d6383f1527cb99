"""The driver JVM's class archive (:func:`fisheye.checker.spark.session.write_class_archive`,
the JDK's class data sharing): written whole, then used by a later session (the JVM told
to refuse to start without it starts), and left out where it is missing."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from fisheye.checker.spark import session

ROOT = Path(__file__).parent.parent

WRITE = """
import sys
from fisheye.checker.spark.session import write_class_archive
print(write_class_archive(sys.argv[1]))
"""

USE = """
import sys
from fisheye.checker.spark import session
session.class_archive_path = lambda: sys.argv[1]
session.DRIVER_JAVA_FLAGS += " -Xshare:on"  # the JVM refuses to start if it cannot map the archive
spark = session.start_session("local[1]", app_name="archive-test")
print(spark.sparkContext.parallelize(range(10), 2).sum())
"""


def test_the_archive_is_written_whole_then_used(tmp_path):
    archive = tmp_path / "share" / "classes.jsa"
    out = subprocess.run([sys.executable, "-c", WRITE, str(archive)], capture_output=True, text=True,
                         timeout=300, cwd=ROOT)
    assert out.stdout.strip() == str(archive), out.stderr
    assert archive.stat().st_size > 10_000_000 and list(archive.parent.iterdir()) == [archive]
    used = subprocess.run([sys.executable, "-c", USE, str(archive)], capture_output=True, text=True,
                          timeout=300, cwd=ROOT)
    assert used.returncode == 0 and used.stdout.strip().splitlines()[-1] == "45", used.stderr
    broken = tmp_path / "broken.jsa"
    broken.write_bytes(b"not an archive")
    refused = subprocess.run([sys.executable, "-c", USE, str(broken)], capture_output=True, text=True,
                             timeout=300, cwd=ROOT)
    assert refused.returncode != 0  # -Xshare:on holds the JVM to the archive: the test can fail


def test_the_flag_names_the_archive_only_where_it_is(monkeypatch, tmp_path):
    archive = tmp_path / "classes.jsa"
    monkeypatch.setattr(session, "class_archive_path", lambda: str(archive))
    assert "SharedArchiveFile" not in session._class_archive_flag()
    monkeypatch.setattr(session, "class_archive_path", lambda: None)
    assert "SharedArchiveFile" not in session._class_archive_flag()
    monkeypatch.setattr(session, "class_archive_path", lambda: str(archive))
    archive.write_bytes(b"x")
    assert session._class_archive_flag() == f"-XX:SharedArchiveFile={archive}"


def test_no_java_no_archive(monkeypatch, tmp_path):
    monkeypatch.setenv("JAVA_HOME", str(tmp_path / "no-such-jdk"))
    assert session.class_archive_path() is None
    monkeypatch.delenv("JAVA_HOME")
    path = session.class_archive_path()
    assert path is not None and path.startswith(sys.prefix) and path.endswith(".jsa")
