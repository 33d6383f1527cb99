"""Explanations of violations: the argument as data (:mod:`.argument`), the proof search
that finds it (:mod:`.prover`), and its renderings as a space-time diagram in text
(:mod:`.diagram`) and SVG (:mod:`.svg`)."""

from .argument import ExplainError, Explanation, explain

__all__ = ["ExplainError", "Explanation", "explain"]
