"""The Python API on the five live engines (issue 21): one observation time per run bound as
a typed timestamp parameter, and compiled plans shared by runs in several threads, each with
its own session, giving the reports serial runs give."""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

import packata_sql
from packata_sql.sessions.endpoint import Endpoint

from .conftest import Server, SparkServer, embedded_database, load_rows

ENGINES = ("duckdb", "sqlite", "postgres", "mysql", "spark")
TABLE = "api_events"
ROWS = [(1, "2026-01-10 08:00:00"), (2, "2026-03-10 08:00:00"), (3, "2026-09-10 08:00:00"),
        (None, "2026-11-30 23:00:00")]
TYPES = {"duckdb": "TIMESTAMP", "sqlite": "TEXT", "postgres": "TIMESTAMP", "mysql": "DATETIME",
         "spark": "TIMESTAMP"}
CONTRACT = f"""\
apiVersion: v3.1.0
kind: DataContract
id: api-events
version: 1.0.0
status: active
schema:
  - name: {TABLE}
    properties:
      - name: id
        quality:
          - {{metric: nullValues, mustBe: 1}}
          - {{metric: duplicateValues, mustBe: 0}}
    quality:
      - {{metric: rowCount, mustBe: 4}}
      - id: seen_by_then
        type: sql
        query: SELECT COUNT(*) FROM {{object}} WHERE seen_at <= {{observation_time}}
        mustBeGreaterOrEqualTo: 2
"""


def _spark_table(spark: SparkServer) -> Endpoint:
    admin = spark.admin()
    try:
        values = ", ".join(f"({'NULL' if i is None else i}, TIMESTAMP '{at}')" for i, at in ROWS)
        admin.sql(f"CREATE OR REPLACE VIEW `{spark.database}`.`{TABLE}` AS SELECT "
                  f"CAST(id AS INT) AS id, seen_at FROM VALUES {values} AS t(id, seen_at)")
    finally:
        admin.stop()
    return spark.reader


@pytest.fixture(params=ENGINES)
def events(request: pytest.FixtureRequest, tmp_path: Path) -> Callable[[str], Endpoint]:
    """events(name) -> an endpoint whose TABLE holds ROWS (a fresh file per name on DuckDB
    and SQLite, the one server table elsewhere)."""
    engine = str(request.param)
    if engine == "spark":
        endpoint = _spark_table(request.getfixturevalue("spark"))
        return lambda name: endpoint
    create = [f"DROP TABLE IF EXISTS {TABLE}", f"CREATE TABLE {TABLE} (id INTEGER, seen_at {TYPES[engine]})"]
    if engine in ("duckdb", "sqlite"):
        return lambda name: embedded_database(engine, tmp_path / f"{name}.{engine}", create,
                                              f"INSERT INTO {TABLE} VALUES (?, ?)", ROWS)
    server: Server = request.getfixturevalue(engine)
    load_rows(server, create, f"INSERT INTO {TABLE} VALUES (%s, %s)", ROWS)
    request.addfinalizer(lambda: server.execute(f"DROP TABLE IF EXISTS {TABLE}"))
    return lambda name: server.reader


def _contract(tmp_path: Path) -> packata_sql.Contract:
    path = tmp_path / "events.odcs.yaml"
    path.write_text(CONTRACT, encoding="utf-8")
    return packata_sql.load(path)


def _trust(endpoint: Endpoint) -> bool:
    """Spark's Connect logins can always escape read-only mode (library-only): authored SQL
    runs there only trusted, as `--trust-environment` says."""
    return endpoint.engine == "spark"


def _seen(report: packata_sql.Report) -> Any:
    return {r.key: r for r in report.rules}["seen_by_then"]


def test_observation_time_is_bound_as_a_typed_timestamp(events, tmp_path):
    """docs/semantics.md 1.5: the SQL rule reads the run's instant, never the engine's clock; the
    same data passes at one observation time and fails at another, on every engine."""
    endpoint = events("one")
    plans = packata_sql.compile(_contract(tmp_path), endpoint.engine, schema=endpoint.schema)
    trust = _trust(endpoint)
    early = packata_sql.check(plans, endpoint, observed_at=datetime(2026, 2, 1, tzinfo=UTC),
                              trust_environment=trust)
    late = packata_sql.check(plans, endpoint, trust_environment=trust,
                             observed_at=datetime.fromisoformat("2026-10-01T02:00:00+02:00"))
    assert (_seen(early).status, _seen(early).value) == (packata_sql.Status.FAILED, 1)
    assert (_seen(late).status, _seen(late).value) == (packata_sql.Status.PASSED, 3)
    assert late.observed_at == "2026-10-01T00:00:00+00:00"
    assert late.outcome is packata_sql.Outcome.PASS, [(r.key, r.status) for r in late.rules]


def _comparable(report: packata_sql.Report) -> dict[str, Any]:
    document = report.to_dict()
    for key in ("elapsed_ms", "started_at"):
        document.pop(key)
    document["rules"] = [{k: v for k, v in r.items() if k != "elapsed_ms"}
                         for r in document["rules"]]
    return document


def test_one_plan_set_checked_from_several_threads(events, tmp_path):
    """Eight runs of one immutable plan set at once (two endpoints on the file engines): each
    opens its own session and reports exactly what a serial run reports."""
    endpoints = [events("first"), events("second")]
    plans = packata_sql.compile(_contract(tmp_path), endpoints[0].engine,
                                schema=endpoints[0].schema)
    when = datetime(2026, 12, 1, tzinfo=UTC)
    request = packata_sql.CheckRequest(observed_at=when, trust_environment=_trust(endpoints[0]))
    serial = [_comparable(packata_sql.check(plans, e, request=request)) for e in endpoints]
    jobs = [endpoints[i % 2] for i in range(8)]
    with ThreadPoolExecutor(max_workers=8) as pool:
        reports = list(pool.map(lambda e: packata_sql.check(plans, e, request=request), jobs))
    assert [_comparable(r) for r in reports] == [serial[i % 2] for i in range(8)]
    assert all(r.outcome is packata_sql.Outcome.PASS for r in reports)
