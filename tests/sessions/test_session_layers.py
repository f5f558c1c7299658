"""Each wall of the embedded sessions holds on its own: the walls in front of it are taken
down on the live connection (statement check, authorizer, query_only), and the one under test
still refuses. So removing any single wall fails a test, not only the outermost one."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import duckdb
import pytest

from packata_sql.sessions.base import open_session
from packata_sql.sessions.endpoint import Endpoint


def sqlite_session(tmp_path: Path) -> Any:
    path = tmp_path / "t.db"
    connection = sqlite3.connect(path)
    connection.execute("CREATE TABLE t (c TEXT)")
    connection.commit()
    connection.close()
    return open_session(Endpoint("sqlite", str(path)), trust_environment=False)


def test_duckdb_configuration_is_locked_behind_the_statement_check(tmp_path):
    path = tmp_path / "t.duckdb"
    duckdb.connect(str(path)).close()
    session: Any = open_session(Endpoint("duckdb", str(path)), trust_environment=False)
    try:
        with pytest.raises(duckdb.Error, match="locked"):
            session._conn.execute("SET threads = 1")  # past the one-SELECT check
    finally:
        session.close()


def test_sqlite_file_is_opened_read_only_behind_the_authorizer_and_query_only(tmp_path):
    session = sqlite_session(tmp_path)
    try:
        session._conn.set_authorizer(None)
        session._conn.execute("PRAGMA query_only = OFF")
        with pytest.raises(sqlite3.OperationalError, match="readonly"):
            session._conn.execute("INSERT INTO t VALUES ('x')")
    finally:
        session.close()


def test_sqlite_query_only_refuses_temporary_tables_behind_the_authorizer(tmp_path):
    """`mode=ro` covers the file only; a temporary table is a write only query_only stops."""
    session = sqlite_session(tmp_path)
    try:
        session._conn.set_authorizer(None)
        with pytest.raises(sqlite3.OperationalError, match="readonly"):
            session._conn.execute("CREATE TEMP TABLE x (a)")
    finally:
        session.close()
