"""The Python API (``import fisheye``): a thin facade over the engines, the explainer and
the explorer, whose answers are the command line's, and whose import is cheap."""

from __future__ import annotations

import json
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

import fisheye
from fisheye.checker.cli import main
from fisheye.checker.explain import ExplainError

ROOT = Path(__file__).resolve().parent.parent
FIG4 = ROOT / "examples" / "fig4.json"
CX = ROOT / "counterexamples"
HEAVY = ("z3", "numba", "pyspark", "matplotlib")


def test_importing_fisheye_loads_no_heavy_library():
    probe = ("import sys, fisheye; names = fisheye.__all__; fisheye.Verdict; fisheye.History; "
             f"print([m for m in {HEAVY!r} if m in sys.modules])")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"
    used = subprocess.run([sys.executable, "-c", "import sys, fisheye; fisheye.check; "
                           "fisheye.check('examples/fig4.json', 'fisheye', engine='z3'); "
                           "print('z3' in sys.modules)"],
                          capture_output=True, text=True, check=True, cwd=ROOT).stdout
    assert used.strip() == "True"      # the probe can see a heavy import


def test_every_public_name_resolves_and_unknown_names_fail():
    assert sorted(fisheye.__all__) == sorted(fisheye._NAMES)
    for name in fisheye.__all__:
        assert getattr(fisheye, name) is not None, name
    assert fisheye.Verdict.VIOLATION.exit_code == 1
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        fisheye.nope  # noqa: B018


def test_check_takes_a_path_a_history_or_its_json():
    h = fisheye.load(FIG4)
    by_path = fisheye.check(FIG4, "fisheye")
    assert by_path.verdict is fisheye.Verdict.VIOLATION
    assert fisheye.check(h.to_json(), fisheye.Model.FISHEYE).verdict is fisheye.Verdict.VIOLATION
    # without the graph's edge fig4 is a plain cc history (section 3 of the paper)
    assert fisheye.check(h, "fisheye", graph="empty").verdict is fisheye.Verdict.CONSISTENT
    assert fisheye.check(h, "cc").verdict is fisheye.Verdict.CONSISTENT
    with pytest.raises(fisheye.HistoryError, match="no such file"):
        fisheye.load(ROOT / "nope.json")


def test_load_reads_jepsen_histories():
    edn = ROOT / "tests" / "data" / "jepsen" / "knossos-rethink-fail-minimal.edn"
    h = fisheye.load(edn)
    assert fisheye.check(h, "lin").verdict is fisheye.Verdict.VIOLATION


