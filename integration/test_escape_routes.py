"""Routes a DBA can hand a login out of read-only mode (issue 9, items 1 and 2), on the live
servers. Each scenario gives the test login `packata_esc` one route, shows that the login's
own unguarded connection uses it (a server file appears, a row is committed, a slot outlives
the transaction, a server file is read), then that the session finds the route by name,
refuses authored SQL (and library rules on a definer view), and the effect stays absent.
Everything created is dropped afterwards."""

from __future__ import annotations

import os
import subprocess
import sys
import uuid
from dataclasses import dataclass
from typing import Any

import pytest

from packata_sql.sessions.base import ProviderError, open_session
from packata_sql.sessions.endpoint import parse_url

LOGIN, PASSWORD = "packata_esc", "packata-esc-pw"


@dataclass(frozen=True)
class Route:
    """`setup` runs as the admin; `attempt` is what the login sends; `probe` (admin) changes
    when the attempt had its effect, or is None when the attempt's own result is the effect."""

    setup: tuple[str, ...]
    attempt: str
    probe: str | None
    route: str


def pg_file(path: str) -> str:
    return f"SELECT (pg_stat_file('{path}', true)).size IS NOT NULL"


def pg_routes(path: str, database: str, port: int) -> dict[str, Route]:
    dblink = (f"host=127.0.0.1 port={port} dbname={database} user={LOGIN} "
              f"password={PASSWORD}")
    return {
        "member-of-superuser-role": Route(
            ("CREATE ROLE packata_esc_su SUPERUSER NOLOGIN",
             "CREATE ROLE packata_esc_mid NOLOGIN NOINHERIT",
             "GRANT packata_esc_su TO packata_esc_mid", f"GRANT packata_esc_mid TO {LOGIN}"),
            "SELECT length(query_to_xml('SELECT lo_export(MIN(oid), ''" + path + "'') FROM"
            " pg_largeobject_metadata', true, false, '')::text)"
            " FROM (SELECT set_config('role', 'packata_esc_su', true)) AS s",
            pg_file(path), "member of superuser role packata_esc_su"),
        "security-definer-function": Route(
            ("CREATE FUNCTION packata_esc_fn(p text) RETURNS int SECURITY DEFINER"
             " LANGUAGE plpgsql AS $$ BEGIN EXECUTE format('COPY (SELECT 1) TO %L', p);"
             " RETURN 1; END $$",),
            f"SELECT packata_esc_fn('{path}')", pg_file(path),
            "security definer function public.packata_esc_fn (owner postgres)"),
        "dblink": Route(
            ("CREATE EXTENSION IF NOT EXISTS dblink", "CREATE TABLE packata_esc_ledger (a int)",
             f"GRANT SELECT, INSERT ON packata_esc_ledger TO {LOGIN}"),
            f"SELECT dblink_exec('{dblink}', 'INSERT INTO packata_esc_ledger VALUES (1)')",
            "SELECT COUNT(*) FROM packata_esc_ledger", "function dblink_exec"),
        "replication-attribute": Route(
            (f"ALTER ROLE {LOGIN} REPLICATION",),
            "SELECT pg_create_physical_replication_slot('packata_esc_slot') IS NOT NULL",
            "SELECT COUNT(*) FROM pg_replication_slots WHERE slot_name = 'packata_esc_slot'",
            "replication attribute"),
        "large-object-export": Route(
            (f"GRANT EXECUTE ON FUNCTION lo_export(oid, text) TO {LOGIN}",
             f"DO $$ BEGIN EXECUTE format('GRANT SELECT ON LARGE OBJECT %s TO {LOGIN}',"
             " (SELECT MIN(oid) FROM pg_largeobject_metadata)); END $$"),
            f"SELECT lo_export(MIN(oid), '{path}') FROM pg_largeobject_metadata", pg_file(path),
            "function lo_export"),
        "read-server-files": Route(
            (f"GRANT pg_read_server_files TO {LOGIN}",
             f"GRANT EXECUTE ON FUNCTION pg_read_file(text) TO {LOGIN}"),
            "SELECT length(pg_read_file('/etc/passwd'))", None,
            "member of pg_read_server_files"),
    }


