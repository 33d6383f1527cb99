"""Start-up: ``fisheye check`` on a small history imports only what its model and
engine need (of the packages outside the standard library: numpy for the untimed models'
engine, and python-sat when the fisheye models' star search needs a SAT solver; no numba,
z3, pyspark, matplotlib, rich or networkx), and
``fisheye --help`` no command's module.  Checked on ``sys.modules`` in a fresh
interpreter, not by timing."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from fisheye.checker.cli.main import COMMANDS

ROOT = Path(__file__).parent.parent
HEAVY = ("numba", "llvmlite", "z3", "pyspark", "matplotlib", "rich", "networkx")
OUTSIDE = {"sc": {"numpy"}, "cc": {"numpy"}, "fisheye": {"numpy", "pysat", "pysolvers", "pyformula"}}
"""What a small check may load outside the standard library, per model of a JSON history:
the direct engine's arrays, and python-sat (its top-level modules) for the SAT solver of
the star search of both fisheye models; a check of a Jepsen log (lin, sc or fisheye-lin,
the search of fisheye.checker.engines.lin) loads nothing."""

PROBE = """
import gc, json, os, sys
passes = []
gc.callbacks.append(lambda phase, info: passes.append(info["generation"]) if phase == "stop" else None)
from fisheye.checker.cli.main import main
try:
    status = main(sys.argv[1:])
except SystemExit as stop:  # --help
    status = stop.code
loaded = sorted({m.split(".")[0] for m in sys.modules})
outside = sorted(m for m in loaded if m not in sys.stdlib_module_names and m != "fisheye"
                 and not m.startswith("_") and m not in ("sitecustomize", "usercustomize"))
commands = sorted(m for m in sys.modules if m.startswith("fisheye.checker.cli."))
parsers = sorted(m for m in sys.modules if m.startswith("fisheye.checker.formats."))
threads = len(os.listdir("/proc/self/task"))  # native threads too (OpenBLAS's)
print(json.dumps({"status": status, "loaded": loaded, "commands": commands, "parsers": parsers,
                  "outside": outside,
                  "threads": threads, "gc_passes": len(passes), "gc_enabled": gc.isenabled(),
                  "frozen": gc.get_freeze_count(),
                  "blas": os.environ.get("OPENBLAS_NUM_THREADS")}), file=sys.stderr)
"""


def imports_of(*args: str, env: dict[str, str] | None = None) -> dict:
    environ = {k: v for k, v in os.environ.items() if k != "OPENBLAS_NUM_THREADS"}
    proc = subprocess.run([sys.executable, "-c", PROBE, *args], capture_output=True, text=True,
                          timeout=120, cwd=ROOT, env={**environ, **(env or {})})
    return json.loads(proc.stderr.strip().splitlines()[-1])


@pytest.mark.parametrize(("path", "model", "status"), [
    ("examples/fig4.json", "sc", 1), ("examples/fig4.json", "cc", 0),
    ("examples/fig4.json", "fisheye", 1), ("examples/fig4.json", "fisheye-2014", 1),
    ("examples/fig6-x2.json", "fisheye", 1), ("examples/iriw.json", "fisheye-2014", 1),
    ("tests/data/jepsen/porcupine-etcd_000.log", "lin", 1),
    ("tests/data/jepsen/porcupine-etcd_000.log", "sc", 0),
    ("tests/data/jepsen/porcupine-etcd_002.log", "lin", 0),
    ("tests/data/jepsen/porcupine-etcd_002.log", "fisheye-lin", 0),
])
def test_check_of_a_small_history_loads_no_heavy_module(path, model, status):
    seen = imports_of("check", path, "--model", model)
    assert seen["status"] == status
    assert not set(HEAVY) & set(seen["loaded"])
    allowed = OUTSIDE[model.removesuffix("-2014")] if path.endswith(".json") else set()
    assert set(seen["outside"]) <= allowed
    others = {f"fisheye.checker.cli.{c}" for c in COMMANDS if c != "check"}
    assert "fisheye.checker.cli.check" in seen["commands"] and not others & set(seen["commands"])


def test_check_of_a_json_history_loads_no_jepsen_parser():
    assert imports_of("check", "examples/fig4.json", "--model", "cc")["parsers"] == []
    seen = imports_of("check", "tests/data/jepsen/porcupine-etcd_000.log", "--model", "lin")
    assert "fisheye.checker.formats.jepsen_log" in seen["parsers"]


def test_a_lazy_name_is_imported_once_and_an_unknown_one_is_an_attribute_error():
    import fisheye.checker.formats as formats
    from fisheye.checker.formats.jepsen import ImportNotes

    with pytest.raises(AttributeError, match="no attribute 'no_such_name'"):
        formats.no_such_name  # noqa: B018
    assert formats.ImportNotes is ImportNotes and vars(formats)["ImportNotes"] is ImportNotes


def test_lin_check_does_not_load_numpy():
    seen = imports_of("check", "tests/data/jepsen/porcupine-etcd_000.log", "--model", "lin")
    assert seen["status"] == 1 and "numpy" not in seen["loaded"]


def test_a_check_that_loads_numpy_starts_no_blas_thread():
    """The command sets one OpenBLAS thread (nothing does linear algebra), so numpy's import
    starts no thread pool; a user's own setting is kept."""
    seen = imports_of("check", "examples/fig4.json", "--model", "cc")
    assert seen["status"] == 0 and "numpy" in seen["loaded"]
    assert (seen["threads"], seen["blas"]) == (1, "1")
    seen = imports_of("check", "examples/fig4.json", "--model", "cc", env={"OPENBLAS_NUM_THREADS": "2"})
    assert seen["status"] == 0 and seen["blas"] == "2"


