"""A declared `physicalType` against the type each engine's catalog reports (issue 19.7), on
DuckDB, SQLite, PostgreSQL, MariaDB and Spark.

- Every name a dialect lists (`Dialect.type_names`) is one the real engine accepts in a column
  definition, and a column declared with it matches it: the list and the aliases
  (`int4` = `integer`, `bool`, `float8`, `timestamptz`, …) are the engine's, not sqlglot's.
- A name without parameters matches the type with any parameters (`decimal` DECIMAL(10,2),
  `datetime` DATETIME(6), `varchar` VARCHAR(20)); written parameters must match.
- A name the engine has no type for (`str`, PostgreSQL `STRING`, from public contracts) is
  refused by the engine itself and never matches, though sqlglot reads it as TEXT.
- SQLite accepts any name and reports the declared text: a physicalType matches that text."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import duckdb
import pytest
import yaml

from packata_sql.dialects import get_dialect
from packata_sql.dialects.facts import ColumnFact, physical_matches
from packata_sql.sessions.base import open_session
from packata_sql.sessions.endpoint import Endpoint

TABLE = "ptypes"
#: Column definitions for names that need more than the name (element types, members).
DEFINITIONS = {
    "duckdb": {"enum": "ENUM('a')", "struct": "STRUCT(x INT)", "row": "ROW(x INT)",
               "map": "MAP(VARCHAR, INT)", "union": "UNION(a INT)", "list": "INT[]",
               "array": "INT[2]"},
    "postgres": {},
    "mysql": {"enum": "ENUM('a')", "set": "SET('a')", "varchar": "VARCHAR(5)",
              "nvarchar": "NVARCHAR(5)", "national varchar": "NATIONAL VARCHAR(5)",
              "varbinary": "VARBINARY(5)"},
    "spark": {"char": "CHAR(3)", "character": "CHARACTER(3)", "varchar": "VARCHAR(3)",
              "array": "ARRAY<INT>", "map": "MAP<STRING, INT>", "struct": "STRUCT<x: INT>",
              "interval": "INTERVAL DAY"},
}
#: (column type, declared physicalType, matches) beyond the listed names, per engine.
CASES: dict[str, list[tuple[str, str, bool]]] = {
    "duckdb": [("DECIMAL(10,2)", "decimal", True), ("DECIMAL(10,2)", "numeric", True),
               ("DECIMAL(10,2)", "DECIMAL(10, 2)", True), ("DECIMAL(10,2)", "decimal(12,2)", False),
               ("VARCHAR(20)", "varchar", True), ("TIMESTAMP", "datetime", True),
               ("TIMESTAMPTZ", "timestamp with time zone", True), ("INTEGER", "int4", True),
               ("INTEGER", "bigint", False), ("INTEGER[]", "int[]", True),
               ("INTEGER[]", "varchar[]", False), ("VARCHAR", "str", False),
               ("VARCHAR", "character varying", False)],
    "postgres": [("NUMERIC(10,2)", "decimal", True), ("NUMERIC(10,2)", "numeric(10,2)", True),
                 ("NUMERIC(10,2)", "numeric(12,2)", False), ("VARCHAR(20)", "varchar", True),
                 ("VARCHAR(20)", "character varying(20)", True), ("VARCHAR(20)", "varchar(30)", False),
                 ("INTEGER", "int4", True), ("BOOLEAN", "bool", True),
                 ("DOUBLE PRECISION", "float8", True), ("DOUBLE PRECISION", "float", True),
                 ("TIMESTAMPTZ", "timestamptz", True), ("TIMESTAMP(3)", "timestamp", True),
                 ("TIMESTAMP(3)", "timestamptz", False), ("INTEGER[]", "int4[]", True),
                 ("TEXT", "str", False), ("TEXT", "STRING", False), ("INTEGER", "serial", False)],
    "mysql": [("DECIMAL(10,2)", "decimal", True), ("DECIMAL(10,2)", "decimal(12,2)", False),
              ("DATETIME(6)", "datetime", True), ("DATETIME(6)", "datetime(6)", True),
              ("DATETIME(6)", "datetime(3)", False), ("VARCHAR(20)", "varchar", True),
              ("INT", "integer", True), ("INT", "int(11)", True), ("BOOLEAN", "boolean", True),
              ("TINYINT", "boolean", False), ("BIGINT UNSIGNED", "bigint unsigned", True),
              ("BIGINT UNSIGNED", "bigint", False), ("TEXT", "str", False),
              ("TEXT", "string", False)],
    "spark": [("DECIMAL(10,2)", "decimal", True), ("DECIMAL(10,2)", "decimal(12,2)", False),
              ("VARCHAR(20)", "varchar", True), ("VARCHAR(20)", "varchar(20)", True),
              ("VARCHAR(20)", "varchar(30)", False), ("VARCHAR(20)", "string", False),
              ("STRING", "string", True), ("INT", "integer", True), ("BIGINT", "long", True),
              ("TIMESTAMP", "timestamp_ltz", True), ("STRING", "str", False),
              ("STRING", "text", False), ("TIMESTAMP", "datetime", False)],
    "sqlite": [("DECIMAL(10,2)", "decimal", True), ("DECIMAL(10,2)", "decimal(10, 2)", True),
               ("DECIMAL(10,2)", "decimal(12,2)", False), ("VARCHAR(20)", "varchar", True),
               ("str", "str", True), ("str", "text", False), ("TEXT", "str", False),
               ("INTEGER", "int", False), ("INTEGER", "integer", True), ("datetime", "DATETIME", True)],
}
#: Names the engine itself refuses in a column definition (and sqlglot reads as a type).
NO_SUCH_TYPE = {"duckdb": ["str"], "postgres": ["str", "STRING"], "mysql": ["str", "string"],
                "spark": ["str", "text"]}


class Target:
    """Builds a table (admin connection) and reads its column facts read-only."""

    def __init__(self, engine: str, tmp_path: Path, request: pytest.FixtureRequest) -> None:
        self.engine, self.tmp_path, self.server, self.spark = engine, tmp_path, None, None
        if engine == "spark":
            self.spark = request.getfixturevalue("spark")
        elif engine not in ("duckdb", "sqlite"):
            self.server = request.getfixturevalue(engine)

    def table(self, types: Sequence[str]) -> tuple[ColumnFact, ...]:
        columns = ", ".join(f"c{i} {t}" for i, t in enumerate(types))
        if self.engine in ("duckdb", "sqlite"):
            path = self.tmp_path / f"t{len(list(self.tmp_path.iterdir()))}.{self.engine}"
            connection: Any = duckdb.connect(str(path)) if self.engine == "duckdb" \
                else sqlite3.connect(str(path))
            connection.execute(f"CREATE TABLE {TABLE} ({columns})")
            if self.engine == "sqlite":
                connection.commit()
            connection.close()
            endpoint = Endpoint(self.engine, str(path))
        elif self.spark is not None:
            admin = self.spark.admin()
            try:
                admin.sql(f"DROP TABLE IF EXISTS `{self.spark.database}`.{TABLE}")
                admin.sql(f"CREATE TABLE `{self.spark.database}`.{TABLE} ({columns}) USING parquet")
            finally:
                admin.stop()
            endpoint = self.spark.reader
        else:
            self.server.execute(f"DROP TABLE IF EXISTS {TABLE}", f"CREATE TABLE {TABLE} ({columns})")
            if self.engine == "postgres":
                self.server.execute(f"GRANT SELECT ON {TABLE} TO {self.server.reader.user}")
            endpoint = self.server.reader
        session = open_session(endpoint, trust_environment=True)
        try:
            return session.column_facts((*endpoint.schema, TABLE))
        finally:
            session.close()

    def refuses(self, type_name: str) -> bool:
        """Whether the engine refuses a column of this type (its own word on the name)."""
        try:
            if self.engine == "duckdb":
                duckdb.connect().execute(f"CREATE TABLE x (c {type_name})")
            elif self.spark is not None:
                admin = self.spark.admin()
                try:
                    admin.sql(f"SELECT CAST(NULL AS {type_name})").collect()
                finally:
                    admin.stop()
            else:
                self.server.execute("DROP TABLE IF EXISTS ptypes_x",
                                    f"CREATE TABLE ptypes_x (c {type_name})",
                                    "DROP TABLE IF EXISTS ptypes_x")
        except Exception:
            return True
        return False

    def drop(self) -> None:
        if self.server is not None:
            self.server.execute(f"DROP TABLE IF EXISTS {TABLE}")
        elif self.spark is not None:
            admin = self.spark.admin()
            try:
                admin.sql(f"DROP TABLE IF EXISTS `{self.spark.database}`.{TABLE}")
            finally:
                admin.stop()


@pytest.fixture(params=["duckdb", "sqlite", "postgres", "mysql", "spark"])
def target(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Target]:
    built = Target(str(request.param), tmp_path, request)
    yield built
    built.drop()


def _spark_table_names() -> list[str]:
    """Spark's names a parquet table column can have (an interval or void column cannot)."""
    names = get_dialect("spark").type_names or frozenset()
    return sorted(names - {"interval", "void", "variant"})


