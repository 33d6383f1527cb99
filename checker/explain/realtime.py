"""Explanations of ``lin`` and ``fisheye-lin`` violations (and of ``sc`` on histories
with cas or ``maybe`` operations), after Elle: data first, text second.

1. The core: the direct engine's certificate (:mod:`fisheye.checker.engines.lin`), a
   small set of operations that already admits no sequence, some of them *optional*
   (a ``maybe`` operation, or a write the core keeps only as "whether or not it took
   effect").
2. The operations are named ``A, B, C ...`` with their intervals.
3. Orderings every sequence of the core must have are derived, each with its reason:
   process order, real time between neighbours (``A`` completed before ``B`` was
   invoked), the only possible source of a read (or cas), and legality (a write to the
   register before the read must come before its source; a write after the source must
   come after the read).  When the derived orderings close a cycle, the explanation is
   that cycle, "A < B because ...; ... However, C < A because ...: a contradiction!".
   When they do not (the core needs a case analysis: several possible sources), the
   explanation says so and lists the core; the engine's search is the proof.

Every ordering is derived only from operations that must be in the sequence, so a
cycle is a proof that the core, hence the history, has no sequence.
"""

from __future__ import annotations

import re
from collections import deque
from dataclasses import dataclass
from typing import Any

from fisheye.spec.graph import ProximityGraph
from fisheye.spec.history import History, Value, format_value, value_key
from fisheye.spec.models import Model
from fisheye.spec.realtime import RealTimePairs, real_time_pairs

from ..engines import lin as lin_engine
from ..result import Verdict
from .errors import ExplainError
from .words import op_names, start_text, value_text


@dataclass(frozen=True)
class Ordering:
    """``before < after`` in every sequence of the core, because ``why`` (rule:
    ``po``, ``real-time``, ``source``, ``legality``); ``needs``: orderings it uses."""

    before: int
    after: int
    rule: str
    why: str
    needs: tuple[tuple[int, int], ...] = ()


@dataclass(frozen=True)
class RealTimeExplanation:
    history: History
    model: Model
    core: tuple[int, ...]                 # uids of the history: the engine's core, or the
    #                                       operations the argument mentions
    optional: frozenset[int]              # core operations that may be left out (the others
    #                                       took effect: not maybe, or the only source of a value read)
    names: dict[int, str]
    steps: tuple[Ordering, ...]           # the argument, the last one closing the cycle
    summary: str                          # the certificate's own last line
    no_source: int | None = None          # an operation reading a value nothing writes
    absent: Value | None = None           # the initial value that means "no value yet" (Jepsen's nil)

    @property
    def proved(self) -> bool:
        return bool(self.steps) or self.no_source is not None

    def n(self, u: int) -> str:
        return self.names[u]

    def to_json(self) -> dict[str, Any]:
        ops = self.history.ops
        return {
            "model": self.model.value,
            "core": [{"name": self.n(u), "op": ops[u].ref(), "label": ops[u].label(),
                      "invoke": ops[u].invoke, "complete": ops[u].complete,
                      "optional": u in self.optional} for u in self.core],
            "argument": [{"before": self.n(s.before), "after": self.n(s.after), "rule": s.rule,
                          "because": s.why} for s in self.steps],
            "contradiction": self.proved,
            "no_source": None if self.no_source is None else self.n(self.no_source),
            "summary": self.summary,
        }

    def text(self) -> str:
        ops = self.history.ops
        lines = [f"The history violates {self.model.value}: these {len(self.core)} operations already "
                 "admit no sequence.", "Let:"]
        for u in self.core:
            op = ops[u]
            when = "" if op.invoke is None else (
                f", invoked at {format_value(op.invoke)}, "
                + ("never returned" if op.complete is None else f"completed at {format_value(op.complete)}"))
            opt = " (may or may not have taken effect)" if u in self.optional else ""
            shown = op.short(lambda v: value_text(v, self.absent))
            lines.append(f"  {self.n(u)} = {shown} by {op.process}{when}{opt}")
        if self.no_source is not None:
            op = ops[self.no_source]
            v = value_text(op.observed, self.absent)
            lines.append(f"{self.n(self.no_source)} reads {v} from {op.register}, but "
                         f"no operation writes {v} to {op.register}, which "
                         f"{start_text(self.history, op.register, self.absent)}: no sequence can be legal.")
            return "\n".join(lines)
        if not self.steps:
            lines.append(f"No short chain of forced orderings closes a cycle here ({self.summary}); "
                         "the engine tried every order of these operations.")
            return "\n".join(lines)
        lines.append("Then:")
        for k, s in enumerate(self.steps):
            if s.rule == "overwritten":
                lines.append(f"  However, {s.why}: {self.n(s.before)} cannot read it, a contradiction!")
                continue
            head = "However, " if k == len(self.steps) - 1 else ""
            tail = ": a contradiction!" if k == len(self.steps) - 1 else "."
            lines.append(f"  {head}{self.n(s.before)} < {self.n(s.after)}, because {s.why}{tail}")
        return "\n".join(lines)


