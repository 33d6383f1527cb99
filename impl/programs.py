"""Programs run by Algorithm 2, the paper's scenarios, and random programs and graphs.

A program gives each process a list of operations:

* ``Write(X, v)``: ``X.write(v)`` (Algorithm 2, lines 1-5);
* ``Read(X, name)``: ``X.read()`` (lines 6-8); a *named* read's value is an outcome of
  the run; ``expect`` is the value a figure shows for it (fig6's plain reads);
* ``Await(X, v)``: the ``repeat c <- X until c = v`` loops of Figure 3, enabled only
  when the local copy of X holds v; only the read that ends the wait is recorded
  (Figure 3's loops are waits on the local value).

Scenarios: ``paris-berlin-newyork`` (Figure 3, paper graph paris-berlin, named reads
``a`` and ``b``) and ``fig6`` (Figure 6, paper graph p-q and r-s, named reads ``x`` and
``y`` for ``x?`` and ``y?``; the other reads carry Figure 6's values as ``expect``).

Randomness lives here only in the generators, which take an explicit ``random.Random``.
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from itertools import combinations
from typing import Any

from fisheye.spec.history import Value


@dataclass(frozen=True)
class Write:
    """``register.write(value)`` (text form ``write(X,v)``)."""

    register: str
    value: Value

    def __str__(self) -> str:
        return f"write({self.register},{self.value})"


@dataclass(frozen=True)
class Broadcast(Write):
    """A broadcast-level step: ``TOCO_broadcast(WRITE(X, v, i))`` without
    Algorithm 2's wait (line 4), so a process may broadcast again before its own message
    is delivered -- Algorithm 1 exercised as a broadcast in its own right.  Recorded as
    a write; text form ``bcast(X,v)``."""

    def __str__(self) -> str:
        return f"bcast({self.register},{self.value})"


@dataclass(frozen=True)
class Read:
    """``register.read()``, named ``name`` when its value is part of a run's outcome,
    ``expect``: the value a figure shows (text form ``[name=]read(X)[->v]``)."""

    register: str
    name: str | None = None
    expect: Value | None = None  # the figure's value (None: no expectation)

    def __str__(self) -> str:
        s = f"read({self.register})"
        if self.name:
            s = f"{self.name}={s}"
        if self.expect is not None:
            s += f"->{self.expect}"
        return s


@dataclass(frozen=True)
class Await:
    """Wait until the local view of ``register`` holds ``value`` (text form ``await X==v``)."""

    register: str
    value: Value

    def __str__(self) -> str:
        return f"await {self.register}=={self.value}"


Operation = Write | Read | Await


@dataclass(frozen=True)
class Program:
    """Per process, the operations it invokes in order: ``ops[i]`` is the program of
    ``processes[i]``; ``initial``: registers' initial values (the others start at the default)."""

    processes: tuple[str, ...]
    ops: tuple[tuple[Operation, ...], ...]  # ops[i]: the program of processes[i]
    initial: tuple[tuple[str, Value], ...] = ()

    def __post_init__(self) -> None:
        if len(self.ops) != len(self.processes):
            raise ValueError("one operation list per process")
        if len(set(self.processes)) != len(self.processes):
            raise ValueError("process names must be distinct")
        names = [o.name for p in self.ops for o in p if isinstance(o, Read) and o.name]
        if len(set(names)) != len(names):
            raise ValueError("read names must be distinct")

    @staticmethod
    def of(programs: Mapping[str, Iterable[Operation]], initial: Mapping[str, Value] | None = None
           ) -> Program:
        return Program(tuple(programs), tuple(tuple(v) for v in programs.values()),
                       tuple(sorted((initial or {}).items())))

    @property
    def registers(self) -> tuple[str, ...]:
        seen: dict[str, None] = {r: None for r, _ in self.initial}
        for p in self.ops:
            for o in p:
                seen.setdefault(o.register, None)
        return tuple(sorted(seen))

    @property
    def read_names(self) -> tuple[str, ...]:
        """Named reads, in process then program order."""
        return tuple(o.name for p in self.ops for o in p if isinstance(o, Read) and o.name)

    def __str__(self) -> str:
        return "; ".join(f"{p}: " + ", ".join(str(o) for o in ops)
                         for p, ops in zip(self.processes, self.ops, strict=True))


@dataclass(frozen=True)
class Scenario:
    """A named configuration of a system of the registry (``system``: ``toco``, Algorithm
    2 over Algorithm 1, or ``lcb``, the localized broadcast): the processes' register
    programs, the paper's graph (``toco``), and for ``lcb`` each process's locality and,
    for a broadcast-only scenario, the messages each process broadcasts (then the
    program has no operation)."""

    name: str
    program: Program
    paper_edges: tuple[tuple[str, str], ...]
    description: str
    system: str = "toco"
    locality: tuple[tuple[str, tuple[str, ...]], ...] = ()
    broadcasts: tuple[tuple[str, tuple[Any, ...]], ...] = ()

    @property
    def processes(self) -> tuple[str, ...]:
        return self.program.processes


