"""The configuration of a latency run: deployment, network, workload, duration.

A configuration file is one JSON object (the format is documented in ``docs/latency.md``
and ``docs/contract.md``)::

    {
      "placement": {"f1": "frankfurt", "f2": "frankfurt", "i1": "ireland", "i2": "ireland",
                    "t1": "tokyo"},
      "one_way_ms": {"frankfurt": {"ireland": 10, "tokyo": 118}, "ireland": {"tokyo": 106}},
      "local_ms": 0.25,
      "jitter": {"distribution": "exponential", "ms": 0.5},
      "processing_ms": 0.05,
      "graph": "sites",
      "algorithm": "toco",
      "workload": {"ops_per_second": 10, "write_ratio": 0.5, "registers": 4, "zipf": 0.8},
      "duration_s": 2,
      "seed": 0
    }

Only ``placement`` is required.  Processes are the keys of ``placement`` (in file order),
sites its values (in order of first appearance).  ``one_way_ms`` (default: the published
matrix of :mod:`.matrix`, the sites must then be region names) gives the one-way delay
between sites; a pair given in one direction only is symmetric.  Any key not listed here,
a wrong type or an out-of-range number is rejected (:class:`ConfigError`): the tool never
guesses at an input it does not fully understand.
"""

from __future__ import annotations

import math
import random
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from fisheye.impl.builtin_systems import BUILTIN, DEFAULT
from fisheye.spec.graph import ProximityGraph, parse_graph_option
from fisheye.spec.history import HistoryError, read_json_file

from .matrix import DEFAULT_LOCAL_MS, LatencyMatrix

ALGORITHMS = tuple(BUILTIN)
JITTER_DISTRIBUTIONS = ("none", "uniform", "exponential")
_KEYS = {"placement", "one_way_ms", "local_ms", "jitter", "processing_ms", "graph", "algorithm",
         "variant", "workload", "duration_s", "seed", "check_timeout_s"}
_WORKLOAD_KEYS = {"ops_per_second", "write_ratio", "registers", "zipf"}
_JITTER_KEYS = {"distribution", "ms"}


class ConfigError(HistoryError):
    """A configuration that does not follow the documented format (exit status 2); the
    same one-line form as a bad history file: the file, then what is wrong."""


@dataclass(frozen=True)
class Jitter:
    """Extra one-way delay per message: ``none``; ``uniform`` on [0, ms]; ``exponential``
    of mean ``ms``.  Drawn from the run's seeded generator."""

    distribution: str = "none"
    ms: float = 0.0

    def draw(self, rng: random.Random) -> float:
        if self.distribution == "uniform":
            return rng.uniform(0.0, self.ms)
        if self.distribution == "exponential":
            return rng.expovariate(1.0 / self.ms) if self.ms > 0 else 0.0
        return 0.0

    def to_json(self) -> dict[str, Any]:
        return {"distribution": self.distribution, "ms": self.ms}


@dataclass(frozen=True)
class Workload:
    """Per process: operations arrive as a Poisson process of rate ``ops_per_second``;
    each is a write with probability ``write_ratio`` (else a read) on one of
    ``registers`` registers ``K0, K1, ...``, register ``Kk`` chosen with probability
    proportional to ``1 / (k + 1) ** zipf`` (0: uniform; larger: a hotter ``K0``)."""

    ops_per_second: float = 10.0
    write_ratio: float = 0.5
    registers: int = 4
    zipf: float = 0.0

    def to_json(self) -> dict[str, Any]:
        return {"ops_per_second": self.ops_per_second, "write_ratio": self.write_ratio,
                "registers": self.registers, "zipf": self.zipf}


@dataclass(frozen=True)
class LatencyConfig:
    placement: tuple[tuple[str, str], ...]
    matrix: LatencyMatrix
    jitter: Jitter = Jitter()
    processing_ms: float = 0.05
    graph: str = "sites"
    algorithm: str = DEFAULT
    variant: str = "corrected"
    workload: Workload = Workload()
    duration_s: float = 2.0
    seed: int = 0
    check_timeout_s: float = 60.0
    source: str | None = field(default=None, compare=False)

    @property
    def processes(self) -> tuple[str, ...]:
        return tuple(p for p, _ in self.placement)

    @property
    def sites(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(s for _, s in self.placement))

    @property
    def site_of(self) -> dict[str, str]:
        return dict(self.placement)

    def one_way_ms(self, p: str, q: str) -> float:
        """The configured one-way delay from process ``p`` to process ``q`` (no jitter)."""
        site = self.site_of
        return self.matrix.one_way_ms(site[p], site[q])

    def with_(self, **changes: Any) -> LatencyConfig:
        return replace(self, **changes)

    def to_json(self) -> dict[str, Any]:
        return {"placement": dict(self.placement), "one_way_ms": self.matrix.to_json(),
                "local_ms": self.matrix.local_ms, "jitter": self.jitter.to_json(),
                "processing_ms": self.processing_ms, "graph": self.graph, "algorithm": self.algorithm,
                "variant": self.variant, "workload": self.workload.to_json(),
                "duration_s": self.duration_s, "seed": self.seed, "check_timeout_s": self.check_timeout_s}