PG_CLEANUP = (
    "DROP VIEW IF EXISTS packata_esc_view", "DROP FUNCTION IF EXISTS packata_esc_fn(text)",
    "DROP FUNCTION IF EXISTS packata_esc_fn()",
    "DROP TABLE IF EXISTS packata_esc_ledger", "DROP EXTENSION IF EXISTS dblink",
    "SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots"
    " WHERE slot_name = 'packata_esc_slot'",
    "SELECT lo_unlink(oid) FROM pg_largeobject_metadata",
    f"DO $$ BEGIN IF EXISTS (SELECT FROM pg_roles WHERE rolname = '{LOGIN}') THEN"
    f" DROP OWNED BY {LOGIN}; END IF; END $$", f"DROP ROLE IF EXISTS {LOGIN}",
    "DROP ROLE IF EXISTS packata_esc_mid", "DROP ROLE IF EXISTS packata_esc_su",
    "DROP ROLE IF EXISTS packata_esc_plain",
)


def my_routes(path: str, database: str) -> dict[str, Route]:
    return {
        "file-privilege": Route(
            (f"GRANT FILE ON *.* TO '{LOGIN}'@'%'",),
            f"SELECT 1 INTO OUTFILE '{path}'", f"SELECT LOAD_FILE('{path}') IS NOT NULL",
            "FILE"),
        "definer-view-over-definer-function": Route(
            ("CREATE FUNCTION packata_esc_fn() RETURNS INT SQL SECURITY DEFINER"
             f" BEGIN SELECT 1 INTO OUTFILE '{path}'; RETURN 1; END",
             "CREATE SQL SECURITY DEFINER VIEW packata_esc_view AS SELECT packata_esc_fn() AS x"),
            "SELECT x FROM packata_esc_view", f"SELECT LOAD_FILE('{path}') IS NOT NULL",
            f"definer view {database}.packata_esc_view"),
        "role": Route(
            ("CREATE ROLE packata_esc_role", "CREATE TABLE packata_esc_ledger (a INT)",
             f"GRANT INSERT ON `{database}`.packata_esc_ledger TO packata_esc_role",
             f"GRANT packata_esc_role TO '{LOGIN}'@'%'"),
            "BEGIN NOT ATOMIC SET ROLE packata_esc_role;"
            " INSERT INTO packata_esc_ledger VALUES (1); END",
            "SELECT COUNT(*) FROM packata_esc_ledger", "role packata_esc_role"),
    }


MY_CLEANUP = (
    "DROP VIEW IF EXISTS packata_esc_view", "DROP FUNCTION IF EXISTS packata_esc_fn",
    "DROP TABLE IF EXISTS packata_esc_ledger", "DROP ROLE IF EXISTS packata_esc_role",
    f"DROP USER IF EXISTS '{LOGIN}'@'%'",
)


def login_url(server: Any) -> str:
    admin = parse_url(server.admin_url)
    scheme = "postgresql" if server.engine == "postgres" else "mysql"
    return (f"{scheme}://{LOGIN}:{PASSWORD}@{admin.host}:{admin.port or 3306}"
            f"/{admin.database}")


def routes_for(server: Any, path: str) -> dict[str, Route]:
    admin = parse_url(server.admin_url)
    if server.engine == "postgres":
        return pg_routes(path, admin.database, admin.port or 5432)
    return my_routes(path, admin.database)


def as_login(server: Any, sql: str) -> Any:
    """The login's own unguarded connection: what the route gives it without packata-sql."""
    endpoint = parse_url(login_url(server))
    if server.engine == "postgres":
        import psycopg

        with psycopg.connect(host=endpoint.host, port=endpoint.port, user=endpoint.user,
                             password=endpoint.password, dbname=endpoint.database,
                             autocommit=True) as connection:
            return connection.execute(sql).fetchone()
    import pymysql

    connection = pymysql.connect(host=endpoint.host, port=endpoint.port or 3306,
                                 user=endpoint.user or "", password=endpoint.password or "",
                                 database=endpoint.database, autocommit=True)
    try:
        with connection.cursor() as cursor:
            cursor.execute(sql)
            return cursor.fetchone() if cursor.description else ()
    finally:
        connection.close()


def remove(server: Any, path: str) -> None:
    if server.engine == "postgres":
        server.execute(f"COPY (SELECT 1 WHERE false) TO PROGRAM 'rm -f {path}'")
    elif os.path.exists(path):
        os.remove(path)  # MariaDB cannot; the local and CI servers share this host


