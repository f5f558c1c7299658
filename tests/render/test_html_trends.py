"""The HTML report's run history (issue 25 items 4 and 5): with `Report.history`, a trend
sparkline per rule, a chart of each run's passed/failed/other counts and the notes (failing
since, new failure, flapping, anomaly); without it, the report of before, byte for byte. Each
report here comes from a real check on a DuckDB file, its history built from data."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from packata_sql import __version__
from packata_sql.render.html import render_html
from packata_sql.report import Report

GOLDEN = Path(__file__).parent / "golden" / "no_history.html"


def fixed(report: Report) -> Report:
    """The report with its paths and clock fixed, so its HTML can be compared byte for byte."""
    return dataclasses.replace(report, contract="c.yaml", target="duckdb:///shop.duckdb",
                               started_at="2026-12-03T12:00:00Z", elapsed_ms=42)


def without_version(text: str) -> str:
    return text.replace(f"<code>{__version__}</code>", "<code>VERSION</code>")


def test_without_history_the_report_is_the_one_of_before_byte_for_byte(checked):
    """The golden file is what `render_html` wrote before trends existed (commit "tests: the
    HTML report without history, as a golden file")."""
    text = without_version(render_html(fixed(checked())))
    assert text == GOLDEN.read_text(encoding="utf-8")
