"""`check` on DuckDB with a declared schema, from the URL's `?schema=` and from a server's
`schema` (issue 10.1): library metrics and authored SQL read `analytics.orders` (3 rows), not
the decoy `main.orders` (10 rows), and the report names the schema."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import duckdb

CONTRACT = """\
apiVersion: v3.1.0
kind: DataContract
id: decoy
version: 1.0.0
status: active
servers:
  - server: warehouse
    type: duckdb
    database: decoy.duckdb
    schema: analytics
schema:
  - name: orders
    quality:
      - id: rows
        metric: rowCount
        mustBe: 3
      - id: sql_rows
        type: sql
        query: SELECT COUNT(*) FROM orders
        mustBe: 3
"""


def build(tmp_path: Path) -> Path:
    path = tmp_path / "decoy.duckdb"
    connection = duckdb.connect(str(path))
    connection.execute("CREATE SCHEMA analytics")
    connection.execute("CREATE TABLE analytics.orders AS SELECT range AS total FROM range(3)")
    connection.execute("CREATE TABLE main.orders AS SELECT range AS total FROM range(10)")
    connection.close()
    (tmp_path / "contract.yaml").write_text(CONTRACT, encoding="utf-8")
    return path


def check(tmp_path: Path, *args: str) -> dict[str, object]:
    done = subprocess.run([sys.executable, "-m", "packata_sql", "check", "contract.yaml",
                           "--format", "json", *args], capture_output=True, text=True,
                          cwd=tmp_path, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    document: dict[str, object] = json.loads(done.stdout)
    return document


def test_schema_from_the_url(tmp_path: Path) -> None:
    database = build(tmp_path)
    document = check(tmp_path, "--url", f"duckdb:///{database}?schema=analytics")
    assert document["schema"] == "analytics"
    assert [rule["value"] for rule in document["rules"]] == [3, 3]  # type: ignore[attr-defined]


def test_schema_from_the_server(tmp_path: Path) -> None:
    build(tmp_path)
    document = check(tmp_path)
    assert document["schema"] == "analytics"
    assert document["outcome"] == "pass"
