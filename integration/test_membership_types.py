"""docs/semantics.md 3.2 on every live engine: a membership list may hold members the property's
declared type can never hold (`''` on an integer column, a habit of contracts written for other
tools). Those members match no cell and a warning finding says so; NULL still counts."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import duckdb
import pytest
import yaml

from packata_sql.contracts.model import Category, Level
from packata_sql.contracts.odcs import load_odcs
from packata_sql.dialects import get_dialect
from packata_sql.plans.compiler import compile_contract
from packata_sql.report import Report, Status
from packata_sql.run.runner import RunOptions, run
from packata_sql.sessions.endpoint import Endpoint

TABLE = "typed_members"
ROWS = [(1,), (2,), (None,), (3,)]
RULES = [
    {"id": "missing", "metric": "missingValues", "arguments": {"missingValues": ["", None]},
     "mustBe": 1},
    {"id": "valid", "metric": "invalidValues",
     "arguments": {"validValues": [1, 2, "", "3", None]}, "mustBe": 1},
    {"id": "only_text", "metric": "missingValues", "arguments": {"missingValues": ["", "n/a"]},
     "mustBe": 0},
]


def check(endpoint: Endpoint, tmp_path: Path) -> Report:
    document = {"apiVersion": "v3.1.0", "kind": "DataContract", "id": "m", "version": "1.0.0",
                "status": "active", "schema": [{"name": TABLE, "properties": [
                    {"name": "n", "logicalType": "integer", "quality": RULES}]}]}
    path = tmp_path / "contract.yaml"
    path.write_text(yaml.safe_dump(document), encoding="utf-8")
    loaded = load_odcs(str(path))
    compiled = compile_contract(loaded, get_dialect(endpoint.engine), prefix=endpoint.schema,
                                categories=[Category.QUALITY])  # constraints: their own tests
    return run(loaded, compiled, endpoint, RunOptions())


def embedded(engine: str, tmp_path: Path, rows: list[tuple[Any, ...]]) -> Endpoint:
    path = tmp_path / f"{TABLE}.{engine}"
    connection: Any = duckdb.connect(str(path)) if engine == "duckdb" else sqlite3.connect(str(path))
    connection.execute(f"CREATE TABLE {TABLE} (n {'BIGINT' if engine == 'duckdb' else 'INTEGER'})")
    connection.executemany(f"INSERT INTO {TABLE} VALUES (?)", rows)
    if engine == "sqlite":
        connection.commit()
    connection.close()
    return Endpoint(engine, str(path))


@pytest.mark.parametrize("engine", ["duckdb", "sqlite", "postgres", "mysql"])
def test_members_the_column_cannot_hold_match_nothing(engine, request, tmp_path):
    if engine in ("duckdb", "sqlite"):
        report = check(embedded(engine, tmp_path, ROWS), tmp_path)
    else:
        server = request.getfixturevalue(engine)
        server.execute(f"DROP TABLE IF EXISTS {TABLE}", f"CREATE TABLE {TABLE} (n BIGINT)",
                       f"INSERT INTO {TABLE} VALUES (1), (2), (NULL), (3)",
                       *([f"GRANT SELECT ON {TABLE} TO packata_ro"] if engine == "postgres" else []))
        try:
            report = check(server.reader, tmp_path)
        finally:
            server.execute(f"DROP TABLE IF EXISTS {TABLE}")
    assert {r.key: (r.status, r.value) for r in report.results} == {
        "missing": (Status.PASSED, 1),  # the NULL cell; '' matches nothing
        "valid": (Status.PASSED, 1),  # 3: the text '3' is not the number 3
        "only_text": (Status.PASSED, 0),
    }
    warnings = [(f.rule_key, f.code, f.level) for f in report.findings]
    assert warnings == [
        ("missing", "member-type-mismatch", Level.WARNING),
        ("valid", "member-type-mismatch", Level.WARNING),
        ("valid", "member-type-mismatch", Level.WARNING),
        ("only_text", "member-type-mismatch", Level.WARNING),
        ("only_text", "member-type-mismatch", Level.WARNING),
    ]


def test_sqlite_text_stored_in_an_integer_column_is_still_not_a_member(tmp_path):
    """SQLite keeps '' as text in an INTEGER column; the declared type still decides."""
    report = check(embedded("sqlite", tmp_path, [(1,), ("",), (None,), (3,)]), tmp_path)
    assert {r.key: (r.status, r.value) for r in report.results}["missing"] == (Status.PASSED, 1)
