"""``fisheye explain``: a minimal violating core and an Elle-style argument.

An explanation is DATA first (:meth:`Explanation.to_json`), text second
(:meth:`Explanation.text`):

1. the *minimal core* (:func:`minimal_core`): a set of operations that still violates
   the model, while removing any one of them (a write together with the reads it leaves
   without any possible source) makes the history consistent: grown from the operations
   the engine's certificate names until it violates, then shrunk by deleting halves,
   quarters ... and single operations (each deletion checked with
   :func:`fisheye.checker.engines.check`), then verified;
2. the operations of the core named ``A, B, C, ...`` ("Let: A = w(X,1) at paris");
3. the chain of forced orderings on the core (:mod:`fisheye.checker.explain.prover`):
   facts ``A < B`` in a named order (``~>H``, the star order, a view ``S_p``, the SC
   serialisation ``S``), each with its reason (process order, read-from, legality,
   the edge totality of fisheye, a case assumption; one small explainer per kind of fact,
   :mod:`.explainers`), ending in a cycle: a contradiction.

:func:`verify` re-derives every fact of an explanation independently of the prover
(tests run it on every explanation).
"""

from __future__ import annotations

import string
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from fisheye.spec.causal import candidate_sources
from fisheye.spec.graph import ProximityGraph
from fisheye.spec.history import History, Op, Value, format_value, value_key
from fisheye.spec.models import Model

from ..result import Verdict
from .prover import Choice, Clause, Fact, Leaf, Lit, Node, NoProof, Proof, ProofBudget, Split, prove

Decide = Callable[[History], Verdict]
MAX_LET = 100   # core operations listed by name in the text (a core cut short may be large)


class ExplainError(RuntimeError):
    """No explanation: the history is consistent, or a check was unknown."""

    def __init__(self, message: str, verdict: Verdict):
        super().__init__(message)
        self.verdict = verdict


# ---- minimal core -----------------------------------------------------------------------

def all_candidate_sources(history: History) -> dict[int, list[int | None]]:
    """:func:`fisheye.spec.causal.candidate_sources` of every read at once (the writes
    indexed by register and value: linear, not quadratic, in the history's size)."""
    from fisheye.spec.history import value_key

    writes: dict[tuple[str, Any], list[Op]] = {}
    for w in history.ops:
        if w.is_write:
            writes.setdefault((w.register, w.vkey), []).append(w)
    out: dict[int, list[int | None]] = {}
    for r in history.reads:
        srcs: list[int | None] = []
        if r.vkey == value_key(history.initial_value(r.register)):
            srcs.append(None)
        srcs += [w.uid for w in writes.get((r.register, r.vkey), ())
                 if not (w.process == r.process and w.index > r.index)]
        out[r.uid] = srcs
    return out


def sourceless_reads(history: History) -> list[Op]:
    """Reads whose value no write can supply (none exists, or only later writes of the
    reader) and that is not the register's initial value: a violation of every model."""
    srcs = all_candidate_sources(history)
    return [r for r in history.reads if not srcs[r.uid]]


def _removal(history: History, keep: set[int], u: int | set[int]) -> set[int]:
    """Removing the operation ``u`` (or a set of them) from ``keep``: the removed writes
    take with them the kept reads they leave without any possible source."""
    rem = {u} if isinstance(u, int) else set(u)
    if any(history.ops[x].is_write for x in rem):
        orig = sorted(keep - rem)
        rest = history.restrict(orig)
        rem |= {orig[r.uid] for r in sourceless_reads(rest)}
    return rem


@dataclass(frozen=True)
class Core:
    """``uids``: operations of the original history kept; ``history``: the sub-history
    (operations renumbered); ``minimal``: every single removal was checked consistent."""

    uids: tuple[int, ...]
    history: History
    minimal: bool
    checks: int


class OutOfTime(RuntimeError):
    """The explanation's deadline passed."""


Progress = Callable[[str], None]


