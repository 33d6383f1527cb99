"""The ``fisheye`` program ends without tearing its objects down
(:mod:`fisheye.checker.cli.process_end`), and loses nothing by it: its output, its exit
status, the exit handlers its command registered and the threads it started."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).parent.parent / "examples"

PROGRAM = r"""
import atexit, importlib, os, sys, threading, time, types, weakref
cli = importlib.import_module("fisheye.checker.cli.main")

witness_module = types.ModuleType("teardown_witness")  # dropped only by the interpreter's teardown
sys.modules["teardown_witness"] = witness_module
witness = weakref.ref(witness_module, lambda _, write=os.write: write(2, b"torn down\n"))
del witness_module
command = cli._run

def run_with_a_handler_and_a_thread(argv):
    def handler():
        held = importlib.import_module("fisheye.checker.cli.process_end")._held
        print(f"handler ran, {len(held)} held", file=sys.stderr, flush=True)
    atexit.register(handler)
    def late():
        time.sleep(0.3)
        print("thread done", file=sys.stderr, flush=True)
    threading.Thread(target=late).start()
    return command(argv)

cli._run = run_with_a_handler_and_a_thread
sys.argv = ["fisheye", *sys.argv[1:]]
sys.exit(cli.main())
"""


def run_program(*args: str | Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", textwrap.dedent(PROGRAM), *map(str, args)],
                          capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize(("args", "status", "out", "held"), [
    (("check", EXAMPLES / "fig4.json", "--model", "cc"), 0, "consistent under cc", 1),
    (("check", EXAMPLES / "fig4.json", "--model", "sc"), 1, "violation", 1),
    (("check", EXAMPLES / "fig4.json", "--model", "no-such-model"), 2, "", 0),
])
def test_the_program_ends_without_teardown_and_loses_nothing(args, status, out, held):
    proc = run_program(*args)
    assert proc.returncode == status, proc.stderr
    assert out in proc.stdout and (out or proc.stdout == "")
    err = proc.stderr.splitlines()
    handler = f"handler ran, {held} held"  # a checked history is held to the end
    assert handler in err and "thread done" in err  # the thread joined, then the handler ran
    assert err.index("thread done") < err.index(handler)
    assert "torn down" not in err  # the interpreter did not free its modules' objects


def test_in_process_main_ends_nothing(capsys):
    from fisheye.checker.cli import process_end
    from fisheye.checker.cli.main import main

    assert main(["check", str(EXAMPLES / "fig4.json"), "--model", "cc"]) == 0
    assert "consistent under cc" in capsys.readouterr().out
    assert process_end._held is None  # nothing registered, nothing held: the caller goes on


def test_importing_the_command_line_registers_no_exit_handler():
    """A handler registered before ``main`` would run after the one that ends the
    process, that is never: the command line's imports register none."""
    code = "import atexit; import fisheye.checker.cli.main; print(atexit._ncallbacks())"
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert proc.stdout.strip() == "0", proc.stderr