SCENARIOS = [*(("postgres", name) for name in pg_routes("", "", 0)),
             *(("mysql", name) for name in my_routes("", ""))]


@pytest.mark.parametrize("engine,name", SCENARIOS)
def test_route_is_live_for_the_login_then_found_and_refused(engine, name, request):
    server = request.getfixturevalue(engine)
    cleanup = PG_CLEANUP if engine == "postgres" else MY_CLEANUP
    server.execute(*cleanup)
    try:
        _route_scenario(server, name)
    finally:
        server.execute(*cleanup)


def _route_scenario(server: Any, name: str) -> None:
    database = parse_url(server.admin_url).database
    if server.engine == "postgres":
        server.execute(f"CREATE ROLE {LOGIN} LOGIN PASSWORD '{PASSWORD}'",
                       f'GRANT CONNECT ON DATABASE "{database}" TO {LOGIN}',
                       f"GRANT USAGE ON SCHEMA public TO {LOGIN}",
                       "SELECT lo_from_bytea(0, 'x'::bytea)")
    else:
        server.execute(f"CREATE USER '{LOGIN}'@'%' IDENTIFIED BY '{PASSWORD}'",
                       f"GRANT SELECT ON `{database}`.* TO '{LOGIN}'@'%'")
    # The same route twice: once used by the login unguarded, once through the session.
    used, guarded = (f"/tmp/packata_route_{uuid.uuid4().hex}" for _ in range(2))
    route = routes_for(server, used)[name]
    for statement in route.setup:
        server.execute(statement)
    before = None if route.probe is None else server.execute(route.probe)[0][0]
    returned = as_login(server, route.attempt)
    if route.probe is None:
        assert returned and returned[0] is not None, f"{name}: nothing read unguarded"
    else:
        assert server.execute(route.probe)[0][0] != before, f"{name}: no effect unguarded"
    remove(server, used)
    if route.probe is not None and "ledger" in route.probe:
        server.execute("DELETE FROM packata_esc_ledger")
    if "slot" in route.attempt:
        server.execute("SELECT pg_drop_replication_slot('packata_esc_slot')")
    attempt = route.attempt.replace(used, guarded)
    probe = None if route.probe is None else route.probe.replace(used, guarded)
    before = None if probe is None else server.execute(probe)[0][0]
    session = open_session(parse_url(login_url(server)), trust_environment=False)
    try:
        assert any(found.startswith(route.route) for found in session.decision.routes), \
            session.decision.routes
        assert session.read_only == "library-only" and not session.decision.authored_sql
        with pytest.raises(ProviderError) as raised:
            session.fetch_cell(attempt, [], 5.0)
        assert raised.value.category == "read-only-not-guaranteed"
    finally:
        session.close()
    if probe is not None:
        assert server.execute(probe)[0][0] == before
    remove(server, guarded)
    trusted = open_session(parse_url(login_url(server)), trust_environment=True)
    try:
        assert trusted.read_only == "trusted" and trusted.decision.authored_sql
    finally:
        trusted.close()
    doctor = subprocess.run([sys.executable, "-m", "packata_sql", "doctor", "--url",
                             login_url(server)], capture_output=True, text=True, timeout=120)
    assert route.route in doctor.stdout and "authored SQL rules: refused" in doctor.stdout
    assert PASSWORD not in doctor.stdout + doctor.stderr


def test_statement_that_borrows_a_role_ends_in_error(postgres):
    """A role the login may become but which opens no route: the session allows authored SQL,
    and the identity check after the statement refuses the one that switched to it."""
    server = postgres
    server.execute(*PG_CLEANUP)
    try:
        database = parse_url(server.admin_url).database
        server.execute(f"CREATE ROLE {LOGIN} LOGIN PASSWORD '{PASSWORD}'",
                       f'GRANT CONNECT ON DATABASE "{database}" TO {LOGIN}',
                       "CREATE ROLE packata_esc_plain NOLOGIN",
                       f"GRANT packata_esc_plain TO {LOGIN}")
        borrow = ("SELECT current_user::text FROM"
                  " (SELECT set_config('role', 'packata_esc_plain', true)) AS s")
        assert as_login(server, borrow)[0] == "packata_esc_plain"  # live unguarded
        session = open_session(parse_url(login_url(server)), trust_environment=False)
        try:
            assert session.decision.authored_sql and session.read_only == "enforced"
            with pytest.raises(ProviderError) as raised:
                session.fetch_cell(borrow, [], 5.0)
            assert (raised.value.category, raised.value.code) == \
                ("permission-denied", "identity-changed")
            search_path = "SELECT 1 FROM (SELECT set_config('search_path', 'pg_temp', true)) s"
            with pytest.raises(ProviderError) as raised:
                session.fetch_cell(search_path, [], 5.0)
            assert raised.value.code == "setting-changed"
            assert session.fetch_cell("SELECT current_user::text", [], 5.0).rows == [(LOGIN,)]
        finally:
            session.close()
    finally:
        server.execute(*PG_CLEANUP)


