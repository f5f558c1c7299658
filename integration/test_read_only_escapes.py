"""The read-only escape corpus on PostgreSQL and MariaDB (docs/engines.md, "Per-engine
facts the code relies on"), differential: every attempt first has its effect on an unguarded admin connection
(it writes, creates, changes or reads what it should not), then the session of a SELECT-only
login and of a privileged login refuses it and the effect, measured on the server, is absent.
The routes a DBA can hand a login (roles, definer objects, dblink, …) are in
`test_escape_routes.py`."""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest
import yaml

from packata_sql.sessions.base import Interrupted, ProviderError, Session, open_session


@dataclass(frozen=True)
class Attempt:
    """`probe` measures the effect on the server (through the admin), or, when `local`, on
    the connection that ran the attempt (effects that live in that session). Without a probe
    the effect is the attempt's own result: it read what it should not."""

    sql: str
    probe: str | None = None
    local: bool = False

    def fresh(self, path: str) -> Attempt:
        """The attempt writing to a server file name no earlier attempt used."""
        return Attempt(self.sql.replace(FILE, path),
                       None if self.probe is None else self.probe.replace(FILE, path), self.local)


def new_path() -> str:
    return f"/tmp/packata_escape_{uuid.uuid4().hex}"


def remove_server_file(server: Any, path: str) -> None:
    """PostgreSQL removes it itself; MariaDB cannot, so it goes when the test shares the
    server's host (the local and CI services)."""
    if server.engine == "postgres":
        server.execute(f"COPY (SELECT 1 WHERE false) TO PROGRAM 'rm -f {path}'")
    else:
        with contextlib.suppress(OSError):
            os.remove(path)


# Refusals: the read-only transaction or grants (permission-denied), the level decision
# (read-only-not-guaranteed), or a statement form the session cannot send (PostgreSQL's DECLARE
# takes one SELECT; MariaDB runs one statement without the multi-statement flag).
REFUSALS = {"permission-denied", "read-only-not-guaranteed"}
SYNTAX = {"42601", "1064", "0A000"}  # syntax error; DECLARE refuses a writable WITH
FILE = "{file}"  # each use of an attempt writes a new server file (INTO OUTFILE never overwrites)

PG_VICTIM = "SELECT string_agg(c, ',' ORDER BY c) FROM victim"
PG_RELATIONS = ("SELECT string_agg(relname, ',' ORDER BY relname) FROM pg_class"
                " WHERE relnamespace = 'public'::regnamespace OR relname = 'tmp_evil'")
PG_LOBS = "SELECT COUNT(*) FROM pg_largeobject_metadata"
PG_SEQUENCE = "SELECT last_value::text || is_called::text FROM victim_seq"
PG_FILE = f"SELECT (pg_stat_file('{FILE}', true)).size IS NOT NULL"
PG_LOCKS = "SELECT COUNT(*) FROM pg_locks WHERE locktype = 'advisory'"