def explain_realtime(history: History, model: Model | str, graph: ProximityGraph | None = None, *,
                     timeout: float | None = None, absent: Value | None = None) -> RealTimeExplanation:
    """Explain why ``history`` violates ``model`` (``lin``, ``fisheye-lin``, or ``sc``
    with cas or ``maybe`` operations).  ``absent``: the initial value that stands for "no
    value yet" (an imported Jepsen history's ``nil``), said in words by the text.  Raises
    :class:`ExplainError` when it does not (or when the engine cannot decide)."""
    model = Model(model)
    if graph is None:
        graph = ProximityGraph(history.processes, history.edges)
    result = lin_engine.check(history, model, graph, timeout=timeout)
    if result.verdict is not Verdict.VIOLATION:
        raise ExplainError(f"nothing to explain: the history is {result.verdict.value} under {model.value}"
                           + (f" ({result.message})" if result.message else ""), result.verdict)
    shown = [r for r in result.certificate if r.rule == "operation"]
    core = [r.ops[0] for r in shown]
    optional = frozenset(r.ops[0] for r in shown if "took effect" in r.text or history.ops[r.ops[0]].maybe)
    names = dict(zip(core, op_names(len(core)), strict=True))
    summary = result.certificate[-1].text if result.certificate else ""
    pairs = real_time_pairs(model.value, graph)
    orphan = _without_source(history, core, optional)
    if orphan is not None:
        return RealTimeExplanation(history, model, tuple(core), optional, names, (), summary, orphan,
                                   absent)
    steps, must = _argument(history, core, optional, pairs, absent)
    return _rendered(RealTimeExplanation(history, model, tuple(core), frozenset(core) - must, names,
                                         tuple(steps), summary, absent=absent))


def _without_source(history: History, core: list[int], optional: frozenset[int]) -> int | None:
    """An observer of the core that must take effect and reads a value that no operation
    of the history writes to its register and that is not its initial value."""
    ops = history.ops
    written = {(op.register, op.vkey) for op in ops if op.writes}
    for u in core:
        op = ops[u]
        if op.observes and u not in optional:
            want = value_key(op.observed)  # type: ignore[arg-type]
            if (op.register, want) not in written and value_key(history.initial_value(op.register)) != want:
                return u
    return None


# ---- deriving forced orderings ----------------------------------------------------------------

