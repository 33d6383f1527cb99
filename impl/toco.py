"""Algorithm 1 of the 2015 text (section 4.2): the G-fisheye (SC,CC)-broadcast, executed
by one process ``p_i``, as pure functions on an immutable local state.

The four parts of the pseudo-code are four functions:

* :func:`toco_broadcast` -- lines 1-6 (``TOCO_broadcast(m)``);
* :func:`on_tocobc` -- lines 7-14 (receipt of ``TOCOBC``);
* :func:`on_catch_up` -- lines 15-17 (receipt of ``CATCH_UP``);
* :func:`select` + :func:`deliver` -- one iteration of the background task T
  (lines 18-31): the sets C (line 21), T1 (line 23), T2 (line 25), the argmin on
  ``<s_tot, j>`` (line 26), and the delivery (lines 27-29).

Processes are numbered ``0..n-1`` in the order of the system's processes.  Nothing here
sends anything: the functions return the protocol messages to send, the caller (the
global system, :mod:`fisheye.impl.system`) puts them in the channels.

**Timestamp order.**  We implement the order of the appendix, stated
before Lemma 1: ``<s_tot_j, j> < <s_tot_i, i>`` iff ``s_tot_j < s_tot_i`` or
(``s_tot_j = s_tot_i`` and ``i < j``): on equal clocks the *higher* process index is
the smaller timestamp.  As a sort key: ``(s_tot, -j)`` (:func:`ts_paper`).  The mutant
``opposite-tie-break`` gives process 0 the plain lexicographic key ``(s_tot, j)``.

**T2** (line 25, garbled by OCR; reconstructed from the prose of section 4.2 and the
proof of Theorem 3, equation (18)): T2 is the set of messages m of T1,
sent by p_j, such that every message m_k still pending at p_i from a neighbour p_k of
p_j carries a timestamp ``<s_tot_k, k>`` greater than ``<s_tot_j, j>``.

**Variants.**  ``published`` follows the pseudo-code line by line.
``corrected`` moves the increment of ``causal_i[i]`` from broadcast time (line 5) to
the delivery of p_i's own message (line 29 for every ``j0``, including ``i``); the
entry ``i`` of the sent causal timestamp is then p_i's own sequence number (the number
of messages p_i broadcast before), kept in ``sent`` -- the very value line 3 sends in
the published algorithm.  See ``docs/algorithm1.md``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from operator import attrgetter, le
from typing import Any, NamedTuple


class Variant(StrEnum):
    """Which Algorithm 1: the pseudo-code as published, or corrected (docs/algorithm1.md)."""

    PUBLISHED = "published"
    CORRECTED = "corrected"


class Mutant(StrEnum):
    """Deliberately broken versions, each one named change.

    ``no-catch-up``: line 12 sends no CATCH_UP message (line 11 still advances the
    local clock).  ``no-t1``: T1 = C (line 23 dropped).  ``no-t2``: T2 = T1 (line 25
    dropped).  ``write-returns-early``: Algorithm 2's write does not wait for its own
    delivery (line 4 of Algorithm 2 dropped).  ``opposite-tie-break``: process 0 orders
    timestamps with the opposite tie-break from everybody else.
    (Unordered channels are a network choice, :class:`fisheye.impl.api.Network`.)"""

    NO_CATCH_UP = "no-catch-up"
    NO_T1 = "no-t1"
    NO_T2 = "no-t2"
    WRITE_RETURNS_EARLY = "write-returns-early"
    OPPOSITE_TIE_BREAK = "opposite-tie-break"


def parse_variant(text: str | Variant) -> Variant:
    try:
        return Variant(text)
    except ValueError:
        names = ", ".join(v.value for v in Variant)
        raise ValueError(f"unknown variant {text!r} (expected one of: {names})") from None


def parse_mutant(text: str | Mutant | None) -> Mutant | None:
    if text is None or text == "" or text == "none":
        return None
    try:
        return Mutant(text)
    except ValueError:
        names = ", ".join(m.value for m in Mutant)
        raise ValueError(f"unknown mutant {text!r} (expected one of: {names})") from None


# ---- timestamps -------------------------------------------------------------------------
TsKey = Callable[[int, int], tuple[int, int]]


def ts_paper(tot: int, j: int) -> tuple[int, int]:
    """Sort key of ``<tot, j>`` in the appendix's order (ties: higher index first)."""
    return (tot, -j)