POSTGRES = {
    "multi-statement": Attempt("SELECT 1; DELETE FROM victim", PG_VICTIM),
    "commit-then-write": Attempt("COMMIT; DELETE FROM victim", PG_VICTIM),
    "delete": Attempt("DELETE FROM victim", PG_VICTIM),
    "insert": Attempt("INSERT INTO victim VALUES ('x')", PG_VICTIM),
    "update": Attempt("UPDATE victim SET c = 'y'", PG_VICTIM),
    "truncate": Attempt("TRUNCATE victim", PG_VICTIM),
    "writable-cte": Attempt("WITH d AS (DELETE FROM victim RETURNING 1) SELECT COUNT(*) FROM d",
                            PG_VICTIM),
    "do-block": Attempt("DO $$ BEGIN DELETE FROM victim; END $$", PG_VICTIM),
    "call-procedure": Attempt("CALL evil_proc()", PG_VICTIM),
    "ddl-create": Attempt("CREATE TABLE evil (a int)", PG_RELATIONS),
    "ddl-drop": Attempt("DROP TABLE victim", PG_RELATIONS),
    "select-into": Attempt("SELECT 1 INTO evil_into", PG_RELATIONS),
    "temp-table": Attempt("CREATE TEMP TABLE tmp_evil AS SELECT 1", PG_RELATIONS),
    "sequence": Attempt("SELECT nextval('victim_seq')", PG_SEQUENCE),
    "large-object": Attempt("SELECT lo_from_bytea(0, 'x'::bytea)", PG_LOBS),
    "lo-import": Attempt("SELECT lo_import('/etc/passwd')", PG_LOBS),
    "copy-to-file": Attempt(f"COPY victim TO '{FILE}'", PG_FILE),
    "copy-to-program": Attempt(f"COPY (SELECT 1) TO PROGRAM 'touch {FILE}'", PG_FILE),
    "lo-export": Attempt(f"SELECT lo_export(MIN(oid), '{FILE}') FROM pg_largeobject_metadata",
                         PG_FILE),
    "read-server-file": Attempt("SELECT length(pg_read_file('/etc/passwd'))"),
    "list-server-directory": Attempt("SELECT COUNT(*) FROM pg_ls_dir('.')"),
    "advisory-lock": Attempt("SELECT pg_try_advisory_lock(4242)::int", PG_LOCKS),
    "set-role": Attempt("SET ROLE packata_ro", "SELECT current_user", local=True),
    "role-by-set-config": Attempt(
        "SELECT 1 FROM (SELECT set_config('role', 'packata_ro', false)) AS s",
        "SELECT current_user", local=True),
    "timeout-change": Attempt("SELECT set_config('statement_timeout', '987654', false)",
                           "SELECT current_setting('statement_timeout')", local=True),
}

MY_VICTIM = "SELECT GROUP_CONCAT(c ORDER BY c) FROM victim"
MY_TABLES = ("SELECT GROUP_CONCAT(table_name ORDER BY table_name) FROM information_schema.tables"
             " WHERE table_schema = DATABASE()")
MY_COLUMNS = ("SELECT GROUP_CONCAT(column_name ORDER BY column_name)"
              " FROM information_schema.columns"
              " WHERE table_schema = DATABASE() AND table_name = 'victim'")
MY_FILE = f"SELECT LOAD_FILE('{FILE}') IS NOT NULL"
MY_GRANTS = ("SELECT COUNT(*) FROM information_schema.table_privileges"
             " WHERE grantee LIKE '%packata_esc_grantee%'")

MYSQL = {
    "multi-statement": Attempt("SELECT 1; DELETE FROM victim", MY_VICTIM),
    "executable-comment": Attempt("/*! DELETE FROM victim */", MY_VICTIM),
    "begin-not-atomic": Attempt("BEGIN NOT ATOMIC COMMIT; START TRANSACTION READ WRITE; "
                                "DELETE FROM victim; COMMIT; END", MY_VICTIM),
    "delete": Attempt("DELETE FROM victim", MY_VICTIM),
    "insert": Attempt("INSERT INTO victim VALUES ('x')", MY_VICTIM),
    "update": Attempt("UPDATE victim SET c = 'y'", MY_VICTIM),
    "replace": Attempt("REPLACE INTO victim VALUES ('x')", MY_VICTIM),
    "truncate": Attempt("TRUNCATE victim", MY_VICTIM),
    "execute-immediate": Attempt("EXECUTE IMMEDIATE 'DELETE FROM victim'", MY_VICTIM),
    "call-procedure": Attempt("CALL evil_proc()", MY_VICTIM),
    "ddl-create": Attempt("CREATE TABLE evil (a INT)", MY_TABLES),
    "ddl-drop": Attempt("DROP TABLE victim", MY_TABLES),
    "ddl-rename": Attempt("RENAME TABLE victim TO victim2", MY_TABLES),
    "ddl-alter": Attempt("ALTER TABLE victim ADD COLUMN z INT", MY_COLUMNS),
    "into-outfile": Attempt(f"SELECT c FROM victim INTO OUTFILE '{FILE}'", MY_FILE),
    "grant": Attempt("GRANT INSERT ON victim TO packata_esc_grantee", MY_GRANTS),
    "get-lock": Attempt("SELECT GET_LOCK('packata_lock', 0)",
                        "SELECT IS_USED_LOCK('packata_lock') IS NOT NULL"),
}
ATTEMPTS = {"postgres": POSTGRES, "mysql": MYSQL}