def _closed(history: History, keep: set[int]) -> set[int]:
    """``keep`` plus, for each kept read left without any possible source, every write
    that could be its source in ``history`` (so a candidate core never violates merely
    because a source was cut away)."""
    keep = set(keep)
    while True:
        order = sorted(keep)
        sub = history.restrict(order)
        missing = [history.ops[order[r.uid]] for r in sourceless_reads(sub)]
        add: set[int] = set()
        for r in missing:
            add |= {s for s in candidate_sources(history, r) if s is not None}
        if not add - keep:
            return keep
        keep |= add


def certificate_seeds(history: History, cert_ops: Sequence[int]) -> list[set[int]]:
    """Candidate cores grown from the operations an engine's certificate names, smallest
    first: those operations; with every operation of their registers at their processes;
    of their registers anywhere; of their processes."""
    base = set(cert_ops)
    if not base:
        return []
    regs = {history.ops[u].register for u in base}
    procs = {history.ops[u].process for u in base}
    levels = [base,
              base | {op.uid for op in history.ops if op.register in regs and op.process in procs},
              base | {op.uid for op in history.ops if op.register in regs},
              base | {op.uid for op in history.ops if op.process in procs}]
    out: list[set[int]] = []
    for lv in levels:
        c = _closed(history, lv)
        if len(c) < len(history.ops) and c not in out:
            out.append(c)
    return out