def test_help_imports_no_command():
    seen = imports_of("--help")
    assert seen["status"] == 0 and not {f"fisheye.checker.cli.{c}" for c in COMMANDS} & set(seen["commands"])
    assert not set(HEAVY) & set(seen["loaded"])


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_a_command_s_help_loads_nothing_outside_the_standard_library(command):
    seen = imports_of(command, "--help")
    assert seen["status"] == 0 and seen["outside"] == []
    assert f"fisheye.checker.cli.{command}" in seen["commands"]


def test_simulate_runs_without_the_explorer_s_engine():
    """One random run needs the system and its judge, not the explorer's search (numpy)."""
    seen = imports_of("simulate", "paris-berlin-newyork", "--seed", "1")
    assert seen["status"] == 0 and seen["outside"] == []


def test_explore_pauses_the_collector_for_its_start_up_only():
    """Until the search has expanded its first level (numpy and numba imported, the kernel
    loaded from numba's cache) the collector does not run; then what is alive is frozen
    and the collector runs again."""
    seen = imports_of("explore", "paris-berlin-newyork", "--graph", "complete", "--model", "none",
                      "--quiet", "--max-states", "1")
    assert seen["status"] == 3 and "numba" in seen["loaded"]
    assert seen["gc_passes"] < 40  # about 230 with the collector running from the start
    assert seen["gc_enabled"] and seen["frozen"] > 100_000


FROZEN_AT_EXIT = """
import atexit, gc, sys
from fisheye.checker.cli.main import main
atexit.register(lambda: print(gc.get_freeze_count(), file=sys.stderr))  # runs after main's own
sys.argv = ["fisheye", "simulate", "paris-berlin-newyork", "--seed", "1"]
main()
"""


@pytest.mark.parametrize("as_program", [True, False])
def test_the_program_ends_before_the_interpreter_s_last_collection(as_program):
    """Run as the program (arguments from sys.argv), the command ends the process once
    ``main`` returned, before the exit handlers registered ahead of it and the
    interpreter's last collection (:mod:`fisheye.checker.cli.process_end`); called with
    arguments (a library or a test calling main), it leaves the collector alone and the
    interpreter ends as usual."""
    code = FROZEN_AT_EXIT if as_program else FROZEN_AT_EXIT.replace("main()", "main(sys.argv[1:])")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert proc.returncode == 0
    if as_program:
        assert proc.stderr == ""  # the handler registered before main never ran
    else:
        assert int(proc.stderr.strip().splitlines()[-1]) == 0


