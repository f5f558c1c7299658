"""`init --url … --object T` writes a starter contract that lints clean against the official
ODCS schema and passes `check` against the very table it came from, on DuckDB, SQLite,
PostgreSQL and MariaDB (issue 14 item 8): a logicalType per column where ODCS has one (integer
apart from number, timestamp and time apart from date, arrays and records), the native type as
physicalType, `required` for NOT NULL, the engine's composite primary key in key order, and a
server entry the schema accepts for the engine. Real program throughout."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import duckdb
import pytest
import yaml

BINARY = str(Path(sys.executable).with_name("packata-sql"))
TABLE = "starter_events"
# Per engine: the DDL's columns, one row, and what each column must become:
# name → (logicalType or None, required, primaryKeyPosition or None).
COLUMNS: dict[str, tuple[str, str, dict[str, tuple[str | None, bool, int | None]]]] = {
    "duckdb": (
        "id INTEGER, k VARCHAR NOT NULL, big BIGINT, d DECIMAL(10,2), dbl DOUBLE, ts TIMESTAMP, "
        "tz TIMESTAMPTZ, t TIME, dd DATE, b BOOLEAN, l INTEGER[], vl VARCHAR[], "
        "s STRUCT(a INTEGER, b VARCHAR), j JSON, u UUID, iv INTERVAL, PRIMARY KEY (k, id)",
        "(1, 'a', 2, 3.25, 1.5, '2024-01-01 10:00', '2024-01-01 10:00+00', '10:00', "
        "'2024-01-01', true, [1, 2], ['x'], {'a': 1, 'b': 'x'}, '{\"a\": 1}', "
        "'6f1c8a52-3c34-4c1b-9d0b-1d2f4e6a8b00', INTERVAL 1 DAY)",
        {"id": ("integer", True, 2), "k": ("string", True, 1), "big": ("integer", False, None),
         "d": ("number", False, None), "dbl": ("number", False, None),
         "ts": ("timestamp", False, None), "tz": ("timestamp", False, None),
         "t": ("time", False, None), "dd": ("date", False, None), "b": ("boolean", False, None),
         "l": ("array", False, None), "vl": ("array", False, None), "s": ("object", False, None),
         "j": (None, False, None), "u": (None, False, None), "iv": (None, False, None)}),
    "sqlite": (
        "id INTEGER, k TEXT NOT NULL, d NUMERIC(10,2), r REAL, dt DATETIME, dd DATE, t TIME, "
        "b BOOLEAN, j JSON, bl BLOB, anything, PRIMARY KEY (k, id)",
        "(1, 'a', 3.25, 1.5, '2024-01-01 10:00:00', '2024-01-01', '10:00', 1, '{}', x'aa', 7)",
        {"id": ("integer", False, 2), "k": ("string", True, 1), "d": ("number", False, None),
         "r": ("number", False, None), "dt": ("timestamp", False, None),
         "dd": ("date", False, None), "t": ("time", False, None), "b": ("boolean", False, None),
         "j": (None, False, None), "bl": (None, False, None), "anything": (None, False, None)}),
    "postgres": (
        "id integer, k varchar(20) NOT NULL, big bigint, d numeric(10,2), dbl double precision, "
        "ts timestamp, tz timestamptz, t time, ttz timetz, dd date, b boolean, arr integer[], "
        "tarr text[], j json, jb jsonb, u uuid, iv interval, by bytea, ch char(3), "
        "PRIMARY KEY (k, id)",
        "(1, 'a', 2, 3.25, 1.5, '2024-01-01 10:00', '2024-01-01 10:00+00', '10:00', "
        "'10:00+01', '2024-01-01', true, '{1,2}', '{x}', '{\"a\": 1}', '{\"a\": 1}', "
        "'6f1c8a52-3c34-4c1b-9d0b-1d2f4e6a8b00', '1 day', '\\xaa', 'abc')",
        {"id": ("integer", True, 2), "k": ("string", True, 1), "big": ("integer", False, None),
         "d": ("number", False, None), "dbl": ("number", False, None),
         "ts": ("timestamp", False, None), "tz": ("timestamp", False, None),
         "t": ("time", False, None), "ttz": ("time", False, None), "dd": ("date", False, None),
         "b": ("boolean", False, None), "arr": ("array", False, None),
         "tarr": ("array", False, None), "j": (None, False, None), "jb": (None, False, None),
         "u": (None, False, None), "iv": (None, False, None), "by": (None, False, None),
         "ch": ("string", False, None)}),
    "mysql": (
        "id INT, k VARCHAR(20) NOT NULL, big BIGINT, d DECIMAL(10,2), dbl DOUBLE, "
        "dt DATETIME(6), ts TIMESTAMP NULL, t TIME, dd DATE, y YEAR, b BOOLEAN, j JSON, "
        "e ENUM('a','b'), bl BLOB, ui INT UNSIGNED, PRIMARY KEY (k, id)",
        "(1, 'a', 2, 3.25, 1.5, '2024-01-01 10:00', '2024-01-01 10:00', '10:00', '2024-01-01', "
        "2024, true, '{\"a\": 1}', 'a', x'aa', 7)",
        {"id": ("integer", True, 2), "k": ("string", True, 1), "big": ("integer", False, None),
         "d": ("number", False, None), "dbl": ("number", False, None),
         "dt": ("timestamp", False, None), "ts": ("timestamp", False, None),
         "t": ("time", False, None), "dd": ("date", False, None), "y": (None, False, None),
         "b": ("boolean", False, None), "j": ("string", False, None),  # MariaDB: LONGTEXT
         "e": ("string", False, None), "bl": (None, False, None),
         "ui": ("integer", False, None)}),
}


def packata(*args: str, cwd: Path, env: dict[str, str] | None = None) -> Any:
    return subprocess.run([BINARY, *args], capture_output=True, text=True, timeout=180, cwd=cwd,
                          env={**os.environ, "COLUMNS": "120", **(env or {})})


def _build(engine: str, tmp_path: Path, request: pytest.FixtureRequest) -> tuple[str, dict[str, str]]:
    """The table on `engine`; the URL `init` reads it through and the login `check` uses."""
    columns, row, _ = COLUMNS[engine]
    statements = [f"DROP TABLE IF EXISTS {TABLE}", f"CREATE TABLE {TABLE} ({columns})",
                  f"INSERT INTO {TABLE} VALUES {row}"]
    if engine in ("duckdb", "sqlite"):
        path = tmp_path / "data" / f"w.{engine}"
        path.parent.mkdir()
        connection: Any = duckdb.connect(str(path)) if engine == "duckdb" \
            else sqlite3.connect(path)
        for statement in statements:
            connection.execute(statement)
        if engine == "sqlite":
            connection.commit()
        connection.close()
        return f"{engine}:///data/w.{engine}", {}
    server = request.getfixturevalue(engine)
    server.execute(*statements)
    request.addfinalizer(lambda: server.execute(f"DROP TABLE IF EXISTS {TABLE}"))
    reader = server.reader
    login = {"PACKATA_MAIN_USERNAME": reader.user or "", "PACKATA_MAIN_PASSWORD": reader.password or ""}
    return server.reader_url, login


@pytest.mark.parametrize("engine", ["duckdb", "sqlite", "postgres", "mysql"])
def test_init_writes_a_contract_that_lints_clean_and_passes_on_its_own_table(
        engine: str, tmp_path: Path, request: pytest.FixtureRequest) -> None:
    url, login = _build(engine, tmp_path, request)
    (tmp_path / "contracts").mkdir()
    done = packata("init", "--url", url, "--object", TABLE, "-o", "contracts/starter.yaml",
                   cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    text = (tmp_path / "contracts" / "starter.yaml").read_text(encoding="utf-8")
    document = yaml.safe_load(text)
    [obj] = document["schema"]
    found = {p["name"]: (p.get("logicalType"), p.get("required", False),
                         p.get("primaryKeyPosition")) for p in obj["properties"]}
    assert found == COLUMNS[engine][2]
    for prop in obj["properties"]:
        assert prop.get("primaryKey", False) is (prop["name"] in ("k", "id"))
        if prop.get("logicalType") is None:  # says why it has none
            assert f"  # {prop['name']}: no logicalType: " in text
    [server] = document["servers"]
    assert server["server"] == "main"

    linted = packata("lint", "contracts/starter.yaml", cwd=tmp_path)
    assert linted.returncode == 0, linted.stdout
    assert "starter.yaml: 0 error(s), 0 warning(s)" in linted.stdout

    # The contract's own server, its file path relative to the contract's folder.
    checked = packata("check", "contracts/starter.yaml", "--format", "json", "--progress", "none",
                      cwd=tmp_path, env=login)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    report = json.loads(checked.stdout)
    assert report["outcome"] == "pass"
    statuses = {r["key"]: r["status"] for r in report["rules"]}
    assert set(statuses.values()) == {"passed"}
    key = f"schema[{TABLE}]"
    assert statuses[f"{key}.primaryKey"] == "passed"
    assert statuses[f"{key}.properties[k].required"] == "passed"
    if engine != "sqlite":
        assert statuses[f"{key}.properties[tz].logicalType" if engine != "mysql"
                        else f"{key}.properties[dt].logicalType"] == "passed"


# Several objects, a glob and a whole schema (issue 24 item 1): two tables, an empty one and a
# view in a schema of their own; `init` never leaves one out, and each contract passes.
MULTI = "init_multi"
MULTI_STATEMENTS = ("CREATE TABLE {s}shop_customers (id INTEGER NOT NULL, name VARCHAR(20))",
                    "CREATE TABLE {s}shop_orders (id INTEGER, customer_id INTEGER)",
                    "CREATE TABLE {s}shop_empty (id INTEGER)",
                    "INSERT INTO {s}shop_customers VALUES (1, 'ann')",
                    "INSERT INTO {s}shop_orders VALUES (10, 1)",
                    "CREATE VIEW {s}shop_view AS SELECT id FROM {s}shop_orders")
EVERY = ["shop_customers", "shop_empty", "shop_orders", "shop_view"]


def _build_multi(engine: str, tmp_path: Path, request: pytest.FixtureRequest
                 ) -> tuple[str, str | None, dict[str, str]]:
    """The objects; the URL `init` reads (without a schema), the schema `--schema` names (None
    where the engine has none) and the login `check` uses."""
    if engine in ("duckdb", "sqlite"):
        path = tmp_path / f"w.{engine}"
        connection: Any = duckdb.connect(str(path)) if engine == "duckdb" \
            else sqlite3.connect(path)
        prefix = ""
        if engine == "duckdb":
            connection.execute(f"CREATE SCHEMA {MULTI}")
            prefix = f"{MULTI}."
        for statement in MULTI_STATEMENTS:
            connection.execute(statement.format(s=prefix))
        if engine == "sqlite":
            connection.commit()
        connection.close()
        return f"{engine}:///w.{engine}", MULTI if engine == "duckdb" else None, {}
    if engine == "spark":
        server = request.getfixturevalue("spark")
        schema = f"{server.database}_multi"
        admin = server.admin()
        try:
            admin.sql(f"DROP DATABASE IF EXISTS {schema} CASCADE")
            admin.sql(f"CREATE DATABASE {schema}")
            for statement in MULTI_STATEMENTS:
                admin.sql(statement.format(s=f"{schema}.").replace("VARCHAR(20)", "STRING")
                          + (" USING parquet" if "TABLE" in statement else ""))
        finally:
            admin.stop()

        def drop() -> None:
            cleaner = server.admin()
            try:
                cleaner.sql(f"DROP DATABASE IF EXISTS {schema} CASCADE")
            finally:
                cleaner.stop()

        request.addfinalizer(drop)
        return server.url, schema, {}
    server = request.getfixturevalue(engine)
    schema = f"{os.environ.get('PACKATA_TEST_DB', 'packata_test')}_{MULTI}"
    # A MariaDB view runs with its definer's rights unless told otherwise: an escape route.
    invoker = "CREATE SQL SECURITY INVOKER VIEW" if engine == "mysql" else "CREATE VIEW"
    create = "SCHEMA" if engine == "postgres" else "DATABASE"
    server.execute(f"DROP {create} IF EXISTS {schema} CASCADE" if engine == "postgres"
                   else f"DROP DATABASE IF EXISTS {schema}", f"CREATE {create} {schema}",
                   *(s.format(s=f"{schema}.").replace("CREATE VIEW", invoker)
                     for s in MULTI_STATEMENTS))
    reader = server.reader
    if engine == "postgres":
        server.execute(f"GRANT USAGE ON SCHEMA {schema} TO {reader.user}",
                       f"GRANT SELECT ON ALL TABLES IN SCHEMA {schema} TO {reader.user}")
    else:
        server.execute(f"GRANT SELECT ON {schema}.* TO '{reader.user}'@'%'")
    request.addfinalizer(lambda: server.execute(
        f"DROP SCHEMA IF EXISTS {schema} CASCADE" if engine == "postgres"
        else f"DROP DATABASE IF EXISTS {schema}"))
    login = {"PACKATA_MAIN_USERNAME": reader.user or "", "PACKATA_MAIN_PASSWORD": reader.password or ""}
    return server.reader_url, schema, login


@pytest.mark.parametrize("engine", ["duckdb", "sqlite", "postgres", "mysql", "spark"])
def test_init_reads_several_objects_globs_and_whole_schemas(
        engine: str, tmp_path: Path, request: pytest.FixtureRequest) -> None:
    url, schema, login = _build_multi(engine, tmp_path, request)
    scoped = ["--schema", schema] if schema else []
    several = packata("init", "--url", url, *scoped, "--object", "shop_view", "--object",
                      "shop_c*", "--object", "shop_orders", "-o", "several.yaml", cwd=tmp_path)
    assert several.returncode == 0, several.stderr
    document = yaml.safe_load((tmp_path / "several.yaml").read_text(encoding="utf-8"))
    assert [o["name"] for o in document["schema"]] == ["shop_view", "shop_customers",
                                                       "shop_orders"]
    contracts = ["several.yaml"]
    if schema:
        whole = packata("init", "--url", url, "--schema", schema, "-o", "whole.yaml",
                        cwd=tmp_path)
        assert whole.returncode == 0, whole.stderr
        document = yaml.safe_load((tmp_path / "whole.yaml").read_text(encoding="utf-8"))
        assert sorted(o["name"] for o in document["schema"]) == EVERY
        empty = next(o for o in document["schema"] if o["name"] == "shop_empty")
        assert "quality" not in empty  # no rowCount > 0 on an empty table
        contracts.append("whole.yaml")
    else:  # SQLite has no schemas: --schema is refused, and the glob covers the rest
        refused = packata("init", "--url", url, "--schema", "main", cwd=tmp_path)
        assert refused.returncode == 3 and "has no schemas" in refused.stderr
    missing = packata("init", "--url", url, *scoped, "--object", "shop_ordres", cwd=tmp_path)
    assert missing.returncode == 3 and "did you mean 'shop_orders'?" in missing.stderr
    for contract in contracts:
        linted = packata("lint", contract, cwd=tmp_path)
        assert linted.returncode == 0, linted.stdout
        where = ["--url", f"{url};schema={schema}"] if engine == "spark" else []
        checked = packata("check", contract, "--format", "json", "--progress", "none", *where,
                          cwd=tmp_path, env=login)
        assert checked.returncode == 0, checked.stdout + checked.stderr
        assert {r["status"] for r in json.loads(checked.stdout)["rules"]} == {"passed"}