def minimal_core(history: History, decide: Decide, *, seeds: Sequence[set[int]] = (),
                 progress: Progress | None = None) -> Core:
    """A 1-minimal violating sub-history (see the module docstring).  ``decide(h)`` is the
    model's verdict on ``h``; ``seeds`` are candidate cores (from an engine's certificate,
    smallest first), tried before the whole history.  Deletion runs in halving chunks
    (a few checks per kept operation, not one per operation of the history), then one
    operation at a time to a fixpoint.  When ``decide`` raises :class:`OutOfTime`, the
    violating set found so far is returned with ``minimal`` false."""
    checks = 0
    say = progress or (lambda _m: None)
    bad = sourceless_reads(history)
    if bad:
        return Core((bad[0].uid,), history.restrict([bad[0].uid]), True, 0)
    keep = set(range(len(history.ops)))
    try:
        for seed in seeds:
            checks += 1
            if decide(history.restrict(sorted(seed))) is Verdict.VIOLATION:
                keep = set(seed)
                say(f"the certificate's operations give a violating set of {len(keep)} operations")
                break
        chunk = max(1, len(keep) // 2)
        while True:
            changed = False
            order = sorted(keep, reverse=True)
            for i in range(0, len(order), chunk):
                group = {u for u in order[i:i + chunk] if u in keep}
                rem = _removal(history, keep, group) if group else set()
                if not rem or rem >= keep:
                    continue
                checks += 1
                if decide(history.restrict(sorted(keep - rem))) is Verdict.VIOLATION:
                    keep -= rem
                    changed = True
            if chunk > 1:
                chunk = max(1, chunk // 2)
                say(f"{len(keep)} operations left after {checks} checks")
            elif not changed:
                break
    except OutOfTime:
        uids = tuple(sorted(keep))
        return Core(uids, history.restrict(uids), False, checks)
    minimal = True
    try:
        for u in sorted(keep):
            rem = _removal(history, keep, u)
            checks += 1
            if decide(history.restrict(sorted(keep - rem))) is not Verdict.CONSISTENT:
                minimal = False
    except OutOfTime:
        minimal = False
    uids = tuple(sorted(keep))
    return Core(uids, history.restrict(uids), minimal, checks)


# ---- names -----------------------------------------------------------------------------

def op_names(n: int) -> list[str]:
    """``A, B, ..., Z, AA, AB, ..., ZZ, AAA, ...`` (bijective base 26)."""
    letters = string.ascii_uppercase
    out = []
    for i in range(n):
        k, name = i + 1, ""
        while k:
            k, r = divmod(k - 1, 26)
            name = letters[r] + name
        out.append(name)
    return out


def ordinal(i: int) -> str:
    n = i + 1
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def order_name(ctx: str) -> str:
    if ctx == "hb":
        return "~>H"
    if ctx == "star":
        return "the star order"
    if ctx == "S":
        return "S"
    return f"S_{ctx[2:]}"


def is_absent(value: Value | None, absent: Value | None) -> bool:
    """Whether ``value`` is ``absent``, the value an import chose to stand for "no value
    yet" (a Jepsen register's ``nil``, :attr:`fisheye.checker.formats.ImportNotes.sentinel`)."""
    return absent is not None and value is not None and value_key(value) == value_key(absent)


def value_text(value: Value | None, absent: Value | None = None) -> str:
    """A value as the texts show it: its JSON, or ``nil`` for ``absent``."""
    return "nil" if is_absent(value, absent) else format_value(value)


def op_text(op: Op, absent: Value | None = None) -> str:
    if op.is_write:
        return f"w({op.register},{value_text(op.value, absent)})"
    return f"r({op.register})->{value_text(op.value, absent)}"


def start_text(history: History, register: str, absent: Value | None = None) -> str:
    """How ``register`` starts, in words: ``starts at 0``, or ``starts with no value
    (nil)`` when its initial value is ``absent``."""
    init = history.initial_value(register)
    return "starts with no value (nil)" if is_absent(init, absent) else f"starts at {format_value(init)}"


# ---- the explanation ------------------------------------------------------------------------

@dataclass(frozen=True)
class Explanation:
    history: History          # the full history explained
    model: Model
    graph: ProximityGraph
    core: Core
    names: tuple[str, ...]    # name of each operation of the core history (by uid)
    proof: Proof | None       # None for a read without any source, or past the budget
    schedule: tuple[Any, ...] = ()
    unproved: str = ""        # why there is no argument although the core violates
    absent: Value | None = None  # the initial value that means "no value yet" (Jepsen's nil)

    # ---- helpers ----
    def n(self, uid: int) -> str:
        return self.names[uid]

    @property
    def ops(self) -> tuple[Op, ...]:
        return self.core.history.ops

    def contradiction_name(self) -> str:
        """A short name of what the contradiction is about (the cycle's order and the
        rules it uses)."""
        if self.proof is None:
            return "unexplained (budget)" if self.unproved else "a read without a source"
        rules: set[str] = set()
        orders: set[str] = set()
        for leaf in _leaves(self.proof.root):
            orders.add(order_name(leaf.ctx))
            for f in _closure(self.proof.facts, leaf.cycle):
                rules.add(self.proof.facts[f].rule)
        return f"cycle in {', '.join(sorted(orders))} ({', '.join(sorted(rules))})"

    # ---- data ----
    def to_json(self) -> dict[str, Any]:
        ops = self.ops
        orig = self.core.uids
        out: dict[str, Any] = {
            "model": self.model.value,
            "graph": self.graph.to_json(),
            "core": [self.history.ops[u].ref() for u in orig],
            "core_size": len(orig),
            "operations_total": len(self.history.ops),
            "minimal": self.core.minimal,
            "let": {self.n(op.uid): {"op": op_text(op), "process": op.process,
                                     "index": self.history.ops[orig[op.uid]].index,
                                     "kind": op.kind, "register": op.register, "value": op.value}
                    for op in ops},
            "contradiction": self.contradiction_name(),
        }
        if self.proof is None and self.unproved:
            out["proof"] = {"kind": "unproved", "because": self.unproved}
        elif self.proof is None:
            r = ops[0]
            out["proof"] = {"kind": "no-source", "read": self.n(r.uid),
                            "because": self._no_source_text(r)}
        else:
            numbering = self._numbering()
            out["facts"] = [self._fact_json(self.proof.facts[f], numbering) for f in numbering]
            out["proof"] = self._node_json(self.proof.root, numbering)
            out["proof_nodes"] = self.proof.nodes
        if self.schedule:
            out["replay"] = [{"step": i + 1, "do": s} for i, s in enumerate(self.schedule)]
        return out

    def _numbering(self) -> dict[int, int]:
        assert self.proof is not None
        order: list[int] = []

        def walk(node: Node) -> None:
            for f in node.facts:
                if f not in order:
                    order.append(f)
            if isinstance(node.end, Split):
                for fid, child in node.end.cases:
                    if fid not in order:
                        order.append(fid)
                    walk(child)
        walk(self.proof.root)
        return {f: i + 1 for i, f in enumerate(order)}

    def _fact_json(self, f: Fact, numbering: dict[int, int]) -> dict[str, Any]:
        out: dict[str, Any] = {"id": numbering[f.id], "rule": f.rule, "order": order_name(f.lit.ctx)}
        if f.lit.a != f.lit.b:
            out.update({"before": self.n(f.lit.a), "after": self.n(f.lit.b),
                        "claim": f"{self.n(f.lit.a)} < {self.n(f.lit.b)}"})
        else:
            out["claim"] = f"{self.n(f.lit.a)} reads the initial value"
        out["because"] = self.because(f, numbering)
        out["premises"] = [numbering[p] for p in f.premises if p in numbering]
        return out

    def _node_json(self, node: Node, numbering: dict[int, int]) -> dict[str, Any]:
        out: dict[str, Any] = {"facts": [numbering[f] for f in node.facts]}
        end = node.end
        if isinstance(end, Leaf):
            names = [self.n(self.proof.facts[end.cycle[0]].lit.a)]  # type: ignore[union-attr]
            names += [self.n(self.proof.facts[f].lit.b) for f in end.cycle]  # type: ignore[union-attr]
            out["contradiction"] = {"order": order_name(end.ctx), "cycle": names,
                                    "facts": [numbering[f] for f in end.cycle]}
        else:
            out["split"] = {"on": self.split_text(end.on),
                            "cases": [{"assume": numbering[fid], "proof": self._node_json(c, numbering)}
                                      for fid, c in end.cases]}
        return out

    # ---- text ----
    def lit_text(self, lit: Lit) -> str:
        rel = "<*" if lit.ctx == "star" else "<"
        where = "" if lit.ctx in ("star",) else f" in {order_name(lit.ctx)}"
        return f"{self.n(lit.a)} {rel} {self.n(lit.b)}{where}"

    def path_text(self, path: Sequence[int], numbering: dict[int, int]) -> str:
        assert self.proof is not None
        facts = self.proof.facts
        parts = [self.n(facts[path[0]].lit.a)]
        for f in path:
            parts.append(f"< {self.n(facts[f].lit.b)} [{numbering.get(f, '?')}]")
        return " ".join(parts)

    def _no_source_text(self, r: Op) -> str:
        v = value_text(r.value, self.absent)
        return (f"{r.process} reads {v} from {r.register}, but no write of "
                f"{v} to {r.register} can be its source (there is none, or "
                f"only later writes of {r.process}) and {r.register} "
                f"{start_text(self.core.history, r.register, self.absent)}")

    def because(self, f: Fact, numbering: dict[int, int]) -> str:
        """Why ``f`` holds: the explainer of its kind (:mod:`.explainers`)."""
        from .explainers import EXPLAINERS

        refuted = "; ".join(
            f"{self.n(lit.b)} < {self.n(lit.a)} already holds ({self.path_text(p, numbering)})"
            for lit, p in f.refuted)
        explainer = EXPLAINERS.get(f.rule)
        return explainer(self, f, order_name(f.lit.ctx), refuted) if explainer else f.rule

    def split_text(self, on: Clause | Choice) -> str:
        if isinstance(on, Choice):
            r = self.ops[on.read]
            srcs = ", ".join("the initial value" if s is None else self.n(s) for s in on.sources)
            where = "~>H" if on.ctx == "hb" else order_name(on.ctx)
            return f"{self.n(r.uid)} may read from any of {srcs} (in {where})"
        lits = " or ".join(self.lit_text(lit) for lit in on.lits)
        if on.rule == "edge":
            p, q = on.info
            return f"{p} and {q} are neighbours in G, so either {lits}"
        if on.rule == "legality":
            r, s, w = on.info
            return (f"{self.n(r)} returns the value of {self.n(s)}, so the other write {self.n(w)} "
                    f"precedes {self.n(s)} or follows {self.n(r)}: either {lits}")
        return f"either {lits}"

    def text(self) -> str:
        lines = [f"The history violates {self.model.value}"
                 + (f" for the proximity graph {self.graph_text()}" if self.model.uses_graph else "") + "."]
        lines.append(f"Minimal core: {len(self.core.uids)} of {len(self.history.ops)} operations"
                     + ("" if self.core.minimal else " (NOT verified 1-minimal)") + ".")
        lines.append("Let:")
        for op in self.ops[:MAX_LET]:
            o = self.history.ops[self.core.uids[op.uid]]
            lines.append(f"  {self.n(op.uid)} = {op_text(op, self.absent)} at {op.process} "
                         f"({ordinal(o.index)} operation of {op.process})")
        if len(self.ops) > MAX_LET:
            lines.append(f"  ... and {len(self.ops) - MAX_LET} more operations (all of them: --json)")
        if self.proof is None and self.unproved:
            lines.append(f"No step-by-step argument: {self.unproved}.")
            return "\n".join(lines)
        if self.proof is None:
            lines.append(f"{self._no_source_text(self.ops[0])}: a contradiction!")
            return "\n".join(lines)
        numbering = self._numbering()
        self._text_node(self.proof.root, numbering, lines, "")
        return "\n".join(lines)

    def graph_text(self) -> str:
        return ", ".join(f"{a}:{b}" for a, b in self.graph.edges) or "with no edge"

    def in_view(self, ctx: str, uid: int) -> bool:
        """Whether operation ``uid`` belongs to the view ``ctx`` (``S_p``: p's operations
        and every write; ``S``, ``~>H`` and the star order: every operation)."""
        if not ctx.startswith("S:"):
            return True
        op = self.ops[uid]
        return op.is_write or op.process == ctx[2:]

    def contradiction_text(self, end: Leaf, numbering: dict[int, int]) -> str:
        """The cycle closing a case, each step in the order it holds in.  A view ``S_p``
        orders only p's operations and the writes: a stretch of the cycle through other
        operations holds in ``~>H`` or the star order, which are transitive; it is first
        composed into one ordering between two operations of the view (which the view
        must respect), then the cycle is stated inside the view."""
        facts = self.proof.facts  # type: ignore[union-attr]
        cyc = list(end.cycle)
        view = order_name(end.ctx)
        outside = [f for f in cyc if not self.in_view(end.ctx, facts[f].lit.b)]
        if not outside:
            first = facts[cyc[0]]
            chain = self.path_text(cyc[1:], numbering) if len(cyc) > 1 else ""
            return (f"However, {self.lit_text(first.lit)} [{numbering[cyc[0]]}] while {chain}"
                    f" in {view}: a contradiction!")
        starts = [k for k, f in enumerate(cyc) if self.in_view(end.ctx, facts[f].lit.a)]
        if not starts:   # no operation of the view: the cycle lies in ~>H or the star order
            star = any(facts[f].lit.ctx == "star" for f in cyc)
            rel, order = ("<*", "the star order") if star else ("~>", "~>H")
            chain = " ".join([self.n(facts[cyc[0]].lit.a)]
                             + [f"{rel} {self.n(facts[f].lit.b)} [{numbering[f]}]" for f in cyc])
            return f"However, {chain} in {order}: a contradiction!"
        # rotate so that the cycle starts with an operation of the view
        start = starts[0]
        cyc = cyc[start:] + cyc[:start]
        composed: list[str] = []
        steps: list[str] = []     # the cycle in the view: "< B [3]" or "<* D (from [..])"
        k = 0
        while k < len(cyc):
            f = facts[cyc[k]]
            if self.in_view(end.ctx, f.lit.b):
                rel = "<*" if f.lit.ctx == "star" else "<"
                steps.append(f"{rel} {self.n(f.lit.b)} [{numbering[cyc[k]]}]")
                k += 1
                continue
            run = [cyc[k]]
            k += 1
            while k < len(cyc) and not self.in_view(end.ctx, facts[run[-1]].lit.b):
                run.append(cyc[k])
                k += 1
            a, b = facts[run[0]].lit.a, facts[run[-1]].lit.b
            star = any(facts[x].lit.ctx == "star" for x in run)
            rel, order = ("<*", "the star order") if star else ("~>", "~>H")
            parts = " and ".join(f"{self.lit_text(facts[x].lit)} [{numbering[x]}]" for x in run)
            composed.append(f"{parts} give {self.n(a)} {rel} {self.n(b)} ({order} is transitive"
                            + (" and contains ~>H" if star else "") + f"), which {view} respects since "
                            f"{self.n(a)} and {self.n(b)} are both in {view}")
            steps.append(f"{rel} {self.n(b)}")
        head = self.n(facts[cyc[0]].lit.a)
        return (f"However, {'; '.join(composed)}; so {head} " + " ".join(steps)
                + f" in {view}: a contradiction!")

    def _text_node(self, node: Node, numbering: dict[int, int], lines: list[str], ind: str) -> None:
        facts = self.proof.facts  # type: ignore[union-attr]
        for f in node.facts:
            fact = facts[f]
            if fact.rule in ("case",):
                continue
            why = self.because(fact, numbering)
            lines.append(f"{ind}[{numbering[f]}] {self.lit_text(fact.lit)}, because {why}.")
        end = node.end
        if isinstance(end, Leaf):
            lines.append(ind + self.contradiction_text(end, numbering))
            return
        lines.append(f"{ind}Next, {self.split_text(end.on)}.")
        for k, (fid, child) in enumerate(end.cases):
            lines.append(f"{ind}Case {k + 1}: [{numbering[fid]}] {self.because(facts[fid], numbering)}.")
            self._text_node(child, numbering, lines, ind + "  ")
        lines.append(f"{ind}Every case ends in a contradiction.")


def _leaves(node: Node) -> list[Leaf]:
    if isinstance(node.end, Leaf):
        return [node.end]
    out: list[Leaf] = []
    for _, c in node.end.cases:
        out += _leaves(c)
    return out


def _closure(facts: dict[int, Fact], ids: Sequence[int]) -> set[int]:
    out: set[int] = set()
    stack = list(ids)
    while stack:
        f = stack.pop()
        if f not in out:
            out.add(f)
            stack += list(facts[f].premises)
    return out


def explain(history: History, model: Model | str, graph: ProximityGraph | None = None, *,
            decide: Decide | None = None, schedule: Sequence[Any] = (), budget: int = 20000,
            engine: str = "auto", timeout: float | None = None,
            progress: Progress | None = None, absent: Value | None = None) -> Explanation:
    """Explain why ``history`` violates ``model`` on ``graph``: minimal core, names, proof.

    ``timeout`` bounds the whole explanation (every check and the proof search); when it
    runs out before a violation is established, :class:`ExplainError` (unknown); after,
    the core found so far is explained and marked not verified 1-minimal.  ``progress``
    receives one line per stage.  ``absent``: the initial value that stands for "no value
    yet" (an imported Jepsen history's ``nil``), said in words by the text.  Raises
    :class:`ExplainError` when the history is consistent or the check unknown."""
    import time

    model = Model(model)
    if graph is None:
        graph = ProximityGraph(history.processes, history.edges)
    say = progress or (lambda _m: None)
    deadline = None if timeout is None else time.monotonic() + timeout

    def remaining() -> float | None:
        if deadline is None:
            return None
        left = deadline - time.monotonic()
        if left <= 0:
            raise OutOfTime(f"the time limit ({timeout:g} s) ran out")
        return left

    seeds: list[set[int]] = []
    if decide is None:
        from ..engines import check

        def decide(h: History) -> Verdict:
            res = check(h, model, graph, engine=engine, timeout=remaining())
            if res.verdict is Verdict.UNKNOWN and deadline is not None and time.monotonic() >= deadline:
                raise OutOfTime(f"the time limit ({timeout:g} s) ran out")
            return res.verdict

        if not sourceless_reads(history):
            say(f"checking the history ({len(history.ops)} operations) against {model.value}")
            try:
                first = check(history, model, graph, engine=engine, timeout=remaining())
            except OutOfTime as e:
                raise ExplainError(str(e), Verdict.UNKNOWN) from None
            if first.verdict is Verdict.UNKNOWN and deadline is not None:
                raise ExplainError(f"the check of {model.value} was unknown within the time limit "
                                   f"({timeout:g} s)", Verdict.UNKNOWN)
            _refuse(first.verdict, model)
            cert_ops = sorted({u for reason in first.certificate for u in reason.ops})
            seeds = certificate_seeds(history, cert_ops)
    elif not sourceless_reads(history):
        _refuse(decide(history), model)
    say("looking for a minimal core")
    core = minimal_core(history, decide, seeds=seeds, progress=progress)
    say(f"core: {len(core.uids)} operations after {core.checks} checks; building the argument")
    names = tuple(op_names(len(core.uids)))
    proof, unproved = None, ""
    if not sourceless_reads(core.history):
        try:
            left = remaining()
            proof = prove(core.history, model, graph, budget=budget,
                          deadline=None if left is None else time.monotonic() + left)
        except OutOfTime:
            unproved = "the time limit ran out during the case analysis; the core is a violation by the " \
                       "engines' verdict"
        except ProofBudget as e:
            unproved = (f"the case analysis exceeded its budget ({e}); the core is a violation by the "
                        "engines' verdict and 1-minimal as stated")
        except NoProof as e:
            raise ExplainError(f"the prover finds the core consistent while the engines do not ({e}): "
                               "please report this disagreement", Verdict.UNKNOWN) from None
    return Explanation(history, model, graph, core, names, proof, tuple(schedule), unproved, absent)


def _refuse(verdict: Verdict, model: Model) -> None:
    if verdict is Verdict.CONSISTENT:
        raise ExplainError(f"the history is consistent under {model.value}: nothing to explain", verdict)
    if verdict is Verdict.UNKNOWN:
        raise ExplainError(f"the check of {model.value} was inconclusive (unknown)", verdict)


# ---- independent verification ---------------------------------------------------------------

def verify(exp: Explanation) -> list[str]:
    """Re-derive every fact and contradiction of an explanation from the history and the
    definitions alone (not from the prover's state).  Returns the problems found."""
    if exp.proof is None:
        if exp.unproved:
            return []
        return [] if sourceless_reads(exp.core.history) else ["no-source claim is false"]
    h = exp.core.history
    proof = exp.proof
    facts = proof.facts
    parents = proof.parents
    problems: list[str] = []

    def holds_in(fact_ctx: str, ctx: str) -> bool:
        """A fact of ``fact_ctx`` is usable in ``ctx`` (same order or an ancestor)."""
        cur: str | None = ctx
        while cur is not None:
            if cur == fact_ctx:
                return True
            cur = parents[cur]
        return False

    def chain_ok(path: Sequence[int], src: int, dst: int, ctx: str, available: set[int]) -> bool:
        x = src
        for f in path:
            fa = facts[f]
            if f not in available or fa.lit.a != x or not holds_in(fa.lit.ctx, ctx):
                return False
            x = fa.lit.b
        return x == dst

    def below(ctx: str, d: str) -> bool:
        return holds_in(ctx, d)

    def clause_lits(rule: str, info: tuple, lit: Lit, assumed: set[int]) -> set[Lit] | None:
        """The literals of the clause instance ``rule(info)`` in ``lit``'s order, if it
        is one of the definitions' clauses (None otherwise)."""
        if rule == "legality":
            r, s, w = info
            orr, os_, ow = h.ops[r], h.ops[s], h.ops[w]
            srcs = candidate_sources(h, orr)
            ok = ((lit.ctx == "S" or lit.ctx == f"S:{orr.process}") and os_.is_write and ow.is_write
                  and ow.register == orr.register and w != s and s in srcs)
            if ok and srcs != [s]:  # the source was a case assumption, which must be in force
                ok = any(facts[x].rule == "source-choice" and facts[x].lit == Lit(lit.ctx, s, r)
                         for x in assumed)
            return {Lit(lit.ctx, w, s), Lit(lit.ctx, r, w)} if ok else None
        if rule == "edge":
            p, q = info
            oa, ob = h.ops[lit.a], h.ops[lit.b]
            every = exp.model is Model.FISHEYE_2014
            ok = (lit.ctx == "star" and exp.graph.adjacent(p, q) and {oa.process, ob.process} == {p, q}
                  and (every or (oa.is_write and ob.is_write)))
            return {Lit("star", lit.a, lit.b), Lit("star", lit.b, lit.a)} if ok else None
        return None

    def check_fact(f: Fact, available: set[int], assumed: set[int]) -> None:
        a, b = f.lit.a, f.lit.b
        oa, ob = h.ops[a], h.ops[b]
        if f.rule == "po":
            if not (oa.process == ob.process and oa.index < ob.index and parents[f.lit.ctx] is None):
                problems.append(f"fact {f.id}: not process order")
        elif f.rule == "rf":
            if not (f.lit.ctx == "hb" and ob.is_read and candidate_sources(h, ob) == [a]):
                problems.append(f"fact {f.id}: not the only source")
        elif f.rule in ("rf-choice", "source-choice", "case"):
            if f.id not in assumed:
                problems.append(f"fact {f.id}: assumption used outside its case")
            if f.rule != "case":
                reader = h.ops[f.info[0]]
                src = f.info[1]
                srcs = candidate_sources(h, reader)
                first = reader.uid if src is None else src
                expected = Lit(f.lit.ctx, first, reader.uid)
                if src not in srcs or f.lit != expected:
                    problems.append(f"fact {f.id}: not a possible source")
        elif f.rule == "source":
            if not (ob.is_read and f.lit.ctx.startswith("S") and candidate_sources(h, ob) == [a]):
                problems.append(f"fact {f.id}: not the only source")
        elif f.rule == "initial":
            srcs = candidate_sources(h, oa) if oa.is_read else []
            ok = oa.is_read and ob.is_write and ob.register == oa.register and None in srcs
            if ok and srcs != [None]:  # "reads the initial value" was a case assumption in force
                ok = any(facts[x].rule == "source-choice" and facts[x].info == (a, None)
                         and facts[x].lit.ctx == f.lit.ctx for x in assumed)
            if not ok:
                problems.append(f"fact {f.id}: not an initial-value read")
        elif f.rule in ("legality", "edge"):
            lits = clause_lits(f.rule, f.info, f.lit, assumed)
            if lits is None:
                problems.append(f"fact {f.id}: not a {f.rule} clause")
                return
            if f.lit not in lits:
                problems.append(f"fact {f.id}: literal not in its clause")
            others = lits - {f.lit}
            for lit, path in f.refuted:
                if lit not in others:
                    problems.append(f"fact {f.id}: refutes a literal outside the clause")
                    continue
                ok = any(chain_ok(path, lit.b, lit.a, d, available) for d in parents if below(lit.ctx, d))
                if not ok:
                    problems.append(f"fact {f.id}: refutation of {lit} is not a valid chain")
            if {lit for lit, _ in f.refuted} != others:
                problems.append(f"fact {f.id}: not every other literal is refuted")
        else:
            problems.append(f"fact {f.id}: unknown rule {f.rule}")

    def walk(node: Node, available: set[int], assumed: set[int]) -> None:
        avail = set(available)
        for fid in node.facts:
            check_fact(facts[fid], avail, assumed)
            avail.add(fid)
        end = node.end
        if isinstance(end, Leaf):
            cyc = end.cycle
            if not cyc or not chain_ok(cyc, facts[cyc[0]].lit.a, facts[cyc[0]].lit.a, end.ctx, avail):
                problems.append(f"contradiction in {end.ctx} is not a cycle of stated facts")
            return
        on = end.on
        if isinstance(on, Choice):
            srcs = candidate_sources(h, h.ops[on.read])
            if sorted(srcs, key=str) != sorted(on.sources, key=str):
                problems.append("a source split misses a possible source")
            got = []
            for fid, _ in end.cases:
                fa = facts[fid]
                got.append(fa.info[1])
            if sorted(got, key=str) != sorted(srcs, key=str):
                problems.append("a source split does not cover every source")
        else:
            lits = set(on.lits)
            if {facts[fid].lit for fid, _ in end.cases} != lits:
                problems.append("a case split does not cover its clause")
            if clause_lits(on.rule, on.info, on.lits[0], assumed) != lits:
                problems.append("a case split is not on a clause of the definition")
        for fid, child in end.cases:
            check_fact(facts[fid], avail, assumed | {fid})
            walk(child, avail | {fid}, assumed | {fid})

    walk(proof.root, set(), set())
    return problems
