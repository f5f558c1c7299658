"""The read-only escape corpus on PostgreSQL and MariaDB (DESIGN.md "Connections and
sessions"): every write, file or privilege attempt ends error or inconclusive, through the
session and end to end as ODCS `type: sql` rules; afterwards every table checksum, the list of
objects, large objects and files on disk are unchanged and no later session sees leftovers."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from packata_sql.session import Interrupted, ProviderError, open_session

EVIL_FILE = "/tmp/packata_evil_escape"
HARMLESS = {"advisory-lock", "get-lock"}  # session-scoped calls that may pass; checked released
# Slow without a sleep function (the binder refuses those): ~10^8 joined rows, tens of seconds.
SLOW_POSTGRES = "SELECT COUNT(*) FROM generate_series(1, 20000) a CROSS JOIN generate_series(1, 20000) b"
SLOW_MYSQL = ("WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 600) "
              "SELECT COUNT(*) FROM r a, r b, r c")

POSTGRES = {
    "multi-statement": "SELECT 1; DELETE FROM victim",
    "commit-then-write": "COMMIT; DELETE FROM victim",
    "read-write-transaction": "SET TRANSACTION READ WRITE",
    "delete": "DELETE FROM victim",
    "insert": "INSERT INTO victim VALUES ('x')",
    "update": "UPDATE victim SET c = 'y'",
    "ddl-create": "CREATE TABLE evil (a int)",
    "ddl-drop": "DROP TABLE victim",
    "do-block": "DO $$ BEGIN DELETE FROM victim; END $$",
    "call-procedure": "CALL evil_proc()",
    "writable-cte": "WITH d AS (DELETE FROM victim RETURNING 1) SELECT COUNT(*) FROM d",
    "read-server-file": "SELECT length(pg_read_file('/etc/passwd'))",
    "large-object": "SELECT lo_from_bytea(0, 'x'::bytea)",
    "lo-import": "SELECT lo_import('/etc/passwd')",
    "copy-to-file": f"COPY victim TO '{EVIL_FILE}'",
    "copy-to-program": f"COPY (SELECT 1) TO PROGRAM 'touch {EVIL_FILE}'",
    "advisory-lock": "SELECT pg_try_advisory_lock(4242)::int",
    "slow-past-timeout": SLOW_POSTGRES,
    "timeout-reset-then-slow": f"SET statement_timeout = 0; {SLOW_POSTGRES}",
    "timeout-config-then-slow": ("SELECT COUNT(*) FROM"
                                 " (SELECT set_config('statement_timeout', '0', false)) s,"
                                 " generate_series(1, 20000) a CROSS JOIN generate_series(1, 20000) b"),
    "sequence": "SELECT nextval('victim_seq')",
    "prepare": "PREPARE p AS DELETE FROM victim",
    "notify": "NOTIFY packata_channel",
    "for-update": "SELECT COUNT(*) FROM (SELECT * FROM victim FOR UPDATE) AS x",
    "vacuum": "VACUUM victim",
    "temp-table": "CREATE TEMP TABLE tmp_evil AS SELECT 1",
    "ls-dir": "SELECT COUNT(*) FROM pg_ls_dir('.')",
    "reload-conf": "SELECT pg_reload_conf()::int",
    "set-role": "SET ROLE postgres",
    "select-into": "SELECT 1 INTO evil_into",
    "terminate-self": "SELECT pg_terminate_backend(pg_backend_pid())::int",
}
MYSQL = {
    "multi-statement": "SELECT 1; DELETE FROM victim",
    "begin-not-atomic": ("BEGIN NOT ATOMIC COMMIT; START TRANSACTION READ WRITE; "
                         "DELETE FROM victim; COMMIT; END"),
    "commit": "COMMIT",
    "read-write-transaction": "SET TRANSACTION READ WRITE",
    "session-read-write": "SET SESSION tx_read_only = 0",
    "delete": "DELETE FROM victim",
    "insert": "INSERT INTO victim VALUES ('x')",
    "update": "UPDATE victim SET c = 'y'",
    "replace": "REPLACE INTO victim VALUES ('x')",
    "truncate": "TRUNCATE victim",
    "ddl-create": "CREATE TABLE evil (a INT)",
    "ddl-drop": "DROP TABLE victim",
    "ddl-alter": "ALTER TABLE victim ADD COLUMN z INT",
    "ddl-rename": "RENAME TABLE victim TO victim2",
    "temporary-table": "CREATE TEMPORARY TABLE tmp_evil (a INT)",
    "call-procedure": "CALL evil_proc()",
    "into-outfile": f"SELECT c FROM victim INTO OUTFILE '{EVIL_FILE}'",
    "load-file": "SELECT LOAD_FILE('/etc/passwd')",
    "load-data": "LOAD DATA INFILE '/etc/passwd' INTO TABLE victim",
    "get-lock": "SELECT GET_LOCK('packata_lock', 0)",
    "slow-past-timeout": SLOW_MYSQL,
    "statement-timeout-override": f"SET STATEMENT max_statement_time=0 FOR {SLOW_MYSQL}",
    "execute-immediate": "EXECUTE IMMEDIATE 'DELETE FROM victim'",
    "prepare": "PREPARE s FROM 'DELETE FROM victim'",
    "grant": "GRANT ALL ON *.* TO 'packata_ro'@'%'",
    "executable-comment": "SELECT 1 /*!; DELETE FROM victim */",
    "handler": "HANDLER victim OPEN",
    "kill-self": "KILL CONNECTION_ID()",
}
ATTEMPTS = {"postgres": POSTGRES, "mysql": MYSQL}


def setup_victim(server) -> None:
    if server.engine == "postgres":
        server.execute(
            "DROP TABLE IF EXISTS victim", "DROP SEQUENCE IF EXISTS victim_seq",
            "CREATE TABLE victim (c TEXT)", "INSERT INTO victim VALUES ('keep'), ('me')",
            "CREATE SEQUENCE victim_seq",
            "CREATE OR REPLACE PROCEDURE evil_proc() LANGUAGE sql AS $$ DELETE FROM victim $$",
            "GRANT SELECT ON victim TO packata_ro",
        )
    else:
        server.execute(
            "DROP TABLE IF EXISTS victim", "DROP PROCEDURE IF EXISTS evil_proc",
            "CREATE TABLE victim (c VARCHAR(20))", "INSERT INTO victim VALUES ('keep'), ('me')",
            "CREATE PROCEDURE evil_proc() MODIFIES SQL DATA DELETE FROM victim",
        )


_STATE = {
    "postgres": "SELECT (SELECT string_agg(c, ',' ORDER BY c) FROM victim),"
                " (SELECT string_agg(relname, ',' ORDER BY relname) FROM pg_class"
                "   WHERE relnamespace = 'public'::regnamespace),"
                " (SELECT COUNT(*) FROM pg_largeobject_metadata),"
                " (SELECT last_value FROM victim_seq)",
    "mysql": "SELECT (SELECT GROUP_CONCAT(c ORDER BY c) FROM victim),"
             " (SELECT GROUP_CONCAT(table_name ORDER BY table_name) FROM information_schema.tables"
             "   WHERE table_schema = DATABASE()),"
             " (SELECT GROUP_CONCAT(column_name ORDER BY column_name) FROM information_schema.columns"
             "   WHERE table_schema = DATABASE() AND table_name = 'victim')",
}


def state(server) -> tuple:
    """Checksums and object lists that any successful escape would change."""
    return (*server.execute(_STATE[server.engine])[0], os.path.exists(EVIL_FILE))


def no_leftovers(server) -> None:
    if server.engine == "postgres":
        assert server.execute("SELECT COUNT(*) FROM pg_locks WHERE locktype = 'advisory'")[0][0] == 0
    else:
        assert server.execute("SELECT IS_FREE_LOCK('packata_lock')")[0][0] == 1


@pytest.fixture
def victim(server):
    setup_victim(server)
    before = state(server)
    yield server
    assert state(server) == before
    no_leftovers(server)


def test_corpus_is_large_enough():
    assert all(len(attempts) >= 25 for attempts in ATTEMPTS.values())


def attempt_outcomes(server, endpoint, trust: bool) -> dict[str, str]:
    outcomes: dict[str, str] = {}
    session = open_session(endpoint, trust_environment=trust)
    try:
        for name, sql in ATTEMPTS[server.engine].items():
            try:
                result = session.fetch_cell(sql, [], 2.0)
                outcomes[name] = f"returned {result.width}x{len(result.rows)}"
            except ProviderError as error:
                outcomes[name] = f"error {error.category}"
            except Interrupted:
                outcomes[name] = "timeout"
    finally:
        session.close()
    return outcomes


def test_select_only_login_refuses_every_escape(victim):
    outcomes = attempt_outcomes(victim, victim.reader, trust=False)
    returned = {name for name, outcome in outcomes.items()
                if outcome.startswith("returned") and outcome != "returned 0x0"}
    # Only harmless session calls and statements whose result the server refused to fill
    # (LOAD_FILE gives NULL without the FILE privilege) come back with a result set; a
    # statement without one (COMMIT, SET …) ends inconclusive and its connection is dropped.
    assert returned <= HARMLESS | {"load-file", "executable-comment"}, outcomes


def test_privileged_login_runs_no_authored_sql(victim):
    outcomes = attempt_outcomes(victim, victim.admin, trust=False)
    assert set(outcomes.values()) == {"error read-only-not-guaranteed"}, outcomes


def test_escapes_as_odcs_sql_rules_through_check(victim, tmp_path):
    rules = [{"id": name, "type": "sql", "query": sql, "mustBe": 1}
             for name, sql in ATTEMPTS[victim.engine].items()]
    contract = tmp_path / "escapes.yaml"
    contract.write_text(yaml.safe_dump({
        "apiVersion": "v3.1.0", "kind": "DataContract", "id": "escapes", "version": "1.0.0",
        "status": "active", "schema": [{"name": "victim", "quality": rules}],
    }), encoding="utf-8")
    for url in (victim.reader_url, victim.admin_url):
        done = subprocess.run(
            [sys.executable, "-m", "packata_sql", "check", str(contract), "--url", url,
             "--format", "json", "--timeout", "2"],
            capture_output=True, text=True, timeout=600,
        )
        report = json.loads(done.stdout)
        passed = {r["key"] for r in report["rules"] if r["status"] == "passed"}
        assert passed <= HARMLESS, passed
        # Multi-statement texts never reach the server: the binder reports them (skipped).
        assert {r["status"] for r in report["rules"]} <= {"passed", "error", "inconclusive", "skipped"}
        assert done.returncode == 2
        assert "Traceback" not in done.stderr


@pytest.mark.parametrize("engine", ["postgres", "mysql"])
def test_corpus_attempts_never_leave_files(engine):
    assert not Path(EVIL_FILE).exists()
