"""The HTML report opened in headless Chromium (Debian's `chromium`, installed by .ci/run): the
DOM Chromium builds holds the summary, and a screenshot shows the outcome badge in its colour."""

from __future__ import annotations

import html
import json
import os
import re
import shutil
import struct
import subprocess
import sys
import zlib
from pathlib import Path

import duckdb
import pytest

from packata_sql import __version__

CONTRACT = """apiVersion: v3.1.0
kind: DataContract
id: shop
version: 1.0.0
status: active
schema:
  - name: people
    quality:
      - {metric: rowCount, mustBe: 2}
    properties:
      - name: email
        quality:
          - {metric: nullValues, mustBe: 0}
"""
FAIL_RED = (0xC6, 0x28, 0x28)


def chromium() -> str:
    found = shutil.which("chromium") or shutil.which("chromium-browser")
    if found is None:
        if os.environ.get("CI"):
            pytest.fail("chromium is missing in CI (.ci/run installs it)")
        pytest.skip("chromium is not installed (apt-get install chromium)")
    return found


def _browser(*args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "DBUS_SESSION_BUS_ADDRESS": "/dev/null"}
    return subprocess.run([chromium(), "--headless", "--no-sandbox", "--disable-gpu", *args],
                          capture_output=True, text=True, timeout=120, env=env)


