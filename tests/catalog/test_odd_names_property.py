"""Property test: random table and column names (quotes, backticks, brackets, spaces, dots,
unicode, reserved words) measure correctly on DuckDB and SQLite through the whole pipeline."""

from __future__ import annotations

import sqlite3
import tempfile
from pathlib import Path

import duckdb
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from packata_sql.contracts.odcs import load_odcs
from packata_sql.dialects import get_dialect
from packata_sql.plans.compiler import compile_contract
from packata_sql.report import Status
from packata_sql.run.runner import RunOptions, run
from packata_sql.sessions.endpoint import Endpoint

PIECES = ['"', "`", "[", "]", "'", " ", ".", "\\", "%", "{", "}", "é", "☃", "select", "from",
          "a", "Z", "1", "-", "$", "#", ";", "--", "/*"]
NAMES = (st.lists(st.sampled_from(PIECES), min_size=1, max_size=6).map("".join)
         .filter(lambda name: name.strip() == name and name.strip() != ""))


def quote(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(table=NAMES, column=NAMES, engine=st.sampled_from(["duckdb", "sqlite"]))
def test_odd_names_are_quoted_on_every_path(table, column, engine):
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / f"db.{engine}"
        connection = duckdb.connect(str(path)) if engine == "duckdb" else sqlite3.connect(str(path))
        connection.execute(f"CREATE TABLE {quote(table)} ({quote(column)} VARCHAR)")
        connection.executemany(f"INSERT INTO {quote(table)} VALUES (?)",
                               [("x",), ("",), (None,), ("x",)])
        if engine == "sqlite":
            connection.commit()
        connection.close()
        contract = Path(folder) / "c.yaml"
        contract.write_text(yaml.safe_dump({
            "apiVersion": "v3.1.0", "kind": "DataContract", "id": "n", "version": "1.0.0",
            "status": "active",
            "schema": [{"name": "t", "physicalName": table, "properties": [{
                "name": "c", "physicalName": column, "logicalType": "string",
                "unique": True, "logicalTypeOptions": {"maxLength": 1},
                "quality": [
                    {"id": "nulls", "metric": "nullValues", "mustBe": 1},
                    {"id": "missing", "metric": "missingValues",
                     "arguments": {"missingValues": ["", None]}, "mustBe": 2},
                    {"id": "dups", "metric": "duplicateValues", "mustBe": 1},
                    {"id": "sql", "type": "sql",
                     "query": "SELECT COUNT({property}) FROM {object}", "mustBe": 3},
                ]}]}],
        }, allow_unicode=True), encoding="utf-8")
        loaded = load_odcs(str(contract))
        compiled = compile_contract(loaded, get_dialect(engine), parameters={})
        report = run(loaded, compiled, Endpoint(engine, str(path)), RunOptions())
        assert [(r.key, r.status) for r in report.results] == [
            ("nulls", Status.PASSED), ("missing", Status.PASSED), ("dups", Status.PASSED),
            ("sql", Status.PASSED),
            # Constraints reach the same names through the catalog and the fused scan.
            ("schema[t].properties[c].logicalType", Status.PASSED),
            ("schema[t].properties[c].unique", Status.FAILED),  # 'x' twice
            ("schema[t].properties[c].logicalTypeOptions.maxLength", Status.PASSED),
        ], [(r.key, r.status, r.diagnostic) for r in report.results]
