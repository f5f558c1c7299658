"""docs/semantics.md 1.1 in both dbt paths, through real dbt on DuckDB and PostgreSQL: a latency
SLA on a model's timestamp columns passes at the observation time where its newest value is
exactly its limit old and fails (failing the model) a second later, in the gate (the var
packata_sql_observed_at) and in `check --dbt-project` (--observed-at), with the same values."""

from __future__ import annotations

import json
from collections.abc import Iterator
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from packata_sql.cli.main import main as packata_main

from .dbt_harness import Project, gated_model

CONTRACT = """\
apiVersion: v3.1.0
kind: DataContract
id: urn:example:dbt-fresh
version: 1.0.0
status: active
schema:
  - name: fresh
    physicalName: fresh_orders
    properties:
      - {name: updated_at, logicalType: timestamp}
      - {name: paris, logicalType: timestamp, logicalTypeOptions: {defaultTimezone: Europe/Paris}}
      - {name: at_tz, logicalType: timestamp}
slaDefaultElement: fresh.updated_at
slaProperties:
  - {id: wall, property: latency, value: 1, unit: d}
  - {id: paris, property: latency, value: 25, unit: h, element: fresh.paris}
  - {id: zoned, property: freshness, value: 26, unit: h, element: fresh.at_tz}
  - {id: kept, property: retention, value: 3, unit: y}
"""
MODEL = """\
select cast('2024-01-01 08:00:00' as timestamp) as updated_at,
       cast('2024-01-01 08:00:00' as timestamp) as paris,
       cast('2024-01-01 08:00:00+02:00' as timestamptz) as at_tz
"""
BOUNDARY, LATER = "2024-01-02T08:00:00Z", "2024-01-02T08:00:01Z"
AGES = {"wall": 86400, "paris": 25 * 3600, "zoned": 26 * 3600}


@pytest.fixture(scope="module", params=["duckdb", "postgres"])
def project(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Project]:
    yield from gated_model(request, tmp_path_factory, "fresh.odcs.yaml", CONTRACT, "fresh_orders",
                           MODEL)


def path2(project: Project, tmp_path: Path, observed_at: str) -> dict[str, Any]:
    if project.target == "duckdb":
        url = project.reader_copy(tmp_path / "after_dbt")
    else:
        project.grant_reader()
        assert project.reader_url is not None
        url = project.reader_url
    tmp_path.mkdir(parents=True, exist_ok=True)
    output = tmp_path / "report.json"
    packata_main(["check", str(project.root / "fresh.odcs.yaml"), "--dbt-project",
                  str(project.root), "--url", url, "--observed-at", observed_at,
                  "--category", "sla", "--format", "json", "--output", str(output)])
    report: dict[str, Any] = json.loads(output.read_text(encoding="utf-8"))
    return report


def test_the_gate_and_the_report_age_the_model_alike(project: Project, tmp_path: Path) -> None:
    fresh = project.invoke("--select", "fresh_orders",
                           variables={"packata_sql_observed_at": BOUNDARY})
    assert fresh.statuses == {"fresh_orders": "success"}, fresh.messages
    assert fresh.rules("fresh_orders") == {
        key: ("passed", [age * 1_000_000, 1_000_000], None) for key, age in AGES.items()}
    report = path2(project, tmp_path / "at", BOUNDARY)
    rules = {r["key"]: r for r in report["rules"]}
    assert {k: (rules[k]["status"], rules[k]["value"]) for k in AGES} == {
        key: ("passed", age) for key, age in AGES.items()}
    assert rules["kept"]["diagnostic"]["code"] == "sla-descriptive"
    assert report["sla_descriptive"] == 1 and report["outcome"] == "pass"

    later = path2(project, tmp_path / "later", LATER)  # the same build, a second later
    assert {r["key"]: (r["status"], r["value"]) for r in later["rules"] if r["key"] in AGES} == \
        {key: ("failed", age + 1) for key, age in AGES.items()}
    assert later["outcome"] == "fail"

    stale = project.invoke("--select", "fresh_orders", variables={"packata_sql_observed_at": LATER})
    assert stale.statuses == {"fresh_orders": "error"}  # an error-severity SLA fails the model
    assert {k: (s, Fraction(v[0], v[1])) for k, (s, v, _) in stale.rules("fresh_orders").items()} \
        == {key: ("failed", Fraction(age + 1)) for key, age in AGES.items()}