PARIS_BERLIN_NEWYORK = Scenario(
    "paris-berlin-newyork",
    Program.of({
        "paris": [Write("X", 1), Write("R", 1), Read("X", "a")],
        "berlin": [Write("X", 2), Write("S", 1), Read("X", "b")],
        "new-york": [Await("R", 1), Await("S", 1), Write("X", 3)],
    }),
    (("paris", "berlin"),),
    "Figure 3: paris and berlin write X then a flag, then read X; new-york waits for "
    "both flags and writes X.",
)

FIG6 = Scenario(
    "fig6",
    Program.of({
        "p": [Write("X", 2), Write("Y", 4)],
        "q": [Write("X", 3), Read("Y", expect=4), Read("Y", expect=5)],
        "r": [Read("X", expect=2), Read("X", expect=3), Write("Y", 5)],
        "s": [Read("X", expect=3), Read("X", "x"), Read("Y", expect=5), Read("Y", "y")],
    }),
    (("p", "q"), ("r", "s")),
    "Figure 6 / Table 1: four processes, graph p-q and r-s; x? and y? are the named "
    "reads x and y.",
)


def _lcb(name: str, locality: Mapping[str, str], description: str, *,
         broadcasts: Mapping[str, tuple[Any, ...]] | None = None,
         programs: Mapping[str, Iterable[Operation]] | None = None) -> Scenario:
    loc = tuple((p, tuple(qs)) for p, qs in locality.items())
    if broadcasts is not None:
        return Scenario(name, Program.of({p: [] for p in broadcasts}), (), description, "lcb", loc,
                        tuple(broadcasts.items()))
    assert programs is not None
    return Scenario(name, Program.of(programs), (), description, "lcb", loc)


LCB_SCENARIOS = (
    _lcb("lcb3", {"p": "r", "q": "p", "r": "q"},
         "p broadcasts p1, q broadcasts q1, r only delivers; localities form the asymmetric ring "
         "q -> p, r -> q, p -> r (locality(q) = {p}, ...).  If q delivers p1 before broadcasting q1 "
         "(p is in q's locality) then p1 -> q1 and every process must deliver p1 first; if q "
         "broadcasts first there is no constraint.  With locality(q) = {} p1 never causes q1.",
         broadcasts={"p": ("p1",), "q": ("q1",), "r": ()}),
    _lcb("lcb4", {"p": "s", "q": "p", "r": "q", "s": "r"},
         "as lcb3 with a fourth process: p broadcasts p1, q broadcasts q1, r and s only deliver; "
         "localities form the ring q -> p, r -> q, s -> r, p -> s (a majority is 3 of 4).",
         broadcasts={"p": ("p1",), "q": ("q1",), "r": (), "s": ()}),
    _lcb("lcb-mem3", {"p": "q", "q": "", "r": "q"},
         "Algorithm 2 over the localized broadcast: p writes X, q reads X then writes Y, r reads Y "
         "then X.  p is not in q's locality, so q's write of Y does not depend on p's write of X even "
         "when q read it: r may read Y = 1 and then X = 0.",
         programs={"p": [Write("X", 1)], "q": [Read("X"), Write("Y", 1)], "r": [Read("Y"), Read("X")]}),
    _lcb("lcb-dekker", {"p": "q", "q": "p"},
         "Algorithm 2 over the localized broadcast, two mutually local processes (the graph of mutual "
         "locality is the edge p-q): p writes X then reads Y, q writes Y then reads X.",
         programs={"p": [Write("X", 1), Read("Y")], "q": [Write("Y", 1), Read("X")]}),
)

SCENARIOS: dict[str, Scenario] = {s.name: s for s in (PARIS_BERLIN_NEWYORK, FIG6, *LCB_SCENARIOS)}
"""Every scenario, of every built-in system (``Scenario.system``)."""


def scenario_names(system: str = "toco") -> tuple[str, ...]:
    return tuple(n for n, s in SCENARIOS.items() if s.system == system)


SCENARIO_NAMES: tuple[str, ...] = scenario_names("toco")


def scenario(name: str, system: str = "toco") -> Scenario:
    """The scenario ``name`` of ``system`` (``ValueError`` naming the known ones)."""
    s = SCENARIOS.get(name)
    if s is None or s.system != system:
        known = ", ".join(scenario_names(system))
        what = "scenario" if system == "toco" else f"{system} scenario"
        raise ValueError(f"unknown {what} {name!r} (expected one of: {known})") from None
    return s


