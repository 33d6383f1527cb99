"""Algorithm 2 of the 2015 text (section 5.1): fast-read registers over the
G-fisheye (SC,CC)-broadcast, executed by one process ``p_i``, as pure functions.

* ``X.write(v)`` (lines 1-5): toco-broadcast ``WRITE(X, v, i)`` (line 2), set
  ``delivered_i`` to false (line 3) and wait until it is true (line 4), i.e. until the
  own WRITE is toco-delivered.  Here: the invocation step returns the
  payload to broadcast and sets ``waiting``; the process's next operation is enabled
  only once ``waiting`` is false again.  The mutant ``write-returns-early`` drops
  line 4 (``waiting`` is never set).
* ``X.read()`` (lines 6-8): returns the local copy ``v_x`` at once.
* ``Await(X, v)``: Figure 3's ``repeat c <- X until c = v``, enabled only when the local
  copy of X is v; records the single read that ends the wait.
* on ``toco_deliver WRITE(X, v, j)`` (lines 9-12): ``v_x <- v``; if ``j = i``,
  ``delivered_i <- true``.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from fisheye.spec.history import Value

from .programs import Await, Broadcast, Operation, Read, Write


class RegState(NamedTuple):
    """``pc``: index of the next program operation; ``waiting``: a write is invoked and
    its own WRITE not yet delivered (``delivered_i = false``); ``copies``: the local
    copies ``v_X`` (indexed like the system's sorted register list); ``results``: the
    values returned by the reads and awaits executed so far, in program order."""

    pc: int
    waiting: bool
    copies: tuple[Value, ...]
    results: tuple[Value, ...]


def initial_state(copies: tuple[Value, ...]) -> RegState:
    return RegState(0, False, copies, ())


def next_enabled(ops: tuple[Operation, ...], reg_index: dict[str, int], st: RegState,
                 conditioned: bool = False) -> bool:
    """Whether the process's next program operation can be invoked now.  ``conditioned``:
    a read with a figure's value (``Read.expect``) is enabled only when it returns that
    value, as an await is (the runs of a figure, without the runs that deviate from it)."""
    if st.waiting or st.pc >= len(ops):
        return False
    op = ops[st.pc]
    if isinstance(op, Await):
        return st.copies[reg_index[op.register]] == op.value
    if conditioned and isinstance(op, Read) and op.expect is not None:
        return st.copies[reg_index[op.register]] == op.expect
    return True


def invoke(ops: tuple[Operation, ...], reg_index: dict[str, int], st: RegState, *, wait: bool = True
           ) -> tuple[RegState, tuple[Any, ...] | None]:
    """Run the next operation.  Returns the new state and, for a write, the payload
    ``(X, v)`` of ``WRITE(X, v, i)`` to toco-broadcast (line 2), else None."""
    op = ops[st.pc]
    if isinstance(op, Write):
        # lines 2-4: broadcast, delivered_i <- false, wait (unless the mutant drops it)
        # a Broadcast (a broadcast-level program step) never waits
        waits = wait and not isinstance(op, Broadcast)
        return RegState(st.pc + 1, waits, st.copies, st.results), (op.register, op.value)
    if isinstance(op, Read | Await):
        v = st.copies[reg_index[op.register]]                                 # line 7
        return RegState(st.pc + 1, False, st.copies, st.results + (v,)), None
    raise TypeError(f"unknown operation {op!r}")


def on_deliver(reg_index: dict[str, int], st: RegState, payload: tuple[Any, ...], own: bool) -> RegState:
    """Lines 9-12: toco-delivery of ``WRITE(X, v, j)``; ``own`` is ``j = i``."""
    reg, v = payload
    k = reg_index[reg]
    copies = st.copies[:k] + (v,) + st.copies[k + 1:]                         # line 10
    waiting = st.waiting and not own                                          # line 11
    return RegState(st.pc, waiting, copies, st.results)


def done(ops: tuple[Operation, ...], st: RegState) -> bool:
    """Every operation invoked and the last write returned."""
    return st.pc >= len(ops) and not st.waiting


def operations(ops: tuple[Operation, ...], pc: int, results: tuple[Value, ...]) -> list[list[Any]]:
    """The recorder: the first ``pc`` operations as history-file items, reads (and
    awaits) with the values they returned (``results``, in program order)."""
    it = iter(results)
    return [["w", op.register, op.value] if isinstance(op, Write) else ["r", op.register, next(it)]
            for op in ops[:pc]]