def setup_victim(server: Any) -> None:
    if server.engine == "postgres":
        server.execute(
            "DROP TABLE IF EXISTS victim, evil, evil_into", "DROP SEQUENCE IF EXISTS victim_seq",
            "CREATE TABLE victim (c TEXT)", "INSERT INTO victim VALUES ('keep'), ('me')",
            "CREATE SEQUENCE victim_seq",
            "CREATE OR REPLACE PROCEDURE evil_proc() LANGUAGE sql AS $$ DELETE FROM victim $$",
            "GRANT SELECT ON victim, victim_seq TO packata_ro",
            "SELECT lo_unlink(oid) FROM pg_largeobject_metadata",
            "SELECT lo_from_bytea(0, 'x'::bytea)",
        )
    else:
        server.execute(
            "DROP TABLE IF EXISTS victim, victim2, evil", "DROP PROCEDURE IF EXISTS evil_proc",
            "CREATE TABLE victim (c VARCHAR(20))", "INSERT INTO victim VALUES ('keep'), ('me')",
            "CREATE PROCEDURE evil_proc() MODIFIES SQL DATA DELETE FROM victim",
            "DROP USER IF EXISTS packata_esc_grantee", "CREATE USER packata_esc_grantee",
        )


def unguarded(server: Any, url: str | None = None) -> Any:
    """An ordinary connection (autocommit, several statements allowed): what the attempt
    does when nothing guards it."""
    if server.engine == "postgres":
        import psycopg

        from packata_sql.sessions.endpoint import parse_url

        endpoint = parse_url(url or server.admin_url)
        return psycopg.connect(host=endpoint.host, port=endpoint.port, user=endpoint.user,
                               password=endpoint.password, dbname=endpoint.database,
                               autocommit=True)
    import pymysql
    from pymysql.constants import CLIENT

    from packata_sql.sessions.endpoint import parse_url

    endpoint = parse_url(url or server.admin_url)
    return pymysql.connect(host=endpoint.host, port=endpoint.port or 3306,
                           user=endpoint.user or "", password=endpoint.password or "",
                           database=endpoint.database, autocommit=True,
                           client_flag=CLIENT.MULTI_STATEMENTS)


def scalar(connection: Any, sql: str) -> Any:
    cursor = connection.cursor()
    cursor.execute(sql)
    row = cursor.fetchone()
    while server_has_more(cursor):
        pass
    return None if row is None else row[0]


def server_has_more(cursor: Any) -> bool:
    nextset = getattr(cursor, "nextset", None)
    return bool(nextset and nextset())


def run_unguarded(connection: Any, sql: str) -> Any:
    """The attempt's first result cell (errors after the effect do not matter)."""
    cursor = connection.cursor()
    try:
        cursor.execute(sql)
        row = cursor.fetchone() if cursor.description else None
        while server_has_more(cursor):
            pass
        return None if row is None else row[0]
    except Exception:
        return None


@pytest.fixture
def victim(server: Any) -> Iterator[Any]:
    setup_victim(server)
    yield server
    setup_victim(server)
    if server.engine == "mysql":
        server.execute("DROP USER IF EXISTS packata_esc_grantee")
    assert no_locks(server)


def no_locks(server: Any) -> bool:
    if server.engine == "postgres":
        return bool(server.execute(f"{PG_LOCKS}")[0][0] == 0)
    return bool(server.execute("SELECT IS_FREE_LOCK('packata_lock')")[0][0] == 1)


def effect(server: Any, attempt: Attempt, connection: Any = None,
           session: Session | None = None) -> Any:
    assert attempt.probe is not None
    if not attempt.local:
        return server.execute(attempt.probe)[0][0]
    if session is not None:  # library path: runs even where authored SQL is refused
        return session.fetch_row(attempt.probe, 10.0)[0]
    return scalar(connection, attempt.probe)


def live_on_admin(server: Any, name: str, attempt: Attempt) -> None:
    """The attempt does what it should not on an unguarded connection."""
    path = new_path()
    attempt = attempt.fresh(path)
    connection = unguarded(server)
    try:
        if attempt.probe is None:
            assert run_unguarded(connection, attempt.sql) is not None, f"{name} read nothing"
        else:
            before = effect(server, attempt, connection)
            run_unguarded(connection, attempt.sql)
            assert effect(server, attempt, connection) != before, f"{name}: no effect unguarded"
    finally:
        connection.close()
        remove_server_file(server, path)
    restore(server, attempt)