def _cli(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    code = main(args)
    return code, capsys.readouterr().out


@pytest.mark.parametrize("name, model", [("knossos-rethink-fail-minimal.edn", "lin"),
                                         ("knossos-rethink-fail-minimal.edn", "cc")])
def test_explaining_a_jepsen_history_says_nil_as_the_command_line_does(name, model, capsys):
    path = ROOT / "tests" / "data" / "jepsen" / name
    code, out = _cli(["explain", str(path), "--model", model, "--quiet"], capsys)
    if code != 0:
        with pytest.raises(ExplainError):
            fisheye.explain(path, model)
        return
    assert fisheye.explain(path, model).text() == out.rstrip("\n")


def test_explain_prints_what_the_command_line_prints(capsys):
    code, out = _cli(["explain", str(FIG4), "--model", "fisheye", "--quiet"], capsys)
    assert code == 0
    exp = fisheye.explain(FIG4, "fisheye")
    assert exp.text() == out.rstrip("\n")
    assert exp.svg().startswith("<svg") and "<html" in exp.html()
    result = fisheye.check(FIG4, "fisheye")
    assert fisheye.explain(result, history=FIG4).text() == exp.text()
    with pytest.raises(ExplainError, match="consistent"):
        fisheye.explain(FIG4, "cc")


@pytest.mark.parametrize("name", ["mutant-write-returns-early--fisheye.json",
                                  "alg2-published-4p--causal-order.json"])
def test_explaining_a_counterexample_file_matches_the_command_line(name, capsys):
    code, out = _cli(["explain", str(CX / name), "--quiet"], capsys)
    assert code == 0
    exp = fisheye.explain(CX / name)
    assert exp.reproduced and exp.text() == out.rstrip("\n")
    assert "Replay script" in exp.text() and "<html" in exp.html()
    assert exp.svg().startswith("<svg")           # the core's diagram, or the run lane by lane


PROGRAM = "p0: write(X,1), read(Y), read(X); p1: ; p2: await X==1, write(X,3), write(Y,5)"


def test_explore_a_program_of_algorithm_2_as_the_command_line_does(tmp_path, capsys):
    rep = fisheye.explore("toco", PROGRAM, model="cc", variant="published", graph="p0:p1")
    code, out = _cli(["explore", PROGRAM, "--model", "cc", "--variant", "published", "--graph", "p0:p1",
                      "--quiet", "--json"], capsys)
    cli = json.loads(out)
    assert (rep.status.exit_code, rep["states"], rep["histories"]) == (code, cli["states"], cli["histories"])
    assert [v.violates for v in rep.violations] == [v["violates"] for v in cli["violations"]]
    assert [v.violates for v in rep.violations] == ["causal order", "causal order", "cc"]
    assert not rep.ok and rep.status is fisheye.Verdict.VIOLATION
    files = rep.save(tmp_path / "out")
    assert len(files) == len(rep.violations) and all(f.exists() for f in files)
    assert _cli(["explain", str(files[0]), "--quiet"], capsys)[0] == 0   # the file replays
    # the command recorded in the file runs the same exploration
    search = shlex.split(json.loads(files[0].read_text())["search"])[1:]
    code, out = _cli([*search, "--quiet", "--json"], capsys)
    assert json.loads(out)["states"] == rep["states"]


@pytest.mark.parametrize("system, program, options", [
    ("toco", "p0: write(X,1); p1: read(X)", {"level": "abstract", "model": "cc"}),
    ("toco", "p0: write(X,1); p1: read(X)", {"variant": "published", "mutant": "no-t1",
                                             "network": "unordered"}),
    ("lcb", "lcb3", {"crashes": 1, "model": None}),
])
def test_the_recorded_command_runs_the_same_exploration(system, program, options, capsys):
    rep = fisheye.explore(system, program, **options)
    code, out = _cli([*shlex.split(rep.command)[1:], "--quiet", "--json"], capsys)
    assert code == rep.status.exit_code
    cli = json.loads(out)
    assert (cli["states"], cli["histories"], cli["level"]) == (rep["states"], rep["histories"], rep["level"])


def test_a_cut_short_exploration_is_unknown_never_a_pass():
    rep = fisheye.explore("toco", PROGRAM, model="cc", graph="p0:p1", max_states=5)
    assert repr(rep).startswith("Report(unknown, states=")      # short: pytest prints it on failure
    assert rep.status is fisheye.Verdict.UNKNOWN and not rep.ok


def test_a_registered_factory_is_a_system(tmp_path, capsys, monkeypatch):
    monkeypatch.syspath_prepend(str(ROOT / "examples" / "lww"))     # lww.py imports its kernel from there
    import lww
    fisheye.register_system("my-lww", lww.make)
    rep = fisheye.explore("my-lww", "dekker", model="sc")
    assert rep["states"] == 38 and [v.violates for v in rep.violations] == ["sc"]
    assert rep.command.startswith("fisheye explore dekker --system my-lww")
    system = lww.make(fisheye.SystemRequest("dekker", system="my-lww"))
    same = fisheye.explore(system, model="sc")
    assert same["states"] == 38 and same.properties == rep.properties
    with pytest.raises(TypeError, match="built already"):
        fisheye.explore(system, "causal")
    with pytest.raises(ValueError, match="built in"):
        fisheye.register_system("toco", lww.make)
    assert "a case ending in" in rep.explain().text()


def test_product_code_never_imports_the_testing_package_or_hypothesis():
    product = [*ROOT.joinpath("spec").rglob("*.py"), *ROOT.joinpath("impl").rglob("*.py"),
               *ROOT.joinpath("checker").rglob("*.py"),
               *(p for p in ROOT.joinpath("fisheye_ns").rglob("*.py") if "testing" not in p.parts)]
    assert len(product) > 50
    for path in product:
        imports = re.findall(r"^\s*(?:from|import)\s+([\w.]+)", path.read_text(), re.MULTILINE)
        banned = [m for m in imports if m.split(".")[0] == "hypothesis" or m.startswith("fisheye.testing")]
        assert not banned, path


def test_the_readmes_python_quick_start_runs(tmp_path, monkeypatch, capsys):
    text = (ROOT / "README.md").read_text()
    blocks = re.findall(r"```python\n(.*?)```", text, re.DOTALL)
    assert len(blocks) == 1
    (tmp_path / "examples").symlink_to(ROOT / "examples")
    monkeypatch.chdir(tmp_path)
    exec(compile(blocks[0], "README.md", "exec"), {})
    out = capsys.readouterr().out
    assert "Minimal core" in out and "violation ['causal order', 'causal order', 'cc']" in out
    assert (tmp_path / "found" / "program--causal-order--1.json").exists()
    assert "The run violates causal order" in out


@pytest.mark.spark
def test_explore_on_spark_finds_what_the_local_search_finds():
    options = {"model": "cc", "graph": "p0:p1", "variant": "published"}
    local = fisheye.explore("toco", PROGRAM, **options)
    remote = fisheye.explore("toco", PROGRAM, **options, spark="local[2]")
    assert remote["engine"] == "spark" and remote.status is fisheye.Verdict.VIOLATION
    for key in ("states", "terminal_states", "histories", "violations_total", "properties"):
        assert remote[key] == local[key], key


def test_the_protocol_example_uses_only_the_public_api():
    for path in (ROOT / "examples" / "lww").glob("*.py"):
        imports = re.findall(r"^\s*(?:from|import)\s+([\w.]+)", path.read_text(), re.MULTILINE)
        public = ("fisheye", "fisheye.testing")
        internal = [m for m in imports if m.split(".")[0] == "fisheye" and m not in public]
        assert not internal, f"{path.name} imports {internal}"


def test_a_system_object_is_explored_as_its_name_is():
    """A built-in system asks to be explored as its quotient (ExploredAs): an object the
    caller built is explored so too, with the same report as the same system by name."""
    from fisheye.checker.systems import make

    by_name = fisheye.explore("toco", "paris-berlin-newyork", model=None)
    built = make("toco", fisheye.SystemRequest("paris-berlin-newyork", system="toco"))
    by_object = fisheye.explore(built, model=None)
    assert by_name["states"] == by_object["states"] == 17352
    assert by_object["kernel"] == by_name["kernel"] == "compiled"
    assert by_object["histories"] == by_name["histories"]