def test_every_listed_name_is_the_engines_and_matches_its_column(target: Target) -> None:
    names = get_dialect(target.engine).type_names
    if names is None:  # SQLite: no list, any name (the cases below)
        assert target.engine == "sqlite"
        return
    listed = _spark_table_names() if target.engine == "spark" else sorted(names)
    definitions = DEFINITIONS[target.engine]
    facts = target.table([definitions.get(name, name) for name in listed])
    dialect = get_dialect(target.engine)
    mismatched = [(name, fact.native_type) for name, fact in zip(listed, facts, strict=True)
                  if not physical_matches(name, fact, dialect)]
    assert mismatched == [], "\n".join(map(str, mismatched))


def test_declared_types_match_as_the_engine_reads_them(target: Target) -> None:
    cases = CASES[target.engine]
    facts = target.table([column for column, _, _ in cases])
    dialect = get_dialect(target.engine)
    found = [(column, declared, physical_matches(declared, fact, dialect))
             for (column, declared, _), fact in zip(cases, facts, strict=True)]
    assert found == cases


def test_a_name_the_engine_has_no_type_for_is_refused_by_the_engine(target: Target) -> None:
    if target.engine == "sqlite":  # any name is a type there
        assert not get_dialect("sqlite").type_names
        return
    for name in NO_SUCH_TYPE[target.engine]:
        assert target.refuses(name), name
        assert name.lower() not in (get_dialect(target.engine).type_names or ())
    assert not target.refuses("decimal(10,2)")  # the probe itself works