DEFINER_VIEW = {
    "postgres": ("CREATE FUNCTION packata_esc_fn() RETURNS int SECURITY DEFINER LANGUAGE plpgsql"
                 " AS $$ BEGIN EXECUTE format('COPY (SELECT 1) TO %L', '{path}'); RETURN 1;"
                 " END $$",
                 "CREATE VIEW packata_esc_view AS SELECT packata_esc_fn() AS x",
                 "GRANT SELECT ON packata_esc_view TO {login}"),
    "mysql": ("CREATE FUNCTION packata_esc_fn() RETURNS INT SQL SECURITY DEFINER"
              " BEGIN SELECT 1 INTO OUTFILE '{path}'; RETURN 1; END",
              "CREATE SQL SECURITY DEFINER VIEW packata_esc_view AS SELECT packata_esc_fn() AS x"),
}


def test_library_rules_on_a_definer_view_are_refused(server, tmp_path):
    """Library metrics read the view, and the view runs the definer's function: refused like
    authored SQL, and no file appears; with --trust-environment the rule runs."""
    from packata_sql.contracts.odcs import load_odcs
    from packata_sql.dialects import get_dialect
    from packata_sql.plans.compiler import compile_contract
    from packata_sql.report import Status
    from packata_sql.run.runner import RunOptions, run

    cleanup = PG_CLEANUP if server.engine == "postgres" else MY_CLEANUP
    server.execute(*cleanup)
    path = f"/tmp/packata_route_{uuid.uuid4().hex}"
    try:
        database = parse_url(server.admin_url).database
        if server.engine == "postgres":
            server.execute(f"CREATE ROLE {LOGIN} LOGIN PASSWORD '{PASSWORD}'",
                           f'GRANT CONNECT ON DATABASE "{database}" TO {LOGIN}',
                           f"GRANT USAGE ON SCHEMA public TO {LOGIN}")
        else:
            server.execute(f"CREATE USER '{LOGIN}'@'%' IDENTIFIED BY '{PASSWORD}'",
                           f"GRANT SELECT ON `{database}`.* TO '{LOGIN}'@'%'")
        server.execute(*(s.format(path=path, login=LOGIN) for s in DEFINER_VIEW[server.engine]))
        contract = tmp_path / "view.yaml"
        contract.write_text(
            "apiVersion: v3.1.0\nkind: DataContract\nid: v\nversion: 1.0.0\nstatus: active\n"
            "schema:\n  - name: packata_esc_view\n    quality:\n"
            "      - metric: rowCount\n        mustBe: 1\n", encoding="utf-8")
        loaded = load_odcs(str(contract))
        compiled = compile_contract(loaded, get_dialect(server.engine), parameters={})
        endpoint = parse_url(login_url(server))
        report = run(loaded, compiled, endpoint, RunOptions(timeout_s=10))
        assert report.authored_sql == "refused"
        assert any(r.startswith("definer") or r.startswith("security definer")
                   for r in report.routes), report.routes
        (result,) = report.results
        assert result.status is Status.ERROR
        assert result.diagnostic is not None and \
            result.diagnostic.code == "read-only-not-guaranteed"
        probe = (f"SELECT (pg_stat_file('{path}', true)).size IS NOT NULL"
                 if server.engine == "postgres" else f"SELECT LOAD_FILE('{path}') IS NOT NULL")
        assert not server.execute(probe)[0][0]
        trusted = run(loaded, compiled, endpoint, RunOptions(timeout_s=10, trust_environment=True))
        assert trusted.read_only == "trusted"
        assert server.execute(probe)[0][0]  # trusted, the view ran: the route is live
    finally:
        server.execute(*cleanup)
        remove(server, path)


