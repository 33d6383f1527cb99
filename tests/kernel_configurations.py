"""The configurations on which the compiled kernel's search is compared with the
reference's (``tests/test_explore_kernel.py``) and, on Spark, both with the local
engine's (``tests/test_spark.py``): (scenario, graph, mutant, variant)."""

from __future__ import annotations

PBN = "paris-berlin-newyork"
TWO = "p0: write(X,1), read(X); p1: write(X,2), read(X)"

SEARCHES = [
    (PBN, "paper", None, "corrected"),
    (PBN, "paper", None, "published"),
    (TWO, "p0:p1", "opposite-tie-break", "corrected"),
    (TWO, "p0:p1", "no-catch-up", "corrected"),
    ("p0: write(X,1), read(Y); p1: write(Y,2), read(X); p2: read(X)", "p0:p1", None, "corrected"),
]
