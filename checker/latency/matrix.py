"""Latency matrices: one-way delays between sites, and the default built from published
inter-region round-trip times.

The papers' motivation (section 1 of the 2015 text) is geo-replication: strong consistency
is affordable between nearby data centres and too costly between distant ones.  A
:class:`LatencyMatrix` gives the one-way delay, in milliseconds, of a message from a
process of one site to a process of another, plus the delay between two processes of the
same site.

**The default matrix** (:data:`PUBLISHED_RTT_MS`) is the table "Latency Between AWS Global
Regions" (average ping round-trip times between virtual machines, in ms, measured in 2017),
as tabulated in "AWS Regions" (acomputerscientistlearnsaws.blogspot.com/2017/04/aws-regions.html).
The table is directional (row: from, column: to) and nearly symmetric; the one-way delay
of a pair is half the mean of its two directions.  The São Paulo row is not in the
tabulation; its column is used for both directions.  The delay inside a site
(:data:`DEFAULT_LOCAL_MS`, 0.25 ms one-way) is an assumption: one data centre, in line with
published inter-availability-zone pings of 0.25 to 3.4 ms round trip (xkyle.com,
"Measuring AWS Region and AZ Latency").
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

REGIONS: tuple[str, ...] = ("virginia", "california", "oregon", "ireland", "frankfurt", "tokyo",
                            "seoul", "singapore", "sydney", "sao-paulo")

# Row: from; column: to (REGIONS order); average ping round trip in ms.
_TABLE: tuple[tuple[float, ...], ...] = (
    (0, 72.74, 86.98, 80.55, 88.66, 145.3, 178.4, 216.7, 230, 119.5),        # virginia
    (71.63, 0, 19.46, 153.2, 166.6, 102.5, 131.5, 174, 157.5, 192.7),        # california
    (88.68, 19.2, 0, 137, 159.5, 89.1, 118.3, 161.4, 162.2, 182.7),          # oregon
    (80.52, 153.2, 137, 0, 19.56, 212.4, 242.4, 239, 309.6, 191.3),          # ireland
    (88.62, 166.6, 159.5, 19.55, 0, 236.5, 266.2, 325.9, 323.5, 194.9),      # frankfurt
    (145.3, 102.5, 89.16, 212.4, 236.6, 0, 31.44, 73.79, 103.9, 256.8),      # tokyo
    (176.6, 132.6, 118.2, 242.4, 265.3, 31.32, 0, 71.87, 134, 286.3),        # seoul
    (216.7, 173.9, 161.4, 238.1, 325.9, 73.81, 71.29, 0, 175.3, 328.1),      # singapore
    (229.7, 157.8, 161.9, 309.6, 323.2, 103.9, 134, 175.4, 0, 322.5),        # sydney
)

PUBLISHED_RTT_MS: dict[tuple[str, str], float] = {
    (a, b): _TABLE[i][j] for i, a in enumerate(REGIONS[:-1]) for j, b in enumerate(REGIONS)
}
"""The published round-trip times, ``(from, to) -> ms`` (São Paulo only as a destination)."""

DEFAULT_LOCAL_MS = 0.25
"""One-way delay between two processes of the same site (an assumption, see above)."""


def _rtt(a: str, b: str) -> float:
    there, back = PUBLISHED_RTT_MS.get((a, b)), PUBLISHED_RTT_MS.get((b, a))
    known = [x for x in (there, back) if x is not None]
    return sum(known) / len(known)


def default_one_way_ms(a: str, b: str) -> float:
    """Half the mean published round trip between regions ``a`` and ``b``."""
    return _rtt(a, b) / 2


@dataclass(frozen=True)
class LatencyMatrix:
    """One-way delays between sites: ``delays[(a, b)]`` for every ordered pair of distinct
    sites, and ``local_ms`` inside a site."""

    sites: tuple[str, ...]
    delays: Mapping[tuple[str, str], float]
    local_ms: float = DEFAULT_LOCAL_MS

    def __post_init__(self) -> None:
        for a in self.sites:
            for b in self.sites:
                if a != b and (a, b) not in self.delays:
                    raise ValueError(f"no delay from site {a!r} to site {b!r}")
        if any(d < 0 for d in self.delays.values()) or self.local_ms < 0:
            raise ValueError("delays must be >= 0")

    def one_way_ms(self, a: str, b: str) -> float:
        return self.local_ms if a == b else self.delays[(a, b)]

    @staticmethod
    def published(sites: Iterable[str], local_ms: float = DEFAULT_LOCAL_MS) -> LatencyMatrix:
        """The default matrix for ``sites``, each a name of :data:`REGIONS`."""
        sites = tuple(sites)
        unknown = [s for s in sites if s not in REGIONS]
        if unknown:
            raise ValueError(f"site {unknown[0]!r} is not a region of the default matrix "
                             f"({', '.join(REGIONS)}); give one_way_ms")
        return LatencyMatrix(sites, {(a, b): default_one_way_ms(a, b) for a in sites for b in sites
                                     if a != b}, local_ms)

    def scaled(self, factor: float) -> LatencyMatrix:
        """Every inter-site delay multiplied by ``factor`` (the intra-site delay kept)."""
        return LatencyMatrix(self.sites, {k: v * factor for k, v in self.delays.items()}, self.local_ms)

    def to_json(self) -> dict[str, dict[str, float]]:
        return {a: {b: round(self.delays[(a, b)], 3) for b in self.sites if b != a} for a in self.sites}
