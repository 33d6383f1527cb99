"""Fuzzing the program syntax and the command lines of ``simulate`` and ``explore``:
every input either means exactly what it says or is rejected (exit status 2, one line
on stderr, no traceback), never silently run as something else (no false pass)."""

from __future__ import annotations

import contextlib
import io
import json
import re

from hypothesis import given, settings
from hypothesis import strategies as st

from fisheye.checker.cli import main
from fisheye.impl.programs import Await, Broadcast, Program, Read, Write, parse_program

# ---- programs ---------------------------------------------------------------------------------

NAMES = st.sampled_from(["p", "q", "p0", "p1", "p10", "paris", "new-york", "dc_2", "0", "x-y-z", "A"])
REGS = st.sampled_from(["X", "Y", "Z", "R1", "flag"])
VALUES = st.integers(-5, 50)
SPACE = st.sampled_from(["", " ", "  ", "\t"])


@st.composite
def operations(draw, read_names):
    kind = draw(st.sampled_from(["w", "r", "a", "b"]))
    reg = draw(REGS)
    if kind == "w":
        return Write(reg, draw(VALUES))
    if kind == "b":
        return Broadcast(reg, draw(VALUES))
    if kind == "a":
        return Await(reg, draw(VALUES))
    name = draw(st.none() | st.sampled_from(["a", "b", "x", "y", "v1", "read", "write"]))
    if name in read_names:
        name = None
    if name:
        read_names.add(name)
    return Read(reg, name, draw(st.none() | VALUES))


@st.composite
def programs(draw) -> Program:
    procs = draw(st.lists(NAMES, min_size=1, max_size=4, unique=True))
    names: set[str] = set()
    ops = {p: draw(st.lists(operations(names), max_size=4)) for p in procs}
    return Program.of(ops)


def op_text(op, sp: str) -> str:
    if isinstance(op, Broadcast):
        return f"bcast({op.register},{sp}{op.value})"
    if isinstance(op, Write):
        return f"write({op.register},{sp}{op.value})"
    if isinstance(op, Await):
        return f"await {op.register}{sp}=={sp}{op.value}"
    s = f"{op.name}{sp}={sp}read({op.register})" if op.name else f"read({op.register})"
    return s + (f"{sp}->{sp}{op.expect}" if op.expect is not None else "")


@st.composite
def rendered(draw) -> tuple[Program, str]:
    prog = draw(programs())
    parts = []
    for p, ops in zip(prog.processes, prog.ops, strict=True):
        sp = draw(SPACE)
        parts.append(f"{sp}{p}{sp}:{draw(SPACE)}" + f"{draw(SPACE)},{draw(SPACE)}".join(
            op_text(o, draw(SPACE)) for o in ops))
    return prog, f"{draw(SPACE)};{draw(SPACE)}".join(parts)


@settings(max_examples=1000, deadline=None)
@given(rendered())
def test_a_program_parses_to_exactly_what_it_says(case):
    prog, text = case
    parsed = parse_program(text)
    assert parsed == prog
    assert parse_program(str(parsed)) == parsed


def _normal(text: str) -> str:
    """A program text without its spacing, empty parts or integer spellings (``007``)."""
    parts = [re.sub(r"\s+", "", p) for p in text.split(";")]
    flat = ";".join(p for p in parts if p)
    return re.sub(r"(?<=[,=>])(-?\d+)(?=[);,]|$)", lambda m: str(int(m.group(1))), flat)