def resolve_graph(cfg: LatencyConfig, text: str | None = None) -> ProximityGraph:
    """The proximity graph named by ``text`` (default: the configuration's ``graph``):

    * ``sites``: an edge between every two processes of the same site;
    * ``near:MS``: an edge between every two processes at most ``MS`` ms apart (one way);
    * ``empty``, ``complete``, or edges ``p:q,r:s`` (the contract's GRAPH)."""
    text = (cfg.graph if text is None else text).strip()
    ps = cfg.processes
    if text == "sites":
        site = cfg.site_of
        return ProximityGraph.of(ps, [(p, q) for a, p in enumerate(ps) for q in ps[a + 1:]
                                      if site[p] == site[q]])
    if text.startswith("near:"):
        try:
            bound = float(text[5:])
        except ValueError:
            raise ConfigError(f"graph {text!r}: near:MS needs a number of milliseconds") from None
        return ProximityGraph.of(ps, [(p, q) for a, p in enumerate(ps) for q in ps[a + 1:]
                                      if max(cfg.one_way_ms(p, q), cfg.one_way_ms(q, p)) <= bound])
    if text in ("file", "paper"):
        raise ConfigError(f"graph {text!r} is not a graph of a latency configuration "
                          "(sites, near:MS, empty, complete or p:q,r:s)")
    try:
        return parse_graph_option(text, ps)
    except HistoryError as e:
        raise ConfigError(e.message) from None


# ---- parsing ------------------------------------------------------------------------------------
def _number(obj: Mapping[str, Any], key: str, default: float, *, lo: float = 0.0, lo_open: bool = False,
            hi: float = math.inf, where: str = "") -> float:
    if key not in obj:
        return default
    v = obj[key]
    name = f"{where}{key}"
    if isinstance(v, bool) or not isinstance(v, int | float) or not math.isfinite(v):
        raise ConfigError(f"{name} must be a finite number, not {v!r}")
    if v < lo or (lo_open and v == lo) or v > hi:
        bound = f"> {lo:g}" if lo_open else f">= {lo:g}"
        if hi < math.inf:
            bound += f" and <= {hi:g}"
        raise ConfigError(f"{name} must be {bound}, not {v!r}")
    return float(v)


def _check_keys(obj: Any, allowed: set[str], where: str) -> None:
    if not isinstance(obj, dict):
        raise ConfigError(f"{where or 'the configuration'} must be a JSON object")
    extra = sorted(set(obj) - allowed)
    if extra:
        raise ConfigError(f"unknown key {where}{extra[0]!r} (expected: {', '.join(sorted(allowed))})")


def _matrix(obj: Mapping[str, Any], sites: tuple[str, ...], local_ms: float) -> LatencyMatrix:
    if "one_way_ms" not in obj:
        try:
            return LatencyMatrix.published(sites, local_ms)
        except ValueError as e:
            raise ConfigError(str(e)) from None
    raw = obj["one_way_ms"]
    if not isinstance(raw, dict):
        raise ConfigError("one_way_ms must be an object {site: {site: ms}}")
    delays: dict[tuple[str, str], float] = {}
    for a, row in raw.items():
        if a not in sites:
            raise ConfigError(f"one_way_ms names {a!r}, which is not a site of placement")
        if not isinstance(row, dict):
            raise ConfigError(f"one_way_ms.{a} must be an object {{site: ms}}")
        for b in row:
            if b not in sites:
                raise ConfigError(f"one_way_ms.{a} names {b!r}, which is not a site of placement")
            if b == a:
                raise ConfigError(f"one_way_ms.{a}.{b}: the delay inside a site is local_ms")
            delays[(a, b)] = _number(row, b, 0.0, where=f"one_way_ms.{a}.")
    for (a, b), d in list(delays.items()):
        delays.setdefault((b, a), d)
    for a in sites:
        for b in sites:
            if a != b and (a, b) not in delays:
                raise ConfigError(f"one_way_ms gives no delay between sites {a!r} and {b!r}")
    return LatencyMatrix(sites, delays, local_ms)


