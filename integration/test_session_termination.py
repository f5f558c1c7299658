"""A statement that ignores its cancel (issue 9, item 7): the session terminates its backend
from a control connection, the remaining rules run on a fresh connection, and no backend is
left running."""

from __future__ import annotations

from typing import Any

import pytest

import packata_sql.sessions.base as session_module
from packata_sql.contracts.odcs import load_odcs
from packata_sql.dialects import get_dialect
from packata_sql.plans.compiler import compile_contract
from packata_sql.report import Status
from packata_sql.run.runner import RunOptions, run
from packata_sql.sessions.base import open_session

# A DBA's function that swallows cancels, statement_timeout included (both raise
# query_canceled, which a PL/pgSQL handler can catch); only terminating the backend stops it.
# It keeps busy without pg_sleep, which the walk into function bodies refuses.
STUBBORN = """
CREATE OR REPLACE FUNCTION packata_stubborn() RETURNS int LANGUAGE plpgsql AS $$
BEGIN
  LOOP
    BEGIN
      PERFORM COUNT(*) FROM generate_series(1, 100000);
    EXCEPTION WHEN query_canceled THEN
      NULL;
    END;
  END LOOP;
END $$
"""


@pytest.fixture
def quick_stop(monkeypatch: pytest.MonkeyPatch) -> None:
    """The wait for a cancelled statement, shortened so the test stays fast."""
    monkeypatch.setattr(session_module, "STOP_GRACE_S", 1.0)


def contract(tmp_path: Any, stubborn: str) -> Any:
    path = tmp_path / "c.yaml"
    path.write_text(
        "apiVersion: v3.1.0\nkind: DataContract\nid: t\nversion: 1.0.0\nstatus: active\n"
        "schema:\n  - name: t\n    quality:\n"
        f"      - id: stubborn\n        type: sql\n        query: \"{stubborn}\"\n"
        "        mustBe: 1\n"
        "      - id: after\n        type: sql\n        query: SELECT 1\n        mustBe: 1\n",
        encoding="utf-8")
    return load_odcs(str(path))


def test_postgres_backend_that_ignores_cancel_is_terminated(postgres, tmp_path, quick_stop):
    postgres.execute(STUBBORN)
    try:
        loaded = contract(tmp_path, "SELECT packata_stubborn()")
        compiled = compile_contract(loaded, get_dialect("postgres"), parameters={})
        report = run(loaded, compiled, postgres.reader, RunOptions(timeout_s=0.5))
        results = {r.key: r for r in report.results}
        assert results["stubborn"].status is Status.INCONCLUSIVE
        assert results["after"].status is Status.PASSED  # on a fresh connection
        running = postgres.execute("SELECT COUNT(*) FROM pg_stat_activity"
                                   " WHERE query LIKE '%packata_stubborn%'"
                                   " AND pid <> pg_backend_pid()")
        assert running[0][0] == 0
    finally:
        postgres.execute("DROP FUNCTION IF EXISTS packata_stubborn()")


def test_mariadb_connection_that_ignores_kill_query_is_killed(mysql, quick_stop,
                                                              monkeypatch: pytest.MonkeyPatch):
    """MariaDB offers no statement that survives KILL QUERY, so the ignored cancel is the one
    simulated fault: the session's KILL QUERY does nothing and its server-side limit is long."""
    session: Any = open_session(mysql.reader, trust_environment=False)
    try:
        monkeypatch.setattr(session, "_interrupt", lambda: None)
        original = session._run

        def without_server_limit(sql: str, parameters: Any) -> Any:
            session.limit_s = 60.0
            return original(sql, parameters)

        monkeypatch.setattr(session, "_run", without_server_limit)
        thread = session._conn.thread_id()
        with pytest.raises(session_module.Interrupted):
            session.fetch_cell("SELECT SLEEP(30)", [], 0.5)
        assert not session._stuck
        monkeypatch.setattr(session, "_run", original)
        assert session.fetch_cell("SELECT 1", [], 5.0).rows == [(1,)]
        assert mysql.execute("SELECT COUNT(*) FROM information_schema.processlist"
                             " WHERE id = %s", parameters=[thread])[0][0] == 0
    finally:
        session.close()