@st.composite
def broken(draw) -> tuple[str, str]:
    """A rendered program with one fault that must be rejected: (text, what)."""
    prog, text = draw(rendered())
    parts = text.split(";")
    fault = draw(st.sampled_from(["repeat", "word-value", "unknown-op", "no-colon", "float-value",
                                  "empty-op", "bad-process"]))
    if fault == "repeat":
        return text + ";" + draw(st.sampled_from(parts)), "appears twice"
    if fault == "word-value":
        return text + "; zz9: write(X, " + draw(st.sampled_from(["one", "1a", "x", "'1'", '"1"'])) + ")", \
            "not an integer"
    if fault == "unknown-op":
        return text + "; zz9: " + draw(st.sampled_from(["writ(X,1)", "read X", "del(X)", "cas(X,1,2)",
                                                         "write(X)", "await X=1", "read(X,1)"])), "is not"
    if fault == "no-colon":
        return text + "; write(X,1)", "expected"
    if fault == "float-value":
        return text + "; zz9: await X==" + draw(st.sampled_from(["1.5", "1e3", "NaN", "inf"])), \
            "not an integer"
    if fault == "empty-op":
        return text + "; zz9: write(X,1),, read(X)", "empty operation"
    return text + "; " + draw(st.sampled_from(["p q", "p!", "-p", "p(1)"])) + ": read(X)", \
        "process name"


@settings(max_examples=600, deadline=None)
@given(broken())
def test_a_faulty_program_is_rejected(case):
    text, what = case
    try:
        parse_program(text)
    except ValueError as e:
        assert what in str(e), (text, str(e))
    else:
        raise AssertionError(f"accepted: {text!r}")


@settings(max_examples=1000, deadline=None)
@given(rendered(), st.data())
def test_a_mutated_program_is_rejected_or_means_what_it_says(case, data):
    """One random character edit: either a ValueError, or a program whose canonical text
    is the edited text (up to spacing and integer spelling) -- never another program."""
    _, text = case
    i = data.draw(st.integers(0, max(len(text) - 1, 0)))
    edit = data.draw(st.sampled_from(["delete", "insert", "replace"]))
    ch = data.draw(st.sampled_from(list("();:,=->_ aX1p\"'.")))
    mutated = {"delete": text[:i] + text[i + 1:], "insert": text[:i] + ch + text[i:],
               "replace": text[:i] + ch + text[i + 1:]}[edit]
    try:
        prog = parse_program(mutated)
    except ValueError:
        return
    assert _normal(str(prog)) == _normal(mutated), (mutated, str(prog))


# ---- command lines ----------------------------------------------------------------------------

PROGRAM = "p0: write(X,1), a=read(X); p1: write(X,2), b=read(X)"
GOOD = {"--graph": ["empty", "complete", "p0:p1"], "--variant": ["corrected", "published"],
        "--network": ["fifo", "unordered"], "--mutant": ["no-t1", "opposite-tie-break"],
        "--seed": ["0", "7"], "--level": ["protocol", "abstract"], "--model": ["sc", "cc", "fisheye", "none"],
        "--max-states": ["300"], "--crashes": ["0", "1"]}
BAD = {"--graph": ["paper", "p0:zz", "p0:p0", "", "file", "p0"], "--variant": ["new"],
       "--network": ["lossy"], "--mutant": ["bogus"], "--seed": ["x", "1.5"], "--level": ["middle"],
       "--model": ["lin2"], "--max-states": ["0", "-1", "x"], "--crashes": ["-1", "x"]}
SIMULATE_OPTS = ("--graph", "--variant", "--network", "--mutant", "--seed")
EXPLORE_OPTS = ("--graph", "--variant", "--network", "--mutant", "--level", "--model", "--max-states",
                "--crashes")


