"""`compile` prints the SQL `check` runs (issue 19.6): on DuckDB, PostgreSQL, MariaDB and
Spark, a contract whose server declares a schema compiles to the statements a run of that
server executes (`--show-sql`), and those statements read the declared schema (3 rows, one
negative total), not the session's default one (where a decoy `orders` holds 10 positive rows).
SQLite has no schemas to declare."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from integration.test_declared_schema import REAL, Layout, _duckdb, _mysql, _postgres

RULES = [
    {"id": "rows", "metric": "rowCount", "mustBe": 3},
    {"id": "negative", "type": "sql", "query": "SELECT COUNT(*) FROM {object} WHERE total < 0",
     "mustBe": 0},
    {"id": "schema_rows", "type": "sql", "query": "SELECT COUNT(*) FROM {schema}.orders",
     "mustBe": 3},
]
MEASURED = {"rows": ("passed", 3), "negative": ("failed", 1), "schema_rows": ("passed", 3)}


def packata(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "packata_sql", *args], capture_output=True,
                          text=True, timeout=300)


def _spark(spark: Any) -> Iterator[Layout]:
    """The run's own Spark database is the declared schema (the shared server's `default`
    schema is left alone, so there is no decoy)."""
    admin = spark.admin()
    try:
        admin.sql(f"DROP TABLE IF EXISTS `{spark.database}`.orders")
        admin.sql(f"CREATE TABLE `{spark.database}`.orders (total INT) USING parquet")
        admin.sql(f"INSERT INTO `{spark.database}`.orders VALUES "
                  + ", ".join(f"({total})" for (total,) in REAL))
    finally:
        admin.stop()
    try:
        yield Layout(spark.reader, spark.database, "default")
    finally:
        admin = spark.admin()
        try:
            admin.sql(f"DROP TABLE IF EXISTS `{spark.database}`.orders")
        finally:
            admin.stop()


@pytest.fixture(params=["duckdb", "postgres", "mysql", "spark"])
def declared(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[tuple[Layout, str]]:
    """A layout and the URL `check` is given (no schema in it: the server entry's counts)."""
    engine = str(request.param)
    if engine == "duckdb":
        for layout in _duckdb(tmp_path):
            yield layout, f"duckdb:///{layout.endpoint.database}"
    elif engine == "spark":
        spark = request.getfixturevalue("spark")
        for layout in _spark(spark):
            yield layout, spark.url
    else:
        server = request.getfixturevalue(engine)
        for layout in (_postgres if engine == "postgres" else _mysql)(server):
            yield layout, server.reader_url


def _server_entry(layout: Layout) -> dict[str, Any]:
    endpoint = layout.endpoint
    entry: dict[str, Any] = {"server": "prod", "type": endpoint.engine, "schema": layout.declared}
    if endpoint.engine == "duckdb":
        return {**entry, "database": endpoint.database}
    entry.update(host=endpoint.host, port=endpoint.port)
    return entry if endpoint.engine == "spark" else {**entry, "database": endpoint.database}


def test_compile_prints_what_check_runs_in_the_declared_schema(declared, tmp_path: Path) -> None:
    layout, url = declared
    contract = tmp_path / "contract.yaml"
    contract.write_text(yaml.safe_dump({
        "apiVersion": "v3.1.0", "kind": "DataContract", "id": "same-sql", "version": "1.0.0",
        "status": "active", "servers": [_server_entry(layout)],
        "schema": [{"name": "orders", "properties": [{"name": "total", "logicalType": "integer"}],
                    "quality": RULES}],
    }), encoding="utf-8")
    engine = layout.endpoint.engine
    compiled = packata("compile", str(contract), "--dialect", engine, "--format", "json",
                       "--category", "quality")
    assert compiled.returncode == 0, compiled.stderr
    plan = json.loads(compiled.stdout)
    assert plan["findings"] == []
    assert plan["scans"][0]["object"] == [layout.declared, "orders"]
    trust = ["--trust-environment"] if engine == "spark" else []  # authored SQL on Spark
    checked = packata("check", str(contract), "--url", url, "--show-sql", "--format", "json",
                      "--category", "quality", "--progress", "none", *trust)
    report = json.loads(checked.stdout)
    assert report["schema"] == layout.declared
    results = {r["key"]: r for r in report["rules"]}
    assert {key: (r["status"], r["value"]) for key, r in results.items()} == MEASURED
    assert {r["key"]: r["sql"] for r in plan["rules"]} == {k: r["sql"] for k, r in results.items()}