def restore(server: Any, attempt: Attempt) -> None:
    """Undoes the attempt's effect: rows by DML (fast), anything else by a fresh fixture;
    files, locks and session settings went with their file name or connection."""
    if attempt.probe in (PG_VICTIM, MY_VICTIM):
        server.execute("DELETE FROM victim", "INSERT INTO victim VALUES ('keep'), ('me')")
    elif attempt.probe is not None and not attempt.local and attempt.probe not in (
            PG_FILE, MY_FILE, PG_LOCKS) and "LOCK" not in attempt.probe:
        setup_victim(server)


def refused_by_session(server: Any, session: Session, name: str, attempt: Attempt) -> str:
    attempt = attempt.fresh(new_path())
    before = None if attempt.probe is None else effect(server, attempt, session=session)
    try:
        result = session.fetch_cell(attempt.sql, [], 5.0)
        outcome = f"returned {result.rows}"
    except ProviderError as error:
        outcome = error.category if error.category in REFUSALS else \
            f"{error.category} {error.code}"
        if error.category == "provider-error" and error.code in SYNTAX:
            outcome = "syntax"
    except Interrupted:
        outcome = "timeout"
    if attempt.probe is not None:
        assert effect(server, attempt, session=session) == before, f"{name}: {outcome}"
    return outcome


@pytest.mark.parametrize("login", ["reader", "admin"])
def test_every_attempt_is_live_unguarded_and_refused_by_the_session(victim, login):
    attempts = ATTEMPTS[victim.engine]
    for name, attempt in attempts.items():
        live_on_admin(victim, name, attempt)
    session = open_session(getattr(victim, login), trust_environment=False)
    try:
        outcomes = {name: refused_by_session(victim, session, name, attempt)
                    for name, attempt in attempts.items()}
    finally:
        session.close()
    allowed = REFUSALS | {"syntax"} if login == "reader" else {"read-only-not-guaranteed"}
    assert {name: o for name, o in outcomes.items() if o not in allowed} == {}


def test_reader_is_a_select_only_login_that_needs_its_password(server):
    """The harness's reader is not the admin, has no route out of read-only mode, and the
    server checks its password (pg_hba scram-sha-256 on the local PostgreSQL)."""
    assert server.reader.user != server.admin.user
    session = open_session(server.reader, trust_environment=False)
    try:
        assert session.decision.authored_sql and session.decision.routes == ()
        assert session.read_only in ("enforced", "credentials")
    finally:
        session.close()
    wrong = server.reader_url.replace(f":{server.reader.password}@", ":not-the-password@")
    assert wrong != server.reader_url
    with pytest.raises(ProviderError) as raised:
        open_session(type(server)(server.engine, wrong, wrong).reader, trust_environment=False)
    assert raised.value.category == "authentication-failed"


def test_escapes_as_odcs_sql_rules_through_check(victim, tmp_path):
    rules = [{"id": name, "type": "sql", "query": attempt.sql, "mustBe": 1}
             for name, attempt in ATTEMPTS[victim.engine].items()]
    contract = tmp_path / "escapes.yaml"
    contract.write_text(yaml.safe_dump({
        "apiVersion": "v3.1.0", "kind": "DataContract", "id": "escapes", "version": "1.0.0",
        "status": "active", "schema": [{"name": "victim", "quality": rules}],
    }), encoding="utf-8")
    before = victim.execute(PG_VICTIM if victim.engine == "postgres" else MY_VICTIM)
    for url, refused in ((victim.reader_url, "allowed"), (victim.admin_url, "refused")):
        done = subprocess.run(
            [sys.executable, "-m", "packata_sql", "check", str(contract), "--url", url,
             "--format", "json", "--timeout", "2"],
            capture_output=True, text=True, timeout=600,
        )
        report = json.loads(done.stdout)
        assert report["authored_sql"] == refused
        assert report["read_only"] != "enforced" or refused == "allowed"
        assert {r["status"] for r in report["rules"]} <= {"error", "inconclusive", "skipped"}
        assert done.returncode == 2
        assert "Traceback" not in done.stderr
    assert victim.execute(PG_VICTIM if victim.engine == "postgres" else MY_VICTIM) == before
