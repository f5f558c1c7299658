"""The HTML report's run history (issue 25 items 4 and 5): with `Report.history`, a trend
sparkline per rule, a chart of each run's passed/failed/other counts and the notes (failing
since, new failure, flapping, anomaly); without it, the report of before, byte for byte. Each
report here comes from a real check on a DuckDB file, its history built from data."""

from __future__ import annotations

import dataclasses
import html
import re
from fractions import Fraction
from html.parser import HTMLParser
from pathlib import Path
from xml.etree import ElementTree

from packata_sql import __version__
from packata_sql.render.html import render_html
from packata_sql.render.svg import BAR, COLOURS, STEP
from packata_sql.render.trend_words import MAX_DRAWN
from packata_sql.report import Report
from packata_sql.trends import History, Point, RuleTrend, RunCounts, anomaly
from tests.render.conftest import TREND_CONTRACT, trend, with_history

GOLDEN = Path(__file__).parent / "golden" / "no_history.html"


def fixed(report: Report) -> Report:
    """The report with its paths and clock fixed, so its HTML can be compared byte for byte."""
    return dataclasses.replace(report, contract="c.yaml", target="duckdb:///shop.duckdb",
                               started_at="2026-12-03T12:00:00Z", elapsed_ms=42)


def without_version(text: str) -> str:
    return text.replace(f"<code>{__version__}</code>", "<code>VERSION</code>")


def test_without_history_the_report_is_the_one_of_before_byte_for_byte(checked):
    """The golden file is what `render_html` wrote before trends existed (commit "tests: the
    HTML report without history, as a golden file"). A deliberate change to the report
    without history rewrites it: `without_version(render_html(fixed(report)))`."""
    text = without_version(render_html(fixed(checked())))
    assert text == GOLDEN.read_text(encoding="utf-8")


SVG = "{http://www.w3.org/2000/svg}"
#: Five passes then three failures: the rule that turned.
TURNED = ["passed"] * 5 + ["failed"] * 3


def pictures(text: str, kind: str) -> list[ElementTree.Element]:
    """The report's inline SVG images of one kind, parsed as the XML they must be."""
    return [ElementTree.fromstring(found) for found in
            re.findall(rf'<svg [^>]*class="{kind}".*?</svg>', text, re.S)]


def rects(path: ElementTree.Element) -> list[tuple[float, float, float, float]]:
    """A path's rectangles as (x, top, width, height), from its `M x y h w v h h -w z` runs."""
    found = re.findall(r"M([\d.]+) ([\d.]+)h([\d.]+)v([\d.]+)h-[\d.]+z", path.get("d", ""))
    return [(float(x), float(y), float(w), float(h)) for x, y, w, h in found]


def rule_rows(text: str) -> dict[str, str]:
    """Each rule's table row, by its key."""
    return {html.unescape(key): row for row, key in
            re.findall(r'(<tr><td class="status".*?<code>(.*?)</code>.*?</tr>)', text, re.S)}


def test_a_rule_that_turned_draws_its_failures_full_and_its_passes_low(checked):
    """The sparkline, oldest left: one bar per run, a failure a full bar, a pass a low one (so
    they differ without colour), and the image says it in words."""
    report = with_history(checked(), [trend("emails", TURNED), trend("rows", ["passed"] * 8)])
    text = render_html(report)
    emails = pictures(rule_rows(text)["emails"], "sparkline")
    assert len(emails) == 1
    image = emails[0]
    said = "failed in the last 3 of 8 runs, since 2026-12-01 05:00:00 UTC; 5 passed, 3 failed"
    assert image.get("role") == "img" and image.get("aria-label") == said
    assert image.findtext(f"{SVG}title") == said
    paths = {path.get("class"): path for path in image.iter(f"{SVG}path")}
    assert set(paths) == {"passed", "failed"}
    assert paths["failed"].get("fill") == COLOURS["failed"]
    assert rects(paths["failed"]) == [(x * STEP, 0, BAR, 16) for x in (5, 6, 7)]
    assert rects(paths["passed"]) == [(x * STEP, 12, BAR, 4) for x in range(5)]
    assert image.get("width") == str(8 * STEP - (STEP - BAR))
    steady = pictures(rule_rows(text)["rows"], "sparkline")[0]
    assert steady.get("aria-label") == "passed in all 8 runs"