def _argument(history: History, core: list[int], optional: frozenset[int], pairs: RealTimePairs,
              absent: Value | None = None) -> tuple[list[Ordering], frozenset[int]]:
    """The cycle of orderings (empty: none found), and the operations that must take
    effect (those not optional, and the only sources of what these observe)."""
    ops = history.ops
    must = [u for u in core if u not in optional]
    # an operation that must take effect and observes a value only one operation of
    # the core writes makes that one take effect too
    grown = True
    while grown:
        grown = False
        for r in list(must):
            op = ops[r]
            if not op.observes:
                continue
            want = value_key(op.observed)  # type: ignore[arg-type]
            cands = [w for w in core if w != r and ops[w].writes and ops[w].register == op.register
                     and ops[w].vkey == want]
            init = value_key(history.initial_value(op.register)) == want
            if not init and len(cands) == 1 and cands[0] not in must:
                must.append(cands[0])
                grown = True
    must.sort(key=core.index)
    facts: dict[tuple[int, int], Ordering] = {}

    def add(o: Ordering) -> bool:
        if (o.before, o.after) in facts:
            return False
        facts[(o.before, o.after)] = o
        return True

    def t(x: Any) -> str:
        return format_value(x)

    for a in must:
        for b in must:
            oa, ob = ops[a], ops[b]
            if a == b:
                continue
            if oa.process == ob.process and oa.index < ob.index:
                add(Ordering(a, b, "po", f"{oa.process} runs {_nm(a)} before {_nm(b)} (process order)"))
            elif (oa.process != ob.process and oa.complete is not None and ob.invoke is not None
                  and oa.complete < ob.invoke and pairs.adjacent(oa.process, ob.process)):
                edge = "" if pairs.every_pair else f", edge {oa.process}-{ob.process}"
                add(Ordering(a, b, "real-time", f"{_nm(a)} completed at {t(oa.complete)}, before {_nm(b)} "
                                                f"was invoked at {t(ob.invoke)} (real time{edge})"))
    # the only possible source of each observer that must take effect
    source: dict[int, int | None] = {}
    for r in must:
        op = ops[r]
        if not op.observes:
            continue
        want = value_key(op.observed)  # type: ignore[arg-type]
        cands = [w for w in core if w != r and ops[w].writes and ops[w].register == op.register
                 and ops[w].vkey == want]
        init = value_key(history.initial_value(op.register)) == want
        if init and not cands:
            source[r] = None
        elif not init and len(cands) == 1:
            source[r] = cands[0]
            add(Ordering(cands[0], r, "source", f"{_nm(r)} reads {t(op.observed)} from {op.register}, and "
                                                f"only {_nm(cands[0])} writes it (so it took effect)"))
    writers = [w for w in must if ops[w].writes]
    changed = True
    while changed:
        changed = False
        reach = _reachability(facts, core)
        for r, s in source.items():
            x = ops[r].register
            for w in writers:
                if w == r or w == s or ops[w].register != x:
                    continue
                if s is None:
                    if add(Ordering(r, w, "legality", f"{_nm(r)} reads the initial value of {x}, so every "
                                                      f"write to {x} such as {_nm(w)} comes after it")):
                        changed = True
                    continue
                if (w, r) in reach and (w, s) not in reach:
                    changed |= add(Ordering(w, s, "legality",
                                            f"{_nm(w)} < {_nm(r)} and {_nm(w)} writes {x}: it must come "
                                            f"before {_nm(s)}, or {_nm(r)} would not read "
                                            f"{t(ops[r].observed)}", needs=(reach[(w, r)],)))
                if (s, w) in reach and (r, w) not in reach:
                    changed |= add(Ordering(r, w, "legality",
                                            f"{_nm(s)} < {_nm(w)} and {_nm(w)} overwrites {x}: {_nm(r)}, "
                                            f"which reads {_nm(s)}'s value, must come before it",
                                            needs=(reach[(s, w)],)))
        cycle = _cycle(facts, core)
        if cycle:
            return _unfold(facts, cycle), frozenset(must)
    overwritten = _every_source_overwritten(history, core, must, facts, pairs, absent)
    if overwritten:
        return overwritten, frozenset(must)
    return [], frozenset(must)


def _every_source_overwritten(history: History, core: list[int], must: list[int],
                              facts: dict[tuple[int, int], Ordering], pairs: RealTimePairs,
                              absent: Value | None = None) -> list[Ordering]:
    """An observer ``r`` that must take effect, and a write ``w`` that must too, with
    ``w < r`` and every operation that could be ``r``'s source (writing its value to
    its register) before ``w`` in every sequence that holds it (process order, or real
    time): whichever is the source, ``w`` overwrites it before ``r``."""
    ops = history.ops
    reach = _reachability(facts, core)
    for r in must:
        op = ops[r]
        if not op.observes:
            continue
        want = value_key(op.observed)  # type: ignore[arg-type]
        if value_key(history.initial_value(op.register)) == want:
            continue
        cands = [c for c in core if c != r and ops[c].writes and ops[c].register == op.register
                 and ops[c].vkey == want]
        for w in must:
            ow = ops[w]
            if w == r or not ow.writes or ow.register != op.register or ow.vkey == want:
                continue
            if (w, r) not in reach:
                continue
            if cands and all(_surely_before(ops[c], ow, pairs) for c in cands):
                names = ", ".join(_nm(c) for c in cands)
                path = reach[(w, r)]
                steps = _chain(facts, path)
                verb = "writes" if len(cands) == 1 else "write"
                seen = value_text(op.observed, absent)
                steps.append(Ordering(r, w, "overwritten",
                                      f"{_nm(r)} reads {seen} from {op.register}, which "
                                      f"only {names} {verb}; each of them, if it took effect, did so "
                                      f"before {_nm(w)} (process order or real time), and {_nm(w)} writes "
                                      f"{value_text(ow.value, absent)} to {op.register} before {_nm(r)}"))
                return steps
    return []


