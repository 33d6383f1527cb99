"""Explanations of violations: the minimal core (:mod:`.core`), the proof search that
finds the chain of forced orderings on it (:mod:`.prover`), the explanation as data and
text (:mod:`.explanation`, built by :mod:`.argument`, checked by :mod:`.verify`), and its
renderings as a space-time diagram in text (:mod:`.diagram`), SVG (:mod:`.svg`) and HTML
(:mod:`.html`); for a protocol-level counterexample, the run itself (:mod:`.run`, drawn by
:mod:`.run_svg`; replayed by :mod:`.run_replay`, traced for its diagram by :mod:`.run_trace`),
its replay script (:mod:`.replay_script`) and its system in words (:mod:`.system_text`).
:mod:`.outputs` assembles the text, SVG and HTML that ``fisheye explain`` and
:func:`fisheye.explain` both give."""

from __future__ import annotations

from ..lazy import lazy_names

_WHERE = {"explain": ".argument", "Core": ".core", "minimal_violating_core": ".core",
          "ExplainError": ".errors", "Explanation": ".explanation", "verify": ".verify"}
"""Each public name and its module, loaded on first use: the explorer and the checker
import this package's run and text modules without paying for the prover."""

__all__ = ["Core", "ExplainError", "Explanation", "explain", "minimal_violating_core", "verify"]

__getattr__ = lazy_names(__name__, _WHERE)