def _run(argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(argv)
    return code, out.getvalue(), err.getvalue()


@st.composite
def command_lines(draw, command: str, opts: tuple[str, ...]) -> tuple[list[str], bool]:
    """(argv, must_fail): must_fail when a value is bad or an option does not apply."""
    scenario = draw(st.sampled_from([PROGRAM, PROGRAM, "p0: write(X,1); p0: read(X)", "p0: write(X,y)",
                                     "nowhere"] + (["fig6"] if command == "simulate" else [])))
    must_fail = scenario != PROGRAM and scenario != "fig6"
    chosen = draw(st.lists(st.sampled_from(opts), unique=True, max_size=4))
    argv = [command, scenario]
    given_opts = {}
    for opt in chosen:
        bad = draw(st.booleans()) and draw(st.booleans())
        value = draw(st.sampled_from(BAD[opt] if bad else GOOD[opt]))
        if bad and not (opt == "--graph" and value == "paper" and scenario == "fig6"):
            must_fail = True
        argv += [opt, value]
        given_opts[opt] = value
    if command == "explore":
        abstract = given_opts.get("--level") == "abstract"
        if abstract and ({"--variant", "--network", "--mutant"} & set(given_opts)):
            must_fail = True
        if "--crashes" in given_opts:        # Algorithms 1 and 2 assume no crash
            must_fail = True
        argv += ["--quiet", "--json"] + ([] if "--max-states" in given_opts else ["--max-states", "300"])
    else:
        argv.append("--json")
    return argv, must_fail


def _assert_sound(argv: list[str], must_fail: bool) -> None:
    code, out, err = _run(argv)
    assert "Traceback" not in err
    if code == 2:
        assert out == "" and err.count("\n") == 1 and err.startswith("fisheye: "), (argv, err)
        return
    assert not must_fail, f"accepted: {argv}"
    assert code in (0, 1, 3), (argv, code)
    report = json.loads(out)
    if "--graph" in argv:
        g = argv[argv.index("--graph") + 1]
        expected = {"empty": [], "complete": [["p0", "p1"]], "p0:p1": [["p0", "p1"]]}.get(g)
        if expected is not None and argv[1] == PROGRAM:
            assert report["graph"] == expected
    elif argv[1] == PROGRAM:
        assert report["graph"] == []       # a program's default graph is the empty one
    for opt, key in (("--variant", "variant"), ("--network", "network"), ("--mutant", "mutant")):
        if opt in argv:
            assert report[key] == argv[argv.index(opt) + 1], (argv, key)
    if code == 0 and argv[0] == "explore":
        assert report["complete"] and not report["violations"]


@settings(max_examples=300, deadline=None)
@given(command_lines("simulate", SIMULATE_OPTS))
def test_simulate_command_lines(case):
    _assert_sound(*case)


@settings(max_examples=250, deadline=None)
@given(command_lines("explore", EXPLORE_OPTS))
def test_explore_command_lines(case):
    _assert_sound(*case)


# ---- explain -----------------------------------------------------------------------------------

EXPLAIN_FILES = ["examples/fig4.json", "examples/fig6-x3-y4.json", "examples/iriw.json",
                 "counterexamples/mutant-no-t1--fisheye.json",
                 "counterexamples/mutant-no-t1--G-delivery-order.json", "examples/missing.json", "README.md"]


@st.composite
def explain_lines(draw) -> tuple[list[str], bool, str]:
    f = draw(st.sampled_from(EXPLAIN_FILES))
    argv = ["explain", f, "--quiet"]
    must_fail = f in ("examples/missing.json", "README.md")
    model = draw(st.sampled_from([None, "sc", "cc", "fisheye", "fisheye-2014", "lin9"]))
    if model:
        argv += ["--model", model]
        must_fail |= model == "lin9"
    elif f.startswith("examples/"):
        must_fail = True                  # a history file needs --model
    graph = draw(st.sampled_from([None, "empty", "complete", "file", "p:q", "paris:berlin", "x:x"]))
    if graph:
        argv += ["--graph", graph]
        procs = {"fig4": {"paris", "berlin", "new-york"}, "no-t1": {"paris", "berlin", "new-york"},
                 "fig6": {"p", "q", "r", "s"}, "iriw": {"p0", "p1", "p2", "p3"}}
        known = next((v for k, v in procs.items() if k in f), set())
        if ":" in graph and not set(graph.split(":")) <= known or graph == "x:x":
            must_fail = True
        if "G-delivery" in f and not model and graph != "file":
            must_fail = True                  # a run violation is not checked on a graph
    timeout = draw(st.sampled_from([None, "30", "0", "-1", "x"]))
    if timeout:
        argv += ["--timeout", timeout]
        must_fail |= timeout != "30"
    out = draw(st.sampled_from([None, "--svg", "--html"]))
    if out:
        argv += [out, "OUT"]                  # a run violation's --svg is the run's diagram
    if draw(st.booleans()):
        argv.append("--json")
    return argv, must_fail, model or ""


@settings(max_examples=200, deadline=None)
@given(explain_lines())
def test_explain_command_lines(tmp_path_factory, case):
    from fisheye.checker.engines import check
    from fisheye.spec.graph import parse_graph_option
    from fisheye.spec.history import load_history

    argv, must_fail, model = case
    if "OUT" in argv:
        argv = [str(tmp_path_factory.mktemp("o") / "out") if a == "OUT" else a for a in argv]
    code, out, err = _run(argv)
    assert "Traceback" not in err
    if code == 2:
        assert out == "" and err.count("\n") == 1 and err.startswith("fisheye: "), (argv, err)
        return
    assert not must_fail, f"accepted: {argv}"
    assert code in (0, 1, 3), (argv, code)
    if code == 0 and model:   # no false explanation: check agrees on the history explained
        if argv[1].startswith("examples/"):
            h = load_history(argv[1])
        else:
            from fisheye.checker import counterexample as cxm

            h = cxm.load(argv[1]).history
        g = argv[argv.index("--graph") + 1] if "--graph" in argv else "file"
        graph = parse_graph_option(g, h.processes, h.edges)
        assert check(h, model, graph).verdict.value == "violation", argv


# ---- user systems built from random small programs ---------------------------------------------

@st.composite
def store_programs(draw) -> tuple[str, bool]:
    """A small program for the eager store of tests/user_systems.py, and whether some
    process starts with an await of a value no one writes (then every run deadlocks)."""
    procs = ["p0", "p1", "p2"][:draw(st.integers(2, 3))]
    written = iter(range(1, 10))
    parts, stuck = [], False
    for p in procs:
        ops = []
        for k in range(draw(st.integers(0, 2))):
            kind = draw(st.sampled_from(["w", "r", "a"]))
            reg = draw(st.sampled_from(["X", "Y"]))
            if kind == "w":
                ops.append(f"write({reg},{next(written)})")
            elif kind == "r":
                ops.append(f"read({reg})")
            else:
                value = draw(st.sampled_from([1, 2, 42]))       # 42: never written
                stuck = stuck or (k == 0 and value == 42)
                ops.append(f"await {reg}=={value}")
        parts.append(f"{p}: {', '.join(ops)}")
    return "; ".join(parts), stuck


def _explore_user(program: str, *opts: str) -> tuple[int, dict]:
    code, out, err = _run(["explore", program, "--system", "user_systems:eager", "--json", "--quiet", *opts])
    assert "Traceback" not in err and code in (0, 1), (program, opts, code, err)
    return code, json.loads(out)


@settings(max_examples=60, deadline=None)
@given(store_programs(), st.sampled_from(["sc", "cc", "fisheye"]), st.sampled_from(["empty", "complete"]))
def test_user_systems_from_random_programs(case, model, graph):
    """An honest user system is explored as asked: the report names the network and the
    graph given; its exit status agrees with the report; a process blocked on an await
    of a value no one writes is a deadlock, never a finished run; the FIFO runs are among
    the unordered ones (so a violation on FIFO channels is one on unordered channels);
    the full search finds the same terminal states and violations as the reduced one."""
    program, stuck = case
    runs = {}
    for network in ("fifo", "unordered"):
        code, rep = _explore_user(program, "--model", model, "--graph", graph, "--network", network)
        assert rep["network"] == network and rep["algorithm"] == "user_systems:eager"
        assert (code == 0) == (rep["complete"] and not rep["violations_total"]
                               and all(p["status"] != "never held" for p in rep["properties"]))
        if stuck:
            assert code == 1 and rep["deadlocks"] and rep["terminal_states"] == 0
        runs[network] = rep
    fifo, unordered = runs["fifo"], runs["unordered"]
    assert fifo["histories"] <= unordered["histories"]
    if any(v["kind"] == "model" for v in fifo["violations"]):
        assert any(v["kind"] == "model" for v in unordered["violations"])
    _, full = _explore_user(program, "--model", model, "--graph", graph, "--reduction", "none")
    for key in ("terminal_states", "histories", "deadlocks", "violations_total"):
        assert full[key] == fifo[key], (program, key)