def _surely_before(a, b, pairs: RealTimePairs) -> bool:  # type: ignore[no-untyped-def]
    """``a`` precedes ``b`` in every sequence holding both (process order or real time)."""
    if a.process == b.process:
        return a.index < b.index
    return (a.complete is not None and b.invoke is not None and a.complete < b.invoke
            and pairs.adjacent(a.process, b.process))


def _chain(facts: dict[tuple[int, int], Ordering], path: tuple) -> list[Ordering]:
    """The orderings along ``path``, each preceded (once) by those its reason uses."""
    out: list[Ordering] = []
    seen: set[tuple[int, int]] = set()

    def emit(key: tuple[int, int]) -> None:
        if key in seen:
            return
        seen.add(key)
        o = facts[key]
        for p in o.needs:
            for a, b in zip(p, p[1:], strict=False):
                emit((a, b))
        out.append(o)

    for a, b in zip(path, path[1:], strict=False):
        emit((a, b))
    return out


def _nm(u: int) -> str:
    return f"{{{u}}}"  # replaced by the operation's name when rendered


def _reachability(facts: dict[tuple[int, int], Ordering], nodes: list[int]) -> dict[tuple[int, int], tuple]:
    """For each pair (a, b) with a path a -> b of facts: the path (as the fact keys)."""
    succ: dict[int, list[int]] = {u: [] for u in nodes}
    for a, b in facts:
        succ.setdefault(a, []).append(b)
    out: dict[tuple[int, int], tuple] = {}
    for s in nodes:
        prev: dict[int, int] = {s: s}
        q = deque([s])
        while q:
            a = q.popleft()
            for b in succ.get(a, ()):
                if b not in prev:
                    prev[b] = a
                    q.append(b)
                    path = [b]
                    while path[-1] != s:
                        path.append(prev[path[-1]])
                    out[(s, b)] = tuple(reversed(path))
    return out


def _cycle(facts: dict[tuple[int, int], Ordering], nodes: list[int]) -> list[tuple[int, int]] | None:
    succ: dict[int, list[int]] = {}
    for a, b in facts:
        succ.setdefault(a, []).append(b)
    color: dict[int, int] = {}
    stack: list[int] = []

    def dfs(u: int) -> list[int] | None:
        color[u] = 1
        stack.append(u)
        for v in succ.get(u, ()):
            if color.get(v) == 1:
                return stack[stack.index(v):] + [v]
            if v not in color:
                got = dfs(v)
                if got:
                    return got
        stack.pop()
        color[u] = 2
        return None

    for u in nodes:
        if u not in color:
            got = dfs(u)
            if got:
                return list(zip(got, got[1:], strict=False))
    return None


def _unfold(facts: dict[tuple[int, int], Ordering], cycle: list[tuple[int, int]]) -> list[Ordering]:
    """The cycle's orderings, each preceded (once) by the orderings its reason uses."""
    out: list[Ordering] = []
    seen: set[tuple[int, int]] = set()

    def emit(key: tuple[int, int]) -> None:
        if key in seen:
            return
        seen.add(key)
        o = facts[key]
        for path in o.needs:
            for a, b in zip(path, path[1:], strict=False):
                emit((a, b))
        out.append(o)

    for key in cycle[:-1]:
        emit(key)
    last = cycle[-1]
    seen.discard(last)
    out = [o for o in out if (o.before, o.after) != last]
    emit(last)
    return out


def _rendered(exp: RealTimeExplanation) -> RealTimeExplanation:
    """Name the operations the argument mentions first (A, B, ...), list only those
    when there is an argument, and replace the ``{uid}`` placeholders by names."""
    mentioned: list[int] = []
    for st in exp.steps:
        for u in [st.before, st.after] + [int(x) for x in re.findall(r"\{(\d+)\}", st.why)]:
            if u not in mentioned:
                mentioned.append(u)
    mentioned.sort(key=exp.core.index)
    order = mentioned + [u for u in exp.core if u not in mentioned]
    names = dict(zip(order, op_names(len(order)), strict=True))

    def sub(text: str) -> str:
        return re.sub(r"\{(\d+)\}", lambda m: names[int(m.group(1))], text)

    steps = tuple(Ordering(s.before, s.after, s.rule, sub(s.why), s.needs) for s in exp.steps)
    core = tuple(mentioned) if steps else exp.core
    return RealTimeExplanation(exp.history, exp.model, core, exp.optional, names, steps, exp.summary,
                               exp.no_source, exp.absent)
