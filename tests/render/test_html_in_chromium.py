"""The HTML report opened in headless Chromium (Debian's `chromium`, installed by .ci/run): the
DOM Chromium builds holds the summary, and a screenshot shows the outcome badge in its colour."""

from __future__ import annotations

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
