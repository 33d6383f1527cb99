"""An explanation of a violation as data (:meth:`Explanation.to_json`) and as text
(:meth:`Explanation.text`): the minimal core (:mod:`.core`), its operations named
``A, B, C, ...`` ("Let: A = w(X,1) at paris", :mod:`.words`), and the chain of forced
orderings on the core (:mod:`.prover`): facts ``A < B`` in a named order (``~>H``, the
star order, a view ``S_p``, the SC serialisation ``S``), each with its reason (process
order, read-from, legality, the edge totality of fisheye, a case assumption; one small
explainer per kind of fact, :mod:`.explainers`), ending in a cycle: a contradiction."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from fisheye.spec.graph import ProximityGraph
from fisheye.spec.history import History, Op, Value
from fisheye.spec.models import Model

from .core import Core
from .explainers import EXPLAINERS
from .prover import Choice, Clause, Fact, Leaf, Lit, Node, Proof, Split, leaves, premise_closure
from .words import op_text, order_name, ordinal, start_text, value_text

MAX_LET = 100   # core operations listed by name in the text (a core cut short may be large)


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

    # ---- names ----
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
        for leaf in leaves(self.proof.root):
            orders.add(order_name(leaf.ctx))
            for f in premise_closure(self.proof.facts, leaf.cycle):
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