def test_write_check_of_servers_before_13_catches_writes(postgres, monkeypatch):
    """txid_current_if_assigned(), what a PostgreSQL 12 server is asked, still exists on this
    server: a large object written inside the read-only transaction is caught by it too."""
    import packata_sql.sessions.postgres as module

    monkeypatch.setattr(module, "_XACT_ID_SINCE", 10**9)  # as if the server were older
    session = open_session(postgres.reader, trust_environment=False)
    try:
        with pytest.raises(ProviderError) as raised:
            session.fetch_cell("SELECT lo_from_bytea(0, 'x'::bytea)", [], 5.0)
        assert raised.value.code == "wrote-in-read-only-transaction"
        assert session.fetch_cell("SELECT 1", [], 5.0).rows == [(1,)]
    finally:
        session.close()


WRITER_FUNCTION = {
    "postgres": "CREATE FUNCTION packata_esc_fn() RETURNS int LANGUAGE plpgsql AS"
                " $$ BEGIN INSERT INTO packata_esc_ledger VALUES (1); RETURN 1; END $$",
    "mysql": "CREATE FUNCTION packata_esc_fn() RETURNS INT SQL SECURITY INVOKER MODIFIES SQL DATA"
             " BEGIN INSERT INTO packata_esc_ledger VALUES (1); RETURN 1; END",
}


def test_a_trusted_writer_is_still_held_by_the_read_only_transaction(server):
    """A login that may write, run with --trust-environment: a function it may call writes a
    row, and on PostgreSQL a sequence it may advance (which no rollback undoes); the session's
    read-only transaction refuses both."""
    cleanup = PG_CLEANUP if server.engine == "postgres" else MY_CLEANUP
    server.execute(*cleanup, "DROP SEQUENCE IF EXISTS packata_esc_seq"
                   if server.engine == "postgres" else "DO 0")
    database = parse_url(server.admin_url).database
    attempts = {"function-write": ("SELECT packata_esc_fn()",
                                   "SELECT COUNT(*) FROM packata_esc_ledger")}
    try:
        server.execute("CREATE TABLE packata_esc_ledger (a INT)", WRITER_FUNCTION[server.engine])
        if server.engine == "postgres":
            server.execute(f"CREATE ROLE {LOGIN} LOGIN PASSWORD '{PASSWORD}'",
                           f'GRANT CONNECT ON DATABASE "{database}" TO {LOGIN}',
                           f"GRANT USAGE ON SCHEMA public TO {LOGIN}",
                           f"GRANT SELECT, INSERT ON packata_esc_ledger TO {LOGIN}",
                           "CREATE SEQUENCE packata_esc_seq",
                           f"GRANT USAGE ON SEQUENCE packata_esc_seq TO {LOGIN}")
            attempts["sequence"] = ("SELECT nextval('packata_esc_seq')",
                                    "SELECT last_value::text || is_called::text"
                                    " FROM packata_esc_seq")
        else:
            # SELECT on mysql.proc lets the login read the function's body, which the walk
            # into bodies follows (nothing denied there): the transaction is what refuses.
            server.execute(f"CREATE USER '{LOGIN}'@'%' IDENTIFIED BY '{PASSWORD}'",
                           f"GRANT SELECT, INSERT, EXECUTE ON `{database}`.* TO '{LOGIN}'@'%'",
                           f"GRANT SELECT ON mysql.proc TO '{LOGIN}'@'%'")
        session = open_session(parse_url(login_url(server)), trust_environment=True)
        try:
            for name, (attempt, probe) in attempts.items():
                before = server.execute(probe)[0][0]
                assert as_login(server, attempt) is not None  # live unguarded
                assert server.execute(probe)[0][0] != before, name
                before = server.execute(probe)[0][0]
                with pytest.raises(ProviderError) as raised:
                    session.fetch_cell(attempt, [], 5.0)
                assert raised.value.category == "permission-denied", name
                assert server.execute(probe)[0][0] == before, name
        finally:
            session.close()
    finally:
        server.execute(*cleanup, "DROP SEQUENCE IF EXISTS packata_esc_seq"
                       if server.engine == "postgres" else "DO 0")