# ---- a small text form, handy in tests and on the command line ------------------------------
#: The program syntax (documented in docs/cli.md): processes separated by ``;``, each
#: ``NAME: op, op, ...`` with NAME made of letters, digits, ``_`` and ``-``; an operation is
#: ``write(X,v)``, ``[name=]read(X)[->v]``, ``await X==v`` or ``bcast(X,v)``; registers are
#: identifiers, values are integers.
_PROCESS = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_-]*")
_OP = re.compile(r"^(?:(?P<name>[A-Za-z_]\w*)\s*=\s*)?read\(\s*(?P<rr>[A-Za-z_]\w*)\s*\)"
                 r"(?:\s*->\s*(?P<exp>\S+))?$"
                 r"|^write\(\s*(?P<wr>[A-Za-z_]\w*)\s*,\s*(?P<wv>[^()\s]+)\s*\)$"
                 r"|^await\s+(?P<ar>[A-Za-z_]\w*)\s*==\s*(?P<av>\S+)$"
                 r"|^bcast\(\s*(?P<br>[A-Za-z_]\w*)\s*,\s*(?P<bv>[^()\s]+)\s*\)$")
OPERATION_FORMS = "write(X,v), [name=]read(X)[->v], await X==v or bcast(X,v)"


def _value(text: str, where: str) -> int:
    """A program's values are integers (a bare word is a typo, never a string value)."""
    if not re.fullmatch(r"-?\d+", text):
        raise ValueError(f"{where}: the value {text!r} is not an integer")
    return int(text)


def parse_program(text: str) -> Program:
    """``"p0: write(X,1), a=read(Y); p1: await X==1, read(X)"``.

    Strict: a process named twice, an unknown operation, a value that is not an integer,
    a repeated read name or an empty program is a :class:`ValueError` naming the part at
    fault -- never a silently different program."""
    progs: dict[str, list[Operation]] = {}
    for part in text.split(";"):
        part = part.strip()
        if not part:
            continue
        if ":" not in part:
            raise ValueError(f"{part!r}: expected 'process: op, op, ...'")
        proc, body = part.split(":", 1)
        proc = proc.strip()
        if not _PROCESS.fullmatch(proc):
            raise ValueError(f"{proc!r} is not a process name (letters, digits, '_' and '-')")
        if proc in progs:
            raise ValueError(f"process {proc!r} appears twice in the program (give each process "
                             "one 'process: op, op, ...' part)")
        ops: list[Operation] = []
        raws = re.split(r",(?![^()]*\))", body)  # commas outside parentheses
        for raw in raws:
            raw = raw.strip()
            if not raw:
                if len(raws) > 1:
                    raise ValueError(f"{proc}: an empty operation between commas")
                continue
            mt = _OP.match(raw)
            if not mt:
                raise ValueError(f"{proc}: {raw!r} is not {OPERATION_FORMS}")
            where = f"{proc}: {raw!r}"
            if mt["rr"]:
                exp = _value(mt["exp"], where) if mt["exp"] is not None else None
                ops.append(Read(mt["rr"], mt["name"], exp))
            elif mt["wr"]:
                ops.append(Write(mt["wr"], _value(mt["wv"], where)))
            elif mt["br"]:
                ops.append(Broadcast(mt["br"], _value(mt["bv"], where)))
            else:
                ops.append(Await(mt["ar"], _value(mt["av"], where)))
        progs[proc] = ops
    if not progs:
        raise ValueError("the program names no process (expected 'process: op, op, ...; ...')")
    return Program.of(progs)


# ---- random programs and graphs -------------------------------------------------------------
def random_program(rng: random.Random, n: int, *, max_ops: int = 3, registers: str = "XY",
                   read_ratio: float = 0.5) -> Program:
    """A random program for processes ``p0..p{n-1}``: up to ``max_ops`` reads and writes
    each, written values distinct (1, 2, 3, ... in order of generation), no awaits (a
    random program never deadlocks)."""
    counter = 0
    progs: dict[str, list[Operation]] = {}
    for i in range(n):
        ops: list[Operation] = []
        for _ in range(rng.randint(0, max_ops)):
            reg = rng.choice(registers)
            if rng.random() < read_ratio:
                ops.append(Read(reg))
            else:
                counter += 1
                ops.append(Write(reg, counter))
        progs[f"p{i}"] = ops
    return Program.of(progs)


def random_edges(rng: random.Random, processes: Iterable[str], p_edge: float = 0.5
                 ) -> tuple[tuple[str, str], ...]:
    """A random proximity graph: each possible edge present with probability ``p_edge``."""
    return tuple(e for e in combinations(tuple(processes), 2) if rng.random() < p_edge)
