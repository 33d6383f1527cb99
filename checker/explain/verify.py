"""An independent check of an explanation: every fact and every contradiction is
re-derived from the core history and the definitions' clauses alone (sections 2.2-2.3
and 3.2 of the 2015 text), not from the prover's state.  The tests run it on every
explanation they build."""

from __future__ import annotations

from collections.abc import Sequence

from fisheye.spec.causal import candidate_sources
from fisheye.spec.models import Model

from .core import sourceless_reads
from .explanation import Explanation
from .prover import Choice, Fact, Leaf, Lit, Node


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
