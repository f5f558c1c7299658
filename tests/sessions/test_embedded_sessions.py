"""Read-only DuckDB and SQLite sessions: writes, files and settings are refused, time is bounded."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from packata_sql.sessions.base import Interrupted, ProviderError, open_session
from packata_sql.sessions.endpoint import Endpoint

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
        "COPY (SELECT 1) TO '{dir}/x.parquet' (FORMAT parquet)",
        "SELECT COUNT(*) FROM glob('/etc/*')",
        "SELECT * FROM read_text('/etc/passwd')",
        "SELECT * FROM read_json_auto('/etc/passwd')",
        "LOAD httpfs",
        "FORCE INSTALL httpfs",
        "ATTACH ':memory:' AS m",
        "CREATE SECRET s (TYPE s3, KEY_ID 'a', SECRET 'b')",
        "SET threads = 1",
        "RESET enable_external_access",
        "CHECKPOINT",
        "VACUUM",
        "CREATE VIEW v AS SELECT 1",
        "CREATE MACRO m(a) AS a",
        "UPDATE t SET c = 'x'",
        "DELETE FROM t",
        "ALTER TABLE t ADD COLUMN z INT",
        "IMPORT DATABASE '{dir}'",
        "SELECT getenv('HOME')",
        "CREATE TEMP TABLE x AS SELECT 1",
        "WITH d AS (SELECT 1) INSERT INTO t SELECT 'x' FROM d",
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
        "UPDATE t SET c = 'y'",
        "DROP TABLE t",
        "ALTER TABLE t ADD COLUMN z",
        "CREATE INDEX i ON t(c)",
        "CREATE VIEW v AS SELECT 1",
        "CREATE TEMP TABLE x (a)",
        "CREATE TRIGGER tr AFTER INSERT ON t BEGIN DELETE FROM t; END",
        "REINDEX",
        "ANALYZE",
        "VACUUM",
        "PRAGMA journal_mode = DELETE",
        "PRAGMA user_version = 5",
        "DETACH main",
        "SELECT readfile('/etc/passwd')",
        "SELECT writefile('{dir}/x', 'y')",
        "BEGIN IMMEDIATE",
        "SAVEPOINT a",
        "REPLACE INTO t VALUES ('x')",
        "INSERT INTO t SELECT * FROM t",
        "SELECT 1; DELETE FROM t",
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
    connection.execute("CREATE INDEX t_c ON t (c)")
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
            session.fetch_cell(statement.format(dir=tmp_path), [], 10)
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


def test_an_interrupt_lost_before_the_statement_started_is_sent_again(tmp_path):
    """DuckDB drops an interrupt that arrives before it has started the statement (Ctrl-C
    just after the session opened: the statement then ran on, the session was closed under
    it, and the process aborted at exit). The first interrupt is dropped here on purpose (the
    timing the real engine needs cannot be forced); the next one, 50 ms later, stops the
    statement long before the 10 s grace, and the session is not stuck. (SQLite's statement
    ends itself at its deadline, its progress handler: nothing to send again.)"""
    import time

    engine = "duckdb"
    session = open_session(Endpoint(engine, str(_database(engine, tmp_path))), trust_environment=False)
    sent = []
    interrupt = session._interrupt

    def first_one_lost() -> None:
        sent.append(time.monotonic())
        if len(sent) > 1:
            interrupt()

    session._interrupt = first_one_lost  # type: ignore[method-assign]
    started = time.monotonic()
    try:
        with pytest.raises(Interrupted):
            session.fetch_row(SLOW[engine], 0.2)
        assert len(sent) >= 2
        assert time.monotonic() - started < 5
        assert not session._stuck
        assert session.fetch_row("SELECT COUNT(*) FROM t", 10) == (1,)
    finally:
        session.close()


def test_sqlite_regexp_refuses_what_re2_cannot_run_and_stays_off_stderr(tmp_path, capfd):
    session = open_session(Endpoint("sqlite", str(_database("sqlite", tmp_path))), trust_environment=False)
    try:
        assert session.fetch_row("SELECT 'abc' REGEXP 'b'", 10) == (1,)
        assert session.fetch_row("SELECT 'abc' REGEXP '^B'", 10) == (0,)
        for refused in ("a(?=b)", "(a)\\1", "[unclosed"):
            with pytest.raises(ProviderError):
                session.fetch_cell("SELECT 'ab' REGEXP ?", [refused], 10)
    finally:
        session.close()
    captured = capfd.readouterr()
    assert "(?=" not in captured.err + captured.out  # RE2 logs refused patterns unless told not to


# Python's `re` backtracks: the first takes minutes on one such cell, the second never ends;
# both ran under SQLite's REGEXP and held the run past --timeout and Ctrl-C.
@pytest.mark.parametrize("pattern", [r"\S+@\S+\.\S+", ".*.*.*.*.*.*.*.*.*.*.*.*=", "(a+)+$"])
def test_sqlite_regexp_is_linear_in_the_text(tmp_path, pattern):
    import time

    session = open_session(Endpoint("sqlite", str(_database("sqlite", tmp_path))), trust_environment=False)
    cell = "a" * 60_000 + "!"
    started = time.monotonic()
    try:
        assert session.fetch_cell("SELECT ? REGEXP ?", [cell, pattern], 10).rows == [(0,)]
    finally:
        session.close()
    assert time.monotonic() - started < 2


def test_sqlite_regexp_over_many_rows_stops_at_the_limit(tmp_path):
    import time

    session = open_session(Endpoint("sqlite", str(_database("sqlite", tmp_path))), trust_environment=False)
    many = ("WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n) "
            "SELECT COUNT(*) FROM n WHERE printf('%.*c', 2000, 'a') || x REGEXP '\\S+@\\S+'")
    started = time.monotonic()
    try:
        with pytest.raises(Interrupted):
            session.fetch_row(many, 0.5)
        assert time.monotonic() - started < 5
        assert session.fetch_row("SELECT COUNT(*) FROM t", 10) == (1,)
    finally:
        session.close()


def test_sqlite_statement_ends_itself_at_its_deadline(tmp_path):
    """SQLite's progress handler stops the statement with no watcher calling interrupt(): the
    limit holds even when the main thread cannot run (a stretch of callbacks holding the GIL)."""
    import sqlite3
    import time

    from packata_sql.sessions.sqlite import SQLiteSession

    session = SQLiteSession(Endpoint("sqlite", str(_database("sqlite", tmp_path))))
    session.limit_s = 0.3
    # Some ten seconds of work, finite so that a session without the handler fails, not hangs.
    slow = ("WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n WHERE x < 40000000) "
            "SELECT COUNT(*) FROM n WHERE x < 0")
    started = time.monotonic()
    try:
        with pytest.raises(sqlite3.OperationalError) as raised:
            session._run(slow, None)  # on this thread: nobody else can interrupt it
        assert raised.value.sqlite_errorname == "SQLITE_INTERRUPT"
        assert session._classify(raised.value).category == "timeout"
        assert time.monotonic() - started < 3
        assert session._run("SELECT COUNT(*) FROM t", None).rows == [(1,)]  # a fresh deadline
    finally:
        session.close()


@pytest.mark.parametrize("engine", ["duckdb", "sqlite"])
def test_escapes_as_odcs_sql_rules_through_check(engine, tmp_path):
    import json
    import subprocess
    import sys

    import yaml

    path = _database(engine, tmp_path)
    before = digest(path)
    files_before = sorted(p.name for p in tmp_path.iterdir())
    rules = [{"id": f"attempt-{i}", "type": "sql", "query": sql.format(dir=tmp_path), "mustBe": 1}
             for i, sql in enumerate(ESCAPES[engine])]
    contract = tmp_path / "escapes.yaml"
    contract.write_text(yaml.safe_dump({
        "apiVersion": "v3.1.0", "kind": "DataContract", "id": "e", "version": "1.0.0",
        "status": "active", "schema": [{"name": "t", "quality": rules}],
    }), encoding="utf-8")
    files_before.append("escapes.yaml")
    done = subprocess.run([sys.executable, "-m", "packata_sql", "check", str(contract), "--url",
                           f"{engine}:///{path}", "--format", "json"],
                          capture_output=True, text=True, timeout=300)
    statuses = {r["status"] for r in json.loads(done.stdout)["rules"]}
    assert statuses <= {"error", "skipped"}, statuses
    assert done.returncode == 2
    assert digest(path) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(files_before)


def test_duckdb_session_prints_no_progress_bar_and_locks_its_configuration(tmp_path):
    """The progress bar computes `query_progress` for the live display (issue 24.6) and
    prints nothing: DuckDB's own bar would write into the report on stdout."""
    session = open_session(Endpoint("duckdb", str(_database("duckdb", tmp_path))),
                           trust_environment=False)
    try:
        assert session.fetch_cell("SELECT current_setting('enable_progress_bar'), "
                                  "current_setting('enable_progress_bar_print')", [], 10
                                  ).rows == [(True, False)]
        with pytest.raises(ProviderError):
            session.fetch_cell("SET enable_progress_bar_print = true", [], 10)
    finally:
        session.close()


