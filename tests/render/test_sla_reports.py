"""docs/semantics.md 1.1 in every report format: a latency shows its age and its limit as
durations (`3 h 12 min old`, `no older than 1 d`), never "rows"; an SLA property no query
observes is listed as sla-descriptive, counted apart, and never makes a run pass."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from xml.etree import ElementTree

import duckdb
import pytest
import yaml

import packata_sql
from packata_sql.render import render
from packata_sql.report import Report, Status
from packata_sql.sessions.endpoint import Endpoint

CONTRACT = {
    "apiVersion": "v3.1.0", "kind": "DataContract", "id": "s", "version": "1", "status": "active",
    "schema": [{"name": "orders", "properties": [
        {"name": "updated_at", "logicalType": "timestamp"}]}],
    "slaDefaultElement": "orders.updated_at",
    "slaProperties": [{"id": "fresh", "property": "latency", "value": 1, "unit": "d"},
                      {"id": "kept", "property": "retention", "value": 3, "unit": "y"},
                      {"id": "often", "property": "frequency", "value": 1, "unit": "d"}],
}


def report_at(tmp_path: Path, observed_at: datetime, sla: list[dict[str, object]] | None = None,
              **options: object) -> Report:
    database = tmp_path / "w.duckdb"
    if not database.exists():
        connection = duckdb.connect(str(database))
        connection.execute("CREATE TABLE orders (updated_at TIMESTAMP)")
        connection.execute("INSERT INTO orders VALUES ('2024-01-01 08:00:00'), (NULL)")
        connection.close()
    path = tmp_path / "c.yaml"
    document = {**CONTRACT, **({"slaProperties": sla} if sla is not None else {})}
    path.write_text(yaml.safe_dump(document, sort_keys=False), encoding="utf-8")
    return packata_sql.check(packata_sql.load(path), Endpoint("duckdb", str(database)),
                             observed_at=observed_at, **options)


FRESH = datetime(2024, 1, 1, 11, 12, tzinfo=UTC)  # 3 h 12 min after the newest value
STALE = datetime(2024, 1, 2, 8, 0, 1, tzinfo=UTC)


def test_json_carries_the_age_in_seconds_and_the_count_apart(tmp_path):
    document = json.loads(render(report_at(tmp_path, FRESH), "json"))
    fresh = next(r for r in document["rules"] if r["key"] == "fresh")
    assert (fresh["status"], fresh["value"], fresh["unit"], fresh["kind"], fresh["category"]) == \
        ("passed", 11520, "s", "latency", "sla")
    assert fresh["evidence"] == {"rows": 2}
    kept = next(r for r in document["rules"] if r["key"] == "kept")
    assert (kept["status"], kept["diagnostic"]["code"], kept["descriptive"]) == \
        ("skipped", "sla-descriptive", True)
    assert document["sla_descriptive"] == 2 and document["descriptive_only"] == 0
    # Listed but not counted against the run: the latency passed, so the run passes.
    assert (document["outcome"], document["complete"]) == ("pass", True)
    assert document["summary_by_category"]["sla"] == {
        "passed": 1, "failed": 0, "error": 0, "inconclusive": 0, "skipped": 2}


def test_only_descriptive_slas_never_pass(tmp_path):
    report = report_at(tmp_path, FRESH, [{"property": "retention", "value": 3, "unit": "y"}],
                       categories=("sla",))
    assert report.sla_descriptive == 1 and report.outcome.value == "incomplete"
    assert all(r.status is Status.SKIPPED for r in report.results if r.category.value == "sla")


@pytest.mark.parametrize("fmt", ["table", "markdown", "html"])
def test_human_reports_show_durations_and_the_descriptive_count(tmp_path, fmt):
    # Markdown keeps a value on one line with non-breaking spaces: the wording is the same.
    text = render(report_at(tmp_path, FRESH), fmt, width=200).replace("\u00a0", " ")
    assert "3 h 12 min old" in text and "no older than 1 d" in text
    assert "2 sla-descriptive" in text and "SLA retention 3 y" in text
    assert "11520" not in text and "rows" not in text.split("3 h 12 min old")[0][-40:]
    stale = render(report_at(tmp_path, STALE), fmt, width=200).replace("\u00a0", " ")
    assert "1 d 1 s old" in stale and "failed" in stale


def test_github_annotates_a_stale_table_and_notes_descriptive_slas(tmp_path):
    text = render(report_at(tmp_path, STALE), "github")
    error = next(line for line in text.splitlines() if line.startswith("::error"))
    assert "orders.updated_at" in error and "1 d 1 s old" in error and "no older than 1 d" in error
    notices = [line for line in text.splitlines() if line.startswith("::notice")]
    assert len(notices) == 2 and all("sla-descriptive" in n for n in notices)
    assert "2 sla-descriptive" in text.splitlines()[-1]


def test_junit_fails_the_stale_case_and_skips_descriptive_ones(tmp_path):
    suite = ElementTree.fromstring(render(report_at(tmp_path, STALE), "junit"))
    cases = {case.get("name"): case for case in suite.iter("testcase")}
    failure = cases["fresh"].find("failure")
    assert failure is not None and "1 d 1 s old" in (failure.get("message") or "")
    for key in ("kept", "often"):
        skipped = cases[key].find("skipped")
        assert skipped is not None and skipped.get("message") == "skipped: sla-descriptive"
    properties = {p.get("name"): p.get("value") for p in suite.iter("property")}
    assert properties["sla_descriptive"] == "2"
