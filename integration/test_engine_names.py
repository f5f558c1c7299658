"""Names as the engine would read them (issue 10.3), on DuckDB, SQLite, PostgreSQL and MariaDB.

The table is created by unquoted DDL, `CREATE TABLE Air_Quality (Station_ID …)`: PostgreSQL
stores `air_quality`/`station_id`, MariaDB keeps the case (and compares table names by it, with
lower_case_table_names=0), DuckDB and SQLite keep it and compare without case. A contract that
names the object `Air_Quality` without physicalName must read the table an unquoted SQL rule
reads; a physicalName is used as written; a name that matches nothing gets the closest object
the session can see in its diagnostic."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import duckdb
import pytest
import yaml

from packata_sql.contracts.odcs import load_odcs
from packata_sql.dialects import get_dialect
from packata_sql.plans.compiler import compile_contract
from packata_sql.report import Report, Status
from packata_sql.run.runner import RunOptions, run
from packata_sql.sessions.endpoint import Endpoint

DDL = "CREATE TABLE Air_Quality (Station_ID INTEGER, PM25 INTEGER)"
ROWS = "INSERT INTO Air_Quality VALUES (1, 10), (2, NULL), (3, 30)"
STORED = {"postgres": "air_quality", "mysql": "Air_Quality", "duckdb": "Air_Quality",
          "sqlite": "Air_Quality"}


def _embedded(engine: str, tmp_path: Path) -> Endpoint:
    path = tmp_path / f"names.{engine}"
    connection: Any = duckdb.connect(str(path)) if engine == "duckdb" else sqlite3.connect(str(path))
    connection.execute(DDL)
    connection.execute(ROWS)
    if engine == "sqlite":
        connection.commit()
    connection.close()
    return Endpoint(engine, str(path))


@pytest.fixture(params=["duckdb", "sqlite", "postgres", "mysql"])
def endpoint(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Endpoint]:
    engine = str(request.param)
    if engine in ("duckdb", "sqlite"):
        yield _embedded(engine, tmp_path)
        return
    server = request.getfixturevalue(engine)
    server.execute("DROP TABLE IF EXISTS Air_Quality", DDL, ROWS)
    try:
        yield server.reader
    finally:
        server.execute("DROP TABLE IF EXISTS Air_Quality")


def check(endpoint: Endpoint, tmp_path: Path, obj: dict[str, Any]) -> Report:
    document = {"apiVersion": "v3.1.0", "kind": "DataContract", "id": "names", "version": "1.0.0",
                "status": "active", "schema": [obj]}
    path = tmp_path / "contract.yaml"
    path.write_text(yaml.safe_dump(document), encoding="utf-8")
    loaded = load_odcs(str(path))
    compiled = compile_contract(loaded, get_dialect(endpoint.engine))
    return run(loaded, compiled, endpoint, RunOptions(timeout_s=30))


def air_quality(**names: str) -> dict[str, Any]:
    return {
        "name": "Air_Quality", **names,
        "quality": [
            {"id": "rows", "metric": "rowCount", "mustBe": 3},
            {"id": "sql_object", "type": "sql", "query": "SELECT COUNT(*) FROM {object}",
             "mustBe": 3},
            {"id": "sql_unquoted", "type": "sql", "query": "SELECT COUNT(*) FROM Air_Quality",
             "mustBe": 3},
        ],
        "properties": [
            {"name": "Station_ID", "logicalType": "integer",
             "quality": [{"id": "ids", "metric": "nullValues", "mustBe": 0},
                         {"id": "sql_property", "type": "sql", "mustBe": 6,
                          "query": "SELECT SUM({property}) FROM {object}"}]},
            {"name": "PM25", "physicalName": "PM25", "logicalType": "integer",
             "quality": [{"id": "pm", "metric": "nullValues", "mustBe": 1}]},
        ],
    }


def outcome(report: Report) -> dict[str, tuple[Status, object]]:
    return {r.key: (r.status, r.value if r.diagnostic is None else r.diagnostic.code)
            for r in report.results}


def test_an_unquoted_name_reads_the_table_unquoted_sql_reads(endpoint: Endpoint,
                                                             tmp_path: Path) -> None:
    report = check(endpoint, tmp_path, air_quality())
    measured = outcome(report)
    assert {key: measured[key]
            for key in ("rows", "sql_object", "sql_unquoted", "ids", "sql_property")} == {
        "rows": (Status.PASSED, 3), "sql_object": (Status.PASSED, 3),
        "sql_unquoted": (Status.PASSED, 3), "ids": (Status.PASSED, 0),
        "sql_property": (Status.PASSED, 6),
    }
    notes = sorted(f.message for f in report.findings if f.code == "name-resolved")
    if endpoint.engine == "postgres":
        assert notes == [
            "object 'Air_Quality' does not exist; read as 'air_quality', as postgres reads the "
            "unquoted name (give physicalName to pin it)",
            "property 'Station_ID' does not exist; read as 'station_id', as postgres reads the "
            "unquoted name (give physicalName to pin it)",
        ]
        # physicalName 'PM25' is used as written: PostgreSQL stored pm25.
        assert measured["pm"] == (Status.INCONCLUSIVE, "missing-column")
        pm = next(r for r in report.results if r.key == "pm")
        assert pm.diagnostic is not None and "no column 'PM25'; did you mean" in pm.diagnostic.message
        assert "'pm25'" in pm.diagnostic.message
    else:
        assert notes == []
        assert measured["pm"] == (Status.PASSED, 1)


def test_a_physical_name_is_used_as_written_with_a_hint(endpoint: Endpoint,
                                                         tmp_path: Path) -> None:
    report = check(endpoint, tmp_path, air_quality(physicalName="AIR_QUALITY"))
    rows = next(r for r in report.results if r.key == "rows")
    if endpoint.engine in ("duckdb", "sqlite"):  # names compare without case there
        assert (rows.status, rows.value) == (Status.PASSED, 3)
        return
    assert rows.status is Status.ERROR and rows.diagnostic is not None
    assert rows.diagnostic.code == "missing-object"
    assert rows.diagnostic.message == ("the object does not exist or cannot be read; no object "
                                       f"'AIR_QUALITY'; did you mean '{STORED[endpoint.engine]}'?")
    assert not [f for f in report.findings if f.code == "name-resolved"]


def test_a_name_that_matches_nothing_names_the_closest_object(endpoint: Endpoint,
                                                              tmp_path: Path) -> None:
    obj = air_quality()
    obj["name"] = "Air_Qualty"
    report = check(endpoint, tmp_path, obj)
    rows = next(r for r in report.results if r.key == "rows")
    assert rows.status is Status.ERROR and rows.diagnostic is not None
    assert rows.diagnostic.code == "missing-object"
    assert rows.diagnostic.message.endswith(
        f"no object 'Air_Qualty'; did you mean '{STORED[endpoint.engine]}'?")
    far = air_quality()
    far["name"] = "zzz"
    rows = next(r for r in check(endpoint, tmp_path, far).results if r.key == "rows")
    assert rows.diagnostic is not None
    assert rows.diagnostic.message == "the object does not exist or cannot be read; no object 'zzz'"
