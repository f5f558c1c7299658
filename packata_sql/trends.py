"""A rule's earlier runs, as reports show them: the read model of the run history.

Plain data and pure functions, so every floor may hold it: the history store
(`packata_sql/history/`) fills it, the API attaches it to a `Report`, renderers draw it.
Statuses are the report's status words (`passed`, `failed`, `error`, `inconclusive`,
`skipped`) and observation times ISO 8601 UTC strings, as the store keeps them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import cached_property

PASSED = "passed"
FAILED = "failed"
#: Status changes within the shown runs from which a rule is said to flap.
FLAP_CHANGES = 3
#: Anomalies: a value is flagged when it lies outside median ± K·MAD of the rule's last
#: values, judged only from MIN_POINTS earlier values on (docs/semantics.md, run history).
ANOMALY_K = Fraction(3)
MIN_POINTS = 7
#: One glyph per status, readable without colour: a low bar passes, a full bar fails.
GLYPHS = {"passed": "▁", "failed": "█", "error": "E", "inconclusive": "?", "skipped": "-"}


@dataclass(frozen=True)
class Point:
    """One rule in one run."""

    run_id: str
    observed_at: str
    status: str
    #: The measured value when it is a number (a boolean verdict is None).
    value: Fraction | None = None


@dataclass(frozen=True)
class Anomaly:
    """A measured value outside the robust range of the rule's earlier values: a note, never
    a verdict."""

    value: Fraction
    median: Fraction
    mad: Fraction
    low: Fraction
    high: Fraction
    k: Fraction
    #: How many earlier values the range was taken from.
    n: int


@dataclass(frozen=True)
class RuleTrend:
    """One rule's runs, oldest first; in a check report the last point is this run."""

    key: str
    points: tuple[Point, ...]
    anomaly: Anomaly | None = None

    @property
    def statuses(self) -> tuple[str, ...]:
        return tuple(point.status for point in self.points)

    @property
    def streak(self) -> tuple[Point, ...]:
        """The newest points that share the last point's status."""
        if not self.points:
            return ()
        last = self.points[-1].status
        start = len(self.points)
        while start > 0 and self.points[start - 1].status == last:
            start -= 1
        return self.points[start:]

    @property
    def changed(self) -> bool:
        """Whether the status was ever different within the points."""
        return len(self.streak) < len(self.points)

    @property
    def last_changed_at(self) -> str | None:
        """When the current status began, if an earlier point had another one."""
        return self.streak[0].observed_at if self.changed else None

    @property
    def failing_since(self) -> str | None:
        """The first failure of the current streak of failures (None unless it fails now)."""
        streak = self.streak
        return streak[0].observed_at if streak and streak[0].status == FAILED else None

    @property
    def new_failure(self) -> bool:
        """It fails now and did not in the run before."""
        return self.failing_since is not None and len(self.streak) == 1 and self.changed

    @property
    def changes(self) -> int:
        pairs = zip(self.points, self.points[1:], strict=False)
        return sum(1 for earlier, later in pairs if earlier.status != later.status)

    @property
    def flapping(self) -> bool:
        return self.changes >= FLAP_CHANGES

    @property
    def sparkline(self) -> str:
        return sparkline(self.statuses)


@dataclass(frozen=True)
class RunCounts:
    """One run's rules by status: what the trend chart draws."""

    run_id: str
    observed_at: str
    passed: int
    failed: int
    other: int


@dataclass(frozen=True)
class History:
    """What the store knows of a contract's earlier runs, for one report or `history`."""

    #: Where the history is kept, without credentials.
    store: str
    rules: tuple[RuleTrend, ...]
    runs: tuple[RunCounts, ...]
    #: The contract the runs checked (its `id`, else its path), when known.
    contract: str | None = None

    def rule(self, key: str) -> RuleTrend | None:
        return self._by_key.get(key)

    @cached_property
    def _by_key(self) -> dict[str, RuleTrend]:
        """Every renderer asks once per rule: a linear search made a 1,000-rule report
        a million comparisons per format."""
        return {trend.key: trend for trend in reversed(self.rules)}


def sparkline(statuses: Sequence[str]) -> str:
    return "".join(GLYPHS.get(status, "?") for status in statuses)


def median(values: Sequence[Fraction]) -> Fraction:
    ordered = sorted(values)
    middle = len(ordered) // 2
    if len(ordered) % 2:
        return ordered[middle]
    return (ordered[middle - 1] + ordered[middle]) / 2


def anomaly(value: Fraction, earlier: Sequence[Fraction],
            k: Fraction = ANOMALY_K) -> Anomaly | None:
    """The anomaly when `value` lies outside median ± k·MAD of `earlier` (at least
    MIN_POINTS values); None otherwise. A MAD of zero makes any other value an anomaly."""
    if len(earlier) < MIN_POINTS:
        return None
    centre = median(earlier)
    mad = median([abs(v - centre) for v in earlier])
    low, high = centre - k * mad, centre + k * mad
    if low <= value <= high:
        return None
    return Anomaly(value=value, median=centre, mad=mad, low=low, high=high, k=k,
                   n=len(earlier))
