"""Inline SVG pictures of a run history for the HTML report: a rule's trend sparkline and the
chart of each run's counts. Readable without colour (a status is also a height or an outline,
a failure hangs below the chart's line), each an image with a `<title>` and an `aria-label`
in words, and no text that is not escaped."""

from __future__ import annotations

from collections.abc import Sequence

from packata_sql.render.neutral import html as escape
from packata_sql.render.trend_words import MAX_DRAWN, run_counts
from packata_sql.render.words import moment_text
from packata_sql.trends import RuleTrend, RunCounts

#: The report's colour per status word (the HTML report's status cells use the same).
COLOURS = {"passed": "#2e7d32", "failed": "#c62828", "error": "#8e24aa",
           "inconclusive": "#f9a825", "skipped": "#9e9e9e"}
OTHER = "#757575"
#: The sparkline's box and bars: one bar per run, oldest left.
SPARK_HEIGHT, BAR, STEP = 16, 5, 7
#: Each status's bar as (top, height, filled): a low bar passed, a full bar failed, a full
#: outline an error, a half bar inconclusive, a dash skipped (trends.GLYPHS, drawn).
SHAPES = {"passed": (12, 4, True), "failed": (0, 16, True), "error": (0, 16, False),
          "inconclusive": (8, 8, True), "skipped": (7, 2, True)}
#: The chart: bars per run, passed (filled) and other (outlined) up from the line, failed
#: down from it; room for the counts on the left, the newest run's counts on the right and
#: the first and last observation times under it.
CHART_LEFT, CHART_TOP, CHART_PLOT, CHART_RIGHT = 40, 14, 120, 92
#: A run's bar and its step: wide for a few runs, never narrower than 8 in 12 pixels.
CHART_STEPS = (12, 40)
#: The first and the last observation time never closer than this (a few runs' bars are narrow).
TIMES_APART = 340
#: A count above zero is never drawn thinner than this (one failure among thousands shows).
MIN_SEGMENT = 2


def _image(width: int, height: int, said: str, body: str, kind: str) -> str:
    words = escape(said)
    return (f'<svg xmlns="http://www.w3.org/2000/svg" class="{kind}" role="img" '
            f'aria-label="{words}" width="{width}" height="{height}" '
            f'viewBox="0 0 {width} {height}"><title>{words}</title>{body}</svg>')


def sparkline(trend: RuleTrend, said: str) -> str:
    """The rule's newest MAX_DRAWN statuses, one bar each, one path per status."""
    points = trend.points[-MAX_DRAWN:]
    bars: dict[str, list[str]] = {}
    for index, point in enumerate(points):
        status = point.status if point.status in SHAPES else "inconclusive"
        top, height, filled = SHAPES[status]
        x = index * STEP
        bars.setdefault(status, []).append(
            f"M{x} {top}h{BAR}v{height}h-{BAR}z" if filled
            else f"M{x + .5} {top + .5}h{BAR - 1}v{height - 1}h-{BAR - 1}z")
    paths = "".join(
        f'<path class="{status}" d="{"".join(d)}" ' + (
            f'fill="{COLOURS[status]}"/>' if SHAPES[status][2]
            else f'fill="none" stroke="{COLOURS[status]}"/>')
        for status, d in bars.items())
    return _image(max(1, len(points) * STEP - (STEP - BAR)), SPARK_HEIGHT, said, paths,
                  "sparkline")


def _segment(count: int, scale: float) -> int:
    return 0 if count == 0 else max(MIN_SEGMENT, round(count * scale))


def runs_chart(runs: Sequence[RunCounts], said: str) -> str:
    """The newest MAX_DRAWN runs' counts: passed and other stacked up from the line, failed
    hanging down from it, the counts of the scale and of the newest run written out."""
    runs = runs[-MAX_DRAWN:]
    up = max((run.passed + run.other for run in runs), default=0)
    down = max((run.failed for run in runs), default=0)
    scale = CHART_PLOT / max(1, up + down)
    line = CHART_TOP + round(up * scale)
    step = min(CHART_STEPS[1], max(CHART_STEPS[0], TIMES_APART // max(1, len(runs))))
    bar = step * 2 // 3
    right = CHART_LEFT + len(runs) * step
    parts = []
    for index, run in enumerate(runs):
        x = CHART_LEFT + index * step
        passed, other, failed = (_segment(run.passed, scale), _segment(run.other, scale),
                                 _segment(run.failed, scale))
        bars = []
        if passed:
            bars.append(f'<rect class="passed" x="{x}" y="{line - passed}" width="{bar}" '
                        f'height="{passed}" fill="{COLOURS["passed"]}"/>')
        if other:
            bars.append(f'<rect class="other" x="{x + .5}" y="{line - passed - other + .5}" '
                        f'width="{bar - 1}" height="{other - 1}" fill="none" '
                        f'stroke="{OTHER}"/>')
        if failed:
            bars.append(f'<rect class="failed" x="{x}" y="{line}" width="{bar}" '
                        f'height="{failed}" fill="{COLOURS["failed"]}"/>')
        parts.append(f"<g><title>{escape(moment_text(run.observed_at))}: {run_counts(run)}</title>"
                     f"{''.join(bars)}</g>")
    bottom = line + round(down * scale)
    text = 'font-size="11" fill="#222"'
    parts.append(f'<path d="M{CHART_LEFT - 4} {line}H{right}" stroke="#222"/>'
                 f'<text x="{CHART_LEFT - 6}" y="{CHART_TOP + 4}" text-anchor="end" {text}>'
                 f"{up}</text>"
                 f'<text x="{CHART_LEFT - 6}" y="{line + 4}" text-anchor="end" {text}>0</text>')
    if down:
        parts.append(f'<text x="{CHART_LEFT - 6}" y="{bottom + 4}" text-anchor="end" {text}>'
                     f"{down}</text>")
    if runs:
        newest = runs[-1]
        parts.append(f'<text class="newest" x="{right + 4}" y="{CHART_TOP + 4}" {text}>'
                     f"{newest.passed} passed</text>"
                     f'<text class="newest" x="{right + 4}" y="{CHART_TOP + 18}" {text}>'
                     f"{newest.other} other</text>"
                     f'<text class="newest" x="{right + 4}" y="{max(line, bottom) + 4}" '
                     f'{text}>{newest.failed} failed</text>')
        times = CHART_TOP + CHART_PLOT + 24
        parts.append(f'<text x="{CHART_LEFT}" y="{times}" {text}>'
                     f"{escape(moment_text(runs[0].observed_at))}</text>")
        if len(runs) > 1:
            parts.append(f'<text x="{max(right, CHART_LEFT + TIMES_APART)}" y="{times}" '
                         f'text-anchor="end" {text}>'
                         f"{escape(moment_text(newest.observed_at))}</text>")
    width = max(right, CHART_LEFT + TIMES_APART) + CHART_RIGHT
    return _image(width, CHART_TOP + CHART_PLOT + 30, said, "".join(parts), "runs")
