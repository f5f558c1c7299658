"""`--show-sql` reports the SQL of rules that ended `error` too (issue 19.6), in JSON and JUnit,
on every engine: the view `boom` lists its column fine but fails when a row is read (a scalar
subquery with three rows; on SQLite, whose subqueries take the first row, an integer overflow
in abs()), so the library rule's scan and the authored rule each end `error`. Without
`--show-sql` neither SQL text reaches a report."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from xml.etree import ElementTree

import duckdb
import pytest
import yaml

VIEW = "boom"
SEED = "boom_seed"
RULES = [
    {"id": "nulls", "metric": "nullValues", "mustBe": 0},
    {"id": "authored", "type": "sql", "query": "SELECT COUNT(*) FROM {object} WHERE x > 0",
     "mustBe": 0},
]
# A scalar subquery that returns three rows fails at run time on these engines.
SUBQUERY_VIEW = f"CREATE VIEW {VIEW} AS SELECT (SELECT i FROM {SEED}) + i AS x FROM {SEED}"


def packata(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "packata_sql", *args], capture_output=True,
                          text=True, timeout=300)


def _embedded(engine: str, path: Path) -> str:
    connection: Any = duckdb.connect(str(path)) if engine == "duckdb" else sqlite3.connect(str(path))
    connection.execute(f"CREATE TABLE {SEED} (i INTEGER)")
    connection.execute(f"INSERT INTO {SEED} VALUES (0), (0), (0)")
    connection.execute(SUBQUERY_VIEW if engine == "duckdb" else
                       f"CREATE VIEW {VIEW} AS SELECT abs(i - 9223372036854775807 - 1) AS x "
                       f"FROM {SEED}")
    if engine == "sqlite":
        connection.commit()
    connection.close()
    return f"{engine}:///{path}"


def _server(server: Any) -> Iterator[str]:
    drop = [f"DROP VIEW IF EXISTS {VIEW}", f"DROP TABLE IF EXISTS {SEED}"]
    server.execute(*drop, f"CREATE TABLE {SEED} (i INTEGER)",
                   f"INSERT INTO {SEED} VALUES (0), (0), (0)", SUBQUERY_VIEW)
    if server.engine == "postgres":
        server.execute(f"GRANT SELECT ON {VIEW}, {SEED} TO {server.reader.user}")
    try:
        yield server.reader_url
    finally:
        server.execute(*drop)


def _spark(spark: Any) -> Iterator[str]:
    database = spark.database
    admin = spark.admin()
    try:
        admin.sql(f"DROP VIEW IF EXISTS `{database}`.{VIEW}")
        admin.sql(f"DROP TABLE IF EXISTS `{database}`.{SEED}")
        admin.sql(f"CREATE TABLE `{database}`.{SEED} (i INT) USING parquet")
        admin.sql(f"INSERT INTO `{database}`.{SEED} VALUES (0), (0), (0)")
        admin.sql(f"CREATE VIEW `{database}`.{VIEW} AS SELECT (SELECT i FROM `{database}`.{SEED}) "
                  f"+ i AS x FROM `{database}`.{SEED}")
    finally:
        admin.stop()
    try:
        yield f"{spark.url};schema={database}"
    finally:
        admin = spark.admin()
        try:
            admin.sql(f"DROP VIEW IF EXISTS `{database}`.{VIEW}")
            admin.sql(f"DROP TABLE IF EXISTS `{database}`.{SEED}")
        finally:
            admin.stop()


@pytest.fixture(params=["duckdb", "sqlite", "postgres", "mysql", "spark"])
def url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    engine = str(request.param)
    if engine in ("duckdb", "sqlite"):
        yield _embedded(engine, tmp_path / f"boom.{engine}")
    elif engine == "spark":
        yield from _spark(request.getfixturevalue("spark"))
    else:
        yield from _server(request.getfixturevalue(engine))


def test_show_sql_reports_the_statement_of_an_error(url: str, tmp_path: Path) -> None:
    contract = tmp_path / "contract.yaml"
    contract.write_text(yaml.safe_dump({
        "apiVersion": "v3.1.0", "kind": "DataContract", "id": "boom", "version": "1.0.0",
        "status": "active",
        "schema": [{"name": VIEW, "quality": [RULES[1]], "properties": [
            {"name": "x", "logicalType": "integer", "quality": [RULES[0]]}]}],
    }), encoding="utf-8")
    common = [str(contract), "--url", url, "--category", "quality", "--progress", "none",
              "--trust-environment"]  # authored SQL on Spark
    shown = json.loads(packata("check", *common, "--show-sql", "--format", "json").stdout)
    results = {r["key"]: r for r in shown["rules"]}
    assert {key: (r["status"], r["diagnostic"]["code"]) for key, r in results.items()} == {
        "nulls": ("error", "provider-error"), "authored": ("error", "provider-error")}
    assert "SELECT" in results["nulls"]["sql"] and "packata_rows" in results["nulls"]["sql"]
    assert results["authored"]["sql"].startswith("SELECT COUNT(*) FROM ")
    junit = ElementTree.fromstring(packata("check", *common, "--show-sql", "--format",
                                           "junit").stdout)
    cases = {c.get("name"): c for c in junit.iter("testcase")}
    for key in ("nulls", "authored"):
        assert cases[key].find("error") is not None
        assert results[key]["sql"] in (cases[key].findtext("system-out") or "")
    for fmt in ("json", "junit", "table"):
        hidden = packata("check", *common, "--format", fmt).stdout
        assert "SELECT" not in hidden and "packata_rows" not in hidden, fmt
