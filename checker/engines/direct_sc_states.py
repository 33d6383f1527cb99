"""Sequential consistency (section 2.2) by search over executions, for histories with
repeated values (where the read-from map is unknown and legality is by value).

A state is how far each process has got plus the current value of every register.
Reduction (sound and complete): a read that is legal in a state is executed at once, as
it changes no value and only advances its process (any serialisation from that state
can move it first).  So is a write whose value no read returns, when no read still
has to return its register's current value: in any serialisation from that state, no
read between here and the write's place reads its register (none returns the current
value, and one returning a later write's value comes after that write), so the write
moves first, its process's earlier operations being already placed.  Then one branches
on the next write of each process, except a write that would overwrite, for good, a
value some read has still to return (no write of that value is left); the writes whose
readers are nearest (fewest operations of their processes before them) are tried first,
as they hold their register's value for the shortest time.  States already explored are
memoised, so the search is bounded by the number of distinct (progress, memory) pairs;
the budget is charged one node per 25 states.

With a unique read-from map (distinct values), the saturated order of
:mod:`.direct_sc` holds in every legal serialisation, so an operation waits for its
predecessors in it (sound pruning): for sc histories the search then walks straight to a
serialisation, which is the common case the saturation-and-branching search is slow on.
"""

from __future__ import annotations

from typing import Any

from fisheye.spec.history import value_key

from ..result import Reason
from .direct_order import Budget, Conflict, DOrder, Index


def solve_sc_states(ix: Index, budget: Budget, order: DOrder | None = None) -> tuple[int, ...] | Conflict:
    """``order``: orderings every legal serialisation must respect (the saturated
    order of :mod:`.direct_sc`, for a history whose read-from map is unique); an
    operation runs only once all its predecessors in ``order`` have run."""
    h = ix.h
    clock = order.clock if order is not None else None
    proc_of = ix.proc_of

    def ready(front: list[int] | tuple[int, ...], u: int) -> bool:
        if clock is None:
            return True
        c, k_u = clock[u], proc_of[u]
        return all(front[j] > c[j] for j in range(P) if j != k_u)

    # real time, when the history has it: writes are tried in order of completion (a
    # linearizable run is then found without backtracking); never-returned ones last
    due = ([op.complete if op.complete is not None else float("inf") for op in h.ops]
           if h.timed else None)
    regs = {x: i for i, x in enumerate(h.registers)}
    vkey = [op.vkey for op in h.ops]
    reg = [regs[op.register] for op in h.ops]
    P, base, length, is_write = ix.P, ix.base, ix.length, ix.is_write
    mem0 = tuple(value_key(h.initial_value(x)) for x in h.registers)
    seen: set[tuple[tuple[int, ...], tuple[Any, ...]]] = set()
    pending: dict[tuple[int, Any], int] = {}  # reads not yet run, per (register, value)
    wpending: dict[tuple[int, Any], int] = {}  # writes not yet run, per (register, value)
    for u in range(ix.n):
        d = wpending if is_write[u] else pending
        d[(reg[u], vkey[u])] = d.get((reg[u], vkey[u]), 0) + 1
    readers: dict[tuple[int, Any], list[int]] = {}  # reads per (register, value)
    for u in range(ix.n):
        if not is_write[u]:
            readers.setdefault((reg[u], vkey[u]), []).append(u)
    proc_of, idx = ix.proc_of, ix.idx
    count = 0

    def close_forced(front: list[int], mem: list[Any], path: list[int]) -> None:
        """Run the reads that are legal and the writes no read returns whose register's
        value no read still needs (module docstring), as long as there are some."""
        moved = True
        while moved:
            moved = False
            for k in range(P):
                while front[k] < length[k]:
                    u = base[k] + front[k]
                    x, v = reg[u], vkey[u]
                    if is_write[u]:
                        if (x, v) in readers or pending.get((x, mem[x]), 0) or not ready(front, u):
                            break
                        wpending[(x, v)] -= 1
                        mem[x] = v
                    elif mem[x] != v or not ready(front, u):
                        break
                    else:
                        pending[(x, v)] -= 1
                    path.append(u)
                    front[k] += 1
                    moved = True

    front0 = [0] * P
    path: list[int] = []
    memory = list(mem0)
    close_forced(front0, memory, path)
    mem0 = tuple(memory)
    def order(front: tuple[int, ...], mem: tuple[Any, ...]) -> tuple[int, ...]:
        """Processes whose next operation is a write; first those whose write supplies
        a value some blocked read waits for (a heuristic: any order is complete)."""
        need = set()
        writers = []
        for k in range(P):
            if front[k] < length[k]:
                u = base[k] + front[k]
                if is_write[u]:
                    if ready(front, u):
                        writers.append(k)
                else:
                    need.add((reg[u], vkey[u]))

        def rank(k: int) -> tuple:
            u = base[k] + front[k]
            if due is not None:
                return due[u], (reg[u], vkey[u]) not in need, k
            # overwriting a value that reads still wait for is risky; a value whose readers
            # are near holds the register for a short time
            unsafe = pending.get((reg[u], mem[reg[u]]), 0) > 0
            near = max((idx[r] - front[proc_of[r]] for r in readers.get((reg[u], vkey[u]), ())), default=0)
            return unsafe, near

        writers.sort(key=rank)
        return tuple(writers)

    # DFS stack entries: (frontier, memory, path length at entry, candidates, next candidate)
    f0 = tuple(front0)
    stack: list[tuple[tuple[int, ...], tuple[Any, ...], int, tuple[int, ...], int]] = [
        (f0, mem0, len(path), order(f0, mem0), 0)]
    seen.add((f0, mem0))
    steps = 0
    while stack:
        steps += 1
        if not steps & 0xFFF:
            budget.tick(0)  # the deadline, also while backtracking (no new state counted)
        front, mem, plen, cands, ci = stack.pop()
        for u in path[plen:]:
            (wpending if is_write[u] else pending)[(reg[u], vkey[u])] += 1
        del path[plen:]
        if all(front[k] == length[k] for k in range(P)):
            return tuple(path)
        if ci >= len(cands):
            continue
        stack.append((front, mem, plen, cands, ci + 1))  # the other branches, later
        k = cands[ci]
        u = base[k] + front[k]
        gone = (reg[u], mem[reg[u]])
        if pending.get(gone, 0) and not wpending.get(gone, 0) and gone[1] != vkey[u]:
            continue  # the write would destroy a value that a read still needs, for good
        wpending[(reg[u], vkey[u])] -= 1
        nf = list(front)
        nf[k] += 1
        memory = list(mem)
        memory[reg[u]] = vkey[u]
        path.append(u)
        close_forced(nf, memory, path)
        nm = tuple(memory)
        key = (tuple(nf), nm)
        if key in seen:
            continue
        seen.add(key)
        count += 1
        if count % 25 == 0:
            budget.tick()
        stack.append((key[0], nm, len(path), order(key[0], nm), 0))
    return Conflict((Reason(
        f"no interleaving of the processes is legal: all {len(seen)} reachable combinations of "
        f"progress and register values were explored (reads executed as soon as they are legal)",
        "search"),))
