"""The JSON report writes numbers exactly and keeps its documented shape."""

from __future__ import annotations

import json
from fractions import Fraction

from packata_sql.contracts.model import Category, Severity
from packata_sql.render.json import render_json
from packata_sql.report import Report, RuleResult, Status


def result(value, unit="rows", **extra) -> RuleResult:
    return RuleResult("k", "schema[0].quality[0]", Category.QUALITY, Severity.ERROR,
                      Status.PASSED, value=value, unit=unit, **extra)


def test_large_integers_are_exact_json_numbers():
    big = 10**20 + 1
    text = render_json(Report("c.yaml", "duckdb:x", "enforced", (result(Fraction(big)),), ()))
    assert '"value": 100000000000000000001' in text
    assert json.loads(text)["rules"][0]["value"] == big


def test_terminating_fractions_are_exact_and_others_rounded():
    text = render_json(Report("c.yaml", "duckdb:x", "enforced",
                              (result(Fraction(1, 8), "percent"), result(Fraction(100, 3), "percent")), ()))
    values = [r["value"] for r in json.loads(text, parse_float=str)["rules"]]
    assert values == ["0.125", "33.333333"]


def test_outcome_and_summary_follow_statuses():
    failed_warning = RuleResult("w", "p", Category.QUALITY, Severity.WARNING, Status.FAILED)
    report = Report("c.yaml", "t", "enforced", (result(Fraction(1)), failed_warning), ())
    document = json.loads(render_json(report))
    assert (document["outcome"], document["complete"]) == ("warn", True)
    assert report.exit_code() == 0 and report.exit_code(fail_on_warning=True) == 1
    assert document["summary"]["failed"] == 1