def test_every_status_has_its_own_shape(checked):
    statuses = ["passed", "failed", "error", "inconclusive", "skipped"]
    text = render_html(with_history(checked(), [trend("emails", statuses)]))
    image = pictures(rule_rows(text)["emails"], "sparkline")[0]
    shapes = {path.get("class"): (rects(path), path.get("fill")) for path in
              image.iter(f"{SVG}path")}
    assert shapes["error"] == ([(2 * STEP + .5, .5, BAR - 1, 15)], "none")  # an outline
    assert shapes["inconclusive"][0] == [(3 * STEP, 8, BAR, 8)]
    assert shapes["skipped"][0] == [(4 * STEP, 7, BAR, 2)]
    heights = {status: shapes[status][0][0][3] for status in ("passed", "failed",
                                                                "inconclusive", "skipped")}
    assert len(set(heights.values())) == 4  # told apart by height alone


def test_notes_say_since_when_new_failures_and_flapping_and_never_change_a_status(checked):
    report = checked()
    values = [Fraction(100), Fraction(101), Fraction(99), Fraction(100), Fraction(102),
              Fraction(100), Fraction(98)]
    found = anomaly(Fraction(3), values)
    assert found is not None
    rules = [trend("emails", TURNED), trend("unique", ["failed", "passed"] * 2 + ["passed"]),
             trend("rows", ["passed"] * 8, [*values, Fraction(3)], found)]
    new = [trend("emails", ["passed"] * 4 + ["failed"])]
    rows = rule_rows(render_html(with_history(report, rules)))
    notes = {key: re.findall(r'<span class="note[^"]*">(.*?)</span>', row)
             for key, row in rows.items()}
    assert notes["emails"] == ["failing since 2026-12-01 05:00:00 UTC (3 runs)"]
    assert notes["unique"] == ["flapping (3 changes in 5 runs)"]
    assert notes["rows"] == ["value 3 outside the usual range 97–103 over the last 7 runs"]
    assert notes["schema[people].properties[email].present"] == ["no earlier runs"]
    assert re.findall(r'<span class="note[^"]*">(.*?)</span>',
                      rule_rows(render_html(with_history(report, new)))["emails"]) == [
        "new failure"]
    # The anomaly is a note: the rule still passed, the outcome is what it was.
    assert '<td class="status" style="color:#2e7d32">passed</td>' in rows["rows"]
    drawn = render_html(with_history(report, rules))
    assert re.search(r'<p id="summary">.*?FAIL · 3 passed, 1 failed<', drawn)
    assert report.outcome is with_history(report, rules).outcome


def test_the_chart_counts_each_run_and_hangs_failures_below_its_line(checked):
    rules = [trend("emails", TURNED), trend("rows", ["passed"] * 8),
             trend("unique", ["passed"] * 6 + ["skipped", "passed"])]
    text = render_html(with_history(checked(), rules))
    assert text.index('<h2 id="trend">') < text.index("<h2>people</h2>")  # above the rules
    (chart,) = pictures(text, "runs")
    said = ("rules by status in the last 8 runs, from 2026-12-01 00:00:00 UTC to "
            "2026-12-01 07:00:00 UTC: the newest 2 passed, 1 failed, 0 other; failures in 3 of "
            "the 8 runs")
    assert chart.get("role") == "img" and chart.get("aria-label") == said
    assert chart.findtext(f"{SVG}title") == said
    runs = list(chart.iter(f"{SVG}g"))
    assert [run.findtext(f"{SVG}title") for run in runs][-2:] == [
        "2026-12-01 06:00:00 UTC: 1 passed, 1 failed, 1 other",
        "2026-12-01 07:00:00 UTC: 2 passed, 1 failed, 0 other"]
    bars = [{rect.get("class"): rect for rect in run.iter(f"{SVG}rect")} for run in runs]
    line = float(bars[0]["passed"].get("y", "0")) + float(bars[0]["passed"].get("height", "0"))
    assert [sorted(bar) for bar in bars] == [["passed"]] * 5 + [["failed", "passed"]] + [
        ["failed", "other", "passed"]] + [["failed", "passed"]]
    for bar in bars[5:]:
        assert float(bar["failed"].get("y", "0")) == line  # down from the line
        assert bar["failed"].get("fill") == COLOURS["failed"]
    # 3 up and 1 down share 120 pixels: a rule is 30 of them.
    assert [float(bar["passed"].get("height", "0")) for bar in bars] == [90] * 5 + [60, 30, 60]
    assert float(bars[-1]["failed"].get("height", "0")) == 30
    words = [t.text for t in chart.iter(f"{SVG}text")]
    assert words[-5:] == ["2 passed", "0 other", "1 failed", "2026-12-01 00:00:00 UTC",
                          "2026-12-01 07:00:00 UTC"]