def _pixels(png: bytes) -> tuple[int, int, list[bytes]]:
    """RGB(A) rows of an 8-bit PNG, unfiltered (enough of PNG for Chromium's screenshots)."""
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    offset, data, width, height, channels = 8, b"", 0, 0, 0
    while offset < len(png):
        length, kind = struct.unpack(">I4s", png[offset:offset + 8])
        body = png[offset + 8:offset + 8 + length]
        if kind == b"IHDR":
            width, height, depth, colour = struct.unpack(">IIBB", body[:10])
            assert depth == 8 and colour in (2, 6)
            channels = 3 if colour == 2 else 4
        elif kind == b"IDAT":
            data += body
        offset += 12 + length
    raw, stride, rows, previous = zlib.decompress(data), width * channels, [], bytes(width * channels)
    for y in range(height):
        start = y * (stride + 1)
        kind, line = raw[start], bytearray(raw[start + 1:start + 1 + stride])
        for x in range(stride):
            left = line[x - channels] if x >= channels else 0
            up, corner = previous[x], previous[x - channels] if x >= channels else 0
            if kind == 1:
                line[x] = (line[x] + left) & 0xFF
            elif kind == 2:
                line[x] = (line[x] + up) & 0xFF
            elif kind == 3:
                line[x] = (line[x] + (left + up) // 2) & 0xFF
            elif kind == 4:
                guess = left + up - corner
                near = min((abs(guess - left), 0, left), (abs(guess - up), 1, up),
                           (abs(guess - corner), 2, corner))[2]
                line[x] = (line[x] + near) & 0xFF
        rows.append(bytes(line))
        previous = bytes(line)
    return width, channels, rows


def test_html_report_renders_its_summary_in_chromium(tmp_path: Path) -> None:
    chromium()
    database = tmp_path / "shop.duckdb"
    connection = duckdb.connect(str(database))
    connection.execute("CREATE TABLE people AS SELECT * FROM (VALUES ('a@x'), (NULL)) t(email)")
    connection.close()
    contract = tmp_path / "c.yaml"
    contract.write_text(CONTRACT, encoding="utf-8")
    report = tmp_path / "report.html"
    done = subprocess.run([sys.executable, "-m", "packata_sql", "check", str(contract), "--url",
                           f"duckdb:///{database}", "--output", f"html={report}", "--progress",
                           "none"], capture_output=True, text=True, timeout=120)
    assert done.returncode == 1, done.stderr
    assert "http" not in report.read_text().replace('xmlns="http://www.w3.org/2000/svg"', "")

    dom = _browser("--dump-dom", report.as_uri()).stdout
    assert '<p id="summary">' in dom and re.search(r"FAIL · \d+ passed, 1 failed", dom)
    assert "people.email · nullValues" in dom and "<svg" in dom

    shot = tmp_path / "shot.png"
    _browser(f"--screenshot={shot}", "--window-size=800,300", report.as_uri())
    width, channels, rows = _pixels(shot.read_bytes())
    colours = {row[x:x + 3] for row in rows for x in range(0, width * channels, channels)}
    assert len(colours) > 50  # not a blank page
    assert bytes(FAIL_RED) in colours  # the FAIL badge (and the failed bar) were painted


FORWARD = """apiVersion: v3.1.0
kind: DataContract
id: urn:example:shop
version: 2.3.0
status: active
schema:
  - name: people
    quality:
      - {metric: rowCount, mustBe: 2}
    properties:
      - name: email
        quality:
          - {metric: nullValues, mustBeLessThan: 10, unit: percent,
             name: the share of people whose email address is missing stays under ten percent}
          - {metric: nullValues, mustBe: 0}
  - name: orders
    quality:
      - {metric: rowCount, mustBeGreaterThan: 0}
"""
#: Runs in a copy of the report only (the report itself holds no script): how many line boxes
#: each measured value takes.
PROBE = """<script>document.body.dataset.lines = JSON.stringify(
  [...document.querySelectorAll("span.measured")].map(s => [s.textContent,
                                                              s.getClientRects().length]));
</script>"""


def _lines(page: Path) -> list[list[object]]:
    dom = _browser("--window-size=420,900", "--dump-dom", page.as_uri()).stdout
    found = re.search(r'data-lines="([^"]*)"', dom)
    assert found, dom[-500:]
    return list(json.loads(html.unescape(found.group(1))))


def test_html_header_counts_and_values_on_one_line_in_chromium(tmp_path: Path) -> None:
    """The real binary on a DuckDB file: the header names the contract, its version and the
    release; each object's counts are a table; one value column holds the expectation once;
    and at a narrow window no measured value wraps, where without `nowrap` some would."""
    chromium()
    database = tmp_path / "shop.duckdb"
    connection = duckdb.connect(str(database))
    connection.execute("CREATE TABLE people AS SELECT * FROM (VALUES ('a@x'), (NULL), ('b@y'))"
                       " t(email)")
    connection.execute("CREATE TABLE orders AS SELECT range AS id FROM range(50000)")
    connection.close()
    contract = tmp_path / "c.yaml"
    contract.write_text(FORWARD, encoding="utf-8")
    report = tmp_path / "report.html"
    binary = Path(sys.executable).parent / "packata-sql"
    done = subprocess.run([str(binary), "check", str(contract), "--url", f"duckdb:///{database}",
                           "--output", f"html={report}", "--progress", "none"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 1, done.stderr
    dom = _browser("--dump-dom", report.as_uri()).stdout
    assert re.search(r'<p class="about" id="about">contract <code>urn:example:shop</code> · '
                     rf"version <code>2\.3\.0</code> · packata-sql <code>{re.escape(__version__)}"
                     "</code></p>", dom)
    objects = re.search(r'<table class="objects" id="objects">(.*?)</table>', dom, re.S)
    assert objects
    cells = [re.sub(r"<[^>]+>", "", row).split("\n") for row in
             re.findall(r"<tr>(.*?)</tr>", objects.group(1).replace("</td><td", "</td>\n<td")
                        .replace("</th><th", "</th>\n<th"), re.S)]
    assert cells == [["object", "rules", "passed", "failed", "error", "inconclusive", "skipped"],
                     ["people", "4", "1", "3", "0", "0", "0"],
                     ["orders", "1", "1", "0", "0", "0", "0"]]
    heads = re.findall(r"<tr><th>status</th>(.*?)</tr>", dom)
    assert heads == ["<th>rule</th><th>value</th><th>why</th>"] * 2  # no second "expected"
    assert dom.count("expected = 2") == 1 and dom.count("&lt; 10 %") == 1

    probe, control = tmp_path / "probe.html", tmp_path / "control.html"
    text = report.read_text(encoding="utf-8")
    assert ".measured{white-space:nowrap}" in text
    probe.write_text(text.replace("</body>", PROBE + "</body>"), encoding="utf-8")
    control.write_text(text.replace(".measured{white-space:nowrap}", "")
                       .replace("</body>", PROBE + "</body>"), encoding="utf-8")
    measured = _lines(probe)
    assert ["33.333333 % (1 of 3)", 1] in measured and ["50000 rows", 1] in measured
    assert all(lines == 1 for _, lines in measured), measured
    assert any(lines > 1 for _, lines in _lines(control))  # the window does squeeze them


#: Runs in a copy of the report only: where Chromium laid out each trend picture.
BOXES = """<script>document.body.dataset.boxes = JSON.stringify(
  [...document.querySelectorAll("svg.sparkline, svg.runs")].map(s => {
    const box = s.getBoundingClientRect(), row = s.closest("tr");
    return [row ? row.querySelector("code").textContent : "chart", s.getAttribute("aria-label"),
            box.left, box.top];}));
</script>"""
WINDOW = "--window-size=1100,1500"
PASS_GREEN = (0x2E, 0x7D, 0x32)


def _grey(pixel: bytes) -> float:
    """What a greyscale print or a colour-blind reader keeps of a pixel: its luminance."""
    return 0.2126 * pixel[0] + 0.7152 * pixel[1] + 0.0722 * pixel[2]


def test_html_trend_shows_the_turn_to_failed_in_chromium(tmp_path: Path) -> None:
    """A rule that passed five runs and failed the last three: Chromium paints its three
    newest sparkline bars full height in the fail colour where the earlier five are low green
    bars (so in grey they differ by height), and the chart's newest run has its failed segment
    below the line; the aria labels are in the DOM as words."""
    chromium()
    from packata_sql.render.html import render_html
    from packata_sql.render.svg import BAR, CHART_PLOT, CHART_TOP, STEP
    from tests.render.conftest import check_report, trend, with_history

    turned = ["passed"] * 5 + ["failed"] * 3
    report = with_history(check_report(tmp_path), [
        trend("emails", turned), trend("rows", ["passed"] * 8), trend("unique", ["passed"] * 8)])
    page, probe = tmp_path / "report.html", tmp_path / "probe.html"
    text = render_html(report)
    page.write_text(text, encoding="utf-8")
    probe.write_text(text.replace("</body>", BOXES + "</body>"), encoding="utf-8")
    dom = _browser(WINDOW, "--force-device-scale-factor=1", "--dump-dom", probe.as_uri()).stdout
    found = re.search(r'data-boxes="([^"]*)"', dom)
    assert found, dom[-500:]
    boxes = {key: (said, left, top) for key, said, left, top in
             json.loads(html.unescape(found.group(1)))}
    said, left, top = boxes["emails"]
    assert said == ("failed in the last 3 of 8 runs, since 2026-12-01 05:00:00 UTC; "
                    "5 passed, 3 failed")
    assert boxes["rows"][0] == "passed in all 8 runs"
    assert boxes["chart"][0].startswith("rules by status in the last 8 runs, from "
                                        "2026-12-01 00:00:00 UTC to 2026-12-01 07:00:00 UTC: the "
                                        "newest 2 passed, 1 failed, 0 other")

    shot = tmp_path / "shot.png"
    _browser(WINDOW, "--force-device-scale-factor=1", "--hide-scrollbars",
             f"--screenshot={shot}", page.as_uri())
    _, channels, rows = _pixels(shot.read_bytes())

    def pixel(x: float, y: float) -> bytes:
        column = int(x) * channels
        return rows[int(y)][column:column + 3]

    for index in range(8):
        middle = left + index * STEP + BAR / 2
        high, low = pixel(middle, top + 3), pixel(middle, top + 14)
        if index < 5:  # a pass: a low green bar, nothing painted above it
            assert low == bytes(PASS_GREEN) and _grey(high) > 250, (index, high, low)
        else:  # a failure: the full bar, in the fail colour
            assert high == low == bytes(FAIL_RED), (index, high, low)
            assert _grey(high) < 128

    # The chart: 3 rules up (the runs that all passed) and 1 down share its height; the newest
    # run's failed segment hangs below the line, its passed one stands above it.
    chart = re.search(r'<svg [^>]*class="runs".*?</svg>', text, re.S)
    assert chart
    bars = re.findall(r'<rect class="(\w+)" x="([\d.]+)" y="([\d.]+)" width="([\d.]+)" '
                      r'height="([\d.]+)"', chart.group())
    newest = {kind: tuple(float(v) for v in rest) for kind, *rest in bars[-2:]}
    assert set(newest) == {"passed", "failed"}
    line = CHART_TOP + CHART_PLOT * 3 / 4
    x, y, w, h = newest["failed"]
    assert y == line and h == CHART_PLOT / 4
    _, chart_left, chart_top = boxes["chart"]
    assert pixel(chart_left + x + w / 2, chart_top + y + h / 2) == bytes(FAIL_RED)
    assert pixel(chart_left + x + w / 2, chart_top + line - 10) == bytes(PASS_GREEN)
    assert _grey(pixel(chart_left + x + w / 2, chart_top + line + h + 6)) > 250  # just below it