@pytest.mark.parametrize("raised", [RuntimeError("Query interrupted"),
                                    "duckdb.InterruptException"])
def test_ctrl_c_while_a_duckdb_session_opens_is_an_interrupt(raised, tmp_path, monkeypatch):
    """Ctrl-C during the opening statements reaches us as DuckDB's InterruptException or as its
    Python client's RuntimeError('Query interrupted') (seen in about 2 % of interrupts sent
    while a session opens, too rare to provoke on demand): both end the run as Ctrl-C (exit
    130), not as a connection failure. The fault is injected at `duckdb.connect`."""
    import duckdb

    database = _database("duckdb", tmp_path)
    error = duckdb.InterruptException("INTERRUPT Error: Interrupted!") \
        if raised == "duckdb.InterruptException" else raised

    def interrupted(*args: object, **kwargs: object) -> None:
        raise error

    monkeypatch.setattr(duckdb, "connect", interrupted)
    with pytest.raises(KeyboardInterrupt):
        open_session(Endpoint("duckdb", str(database)), trust_environment=False)
    monkeypatch.setattr(duckdb, "connect", lambda *a, **k: (_ for _ in ()).throw(
        RuntimeError("another fault")))
    with pytest.raises(ProviderError) as failed:
        open_session(Endpoint("duckdb", str(database)), trust_environment=False)
    assert failed.value.category == "connection-failed"
