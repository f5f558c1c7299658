"""Read-only DuckDB and SQLite sessions: writes, files and settings are refused, time is bounded."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from packata_sql.endpoint import Endpoint
from packata_sql.session import Interrupted, ProviderError, open_session

ESCAPES = {
    "duckdb": [
        "CREATE TABLE x AS SELECT 1",
        "INSERT INTO t VALUES ('x')",
        "COPY t TO '{dir}/out.csv'",
        "SELECT * FROM read_csv('/etc/passwd')",
        "ATTACH '{dir}/other.duckdb' AS other",
        "INSTALL httpfs",
        "SET enable_external_access = true",
        "PRAGMA enable_profiling",
        "SELECT 1; DROP TABLE t",
        "EXPORT DATABASE '{dir}/export'",
    ],
    "sqlite": [
        "CREATE TABLE x (a)",
        "INSERT INTO t VALUES ('x')",
        "ATTACH '{dir}/other.db' AS other",
        "VACUUM INTO '{dir}/copy.db'",
        "PRAGMA query_only = OFF",
        "SELECT load_extension('x')",
        "DELETE FROM t",
        "PRAGMA writable_schema = ON",
        "WITH x AS (SELECT 1) UPDATE t SET c = 'y'",
    ],
}


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _database(engine: str, tmp_path: Path) -> Path:
    import sqlite3

    import duckdb

    path = tmp_path / f"db.{engine}"
    connect = duckdb.connect if engine == "duckdb" else sqlite3.connect
    connection = connect(str(path))
    connection.execute("CREATE TABLE t (c VARCHAR)")
    connection.execute("INSERT INTO t VALUES ('a')")
    if engine == "sqlite":
        connection.commit()
    connection.close()
    return path


@pytest.mark.parametrize("engine,statement", [
    (engine, statement) for engine, statements in ESCAPES.items() for statement in statements
])
def test_writes_files_and_settings_are_refused(engine, statement, tmp_path):
    path = _database(engine, tmp_path)
    before = digest(path)
    files_before = sorted(p.name for p in tmp_path.iterdir())
    session = open_session(Endpoint(engine, str(path)), trust_environment=False)
    try:
        with pytest.raises(ProviderError) as raised:
            session.fetch_row(statement.format(dir=tmp_path), 10)
        assert raised.value.category in ("permission-denied", "provider-error", "missing-object")
        assert str(raised.value) in ProviderError.MESSAGES.values()
        assert session.fetch_row("SELECT COUNT(*) FROM t", 10) == (1,)
    finally:
        session.close()
    assert digest(path) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == files_before


def test_in_memory_duckdb_is_refused_unless_trusted():
    with pytest.raises(ProviderError) as raised:
        open_session(Endpoint("duckdb", ":memory:"), trust_environment=False)
    assert raised.value.category == "refused"
    session = open_session(Endpoint("duckdb", ":memory:"), trust_environment=True)
    assert session.read_only == "trusted"
    session.close()


def test_read_only_level_is_enforced_for_files(engine, tmp_path):
    session = open_session(Endpoint(engine, str(_database(engine, tmp_path))), trust_environment=False)
    assert session.read_only == "enforced"
    session.close()


def test_missing_database_file_is_a_connection_failure(engine, tmp_path):
    with pytest.raises(ProviderError) as raised:
        open_session(Endpoint(engine, str(tmp_path / "absent.db")), trust_environment=False)
    assert raised.value.category == "connection-failed"
    assert not (tmp_path / "absent.db").exists()


SLOW = {
    "duckdb": "SELECT COUNT(*) FROM range(100000000000) AS a(x) WHERE x % 7 = 3",
    "sqlite": "WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n) "
              "SELECT COUNT(*) FROM n WHERE x < 0",
}


def test_timeout_interrupts_the_statement(engine, tmp_path):
    import time

    session = open_session(Endpoint(engine, str(_database(engine, tmp_path))), trust_environment=False)
    started = time.monotonic()
    try:
        with pytest.raises(Interrupted):
            session.fetch_row(SLOW[engine], 0.3)
        assert time.monotonic() - started < 5
        assert session.fetch_row("SELECT COUNT(*) FROM t", 10) == (1,)  # the session still works
    finally:
        session.close()


def test_sqlite_regexp_refuses_unguarded_patterns(tmp_path):
    session = open_session(Endpoint("sqlite", str(_database("sqlite", tmp_path))), trust_environment=False)
    try:
        assert session.fetch_row("SELECT 'abc' REGEXP 'b'", 10) == (1,)
        with pytest.raises(ProviderError):
            session.fetch_row("SELECT 'aaaa' REGEXP '(a+)+$'", 10)
    finally:
        session.close()
