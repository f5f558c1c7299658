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