def ts_opposite(tot: int, j: int) -> tuple[int, int]:
    """The opposite tie-break (plain lexicographic), for the mutant."""
    return (tot, j)


# ---- messages and state -----------------------------------------------------------------
class Msg(NamedTuple):
    """An application message with its timestamp ``<s_caus[.], s_tot, j>`` (line 3).

    ``sender`` is ``j``; ``seq`` is the sender's own sequence number (0, 1, ...), which
    identifies the message (it equals ``s_caus[j]`` in both variants); ``payload`` is
    Algorithm 2's ``WRITE(X, v, j)`` as ``(X, v)``."""

    sender: int
    seq: int
    caus: tuple[int, ...]
    tot: int
    payload: tuple[Any, ...]

    @property
    def mid(self) -> tuple[int, int]:
        return (self.sender, self.seq)


TOCOBC = "TOCOBC"
CATCH_UP = "CATCH_UP"

# A protocol message on a channel: ("TOCOBC", Msg) or ("CATCH_UP", last_date) -- the
# sender is the channel's source, so CATCH_UP(last_date_j, j) needs only the date.
Wire = tuple[str, Any]


def wire_id(w: Wire) -> tuple[Any, ...]:
    """A protocol message's name within its channel (unordered channels name the message
    a receipt takes): ``("TOCOBC", seq)`` -- the sender is the channel's source -- or
    ``("CATCH_UP", date)``; unique within a channel, as a process's successive clock
    values (hence CATCH_UP dates) strictly increase (Lemma 2, Proposition 2)."""
    kind, body = w
    if kind == TOCOBC:
        return (TOCOBC, body.seq)
    return (kind, body)


class TocoState(NamedTuple):
    """The local variables of p_i (section 4.2): ``causal_i[1..n]``, ``total_i[1..n]``,
    ``pending_i`` (a tuple sorted by message id: a canonical form of the set), and
    ``sent``, the number of messages p_i has toco-broadcast."""

    causal: tuple[int, ...]
    total: tuple[int, ...]
    pending: tuple[Msg, ...]
    sent: int


def initial_state(n: int) -> TocoState:
    zero = (0,) * n
    return TocoState(zero, zero, (), 0)


@dataclass(frozen=True)
class TocoConfig:
    """What p_i knows statically: its index, the number of processes, the neighbour
    table ``N_G`` (for every j, the indices of p_j's neighbours), its timestamp order,
    the variant and the protocol mutant flags."""

    me: int
    n: int
    neighbours: tuple[tuple[int, ...], ...]
    variant: Variant = Variant.CORRECTED
    key: TsKey = ts_paper
    catch_up: bool = True
    use_t1: bool = True
    use_t2: bool = True


def _replace(t: tuple[int, ...], i: int, v: int) -> tuple[int, ...]:
    return t[:i] + (v,) + t[i + 1:]


def _insert(pending: tuple[Msg, ...], m: Msg) -> tuple[Msg, ...]:
    """``pending_i ∪ {m}`` in canonical (sorted by id) form."""
    return tuple(sorted(pending + (m,), key=_BY_ID))


_BY_ID = attrgetter("sender", "seq")   # a message's id, (sender, seq) = Msg.mid


