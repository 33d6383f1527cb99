"""A small, self-contained prover of violations: the *chain of forced orderings*
behind ``fisheye explain`` (after Elle: an explanation is a cycle of edges, each with
its reason).

It decides the models of the contract on a (small) history by case analysis over
ordering literals ``a < b`` in named *orders*, and returns, for a violating history,
a proof tree: each leaf is a cycle in one order, each edge of which is a fact with
its reason; each inner node is a case split whose every case ends in a contradiction.

The orders (every one is an order over ALL operations; see below):

* ``hb``: the causal order ``~>H`` = closure(process order ∪ read-from) (section 2.3);
* ``star``: the star order ``*~>H,G`` ⊇ ``~>H`` (section 3.2), fisheye models only;
* ``S:p``: the view ``S_p`` of process ``p`` (CC and fisheye, section 2.3 / 3.2),
  which respects its parent (``~>H`` for cc, the star order for fisheye);
* ``S``: the single serialisation of SC (section 2.2).

Each order contains the facts of its ancestors.  A view ``S_p`` is a sequence of
``H|(p + W)`` only, but it respects closure(R)|(p + W) iff some linear order of all
operations respects the generators of R and restricts to ``S_p`` (a cycle in
``S_p ∪ closure(R)`` compresses to a cycle inside ``S_p``); so ``S:p`` is treated as an
order over all operations whose legality constraints concern ``p``'s reads only.

Rules (the clauses of the definitions, as in :mod:`fisheye.spec.validate`):

* ``po``: ``a < b`` in the root order when ``a`` precedes ``b`` at one process;
* ``rf``: ``w < r`` in ``~>H`` when ``r`` reads from ``w`` (a case split when several
  writes could be the source);
* ``source`` / ``legality`` (legal views, by value): if ``r`` returns the value of its
  source ``s`` in a view, then ``s < r`` there and every other write ``w'`` of the
  register is before ``s`` or after ``r``; if ``r`` returns the initial value, ``r``
  precedes every write of the register (``initial``);
* ``edge``: for an edge (p, q), any two writes (2015) or operations (2014) of ``p`` and
  ``q`` are ordered one way or the other in the star order.

Unit propagation forces a literal when every other literal of a clause would close a
cycle; a clause whose literals all close cycles is a case split whose every case is
contradictory.  With every clause satisfied and no cycle, any linear extension of each
order is a witness, so the prover is complete: it never finds a "proof" for a
consistent history (tests cross-check it with the engines).
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace

from fisheye.spec.causal import candidate_sources
from fisheye.spec.graph import ProximityGraph
from fisheye.spec.history import History, Op
from fisheye.spec.models import Model

from .errors import OutOfTime


class ProofBudget(RuntimeError):
    """The case analysis exceeded its node budget."""


class NoProof(RuntimeError):
    """The prover found the history consistent (it disagrees with the caller)."""


@dataclass(frozen=True)
class Lit:
    """``a < b`` in the order ``ctx``."""

    ctx: str
    a: int
    b: int


@dataclass(frozen=True)
class Fact:
    """A literal known to hold, with its reason.

    ``rule``: ``po``, ``rf``, ``rf-choice``, ``source``, ``source-choice``, ``initial``,
    ``legality``, ``edge`` or ``case``.  ``info``: the rule instance (reader, source,
    other write, edge...).  ``premises``: the facts whose paths refute the other
    literals of the clause (for ``legality``/``edge``), grouped per refuted literal.
    ``deps``: the case assumptions the fact rests on (ids of ``case``/choice facts)."""

    id: int
    lit: Lit
    rule: str
    info: tuple = ()
    refuted: tuple[tuple[Lit, tuple[int, ...]], ...] = ()
    deps: frozenset[int] = frozenset()

    @property
    def premises(self) -> tuple[int, ...]:
        out: list[int] = []
        for _, path in self.refuted:
            out += [f for f in path if f not in out]
        return tuple(out)


@dataclass(frozen=True)
class Clause:
    lits: tuple[Lit, ...]
    rule: str
    info: tuple = ()
    deps: frozenset[int] = frozenset()


@dataclass(frozen=True)
class Choice:
    """A read whose source must be chosen: in ``~>H`` (``ctx == 'hb'``) or in a view."""

    ctx: str
    read: int
    sources: tuple[int | None, ...]


@dataclass
class Leaf:
    """A cycle in ``ctx``: ``cycle`` are fact ids, consecutive edges of the cycle."""

    ctx: str
    cycle: tuple[int, ...]
    deps: frozenset[int]


@dataclass
class Split:
    """A case split on ``clause`` (or a source choice): one case per literal/source.
    Each case is ``(assumption fact id, subproof)``."""

    on: Clause | Choice
    cases: list[tuple[int, Node]]
    deps: frozenset[int]


@dataclass
class Node:
    """The facts derived at this point of the argument (filled in after the search
    with those used below), then a contradiction or a split."""

    end: Leaf | Split
    facts: list[int] = field(default_factory=list)


@dataclass
class Proof:
    history: History
    model: Model
    graph: ProximityGraph
    facts: dict[int, Fact]
    root: Node
    parents: dict[str, str | None]
    nodes: int


# ---- state -----------------------------------------------------------------------------

@dataclass
class _State:
    facts: dict[int, Fact]
    adj: dict[str, dict[int, dict[int, int]]]  # ctx -> a -> b -> fact id (one fact per edge)
    clauses: list[Clause]
    choices: list[Choice]
    derived: list[int]  # facts added since the node began

    def copy(self) -> _State:
        adj = {c: {a: dict(bs) for a, bs in m.items()} for c, m in self.adj.items()}
        return _State(dict(self.facts), adj, list(self.clauses), list(self.choices), [])


class _Prover:
    def __init__(self, history: History, model: Model, graph: ProximityGraph, budget: int,
                 deadline: float | None = None):
        self.deadline = deadline
        self.h = history
        self.model = model
        self.graph = graph
        self.budget = budget
        self.nodes = 0
        self.next_id = 0
        self.all_facts: dict[int, Fact] = {}
        if model is Model.SC:
            self.parents: dict[str, str | None] = {"S": None}
        else:
            self.parents = {"hb": None}
            top = "hb"
            if model in (Model.FISHEYE, Model.FISHEYE_2014):
                self.parents["star"] = "hb"
                top = "star"
            for p in history.processes:
                if any(op.is_read for op in history.of(p)):
                    self.parents[f"S:{p}"] = top
        self.children: dict[str, list[str]] = {c: [] for c in self.parents}
        for c, par in self.parents.items():
            if par is not None:
                self.children[par].append(c)
        self.root = next(c for c, par in self.parents.items() if par is None)
        self.lines = {c: self._ancestry(c) for c in self.parents}
        self.leaves_below = {c: self._below(c) for c in self.parents}

    def _ancestry(self, c: str) -> tuple[str, ...]:
        out = []
        cur: str | None = c
        while cur is not None:
            out.append(cur)
            cur = self.parents[cur]
        return tuple(out)

    def _below(self, c: str) -> tuple[str, ...]:
        """``c`` and its descendants, leaves first (a cycle shows best in the view)."""
        out: list[str] = []
        stack = [c]
        while stack:
            x = stack.pop()
            out.append(x)
            stack.extend(self.children[x])
        return tuple(sorted(out, key=lambda x: (bool(self.children[x]), x)))

    # ---- facts and paths ---------------------------------------------------------------
    def _new_fact(self, lit: Lit, rule: str, info: tuple = (), refuted=(), deps=frozenset()) -> Fact:
        f = Fact(self.next_id, lit, rule, info, tuple(refuted), frozenset(deps))
        self.next_id += 1
        self.all_facts[f.id] = f
        return f

    def path(self, st: _State, ctx: str, src: int, dst: int) -> tuple[int, ...] | None:
        """Shortest chain of facts ``src < ... < dst`` valid in ``ctx`` (its own facts
        and its ancestors'), or None."""
        if src == dst:
            return ()
        maps = [st.adj[c] for c in self.lines[ctx]]
        prev: dict[int, tuple[int, int]] = {src: (-1, -1)}
        q = deque([src])
        while q:
            u = q.popleft()
            for m in maps:
                for v, fid in m.get(u, {}).items():
                    if v in prev:
                        continue
                    prev[v] = (u, fid)
                    if v == dst:
                        chain = []
                        x = v
                        while x != src:
                            x, f = prev[x]
                            chain.append(f)
                        return tuple(reversed(chain))
                    q.append(v)
        return None

    def refutation(self, st: _State, lit: Lit) -> tuple[str, tuple[int, ...]] | None:
        """Why ``lit`` cannot hold: a chain ``b < ... < a`` in its order or in an order
        below it (which contains it)."""
        for d in self.leaves_below[lit.ctx]:
            p = self.path(st, d, lit.b, lit.a)
            if p is not None:
                return d, p
        return None

    def satisfied(self, st: _State, lit: Lit) -> bool:
        return self.path(st, lit.ctx, lit.a, lit.b) is not None

    def add(self, st: _State, fact: Fact) -> Leaf | None:
        """Record ``fact``; a Leaf if it closes a cycle."""
        ref = self.refutation(st, fact.lit)
        st.facts[fact.id] = fact
        st.derived.append(fact.id)
        if ref is not None:
            d, p = ref
            cyc = (fact.id,) + p
            return Leaf(d, cyc, self._deps(st, cyc))
        st.adj.setdefault(fact.lit.ctx, {}).setdefault(fact.lit.a, {})[fact.lit.b] = fact.id
        return None

    def _deps(self, st: _State, ids: Iterable[int]) -> frozenset[int]:
        out: set[int] = set()
        for i in ids:
            out |= self.all_facts[i].deps
        return frozenset(out)

    # ---- the rules -------------------------------------------------------------------------
    def initial_state(self) -> tuple[_State, Leaf | None]:
        st = _State({}, {c: {} for c in self.parents}, [], [], [])
        h = self.h
        by_proc = h.by_process
        for p, ops in by_proc.items():
            for i, a in enumerate(ops):
                for b in ops[i + 1:]:
                    leaf = self.add(st, self._new_fact(Lit(self.root, a.uid, b.uid), "po", (p,)))
                    if leaf:
                        return st, leaf
        # read-from in ~>H (cc, fisheye); SC works with the sources in S directly
        if self.model is not Model.SC:
            for r in h.reads:
                srcs = tuple(candidate_sources(h, r))
                if not srcs:
                    continue
                if len(srcs) == 1:
                    if srcs[0] is not None:
                        leaf = self.add(st, self._new_fact(Lit("hb", srcs[0], r.uid), "rf", (r.uid,)))
                        if leaf:
                            return st, leaf
                else:
                    st.choices.append(Choice("hb", r.uid, srcs))
        if self.model is Model.FISHEYE or self.model is Model.FISHEYE_2014:
            every = self.model is Model.FISHEYE_2014
            for p, q in self.graph.edges:
                members = [op for op in h.ops if op.process in (p, q) and (every or op.is_write)]
                for i, a in enumerate(members):
                    for b in members[i + 1:]:
                        if a.process != b.process:
                            st.clauses.append(Clause((Lit("star", a.uid, b.uid), Lit("star", b.uid, a.uid)),
                                                     "edge", (p, q)))
        # legality in each view
        for ctx in self.parents:
            if not ctx.startswith("S"):
                continue
            owner = None if ctx == "S" else ctx[2:]
            for r in h.reads:
                if owner is not None and r.process != owner:
                    continue
                srcs = tuple(candidate_sources(h, r))
                if len(srcs) == 1:
                    leaf = self.legality(st, ctx, r, srcs[0], frozenset(), None)
                    if leaf:
                        return st, leaf
                elif len(srcs) > 1:
                    st.choices.append(Choice(ctx, r.uid, srcs))
        return st, None

    def legality(self, st: _State, ctx: str, r: Op, src: int | None, deps: frozenset[int],
                 choice_fact: int | None) -> Leaf | None:
        """The legality clauses of read ``r`` in view ``ctx`` given its source."""
        writes = [w for w in self.h.writes if w.register == r.register]
        if src is None:
            for w in writes:
                leaf = self.add(st, self._new_fact(Lit(ctx, r.uid, w.uid), "initial", (r.uid, w.uid),
                                                   deps=deps))
                if leaf:
                    return leaf
            return None
        if choice_fact is None:
            leaf = self.add(st, self._new_fact(Lit(ctx, src, r.uid), "source", (r.uid, src), deps=deps))
            if leaf:
                return leaf
        for w in writes:
            if w.uid != src:
                st.clauses.append(Clause((Lit(ctx, w.uid, src), Lit(ctx, r.uid, w.uid)), "legality",
                                         (r.uid, src, w.uid), deps))
        return None

    # ---- propagation -------------------------------------------------------------------------
    def propagate(self, st: _State) -> Leaf | Split | None:
        changed = True
        while changed:
            changed = False
            for cl in st.clauses:
                if any(self.satisfied(st, lit) for lit in cl.lits):
                    continue
                open_lits = []
                refuted = []
                for lit in cl.lits:
                    ref = self.refutation(st, lit)
                    if ref is None:
                        open_lits.append(lit)
                    else:
                        refuted.append((lit, ref[1]))
                if len(open_lits) == 1:
                    deps = set(cl.deps)
                    for _, p in refuted:
                        deps |= self._deps(st, p)
                    f = self._new_fact(open_lits[0], cl.rule, cl.info, refuted, deps)
                    leaf = self.add(st, f)
                    if leaf:  # cannot happen: the literal was not refuted
                        return leaf
                    changed = True
                elif not open_lits:
                    return self.exhausted(st, cl)
        return None

    def exhausted(self, st: _State, cl: Clause) -> Split:
        """Every literal of ``cl`` closes a cycle: a split whose cases all end at once."""
        cases = []
        deps: set[int] = set(cl.deps)
        for lit in cl.lits:
            sub = st.copy()
            f = self._new_fact(lit, "case", (cl.rule,) + cl.info, deps=frozenset(cl.deps))
            f = replace(f, deps=f.deps | {f.id})
            self.all_facts[f.id] = f
            leaf = self.add(sub, f)
            assert leaf is not None
            cases.append((f.id, Node(leaf, list(sub.derived))))
            deps |= leaf.deps - {f.id}
        return Split(cl, cases, frozenset(deps))

    # ---- search --------------------------------------------------------------------------------
    def solve(self, st: _State) -> Node:
        self.nodes += 1
        if self.nodes > self.budget:
            raise ProofBudget(f"more than {self.budget} proof nodes")
        if self.deadline is not None and time.monotonic() > self.deadline:
            raise OutOfTime("the time limit ran out during the case analysis")
        end = self.propagate(st)
        if end is not None:
            return Node(end, list(st.derived))
        if st.choices:
            return self.split_choice(st)
        open_clauses = [cl for cl in st.clauses if not any(self.satisfied(st, lit) for lit in cl.lits)]
        if not open_clauses:
            raise NoProof("every constraint can be met: the history is consistent")
        cl = self.pick(st, open_clauses)
        return self.split_clause(st, cl)

    def pick(self, st: _State, clauses: list[Clause]) -> Clause:
        """The clause whose cases close fastest (one propagation per case)."""
        best, best_score = clauses[0], -1
        for cl in clauses[:40]:
            score = 0
            for lit in cl.lits:
                if self.refutation(st, lit) is not None:
                    continue
                sub = st.copy()
                f = Fact(-1, lit, "case")
                self.all_facts[-1] = f
                if self.add(sub, f) is not None or self.propagate(sub) is not None:
                    score += 1
            score = score * 2 + (cl.rule == "edge")
            if score > best_score:
                best, best_score = cl, score
        self.all_facts.pop(-1, None)
        return best

    def split_clause(self, st: _State, cl: Clause) -> Node:
        cases: list[tuple[int, Node]] = []
        deps: set[int] = set(cl.deps)
        derived = list(st.derived)
        for lit in cl.lits:
            sub = st.copy()
            f = self._new_fact(lit, "case", (cl.rule,) + cl.info, deps=cl.deps)
            f = replace(f, deps=f.deps | {f.id})
            self.all_facts[f.id] = f
            leaf = self.add(sub, f)
            child = Node(leaf, list(sub.derived)) if leaf else self.solve_from(sub)
            cdeps = _node_deps(child)
            if f.id not in cdeps:  # the case's assumption is not used: hoist the case
                return Node(child.end, derived + child.facts)
            cases.append((f.id, child))
            deps |= cdeps - {f.id}
        return Node(Split(cl, cases, frozenset(deps)), derived)

    def solve_from(self, sub: _State) -> Node:
        already = list(sub.derived)
        sub.derived = []
        node = self.solve(sub)
        node.facts = already + node.facts
        return node

    def split_choice(self, st: _State) -> Node:
        ch = st.choices[0]
        rest = st.choices[1:]
        cases: list[tuple[int, Node]] = []
        deps: set[int] = set()
        derived = list(st.derived)
        r = self.h.ops[ch.read]
        for src in ch.sources:
            sub = st.copy()
            sub.choices = list(rest)
            leaf = None
            if ch.ctx == "hb":
                if src is None:
                    f = self._new_fact(Lit("hb", r.uid, r.uid), "rf-choice", (r.uid, None))
                    f = replace(f, deps=frozenset({f.id}))
                    self.all_facts[f.id] = f
                    sub.facts[f.id] = f
                    sub.derived.append(f.id)
                else:
                    f = self._new_fact(Lit("hb", src, r.uid), "rf-choice", (r.uid, src))
                    f = replace(f, deps=frozenset({f.id}))
                    self.all_facts[f.id] = f
                    leaf = self.add(sub, f)
            else:
                if src is None:
                    f = self._new_fact(Lit(ch.ctx, r.uid, r.uid), "source-choice", (r.uid, None))
                    f = replace(f, deps=frozenset({f.id}))
                    self.all_facts[f.id] = f
                    sub.facts[f.id] = f
                    sub.derived.append(f.id)
                else:
                    f = self._new_fact(Lit(ch.ctx, src, r.uid), "source-choice", (r.uid, src))
                    f = replace(f, deps=frozenset({f.id}))
                    self.all_facts[f.id] = f
                    leaf = self.add(sub, f)
                if leaf is None:
                    leaf = self.legality(sub, ch.ctx, r, src, frozenset({f.id}), f.id)
            child = Node(leaf, list(sub.derived)) if leaf else self.solve_from(sub)
            cdeps = _node_deps(child)
            if f.id not in cdeps:
                return Node(child.end, derived + child.facts)
            cases.append((f.id, child))
            deps |= cdeps - {f.id}
        return Node(Split(ch, cases, frozenset(deps)), derived)


def _node_deps(node: Node) -> frozenset[int]:
    return node.end.deps


def _used(proof_facts: dict[int, Fact], node: Node) -> set[int]:
    """Facts a subtree's argument uses (cycle edges and, recursively, premises)."""
    need: set[int] = set()
    stack: list[int] = []
    if isinstance(node.end, Leaf):
        stack += list(node.end.cycle)
    else:
        for fid, child in node.end.cases:
            stack.append(fid)
            need |= _used(proof_facts, child)
    while stack:
        f = stack.pop()
        if f in need:
            continue
        need.add(f)
        stack += list(proof_facts[f].premises)
    return need


def _prune(facts: dict[int, Fact], node: Node, stated: set[int]) -> None:
    """Keep at each node only the facts its subtree uses that were not stated above,
    in derivation order; facts derived elsewhere (before a hoisted case) stay where they
    were derived."""
    used = _used(facts, node)
    node.facts = [f for f in node.facts if f in used and f not in stated]
    here = stated | set(node.facts)
    if isinstance(node.end, Split):
        for fid, child in node.end.cases:
            _prune(facts, child, here | {fid})


def prove(history: History, model: Model | str, graph: ProximityGraph | None = None,
          *, budget: int = 20000, deadline: float | None = None) -> Proof:
    """A proof that ``history`` violates ``model`` (raises :class:`NoProof` if it does
    not, :class:`ProofBudget` past ``budget`` nodes)."""
    model = Model(model)
    if graph is None:
        graph = ProximityGraph(history.processes, history.edges)
    pr = _Prover(history, model, graph, budget, deadline)
    st, leaf = pr.initial_state()
    if leaf is not None:
        root = Node(leaf, list(st.derived))
    else:
        root = pr.solve_from(st)
    facts = pr.all_facts
    # facts derived before a hoisted case may have been dropped from ``node.facts``:
    # make every used fact appear somewhere (at the root, in id order, if not below).
    _prune(facts, root, set())
    shown = _shown(root)
    missing = sorted(_used(facts, root) - shown - _case_ids(root))
    if missing:
        root.facts = sorted(set(root.facts) | set(missing))
    return Proof(history, model, graph, facts, root, pr.parents, pr.nodes)


def _shown(node: Node) -> set[int]:
    out = set(node.facts)
    if isinstance(node.end, Split):
        for _, child in node.end.cases:
            out |= _shown(child)
    return out


def _case_ids(node: Node) -> set[int]:
    out: set[int] = set()
    if isinstance(node.end, Split):
        for fid, child in node.end.cases:
            out.add(fid)
            out |= _case_ids(child)
    return out


def leaves(node: Node) -> list[Leaf]:
    """The contradictions that close the cases of a proof tree, left to right."""
    if isinstance(node.end, Leaf):
        return [node.end]
    out: list[Leaf] = []
    for _, c in node.end.cases:
        out += leaves(c)
    return out


def premise_closure(facts: dict[int, Fact], ids: Sequence[int]) -> set[int]:
    """The facts ``ids`` and every fact they rest on, transitively."""
    out: set[int] = set()
    stack = list(ids)
    while stack:
        f = stack.pop()
        if f not in out:
            out.add(f)
            stack += list(facts[f].premises)
    return out