def parse_config(obj: Any, source: str | None = None) -> LatencyConfig:
    """Validate a decoded configuration; every problem is a :class:`ConfigError`."""
    try:
        return _parse(obj, source)
    except ConfigError as e:
        e.source = source
        raise


def _parse(obj: Any, source: str | None) -> LatencyConfig:
    _check_keys(obj, _KEYS, "")
    if "placement" not in obj:
        raise ConfigError("placement (an object {process: site}) is required")
    pl = obj["placement"]
    if not isinstance(pl, dict) or not pl:
        raise ConfigError("placement must be a non-empty object {process: site}")
    for p, s in pl.items():
        if not isinstance(s, str) or not s:
            raise ConfigError(f"placement.{p} must be a site name (a string), not {s!r}")
        if not p:
            raise ConfigError("placement has an empty process name")
    placement = tuple(pl.items())
    sites = tuple(dict.fromkeys(pl.values()))
    local_ms = _number(obj, "local_ms", DEFAULT_LOCAL_MS)
    matrix = _matrix(obj, sites, local_ms)

    jitter = Jitter()
    if "jitter" in obj:
        j = obj["jitter"]
        _check_keys(j, _JITTER_KEYS, "jitter.")
        dist = j.get("distribution", "none")
        if dist not in JITTER_DISTRIBUTIONS:
            raise ConfigError(f"jitter.distribution must be one of {', '.join(JITTER_DISTRIBUTIONS)}, "
                              f"not {dist!r}")
        jitter = Jitter(dist, _number(j, "ms", 0.0, where="jitter."))

    workload = Workload()
    if "workload" in obj:
        w = obj["workload"]
        _check_keys(w, _WORKLOAD_KEYS, "workload.")
        regs = w.get("registers", workload.registers)
        if isinstance(regs, bool) or not isinstance(regs, int) or regs < 1:
            raise ConfigError(f"workload.registers must be an integer >= 1, not {regs!r}")
        workload = Workload(
            ops_per_second=_number(w, "ops_per_second", workload.ops_per_second, lo_open=True,
                                   where="workload."),
            write_ratio=_number(w, "write_ratio", workload.write_ratio, hi=1.0, where="workload."),
            registers=regs,
            zipf=_number(w, "zipf", workload.zipf, where="workload."))

    graph = obj.get("graph", "sites")
    if not isinstance(graph, str):
        raise ConfigError("graph must be a string (sites, near:MS, empty, complete or p:q,r:s), "
                          f"not {graph!r}")
    algorithm = obj.get("algorithm", DEFAULT)
    if algorithm not in ALGORITHMS:
        raise ConfigError(f"algorithm must be one of {', '.join(ALGORITHMS)}, not {algorithm!r}")
    variant = obj.get("variant", "corrected")
    if variant not in ("corrected", "published"):
        raise ConfigError(f"variant must be corrected or published, not {variant!r}")
    if "variant" in obj and "variant" not in BUILTIN[algorithm].accepts["protocol"]:
        takes = [n for n, b in BUILTIN.items() if "variant" in b.accepts["protocol"]]
        raise ConfigError(f"variant applies to algorithm {' or '.join(takes)} only")
    seed = obj.get("seed", 0)
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise ConfigError(f"seed must be an integer, not {seed!r}")
    cfg = LatencyConfig(
        placement=placement, matrix=matrix, jitter=jitter,
        processing_ms=_number(obj, "processing_ms", 0.05),
        graph=graph, algorithm=algorithm, variant=variant, workload=workload,
        duration_s=_number(obj, "duration_s", 2.0, lo_open=True),
        seed=seed, check_timeout_s=_number(obj, "check_timeout_s", 60.0, lo_open=True), source=source)
    resolve_graph(cfg)  # the graph must name processes of the placement
    return cfg


def load_config(path: str) -> LatencyConfig:
    """Read and validate a configuration file; every problem names the file (a duplicated
    key or a non-finite number is rejected too)."""
    try:
        obj = read_json_file(path)  # strict: duplicated keys and non-finite numbers are errors
    except HistoryError as e:
        raise ConfigError(e.message, str(path)) from None
    return parse_config(obj, str(path))
