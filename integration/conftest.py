"""Servers for the integration suite.

URLs come from the environment (`PACKATA_TEST_POSTGRES_URL` and `…_RO_URL` for a SELECT-only
login, likewise `PACKATA_TEST_MYSQL_URL`, `PACKATA_TEST_SQLSERVER_URL`). Without them,
testcontainers starts the engine when a Docker engine answers; otherwise the suite is skipped
and the session summary says so. In CI (`CI=true`) a skipped PostgreSQL or MariaDB suite fails.
Without a `…_RO_URL` (and always on the testcontainers path) the admin creates the SELECT-only
login `packata_ro`, so the reader is never the admin; failing to create it fails the suite.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote, urlsplit, urlunsplit

import pytest

from packata_sql import engines
from packata_sql.sessions.endpoint import Endpoint, parse_url

#: The registry's servers reached by `scheme://user@host/db` URLs (Spark has its own fixture).
SERVER_ENGINES = tuple(spec.name for spec in engines.connectable()
                       if spec.kind == engines.NETWORK and spec.url_reader is None)
REQUIRED_IN_CI = SERVER_ENGINES
READER, READER_PASSWORD = "packata_ro", "packata_ro"
_skipped: dict[str, str] = {}


@dataclass(frozen=True)
class Server:
    """A server under test: an admin URL (to build fixtures) and a SELECT-only login URL."""

    engine: str
    admin_url: str
    reader_url: str

    @property
    def admin(self) -> Endpoint:
        return parse_url(self.admin_url)

    @property
    def reader(self) -> Endpoint:
        return parse_url(self.reader_url)

    def connect(self) -> Any:
        """An ordinary read-write admin connection, for building fixtures only."""
        endpoint = self.admin
        if self.engine == "postgres":
            import psycopg

            return psycopg.connect(host=endpoint.host, port=endpoint.port, user=endpoint.user,
                                   password=endpoint.password, dbname=endpoint.database,
                                   autocommit=True)
        import pymysql

        return pymysql.connect(host=endpoint.host, port=endpoint.port or 3306,
                               user=endpoint.user or "", password=endpoint.password or "",
                               database=endpoint.database, autocommit=True, charset="utf8mb4")

    def execute(self, *statements: str, parameters: Sequence[Any] | None = None) -> list[Any]:
        connection = self.connect()
        try:
            cursor = connection.cursor()
            rows: list[Any] = []
            for statement in statements:
                cursor.execute(statement, parameters)
                if cursor.description:
                    rows = list(cursor.fetchall())
            return rows
        finally:
            connection.close()


def embedded_database(engine: str, path: Any, statements: Sequence[str], insert: str,
                      rows: Sequence[Sequence[Any]]) -> Endpoint:
    """A DuckDB or SQLite file built with an ordinary read-write connection (test set-up)."""
    import sqlite3

    import duckdb

    connection: Any = duckdb.connect(str(path)) if engine == "duckdb" else sqlite3.connect(str(path))
    for statement in statements:
        connection.execute(statement)
    connection.executemany(insert, [tuple(row) for row in rows])
    if engine == "sqlite":
        connection.commit()
    connection.close()
    return Endpoint(engine, str(path))


def load_rows(server: Server, statements: Sequence[str], insert: str,
              rows: Sequence[Sequence[Any]]) -> None:
    """Creates a server table with `statements` and inserts `rows` (admin login)."""
    server.execute(*statements)
    connection = server.connect()
    try:
        connection.cursor().executemany(insert, [tuple(row) for row in rows])
    finally:
        connection.close()


def _docker_answers() -> bool:
    if shutil.which("docker") is None:
        return False
    try:
        return subprocess.run(["docker", "info"], capture_output=True, timeout=10).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


def _from_containers(engine: str) -> Server | None:
    if not _docker_answers():
        return None
    try:
        if engine == "postgres":
            from testcontainers.postgres import PostgresContainer

            container: Any = PostgresContainer("postgres:16", driver=None).start()
            url = container.get_connection_url()
        else:
            from testcontainers.mysql import MySqlContainer

            # The admin must be root: it creates the SELECT-only reader.
            container = MySqlContainer("mariadb:11", username="root",
                                       password="packata-root").start()
            url = container.get_connection_url().replace("mysql+pymysql", "mysql")
    except Exception:
        return None
    return with_reader(Server(engine, url, url))


def with_reader(server: Server) -> Server:
    """Creates (idempotently) the SELECT-only login on the admin's database and returns the
    server with its URL as the reader."""
    database = server.admin.database
    if server.engine == "postgres":
        server.execute(
            f"DO $$ BEGIN IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '{READER}') THEN "
            f"CREATE ROLE {READER} LOGIN PASSWORD '{READER_PASSWORD}'; END IF; END $$",
            f'GRANT CONNECT ON DATABASE "{database}" TO {READER}',
            f"GRANT USAGE ON SCHEMA public TO {READER}",
            f"GRANT SELECT ON ALL TABLES IN SCHEMA public TO {READER}",
            f"ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT SELECT ON TABLES TO {READER}",
        )
    elif server.engine == "mysql":
        for host in ("%", "localhost"):
            server.execute(
                f"CREATE USER IF NOT EXISTS '{READER}'@'{host}' IDENTIFIED BY '{READER_PASSWORD}'",
                f"GRANT SELECT ON `{database}`.* TO '{READER}'@'{host}'",
            )
    else:
        return server
    parts = urlsplit(server.admin_url)
    host = parts.netloc.rpartition("@")[2]
    netloc = f"{quote(READER, safe='')}:{quote(READER_PASSWORD, safe='')}@{host}"
    return Server(server.engine, server.admin_url, urlunsplit(parts._replace(netloc=netloc)))


def _server(engine: str) -> Server | None:
    prefix = engine.upper()
    admin = os.environ.get(f"PACKATA_TEST_{prefix}_URL")
    if admin:
        reader = os.environ.get(f"PACKATA_TEST_{prefix}_RO_URL")
        server = Server(engine, admin, reader or admin)
        if reader:
            return server
        try:
            return with_reader(server)
        except Exception as error:  # a reader that cannot be made is a broken setup
            pytest.fail(f"cannot create the SELECT-only {engine} login: {type(error).__name__}")
    return _from_containers(engine)


def _require(engine: str) -> Server:
    server = _server(engine)
    if server is None:
        reason = f"no {engine} server (set PACKATA_TEST_{engine.upper()}_URL or run Docker)"
        if os.environ.get("CI") == "true" and engine in REQUIRED_IN_CI:
            pytest.fail(f"CI requires the {engine} suite: {reason}")
        _skipped[engine] = reason
        pytest.skip(reason)
    return server


@pytest.fixture(scope="session")
def postgres() -> Server:
    return _require("postgres")


@pytest.fixture(scope="session")
def mysql() -> Server:
    return _require("mysql")


@pytest.fixture(params=SERVER_ENGINES, scope="session")
def server(request: pytest.FixtureRequest) -> Server:
    return _require(str(request.param))


@pytest.fixture
def tables(server: Server) -> Iterator[list[str]]:
    """Names created during a test; dropped afterwards."""
    created: list[str] = []
    yield created
    for name in created:
        quoted = f'"{name}"' if server.engine == "postgres" else f"`{name}`"
        server.execute(f"DROP TABLE IF EXISTS {quoted}")


def pytest_terminal_summary(terminalreporter: Any) -> None:
    for engine, reason in sorted(_skipped.items()):
        terminalreporter.write_line(f"SKIPPED integration suite {engine}: {reason}", yellow=True)


def table_on(request: pytest.FixtureRequest, tmp_path: Any, engine: str, table: str,
             statements: Callable[[str], Sequence[str]]) -> Iterator[Endpoint]:
    """A table built by `statements(name)` (its name as the engine spells it) on any of the
    five live engines, yielding the reader's endpoint; the server's table is dropped after.
    MariaDB builds it in UTC (`time_zone`), PostgreSQL grants the reader SELECT on it."""
    if engine in ("duckdb", "sqlite"):
        import sqlite3

        import duckdb

        path = tmp_path / f"{table}.{engine}"
        connection: Any = duckdb.connect(str(path)) if engine == "duckdb" \
            else sqlite3.connect(str(path))
        for statement in statements(table):
            connection.execute(statement)
        connection.commit()
        connection.close()
        yield Endpoint(engine, str(path))
        return
    if engine == "spark":
        spark = request.getfixturevalue("spark")
        admin = spark.admin()
        try:
            name = f"`{spark.database}`.{table}"
            admin.sql(f"DROP TABLE IF EXISTS {name}")
            for statement in statements(name):
                admin.sql(statement)
        finally:
            admin.stop()
        yield spark.reader
        return
    server = request.getfixturevalue(engine)
    server.execute(f"DROP TABLE IF EXISTS {table}")
    connection = server.connect()
    try:
        cursor = connection.cursor()
        for statement in [*(["SET time_zone = '+00:00'"] if engine == "mysql" else []),
                          *statements(table),
                          *([f"GRANT SELECT ON {table} TO {READER}"] if engine == "postgres"
                            else [])]:
            cursor.execute(statement)
        connection.commit()
    finally:
        connection.close()
    try:
        yield server.reader
    finally:
        server.execute(f"DROP TABLE IF EXISTS {table}")


@dataclass(frozen=True)
class SparkServer:
    """The run's Spark Connect server (`.ci/spark.sh`); `database` keeps parallel trees apart."""

    url: str = field(repr=False)  # holds the token
    database: str = ""

    @property
    def reader(self) -> Endpoint:
        return parse_url(f"{self.url};schema={self.database}")

    def admin(self) -> Any:
        """A Spark Connect session of its own, for building fixtures only."""
        from pyspark.sql.connect.session import SparkSession

        return SparkSession.builder.remote(self.url).create()


@pytest.fixture(scope="session")
def spark() -> Iterator[SparkServer]:
    url = os.environ.get("PACKATA_TEST_SPARK_URL")
    if not url:
        reason = "no Spark Connect server (run `bash .ci/spark.sh start`, set PACKATA_TEST_SPARK_URL)"
        if os.environ.get("CI") == "true":
            pytest.fail(f"CI requires the spark suite: {reason}")
        _skipped["spark"] = reason
        pytest.skip(reason)
    server = SparkServer(url, "packata_" + os.environ.get("PACKATA_TEST_DB", "packata_test")
                         .removeprefix("packata_"))
    admin = server.admin()
    try:
        admin.sql(f"DROP DATABASE IF EXISTS `{server.database}` CASCADE")
        admin.sql(f"CREATE DATABASE `{server.database}`")
    finally:
        admin.stop()
    yield server