def test_check_fails_a_type_the_engine_does_not_have_and_says_so(
    target: Target, tmp_path: Path
) -> None:
    text = {"duckdb": "VARCHAR", "sqlite": "TEXT", "postgres": "TEXT", "mysql": "TEXT",
            "spark": "STRING"}[target.engine]
    target.table([text, "DECIMAL(10,2)"])
    url = _url(target)
    contract = tmp_path / "contract.yaml"
    contract.write_text(yaml.safe_dump({
        "apiVersion": "v3.1.0", "kind": "DataContract", "id": "types", "version": "1.0.0",
        "status": "active",
        "schema": [{"name": TABLE, "properties": [
            {"name": "c0", "physicalType": "str"}, {"name": "c1", "physicalType": "decimal"}]}],
    }), encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "packata_sql", "check", str(contract), "--url",
                           url, "--format", "json", "--progress", "none"],
                          capture_output=True, text=True, timeout=300)
    results = {r["key"]: r for r in json.loads(done.stdout)["rules"]}
    text_rule = results[f"schema[{TABLE}].properties[c0].physicalType"]
    decimal_rule = results[f"schema[{TABLE}].properties[c1].physicalType"]
    assert decimal_rule["status"] == "passed"
    if target.engine == "sqlite":  # a column declared TEXT is not one declared `str`
        assert text_rule["status"] == "failed"
        return
    assert (text_rule["status"], done.returncode) == ("failed", 1)
    title = {"duckdb": "DuckDB", "postgres": "PostgreSQL", "mysql": "MySQL",
             "spark": "Spark"}[target.engine]
    assert f"{title} has no type named 'str'" in " ".join(text_rule["failed"])


def _url(target: Target) -> str:
    if target.engine in ("duckdb", "sqlite"):
        latest = max(target.tmp_path.glob(f"t*.{target.engine}"), key=lambda p: p.stat().st_mtime)
        return f"{target.engine}:///{latest}"
    if target.spark is not None:
        return f"{target.spark.url};schema={target.spark.database}"
    return str(target.server.reader_url)

