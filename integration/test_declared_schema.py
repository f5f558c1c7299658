"""Authored SQL reads the declared schema, like library metrics (issue 10.1), on every engine
that has schemas: DuckDB, PostgreSQL and MariaDB (where the schema is the database).

The declared schema `Analytics` holds `orders` with 3 rows, one of them a negative total; a
decoy `orders` in the session's default schema (`main`, `public`, the URL's database) holds
10 positive rows. Both kinds of rule must measure the declared one."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import duckdb
import pytest
import yaml

from packata_sql.contracts.model import Category
from packata_sql.contracts.odcs import load_odcs
from packata_sql.dialects import get_dialect
from packata_sql.plans.compiler import compile_contract
from packata_sql.render.json import report_document
from packata_sql.render.table import render_table
from packata_sql.report import Report, Status
from packata_sql.run.runner import RunOptions, run
from packata_sql.sessions.endpoint import Endpoint

DECLARED = "Analytics"
REAL = [(5,), (-2,), (7,)]
DECOY = [(n,) for n in range(1, 11)]
RULES = {
    "rows": {"metric": "rowCount", "mustBe": 3},
    "sql_rows": {"type": "sql", "query": "SELECT COUNT(*) FROM orders", "mustBe": 3},
    "no_negative": {"type": "sql", "query": "SELECT COUNT(*) FROM orders WHERE total < 0",
                    "mustBe": 0},
}


@dataclasses.dataclass(frozen=True)
class Layout:
    endpoint: Endpoint  # the reader, without a declared schema
    declared: str  # the declared schema's name on this engine
    default: str  # the session's default schema, which holds the decoy


def _contract(path: Path) -> Any:
    document = {
        "apiVersion": "v3.1.0", "kind": "DataContract", "id": "decoy", "version": "1.0.0",
        "status": "active",
        "schema": [{"name": "orders", "properties": [{"name": "total", "logicalType": "integer"}],
                    "quality": [{"id": key, **rule} for key, rule in RULES.items()]}],
    }
    path.write_text(yaml.safe_dump(document), encoding="utf-8")
    return load_odcs(str(path))


def check(layout: Layout, tmp_path: Path, schema: str | None) -> Report:
    endpoint = dataclasses.replace(layout.endpoint, schema=(schema,) if schema else ())
    loaded = _contract(tmp_path / "contract.yaml")
    compiled = compile_contract(loaded, get_dialect(endpoint.engine), prefix=endpoint.schema,
                                categories=[Category.QUALITY])  # constraints: their own tests
    return run(loaded, compiled, endpoint, RunOptions(timeout_s=30))


def _duckdb(tmp_path: Path) -> Iterator[Layout]:
    path = tmp_path / "decoy.duckdb"
    connection = duckdb.connect(str(path))
    connection.execute(f'CREATE SCHEMA "{DECLARED}"')
    for table, rows in ((f'"{DECLARED}".orders', REAL), ("main.orders", DECOY)):
        connection.execute(f"CREATE TABLE {table} (total INTEGER)")
        connection.executemany(f"INSERT INTO {table} VALUES (?)", rows)
    connection.close()
    yield Layout(Endpoint("duckdb", str(path)), DECLARED, "main")


def _postgres(server: Any) -> Iterator[Layout]:
    reader = server.reader.user or server.admin.user
    server.execute(
        f'DROP SCHEMA IF EXISTS "{DECLARED}" CASCADE', f'CREATE SCHEMA "{DECLARED}"',
        f'CREATE TABLE "{DECLARED}".orders (total INTEGER)',
        "DROP TABLE IF EXISTS public.orders", "CREATE TABLE public.orders (total INTEGER)",
        f'GRANT USAGE ON SCHEMA "{DECLARED}" TO "{reader}"',
        f'GRANT SELECT ON ALL TABLES IN SCHEMA "{DECLARED}" TO "{reader}"',
        "GRANT SELECT ON public.orders TO " + f'"{reader}"',
    )
    for table, rows in ((f'"{DECLARED}".orders', REAL), ("public.orders", DECOY)):
        for row in rows:
            server.execute(f"INSERT INTO {table} VALUES (%s)", parameters=list(row))
    try:
        yield Layout(server.reader, DECLARED, "public")
    finally:
        server.execute(f'DROP SCHEMA IF EXISTS "{DECLARED}" CASCADE',
                       "DROP TABLE IF EXISTS public.orders")


def _mysql(server: Any) -> Iterator[Layout]:
    # Databases are server-wide on MariaDB: the declared one is named after the test database.
    default = server.admin.database
    declared = f"{default}_{DECLARED}"
    reader = server.reader.user or "root"
    hosts = ("%", "localhost", "127.0.0.1") if reader != "root" else ()
    server.execute(
        f"DROP DATABASE IF EXISTS `{declared}`", f"CREATE DATABASE `{declared}`",
        f"CREATE TABLE `{declared}`.orders (total INTEGER)",
        "DROP TABLE IF EXISTS orders", "CREATE TABLE orders (total INTEGER)",
        *(f"GRANT SELECT ON `{declared}`.* TO '{reader}'@'{host}'" for host in hosts),
    )
    for table, rows in ((f"`{declared}`.orders", REAL), ("orders", DECOY)):
        for row in rows:
            server.execute(f"INSERT INTO {table} VALUES (%s)", parameters=list(row))
    try:
        yield Layout(server.reader, declared, default)
    finally:
        server.execute(f"DROP DATABASE IF EXISTS `{declared}`", "DROP TABLE IF EXISTS orders",
                       *(f"REVOKE SELECT ON `{declared}`.* FROM '{reader}'@'{host}'"
                         for host in hosts))


@pytest.fixture(params=["duckdb", "postgres", "mysql"])
def layout(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Layout]:
    engine = str(request.param)
    if engine == "duckdb":
        yield from _duckdb(tmp_path)
    elif engine == "postgres":
        yield from _postgres(request.getfixturevalue("postgres"))
    else:
        yield from _mysql(request.getfixturevalue("mysql"))


def test_authored_sql_reads_the_declared_schema(layout: Layout, tmp_path: Path) -> None:
    report = check(layout, tmp_path, layout.declared)
    measured = {r.key: (r.status, r.value) for r in report.results}
    assert measured == {
        "rows": (Status.PASSED, 3),
        "sql_rows": (Status.PASSED, 3),
        "no_negative": (Status.FAILED, 1),  # the decoy has no negative total: it must not pass
    }
    assert report.schema == layout.declared
    assert report_document(report)["schema"] == layout.declared
    assert f"schema: {layout.declared}" in " ".join(render_table(report, color=False).split())


def test_without_a_declared_schema_the_default_is_read_and_reported(
    layout: Layout, tmp_path: Path
) -> None:
    report = check(layout, tmp_path, None)
    measured = {r.key: (r.status, r.value) for r in report.results}
    assert measured == {
        "rows": (Status.FAILED, 10),
        "sql_rows": (Status.FAILED, 10),
        "no_negative": (Status.PASSED, 0),
    }
    assert report.schema == layout.default


def test_a_missing_declared_schema_is_one_clear_error(layout: Layout, tmp_path: Path) -> None:
    report = check(layout, tmp_path, f"{layout.declared}_nowhere")
    assert {(r.status, r.diagnostic.code if r.diagnostic else None) for r in report.results} == {
        (Status.ERROR, "missing-schema")
    }
    # Issue 24.3: the declared schema named, with the closest one the login can see.
    assert report.connection_problem == (
        "the declared schema does not exist or cannot be read; no schema "
        f"'{layout.declared}_nowhere'; did you mean '{layout.declared}'?")
    assert report.schema is None


def test_the_schema_name_is_one_quoted_identifier(tmp_path: Path) -> None:
    """A schema name with a quote, a dot and upper case is one identifier, never SQL text."""
    name = 'Ana"ly.tics'
    path = tmp_path / "odd.duckdb"
    connection = duckdb.connect(str(path))
    connection.execute('CREATE SCHEMA "Ana""ly.tics"')
    connection.execute('CREATE TABLE "Ana""ly.tics".orders AS SELECT * FROM (VALUES (5), (-2), (7)) v(total)')
    connection.execute("CREATE TABLE main.orders AS SELECT 1 AS total")
    connection.close()
    layout = Layout(Endpoint("duckdb", str(path)), name, "main")
    report = check(layout, tmp_path, name)
    assert [(r.status, r.value) for r in report.results] == [
        (Status.PASSED, 3), (Status.PASSED, 3), (Status.FAILED, 1)
    ]
    assert report.schema == name


def test_a_mysql_url_without_a_database_still_connects(mysql: Any, tmp_path: Path) -> None:
    """No database and no schema: nothing to resolve in, which is not an error."""
    from packata_sql.sessions.base import open_session

    session = open_session(dataclasses.replace(mysql.reader, database=""), trust_environment=False)
    try:
        assert session.schema is None
    finally:
        session.close()


def test_an_odd_schema_name_is_one_identifier_on_postgres(postgres: Any, tmp_path: Path) -> None:
    """`SET LOCAL search_path` takes the name as one quoted identifier (psycopg sql.Identifier)."""
    odd = 'Ana"ly, tics'
    quoted = '"Ana""ly, tics"'
    reader = postgres.reader.user or postgres.admin.user
    postgres.execute(f"DROP SCHEMA IF EXISTS {quoted} CASCADE", f"CREATE SCHEMA {quoted}",
                     f"CREATE TABLE {quoted}.orders (total INTEGER)",
                     f"INSERT INTO {quoted}.orders VALUES (5), (-2), (7)",
                     "DROP TABLE IF EXISTS public.orders",
                     "CREATE TABLE public.orders AS SELECT 1 AS total",
                     f'GRANT USAGE ON SCHEMA {quoted} TO "{reader}"',
                     f'GRANT SELECT ON ALL TABLES IN SCHEMA {quoted} TO "{reader}"')
    try:
        report = check(Layout(postgres.reader, odd, "public"), tmp_path, odd)
        assert [(r.status, r.value) for r in report.results] == [
            (Status.PASSED, 3), (Status.PASSED, 3), (Status.FAILED, 1)
        ]
        assert report.schema == odd
    finally:
        postgres.execute(f"DROP SCHEMA IF EXISTS {quoted} CASCADE",
                         "DROP TABLE IF EXISTS public.orders")
