"""Issue 24.6: progress that moves. During one long fused scan the live display shows the
engine's own progress where it reports it (DuckDB's query progress), else a moving spinner
and the step's elapsed time; plain progress (CI, a pipe) carries no progress values. Real
DuckDB and SQLite databases, the real binary on a pseudo-terminal."""

from __future__ import annotations

import itertools
import json
import os
import re
import sqlite3
import subprocess
import sys
import textwrap
from pathlib import Path

import duckdb
import pytest

from packata_sql import api
from packata_sql.api import Progress

BINARY = str(Path(sys.executable).with_name("packata-sql"))
#: rich's default spinner ("dots"): the frames a moving spinner draws.
SPINNER = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"
PERCENT = re.compile(rb"\b(\d{1,3}) %")
CONTRACT = textwrap.dedent("""\
    apiVersion: v3.1.0
    kind: DataContract
    id: p
    version: 1.0.0
    status: active
    schema:
      - name: big
        quality:
          - {metric: rowCount, mustBeGreaterThan: 0}
        properties:
          - name: x
            quality: [{metric: nullValues, mustBe: 0}]
          - name: y
            quality: [{metric: nullValues, mustBe: 0}]
    """)


@pytest.fixture
def slow_duckdb(tmp_path: Path) -> tuple[Path, str]:
    """A view whose fused scan takes a few seconds: an MD5 of each of 15 million rows."""
    database = tmp_path / "big.duckdb"
    connection = duckdb.connect(str(database))
    connection.execute("CREATE VIEW big AS SELECT md5(a.range::VARCHAR) AS x, b.range AS y "
                       "FROM range(150000) a, range(100) b")
    connection.close()
    contract = tmp_path / "c.yaml"
    contract.write_text(CONTRACT, encoding="utf-8")
    return contract, f"duckdb:///{database}"


@pytest.fixture
def slow_sqlite(tmp_path: Path) -> tuple[Path, str]:
    """SQLite reports no progress of a query: a view counting up to 3 million (~2 s)."""
    database = tmp_path / "big.sqlite"
    connection = sqlite3.connect(database)
    connection.execute("CREATE VIEW big AS WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL "
                       "SELECT n + 1 FROM r WHERE n < 3000000) SELECT n AS x, n AS y FROM r")
    connection.commit()
    connection.close()
    contract = tmp_path / "c.yaml"
    contract.write_text(CONTRACT, encoding="utf-8")
    return contract, f"sqlite:///{database}"


def events_of(contract: Path, url: str) -> tuple[list[Progress], api.Report]:
    loaded = api.load(contract)
    endpoint = api.resolve_endpoint(loaded, url, None, False)
    events: list[Progress] = []
    report = api.check_endpoint(loaded, endpoint, api.CheckRequest(progress=events.append))
    return events, report


def on_a_terminal(contract: Path, url: str) -> tuple[str, bytes]:
    """stdout, and what was drawn on stderr, a pty (not CI): rich's live display."""
    import pty

    leader, follower = pty.openpty()
    environment = {k: v for k, v in os.environ.items() if k not in ("CI", "GITHUB_ACTIONS")}
    process = subprocess.Popen([BINARY, "check", str(contract), "--url", url, "--format",
                                "json"], stdout=subprocess.PIPE, stderr=follower, text=True,
                               env=environment)
    os.close(follower)
    drawn = b""
    while True:
        try:
            chunk = os.read(leader, 65536)
        except OSError:  # the pty is closed once the program has ended
            break
        if not chunk:
            break
        drawn += chunk
    out, _ = process.communicate(timeout=120)
    os.close(leader)
    return out, drawn


def test_duckdb_reports_its_query_progress_during_the_fused_scan(slow_duckdb):
    contract, url = slow_duckdb
    events, report = events_of(contract, url)
    assert report.outcome.value == "pass"
    steps = [event.step for event in events]
    start, end = steps.index("scan"), steps.index("done")
    assert events[start].label == "big" and events[start].rules == 5  # one fused scan
    during = [event.percent for event in events[start + 1:end]]
    assert during and all(event.step == "progress" for event in events[start + 1:end])
    assert any(percent is not None and 0 < percent < 100 for percent in during)
    assert all(a != b for a, b in itertools.pairwise(during))  # only new values
    assert all(e.step != "progress" for e in events[end:])  # nothing after the scan ended


def test_the_live_display_shows_duckdbs_progress(slow_duckdb):
    contract, url = slow_duckdb
    out, drawn = on_a_terminal(contract, url)
    shown = [int(value) for value in PERCENT.findall(drawn)]
    assert any(0 < value < 100 for value in shown), drawn[-2000:]
    quiet = subprocess.run([BINARY, "check", str(contract), "--url", url, "--format", "json",
                            "--progress", "none"], capture_output=True, text=True, timeout=120)
    assert [r["status"] for r in json.loads(out)["rules"]] == \
        [r["status"] for r in json.loads(quiet.stdout)["rules"]]
    assert "%" not in quiet.stderr


def test_plain_progress_in_ci_carries_no_progress_values(slow_duckdb):
    contract, url = slow_duckdb
    done = subprocess.run([BINARY, "check", str(contract), "--url", url, "--format", "json"],
                          capture_output=True, text=True, timeout=120,
                          env={**os.environ, "CI": "true"})
    lines = done.stderr.splitlines()
    assert lines == [line for line in lines if "scanning big" in line or "done in" in line]
    assert len(lines) == 2 and "%" not in done.stderr and "\x1b[" not in done.stderr


def test_an_engine_without_progress_shows_a_spinner_and_the_elapsed_time(slow_sqlite):
    contract, url = slow_sqlite
    events, report = events_of(contract, url)
    assert report.outcome.value == "pass"
    assert "progress" not in [event.step for event in events]  # SQLite tells none
    _, drawn = on_a_terminal(contract, url)
    text = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", drawn.decode("utf-8", "replace"))
    step = [line.strip() for line in re.split(r"[\r\n]+", text) if "big (fused scan)" in line]
    assert step, text[-2000:]
    assert len({line[0] for line in step if line[0] in SPINNER}) >= 2  # the scan's line moved
    assert all(re.search(r"\d:\d\d:\d\d$", line) for line in step)  # with its own clock
    assert not PERCENT.findall(drawn)
