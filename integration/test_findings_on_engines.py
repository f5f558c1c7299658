"""A finding is not a refusal (issue 19 items 3-5, docs/semantics.md 1.2), on DuckDB, SQLite,
PostgreSQL, MariaDB and Spark through the real `check` program: a contract with an unknown
metric, a misspelt operator and an unknown object key among valid rules measures the valid
ones on every engine, skips the misspelt ones with their findings, reads another tool's
`isUnique`/`isNullable` as ODCS 3 keys, and ends `incomplete` (exit 2)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from integration.conftest import embedded_database

ENGINES = ["duckdb", "sqlite", "postgres", "mysql", "spark"]
ROWS = [(1, "new"), (2, "closed"), (3, "new")]
CONTRACT = """\
apiVersion: v3.1.0
kind: DataContract
id: findings-on-engines
version: 1.0.0
status: active
schema:
  - name: {table}
    descripton: a misspelt key on the object
    quality:
      - {{id: counted, metric: rowCount, mustBe: 3}}
      - {{id: misspelt-metric, metric: rowCounts, mustBe: 3}}
      - {{id: misspelt-operator, metric: rowCount, mustBeLesThan: 10}}
    properties:
      - name: id
        logicalType: integer
        isUnique: true
        isNullable: false
        quality:
          - {{id: id-unique, metric: duplicateValues, mustBe: 0}}
      - name: status
        logicalType: string
        quality:
          - {{id: status-known, metric: invalidValues, arguments: {{validValues: [new, closed]}}, mustBe: 0}}
"""
EXPECTED = {
    "counted": ("passed", None),
    "misspelt-metric": ("skipped", "unknown-metric"),
    "misspelt-operator": ("skipped", "unknown-operator"),
    "id-unique": ("passed", None),
    "status-known": ("passed", None),
    "{t}.properties[id].logicalType": ("passed", None),
    "{t}.properties[id].required": ("passed", None),  # isNullable: false
    "{t}.properties[id].unique": ("passed", None),  # isUnique: true
    "{t}.properties[status].logicalType": ("passed", None),
}


@pytest.fixture
def warehouse(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Any]:
    """`warehouse(engine)` → (URL for `check --url`, table name); the table is dropped after."""
    cleanups: list[Any] = []

    def make(engine: str) -> tuple[str, str]:
        table = f"uf_orders_{uuid.uuid4().hex[:8]}"  # fresh: Spark caches a table's listing
        create = f"CREATE TABLE {table} (id INTEGER NOT NULL, status VARCHAR(10))"
        if engine in ("duckdb", "sqlite"):
            path = tmp_path / f"{table}.{engine}"
            embedded_database(engine, path, [create], f"INSERT INTO {table} VALUES (?, ?)", ROWS)
            return f"{engine}:///{path}", table
        if engine == "spark":
            spark = request.getfixturevalue("spark")
            admin = spark.admin()
            try:
                admin.createDataFrame(ROWS, schema="id INT, status STRING").write \
                    .mode("overwrite").format("parquet").saveAsTable(f"{spark.database}.{table}")
            finally:
                admin.stop()

            def drop() -> None:
                session = spark.admin()
                try:
                    session.sql(f"DROP TABLE IF EXISTS {spark.database}.{table}")
                finally:
                    session.stop()

            cleanups.append(drop)
            return f"{spark.url};schema={spark.database}", table
        server = request.getfixturevalue(engine)
        server.execute(create)
        cleanups.append(lambda: server.execute(f"DROP TABLE IF EXISTS {table}"))
        connection = server.connect()
        try:
            connection.cursor().executemany(f"INSERT INTO {table} VALUES (%s, %s)", ROWS)
        finally:
            connection.close()
        return server.reader_url, table

    yield make
    for cleanup in cleanups:
        cleanup()


@pytest.mark.parametrize("engine", ENGINES)
def test_one_unknown_metric_among_valid_rules_skips_only_it(engine: str, warehouse: Any,
                                                            tmp_path: Path) -> None:
    url, table = warehouse(engine)
    contract = tmp_path / "c.yaml"
    contract.write_text(CONTRACT.format(table=table), encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "packata_sql", "check", str(contract), "--url", url,
         "--format", "json", "--progress", "none"],
        capture_output=True, text=True, timeout=300, env={**os.environ, "COLUMNS": "100"})
    assert done.returncode == 2, done.stderr
    # Printed before connecting, with file:line and the right spelling.
    assert f"{contract}:11: error unknown-metric" in done.stderr
    assert "did you mean 'rowCount'?" in done.stderr
    assert f"{contract}:8: error unknown-key" in done.stderr
    report = json.loads(done.stdout)
    prefix = f"schema[{table}]"
    found = {r["key"]: (r["status"], (r["diagnostic"] or {}).get("code"))
             for r in report["rules"]}
    assert found == {key.format(t=prefix): value for key, value in EXPECTED.items()}, done.stderr
    assert report["outcome"] == "incomplete"
    findings = {(f["code"], f["level"], f["line"]) for f in report["findings"]}
    assert {("unknown-key", "error", 8), ("other-spelling", "info", 16),
            ("other-spelling", "info", 17)} <= findings
