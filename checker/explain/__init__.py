"""Explanations of violations: the minimal core (:mod:`.core`), the proof search that
finds the chain of forced orderings on it (:mod:`.prover`), the explanation as data and
text (:mod:`.explanation`, built by :mod:`.argument`, checked by :mod:`.verify`), and its
renderings as a space-time diagram in text (:mod:`.diagram`), SVG (:mod:`.svg`) and HTML
(:mod:`.html`); for a protocol-level counterexample, the run itself (:mod:`.run`, drawn by
:mod:`.run_svg`; replayed by :mod:`.run_replay`, traced for its diagram by :mod:`.run_trace`),
its replay script (:mod:`.replay_script`) and its system in words (:mod:`.system_text`).
:mod:`.outputs` assembles the text, SVG and HTML that ``fisheye explain`` and
:func:`fisheye.explain` both give."""

from .argument import explain
from .core import Core, minimal_violating_core
from .errors import ExplainError
from .explanation import Explanation
from .verify import verify

__all__ = ["Core", "ExplainError", "Explanation", "explain", "minimal_violating_core", "verify"]