KERNELS_LOADED = """
import gc, json, random, sys
sys.path.insert(0, "bench")
from histgen import cc_history
from fisheye.checker.engines import ahead_of_time, check, compiled_kernel
ahead_of_time.function = lambda kernel: None  # as where no extension is built: numba loads them
history = cc_history(random.Random(7), 4, 400, 3)
assert len(history.ops) >= compiled_kernel.COMPILED_FROM
passes = []
gc.callbacks.append(lambda phase, info: passes.append(1) if phase == "stop" else None)
verdict = check(history, "cc", engine="direct").verdict.value
print(json.dumps([verdict, len(passes), gc.isenabled(), gc.get_freeze_count()]), file=sys.stderr)
"""


def test_loading_the_compiled_kernels_pauses_the_collector_then_freezes_them():
    """A check large enough for the compiled kernels, where their extensions built ahead
    of time are missing, loads numba and the kernels with the collector paused, then
    freezes them and lets the collector run again (a library call: no command line
    involved)."""
    proc = subprocess.run([sys.executable, "-c", KERNELS_LOADED], capture_output=True, text=True,
                          timeout=300, cwd=ROOT)
    verdict, passes, enabled, frozen = json.loads(proc.stderr.strip().splitlines()[-1])
    assert verdict == "consistent" and enabled and frozen > 100_000
    assert passes < 100  # about 240 with the collector running while numba loads


def test_start_up_ends_once_and_resumes_the_collector_only_if_it_ran():
    import gc

    from fisheye.checker.engines.gcpause import StartUp

    try:
        gc.disable()
        start_up = StartUp()
        start_up.end()
        assert not gc.isenabled()
        gc.enable()
        start_up = StartUp()
        assert not gc.isenabled()
        start_up.end()
        gc.disable()
        start_up.end()  # a second end changes nothing
        assert not gc.isenabled()
    finally:
        gc.enable()
        gc.unfreeze()


BYTECODE = """
import json, os, struct, sys
from fisheye.checker.cli.main import main
main(sys.argv[1:])
stale = []
for name, module in sorted(sys.modules.items()):
    spec = getattr(module, "__spec__", None)
    if not name.startswith("fisheye") or spec is None or not spec.has_location:
        continue
    source, cached = spec.origin, spec.cached
    try:
        with open(cached, "rb") as f:
            mtime, size = struct.unpack("<II", f.read(16)[8:16])
    except OSError:
        stale.append(name)
        continue
    st = os.stat(source)
    if (mtime, size) != (int(st.st_mtime) & 0xFFFFFFFF, st.st_size & 0xFFFFFFFF):
        stale.append(name)
print(json.dumps(stale), file=sys.stderr)
"""


def test_after_bootstrap_no_module_of_a_check_is_compiled_from_source(tmp_path):
    """The byte-compiling line of scripts/bootstrap.sh covers every module a check
    loads: run (into an empty bytecode folder, PYTHONPYCACHEPREFIX), then a check with
    PYTHONDONTWRITEBYTECODE set finds current bytecode there for each (the pyc's recorded
    source time and size are the source's)."""
    bootstrap = (ROOT / "scripts" / "bootstrap.sh").read_text().splitlines()
    line = next(x for x in bootstrap if "compileall" in x and not x.lstrip().startswith("#"))
    env = {**os.environ, "PYTHONPYCACHEPREFIX": str(tmp_path)}
    subprocess.run(line.replace(".venv/bin/python", sys.executable), shell=True, check=True, cwd=ROOT,
                   timeout=300, env=env)
    proc = subprocess.run([sys.executable, "-c", BYTECODE, "check", "examples/fig6-x2.json", "--model",
                           "fisheye"], capture_output=True, text=True, timeout=120, cwd=ROOT,
                          env={**env, "PYTHONDONTWRITEBYTECODE": "1"})
    assert json.loads(proc.stderr.strip().splitlines()[-1]) == []


def test_top_level_help_lists_each_command_with_the_summary_its_module_registers():
    from fisheye.checker.cli.main import build_parser

    full = next(a for a in build_parser()._actions if a.dest == "command")
    lean = next(a for a in build_parser("")._actions if a.dest == "command")
    summaries = {c.dest: c.help for c in full._choices_actions}
    assert summaries == COMMANDS == {c.dest: c.help for c in lean._choices_actions}
