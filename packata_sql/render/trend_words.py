"""What a trend picture says in words (its `<title>` and `aria-label`), so a reader who does
not see it, or sees it without colour, reads the same: the rule's streak and tally, the runs'
counts. The notes under a rule (failing since, new failure, flapping, an anomaly) are
`words.trend_notes`, shared with every report."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from packata_sql.render.words import moment_text, runs_text
from packata_sql.trends import RuleTrend, RunCounts

#: The most runs a picture draws (the newest): a report stays bounded however long the
#: history the store hands back.
MAX_DRAWN = 50


def drawn(count: int) -> str:
    """What a picture leaves out when it draws only the newest MAX_DRAWN runs."""
    return f" (the newest {MAX_DRAWN} drawn)" if count > MAX_DRAWN else ""


def trend_said(trend: RuleTrend) -> str:
    """`failed in the last 3 of 8 runs, since 2026-12-01 05:00:00 UTC; 5 passed, 3 failed`:
    the current streak, then each status with its count, the most frequent first."""
    points, streak = trend.points, trend.streak
    if not points:
        return "no runs"
    status = points[-1].status
    if not trend.changed:
        said = (f"{status} in the only run" if len(points) == 1
                else f"{status} in all {len(points)} runs")
    else:
        said = (f"{status} in the last {len(streak)} of {len(points)} runs, "
                f"since {moment_text(streak[0].observed_at)}")
    tally = Counter(trend.statuses)
    if len(tally) > 1:
        said += "; " + ", ".join(f"{n} {word}" for word, n in tally.most_common())
    return said + drawn(len(points))


def run_counts(run: RunCounts) -> str:
    return f"{run.passed} passed, {run.failed} failed, {run.other} other"


def runs_said(runs: Sequence[RunCounts]) -> str:
    """`rules by status in the last 8 runs, from … to …: the newest 2 passed, 1 failed,
    0 other; failures in 3 of the 8 runs`."""
    if not runs:
        return "no runs"
    newest = runs[-1]
    span = (f"at {moment_text(newest.observed_at)}" if len(runs) == 1
            else f"from {moment_text(runs[0].observed_at)} to {moment_text(newest.observed_at)}")
    failing = sum(1 for run in runs if run.failed)
    return (f"rules by status in the last {runs_text(len(runs))}, {span}: the newest "
            f"{run_counts(newest)}; failures in {failing} of the {runs_text(len(runs))}"
            + drawn(len(runs)))
