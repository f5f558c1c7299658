"""docs/semantics.md 1.1 on every live engine: an ODCS `latency` SLA is one MAX in the object's
fused scan, aged in Python against the run's observation time. At the boundary instant the
newest value is exactly as old as the limit (passed); one second later it is older (failed).
Zone-less values are read in the property's `defaultTimezone` (else UTC), zoned values are
instants; an all-NULL column and an empty table are inconclusive; a latency on a text column is
an error; a `retention` is listed as sla-descriptive, never run."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
import yaml

from packata_sql.contracts.odcs import load_odcs
from packata_sql.dialects import get_dialect
from packata_sql.plans.compiler import compile_contract
from packata_sql.report import Report, Status
from packata_sql.run.runner import RunOptions, run
from packata_sql.sessions.endpoint import Endpoint

TABLE, EMPTY = "sla_events", "sla_empty"
#: At BOUNDARY every newest value is exactly its limit old; a second later each is older.
BOUNDARY = datetime(2024, 1, 2, 8, 0, 0, tzinfo=UTC)
LATER = datetime(2024, 1, 2, 8, 0, 1, tzinfo=UTC)

#: Column types per engine: wall clock, instant, date, text.
TYPES = {
    "duckdb": ("TIMESTAMP", "TIMESTAMPTZ", "DATE", "VARCHAR"),
    "sqlite": ("TIMESTAMP", "TIMESTAMP", "DATE", "TEXT"),
    "postgres": ("timestamp", "timestamptz", "date", "text"),
    "mysql": ("DATETIME(6)", "TIMESTAMP(6) NULL", "DATE", "VARCHAR(20)"),
    "spark": ("TIMESTAMP_NTZ", "TIMESTAMP", "DATE", "STRING"),
}
#: The instant 2024-01-01 06:00 UTC as each engine is handed it.
ZONED = {"duckdb": "'2024-01-01 08:00:00+02:00'", "sqlite": "'2024-01-01T08:00:00+02:00'",
         "postgres": "'2024-01-01 08:00:00+02:00'", "mysql": "'2024-01-01 06:00:00'",
         "spark": "TIMESTAMP'2024-01-01 08:00:00+02:00'"}


def _literal(engine: str, kind: str, text: str) -> str:
    return f"{kind}'{text}'" if engine == "spark" else f"'{text}'"


def statements(engine: str, table: str, empty: str) -> list[str]:
    wall, zoned, day, text = TYPES[engine]
    using = " USING parquet" if engine == "spark" else ""
    ntz = "TIMESTAMP_NTZ"
    return [
        f"CREATE TABLE {table} (wall {wall}, paris {wall}, zoned {zoned}, day {day}, "
        f"nulls {wall}, label {text}){using}",
        f"INSERT INTO {table} VALUES ({_literal(engine, ntz, '2024-01-01 08:00:00')}, "
        f"{_literal(engine, ntz, '2024-01-01 08:00:00')}, {ZONED[engine]}, "
        f"{_literal(engine, 'DATE', '2023-12-03')}, NULL, 'a'), "
        f"({_literal(engine, ntz, '2023-06-01 00:00:00')}, NULL, NULL, NULL, NULL, 'b')",
        f"CREATE TABLE {empty} (wall {wall}){using}",
    ]


def contract(tmp_path: Path) -> Path:
    timestamp = {"logicalType": "timestamp"}
    document = {
        "apiVersion": "v3.1.0", "kind": "DataContract", "id": "sla", "version": "1.0.0",
        "status": "active",
        "schema": [
            {"name": TABLE, "properties": [
                {"name": "wall", **timestamp},
                {"name": "paris", **timestamp,
                 "logicalTypeOptions": {"defaultTimezone": "Europe/Paris"}},
                {"name": "zoned", **timestamp},
                {"name": "day", "logicalType": "date"},
                {"name": "nulls", **timestamp},
                {"name": "label"}]},
            {"name": EMPTY, "properties": [{"name": "wall", **timestamp}]}],
        "slaDefaultElement": f"{TABLE}.wall",
        "slaProperties": [
            {"id": "wall", "property": "latency", "value": 1, "unit": "d"},
            # 08:00 in Paris is 07:00 UTC: 25 h before the boundary.
            {"id": "paris", "property": "latency", "value": 25, "unit": "hours",
             "element": f"{TABLE}.paris"},
            {"id": "zoned", "property": "freshness", "value": 26, "unit": "h",
             "element": f"{TABLE}.zoned"},
            # 2023-12-03 00:00 is 30 d 8 h before the boundary: within one calendar month
            # (the limit is 2023-12-02 08:00), though not within 30 days.
            {"id": "day", "property": "latency", "value": 1, "unit": "mo",
             "element": f"{TABLE}.day"},
            {"id": "nulls", "property": "latency", "value": 1, "unit": "d",
             "element": f"{TABLE}.nulls"},
            {"id": "label", "property": "latency", "value": 1, "unit": "d",
             "element": f"{TABLE}.label"},
            {"id": "empty", "property": "latency", "value": 1, "unit": "d",
             "element": f"{EMPTY}.wall"},
            {"id": "retention", "property": "retention", "value": 3, "unit": "y"},
        ],
    }
    path = tmp_path / "sla.odcs.yaml"
    path.write_text(yaml.safe_dump(document, sort_keys=False), encoding="utf-8")
    return path


def check(endpoint: Endpoint, path: Path, observed_at: datetime) -> Report:
    loaded = load_odcs(str(path))
    compiled = compile_contract(loaded, get_dialect(endpoint.engine), prefix=endpoint.schema)
    return run(loaded, compiled, endpoint, RunOptions(observed_at=observed_at))


def _embedded(engine: str, tmp_path: Path) -> Endpoint:
    import sqlite3

    import duckdb

    path = tmp_path / f"sla.{engine}"
    connection: Any = duckdb.connect(str(path)) if engine == "duckdb" else sqlite3.connect(str(path))
    for statement in statements(engine, TABLE, EMPTY):
        connection.execute(statement)
    if engine == "sqlite":
        connection.commit()
    connection.close()
    return Endpoint(engine, str(path))


@pytest.fixture(params=["duckdb", "sqlite", "postgres", "mysql", "spark"])
def endpoint(request: pytest.FixtureRequest, tmp_path: Path) -> Any:
    engine = request.param
    if engine in ("duckdb", "sqlite"):
        yield _embedded(engine, tmp_path)
        return
    if engine == "spark":
        spark = request.getfixturevalue("spark")
        admin = spark.admin()
        names = [f"`{spark.database}`.{TABLE}", f"`{spark.database}`.{EMPTY}"]
        try:
            for name in names:
                admin.sql(f"DROP TABLE IF EXISTS {name}")
            for statement in statements(engine, *names):
                admin.sql(statement)
        finally:
            admin.stop()
        yield spark.reader
        return
    server = request.getfixturevalue(engine)
    drop = [f"DROP TABLE IF EXISTS {TABLE}", f"DROP TABLE IF EXISTS {EMPTY}"]
    grants = [f"GRANT SELECT ON {TABLE}, {EMPTY} TO packata_ro"] if engine == "postgres" else []
    # MariaDB: the TIMESTAMP literal is read in the session zone; UTC makes it 06:00 UTC.
    zone = ["SET time_zone = '+00:00'"] if engine == "mysql" else []
    server.execute(*drop)
    connection = server.connect()
    try:
        cursor = connection.cursor()
        for statement in [*zone, *statements(engine, TABLE, EMPTY), *grants]:
            cursor.execute(statement)
    finally:
        connection.close()
    try:
        yield server.reader
    finally:
        server.execute(*drop)


def outcomes(report: Report) -> dict[str, tuple[Status, object]]:
    return {r.key: (r.status, r.value if r.diagnostic is None else r.diagnostic.code)
            for r in report.results if r.category.value == "sla"}


def test_latency_passes_at_the_limit_and_fails_a_second_later(endpoint, tmp_path):
    path = contract(tmp_path)
    at_limit = check(endpoint, path, BOUNDARY)
    later = check(endpoint, path, LATER)
    text_column = ("all-null-latency" if endpoint.engine == "sqlite"  # any cell may be a date
                   else "latency-not-temporal")
    text_status = Status.INCONCLUSIVE if endpoint.engine == "sqlite" else Status.ERROR
    common = {"nulls": (Status.INCONCLUSIVE, "all-null-latency"),
              "label": (text_status, text_column),
              "empty": (Status.INCONCLUSIVE, "zero-rows-latency"),
              "retention": (Status.SKIPPED, "sla-descriptive")}
    month = 30 * 86400 + 8 * 3600
    assert outcomes(at_limit) == {
        "wall": (Status.PASSED, 86400), "paris": (Status.PASSED, 25 * 3600),
        "zoned": (Status.PASSED, 26 * 3600), "day": (Status.PASSED, month), **common}
    assert outcomes(later) == {
        "wall": (Status.FAILED, 86401), "paris": (Status.FAILED, 25 * 3600 + 1),
        "zoned": (Status.FAILED, 26 * 3600 + 1), "day": (Status.PASSED, month + 1), **common}
    assert at_limit.sla_descriptive == later.sla_descriptive == 1
    failed = next(r for r in later.results if r.key == "wall")
    assert failed.failed == ("no older than 1 d",)
    assert failed.expectation == "no older than 1 d (values without a zone read in UTC)"
    zoned = next(r for r in later.results if r.key == "zoned")
    # SQLite has no zoned type: an offset in the text gives the instant, the zone is UTC.
    assert zoned.expectation == "no older than 26 h" + (
        " (values without a zone read in UTC)" if endpoint.engine == "sqlite" else "")
    assert all(r.fused for r in at_limit.results if r.key in ("wall", "paris", "zoned", "day"))