# ---- lines 1-6 --------------------------------------------------------------------------
def toco_broadcast(cfg: TocoConfig, st: TocoState, payload: tuple[Any, ...]
                   ) -> tuple[TocoState, Msg, tuple[tuple[int, Wire], ...]]:
    """``TOCO_broadcast(m)``: returns the new state, the message and the sends
    ``(destination, TOCOBC(m, <causal_i[.], total_i[i], i>))`` of line 3."""
    i = cfg.me
    total = _replace(st.total, i, st.total[i] + 1)                          # line 2
    if cfg.variant is Variant.PUBLISHED:
        caus = st.causal                                                     # line 3
    else:
        # corrected: entry i is p_i's own sequence number (causal_i[i] now counts
        # p_i's own *delivered* messages, see line 29).
        caus = _replace(st.causal, i, st.sent)
    m = Msg(i, st.sent, caus, total[i], payload)
    sends = tuple((k, (TOCOBC, m)) for k in range(cfg.n) if k != i)         # line 3
    pending = _insert(st.pending, m)                                         # line 4
    causal = st.causal
    if cfg.variant is Variant.PUBLISHED:
        causal = _replace(causal, i, causal[i] + 1)                          # line 5
    return TocoState(causal, total, pending, st.sent + 1), m, sends


# ---- lines 7-14 -------------------------------------------------------------------------
def on_tocobc(cfg: TocoConfig, st: TocoState, m: Msg) -> tuple[TocoState, tuple[tuple[int, Wire], ...]]:
    """Receipt of ``TOCOBC(m, <s_caus[.], s_tot, j>)``."""
    i, j = cfg.me, m.sender
    pending = _insert(st.pending, m)                                         # line 8
    total = _replace(st.total, j, m.tot)                                     # line 9
    sends: tuple[tuple[int, Wire], ...] = ()
    if total[i] <= m.tot:                                                    # line 10
        total = _replace(total, i, m.tot + 1)                                # line 11
        if cfg.catch_up:
            sends = tuple((k, (CATCH_UP, total[i])) for k in range(cfg.n) if k != i)  # line 12
    return TocoState(st.causal, total, pending, st.sent), sends


# ---- lines 15-17 ------------------------------------------------------------------------
def on_catch_up(cfg: TocoConfig, st: TocoState, j: int, last_date: int) -> TocoState:
    """Receipt of ``CATCH_UP(last_date_j, j)``."""
    return TocoState(st.causal, _replace(st.total, j, last_date), st.pending, st.sent)  # line 16


# ---- lines 18-31: one iteration of the background task ----------------------------------
def select(cfg: TocoConfig, st: TocoState) -> Msg | None:
    """The message the background task toco-delivers next (line 26), or None when one
    of the waits of lines 20, 22, 24 blocks (C, T1 or T2 empty)."""
    causal, total, key, nb = st.causal, st.total, cfg.key, cfg.neighbours
    best: Msg | None = None
    best_key: tuple[int, int] | None = None
    for m in st.pending:
        # line 21: C = {m in pending_i | s_caus[.] <= causal_i[.]}
        if not all(map(le, m.caus, causal)):
            continue
        j = m.sender
        mk = key(m.tot, j)
        # line 23: T1 = {m in C | for all p_k in N_G(p_j): <total_i[k], k> > <s_tot, j>}
        if cfg.use_t1 and any(key(total[k], k) <= mk for k in nb[j]):
            continue
        # line 25 (reconstructed): T2 = {m in T1 | for all p_k in N_G(p_j), for all
        # m_k in pending_i sent by p_k: <s_tot_k, k> > <s_tot, j>}
        if cfg.use_t2:
            nj = nb[j]
            if any(o.sender in nj and key(o.tot, o.sender) <= mk for o in st.pending):
                continue
        # line 26: argmin over T2 of <s_tot, j>
        if best_key is None or mk < best_key:
            best, best_key = m, mk
    return best


def deliver(cfg: TocoConfig, st: TocoState, m0: Msg) -> TocoState:
    """Lines 27-29: remove ``m0`` from pending_i, toco-deliver it (the caller hands it
    to Algorithm 2), and count it in ``causal_i``."""
    pending = tuple(m for m in st.pending if m is not m0 and m != m0)        # line 27
    j0 = m0.sender
    causal = st.causal
    if j0 != cfg.me or cfg.variant is Variant.CORRECTED:
        # line 29 ("if j0 != i then causal_i[j0] += 1"); corrected: for every j0.
        causal = _replace(causal, j0, causal[j0] + 1)
    return TocoState(causal, st.total, pending, st.sent)
