"""How a report says a rule's run history in words: what a trend picture's label reads out,
and the notes under a rule (failing since, new failure, flapping, an anomaly), one wording
for every renderer that shows `Report.history`."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from packata_sql.trends import Anomaly, RuleTrend, RunCounts
from packata_sql.values import format_value

#: The most runs a picture draws (the newest): a report stays bounded however long the
#: history the store hands back.
MAX_DRAWN = 50


def runs_word(count: int) -> str:
    return "1 run" if count == 1 else f"{count} runs"


def trend_said(trend: RuleTrend) -> str:
    """`failed in the last 3 of 8 runs, since 2026-12-01T05:00:00Z; 5 passed, 3 failed`:
    the current streak, then every status with its count, newest streak first."""
    points, streak = trend.points, trend.streak
    if not points:
        return "no earlier runs"
    status = points[-1].status
    if not trend.changed:
        said = (f"{status} in the only run" if len(points) == 1
                else f"{status} in all {len(points)} runs")
    else:
        said = (f"{status} in the last {len(streak)} of {len(points)} runs, "
                f"since {streak[0].observed_at}")
    tally = Counter(trend.statuses)
    if len(tally) > 1:
        said += "; " + ", ".join(f"{n} {word}" for word, n in tally.most_common())
    return said + drawn(len(points))


def drawn(count: int) -> str:
    """What a picture leaves out when it draws only the newest MAX_DRAWN runs."""
    return f" (the newest {MAX_DRAWN} drawn)" if count > MAX_DRAWN else ""


def trend_notes(trend: RuleTrend) -> list[str]:
    """`failing since … (N runs)`, `new failure`, `flapping (K changes in N runs)`: what the
    streaks say, a note each."""
    notes = []
    if trend.failing_since is not None:
        notes.append(f"failing since {trend.failing_since} ({runs_word(len(trend.streak))})")
    if trend.new_failure:
        notes.append("new failure")
    if trend.flapping:
        notes.append(f"flapping ({trend.changes} changes in {runs_word(len(trend.points))})")
    return notes


def anomaly_note(found: Anomaly) -> str:
    """`value 2 outside the usual range 95–105 over the last 9 runs (median 100 ± 3·MAD 1.67)`:
    a note that never changes the rule's status."""
    return (f"value {format_value(found.value)} outside the usual range "
            f"{format_value(found.low)}–{format_value(found.high)} over the last "
            f"{runs_word(found.n)} (median {format_value(found.median)} ± "
            f"{format_value(found.k)}·MAD {format_value(found.mad)})")


def runs_said(runs: Sequence[RunCounts]) -> str:
    """`rules by status in the last 8 runs, 2026-12-01T00:00:00Z to …: the newest 2 passed,
    1 failed, 0 other; failures in 3 of the 8 runs`."""
    if not runs:
        return "no runs"
    newest = runs[-1]
    span = (f"at {newest.observed_at}" if len(runs) == 1
            else f"from {runs[0].observed_at} to {newest.observed_at}")
    failing = sum(1 for run in runs if run.failed)
    return (f"rules by status in the last {runs_word(len(runs))}, {span}: the newest "
            f"{run_counts(newest)}; failures in {failing} of the {runs_word(len(runs))}"
            + drawn(len(runs)))


def run_counts(run: RunCounts) -> str:
    return f"{run.passed} passed, {run.failed} failed, {run.other} other"