def test_a_long_history_draws_the_newest_fifty_and_says_so(checked):
    """80 runs: 50 bars, 50 runs in the chart, and the words still count the whole streak."""
    long = trend("emails", ["passed"] * 10 + ["failed"] * 70)
    text = render_html(with_history(checked(), [long]))
    image = pictures(rule_rows(text)["emails"], "sparkline")[0]
    assert sum(len(rects(path)) for path in image.iter(f"{SVG}path")) == MAX_DRAWN
    assert image.get("aria-label") == ("failed in the last 70 of 80 runs, since "
                                       "2026-12-01 10:00:00 UTC; 70 failed, 10 passed "
                                       "(the newest 50 drawn)")
    assert "failing since 2026-12-01 10:00:00 UTC (70 runs)" in text
    (chart,) = pictures(text, "runs")
    assert len(list(chart.iter(f"{SVG}g"))) == MAX_DRAWN
    assert "(the newest 50 drawn)" in (chart.get("aria-label") or "")


def test_the_report_with_history_is_one_self_contained_file(checked):
    text = render_html(with_history(checked(), [trend("emails", TURNED)]))
    parsed = Tags()
    parsed.feed(text)
    assert not {"script", "link", "img", "iframe", "object", "a"} & set(parsed.tags)
    assert "http" not in text.replace('xmlns="http://www.w3.org/2000/svg"', "")
    assert "url(" not in text and "@import" not in text and "@font-face" not in text


def test_an_empty_history_draws_an_empty_chart_and_no_sparkline(checked):
    """A store that holds no run of this contract yet (the API may attach one)."""
    text = render_html(dataclasses.replace(checked(), history=History("s", (), ())))
    (chart,) = pictures(text, "runs")
    assert chart.get("aria-label") == "no runs" and not list(chart.iter(f"{SVG}rect"))
    assert not pictures(text, "sparkline")
    assert text.count('<span class="note">no earlier runs</span>') == 4
    assert "the last 0 runs" in text


HOSTILE = "</title><script>alert(1)</script>\"' ]]> <![CDATA[x]]> \x07\x1b[2J\u202e&amp;"
#: What a browser, a terminal or a log viewer would act on.
ACTIVE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


class Tags(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[str] = []
        self.comments: list[str] = []
        self.titles: list[str] = []
        self._title = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        self._title = tag == "title"

    def handle_endtag(self, tag: str) -> None:
        self._title = False

    def handle_data(self, data: str) -> None:
        if self._title:
            self.titles.append(data)

    def handle_comment(self, data: str) -> None:
        self.comments.append(data)


def test_hostile_keys_store_names_and_times_stay_text(checked):
    """A rule id, the store's name and the observation times the store hands back can hold
    markup, quotes, `]]>` and control characters: each is text in the HTML and in the SVG."""
    contract = {**TREND_CONTRACT, "id": HOSTILE, "schema": [{"name": "people", "quality": [
        {"id": HOSTILE, "metric": "rowCount", "mustBe": 2}]}]}
    report = checked(contract)
    points = tuple(Point(HOSTILE, f"{HOSTILE}{i}", status)
                   for i, status in enumerate(["passed", "passed", "failed"]))
    hostile = RuleTrend(HOSTILE, points)
    runs = tuple(RunCounts(HOSTILE, point.observed_at, 1, 0, 0) for point in points)
    text = render_html(dataclasses.replace(report, history=History(HOSTILE, (hostile,), runs)))
    parsed = Tags()
    parsed.feed(text)
    assert "script" not in parsed.tags and not parsed.comments
    assert not ACTIVE.search(text.replace("\t", " "))
    assert "<![CDATA[" not in text and "]]>" not in text
    assert parsed.tags.count("svg") == 3  # the status chart, the runs chart, one sparkline
    words = "&lt;/title&gt;&lt;script&gt;alert(1)&lt;/script&gt;&quot;&#x27; ]]&gt;"
    assert f"history <code>{words}" in text
    for found in re.findall(r'<svg [^>]*class="(?:sparkline|runs)".*?</svg>', text, re.S):
        image = ElementTree.fromstring(found)  # still one well-formed image
        assert "</title><script>" in (image.findtext(f"{SVG}title") or "")
    assert any("</title><script>alert(1)</script>" in title for title in parsed.titles)
