"""Faults (a killed backend, a server that is down, a wrong password) and secrets: a sentinel
password never appears in stdout, stderr, JSON or JUnit reports, or error text."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import threading
import time
from dataclasses import replace
from pathlib import Path

import pytest
import yaml

from integration.conftest import embedded_database
from packata_sql.contracts.odcs import load_odcs
from packata_sql.dialects import get_dialect
from packata_sql.plans.compiler import compile_contract
from packata_sql.report import Status
from packata_sql.run.runner import RunOptions, run

SENTINEL = "S3ntinel-pw-9c1e"
# Slow without a sleep function (the binder refuses those): ~10^8 joined rows, tens of seconds.
SLOW = {
    "postgres": "SELECT COUNT(*) FROM generate_series(1, 20000) a CROSS JOIN generate_series(1, 20000) b",
    "mysql": "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 600) "
             "SELECT COUNT(*) FROM r a, r b, r c",
}
BACKENDS = {
    # The server-side cursor runs its query at FETCH time: match the session, not the text.
    "postgres": "SELECT pid FROM pg_stat_activity WHERE application_name = 'packata-sql' "
                "AND state = 'active' AND query LIKE 'FETCH%'",
    "mysql": "SELECT id FROM information_schema.processlist WHERE user = 'packata_ro' "
             "AND info LIKE '%RECURSIVE%'",
}


def write_contract(path: Path, rules: list[dict], servers: list[dict] | None = None) -> Path:
    document = {"apiVersion": "v3.1.0", "kind": "DataContract", "id": "f", "version": "1.0.0",
                "status": "active", "schema": [{"name": "probe", "quality": rules}]}
    if servers:
        document["servers"] = servers
    path.write_text(yaml.safe_dump(document), encoding="utf-8")
    return path


BINARY = str(Path(sys.executable).with_name("packata-sql"))


def cli(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """The installed `packata-sql` binary, as users run it."""
    return subprocess.run([BINARY, *args], capture_output=True, text=True, timeout=120,
                          env={**os.environ, **(env or {})})


def test_killed_backend_errors_that_rule_and_the_next_rule_still_runs(server, tmp_path,
                                                                      wait_until):
    server.execute("DROP TABLE IF EXISTS probe", "CREATE TABLE probe (c INT)")
    contract = write_contract(tmp_path / "c.yaml", [
        {"id": "slow", "type": "sql", "query": SLOW[server.engine], "mustBe": 0},
        {"id": "after", "type": "sql", "query": "SELECT 1", "mustBe": 1},
    ])
    loaded = load_odcs(str(contract))
    compiled = compile_contract(loaded, get_dialect(server.engine), parameters={})
    killed: list[object] = []

    def kill() -> None:
        # The server's own process list shows the statement running: then it is killed.
        found = wait_until(lambda: server.execute(BACKENDS[server.engine]),
                           "the slow statement in the server's process list", timeout_s=15)
        kill_sql = "SELECT pg_terminate_backend(%s)" if server.engine == "postgres" else "KILL %s"
        server.execute(kill_sql, parameters=[found[0][0]])
        killed.append(found[0][0])

    killer = threading.Thread(target=kill)
    killer.start()
    report = run(loaded, compiled, server.reader, RunOptions(timeout_s=30))
    killer.join()
    assert killed, "the statement never showed in the server's process list"
    results = {r.key: r for r in report.results}
    assert results["slow"].status is Status.ERROR
    assert results["after"].status is Status.PASSED


def test_server_down_is_error_and_exit_2_quickly(tmp_path):
    contract = write_contract(tmp_path / "c.yaml", [{"metric": "rowCount", "mustBe": 1}])
    for url in ("postgresql://someone@127.0.0.1:1/db", "mysql://someone@127.0.0.1:1/db"):
        started = time.monotonic()
        done = cli("check", str(contract), "--url", url, "--format", "json")
        assert time.monotonic() - started < 30
        assert done.returncode == 2
        rule = json.loads(done.stdout)["rules"][0]
        assert (rule["status"], rule["diagnostic"]["code"]) == ("error", "connection-refused")
        assert done.stderr.count("cannot connect") == 1  # once, not once per rule


def _outputs(tmp_path: Path, contract: Path, *args: str, env: dict[str, str] | None = None) -> str:
    """stdout, stderr and report files of the three formats, concatenated."""
    texts = []
    for fmt in ("table", "json", "junit"):
        out = tmp_path / f"report.{fmt}"
        done = cli("check", str(contract), *args, "--format", fmt, "--output", str(out), env=env)
        texts += [done.stdout, done.stderr, out.read_text(encoding="utf-8")]
    done = cli("doctor", str(contract), *args, env=env)
    texts += [done.stdout, done.stderr]
    return "\n".join(texts)


def test_wrong_password_names_the_server_never_the_password(mysql, tmp_path):
    contract = write_contract(tmp_path / "c.yaml", [{"metric": "rowCount", "mustBe": 1}])
    endpoint = mysql.reader
    url = f"mysql://{endpoint.user}:{SENTINEL}@{endpoint.host}:{endpoint.port}/{endpoint.database}"
    done = cli("check", str(contract), "--url", url, "--format", "json")
    assert done.returncode == 2
    assert json.loads(done.stdout)["rules"][0]["diagnostic"]["code"] == "authentication-failed"
    assert f"{endpoint.host}:{endpoint.port}" in done.stderr
    assert SENTINEL not in _outputs(tmp_path, contract, "--url", url)


def test_sentinel_password_in_url_and_in_server_environment_never_leaks(mysql, tmp_path):
    login_url = _secret_login(mysql)
    try:
        endpoint = mysql.reader
        login = _login(mysql)
        rules = [{"metric": "rowCount", "mustBe": 1},
                 {"type": "sql", "query": "SELECT COUNT(*) FROM {object}", "mustBe": 1}]
        url = login_url.replace(f"{login}@", f"{login}:{SENTINEL}@")
        contract = write_contract(tmp_path / "c.yaml", rules)
        done = cli("check", str(contract), "--url", url, "--format", "json")
        assert done.returncode == 0, done.stdout + done.stderr
        assert SENTINEL not in _outputs(tmp_path, contract, "--url", url)

        servers = [{"server": "prod-db", "type": "mysql", "host": endpoint.host,
                    "port": endpoint.port, "database": endpoint.database}]
        contract = write_contract(tmp_path / "s.yaml", rules, servers)
        env = {"PACKATA_PROD_DB_USERNAME": login, "PACKATA_PROD_DB_PASSWORD": SENTINEL}
        done = cli("check", str(contract), "--format", "json", env=env)
        assert done.returncode == 0, done.stdout + done.stderr
        assert json.loads(done.stdout)["read_only"] == "credentials"
        assert SENTINEL not in _outputs(tmp_path, contract, env=env)
        wrong = {**env, "PACKATA_PROD_DB_PASSWORD": SENTINEL + "x"}
        assert SENTINEL not in _outputs(tmp_path, contract, env=wrong)
    finally:
        mysql.execute(f"DROP USER IF EXISTS '{_login(mysql)}'@'%'", "DROP TABLE IF EXISTS probe")


def test_sentinel_password_in_a_postgres_url_never_leaks(postgres, tmp_path):
    postgres.execute("DROP TABLE IF EXISTS probe", "CREATE TABLE probe (c INT)",
                     "INSERT INTO probe VALUES (1)")
    try:
        endpoint = postgres.reader
        url = (f"postgresql://{endpoint.user}:{SENTINEL}@{endpoint.host}:{endpoint.port}"
               f"/{endpoint.database}")
        contract = write_contract(tmp_path / "c.yaml", [{"metric": "rowCount", "mustBe": 1}])
        assert SENTINEL not in _outputs(tmp_path, contract, "--url", url)
        missing = url.replace(endpoint.user or "", "no_such_role")
        assert SENTINEL not in _outputs(tmp_path, contract, "--url", missing)
    finally:
        postgres.execute("DROP TABLE IF EXISTS probe")


def _connection_code(url: str, tmp_path: Path, *args: str) -> tuple[str, str]:
    contract = write_contract(tmp_path / "c.yaml", [{"metric": "rowCount", "mustBe": 1},
                                                    {"metric": "rowCount", "mustBe": 2}])
    done = cli("check", str(contract), "--url", url, "--format", "json", *args)
    assert done.returncode == 2
    codes = {r["diagnostic"]["code"] for r in json.loads(done.stdout)["rules"]}
    assert len(codes) == 1 and done.stderr.count("cannot connect") == 1
    return codes.pop(), done.stderr


def test_connection_failures_are_told_apart_with_a_hint(postgres, mysql, tmp_path):
    """Each kind of failure, produced for real against the live servers, gets its own code
    and a hint on stderr printed once."""
    pg = postgres.reader

    def other_database(url: str) -> str:
        return url.split("?")[0].rsplit("/", 1)[0] + "/no_such_database_14"

    cases = [
        (other_database(postgres.reader_url), "unknown-database", "database name"),
        (f"postgresql://no_such_role_14@{pg.host}:{pg.port}/{pg.database}", "unknown-role",
         "user name"),
        (other_database(mysql.reader_url), "unknown-database", "database name"),
        ("postgresql://x@no-such-host.invalid/db", "host-not-found", "host"),
        ("mysql://x@no-such-host.invalid/db", "host-not-found", "host"),
    ]
    for url, code, hint in cases:
        found, stderr = _connection_code(url, tmp_path)
        assert found == code, url
        assert hint in stderr


def test_a_server_that_never_answers_is_a_timeout(tmp_path):
    import socket

    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(1)  # accepts the TCP handshake, never speaks
    try:
        port = listener.getsockname()[1]
        for scheme in ("postgresql", "mysql"):
            code, stderr = _connection_code(f"{scheme}://x@127.0.0.1:{port}/db", tmp_path)
            assert code == "connection-timeout" and "did not answer in time" in stderr, scheme
    finally:
        listener.close()


def test_a_host_that_never_answers_the_handshake_is_a_timeout(tmp_path):
    """What an unroutable host does: TCP's SYN is never answered. A listener whose accept
    queue is full drops new SYNs (Linux), so connecting hangs in TCP itself, not in the
    database protocol as above; both drivers still say timeout, with the hint."""
    import socket

    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(0)
    port = listener.getsockname()[1]
    queued = []
    try:
        while True:  # fill the accept queue until a connection attempt goes unanswered
            attempt = socket.socket()
            attempt.settimeout(1.0)
            queued.append(attempt)
            try:
                attempt.connect(("127.0.0.1", port))
            except TimeoutError:
                break
            assert len(queued) < 100, "the accept queue never filled"
        for scheme in ("postgresql", "mysql"):
            code, stderr = _connection_code(f"{scheme}://x@127.0.0.1:{port}/db", tmp_path,
                                            "--timeout", "3")  # connecting gets 3 s
            assert code == "connection-timeout" and "did not answer in time" in stderr, scheme
    finally:
        for attempt in queued:
            attempt.close()
        listener.close()


def _secret_login(mysql) -> str:
    """A SELECT-only MariaDB login whose password is the sentinel; the URL has no password."""
    login = _login(mysql)
    mysql.execute(
        f"DROP USER IF EXISTS '{login}'@'%'",
        f"CREATE USER '{login}'@'%' IDENTIFIED BY '{SENTINEL}'",
        f"GRANT SELECT ON `{mysql.admin.database}`.* TO '{login}'@'%'",
        "DROP TABLE IF EXISTS probe", "CREATE TABLE probe (c INT)", "INSERT INTO probe VALUES (1)",
    )
    endpoint = mysql.reader
    return f"mysql://{login}@{endpoint.host}:{endpoint.port}/{endpoint.database}"


def _login(mysql) -> str:
    """A login name of this test database's own: work trees testing side by side share the
    server and its logins."""
    return f"pk_secret_{mysql.admin.database}"[:64]


def test_mysql_password_from_packata_password_or_option_file_never_leaks(mysql, tmp_path):
    rules = [{"metric": "rowCount", "mustBe": 1},
             {"type": "sql", "query": "SELECT COUNT(*) FROM {object}", "mustBe": 1}]
    contract = write_contract(tmp_path / "c.yaml", rules)
    try:
        url = _secret_login(mysql)
        home = tmp_path / "home"
        home.mkdir()
        quiet = {"PACKATA_PASSWORD": "", "HOME": str(home)}
        for env in ({**quiet, "PACKATA_PASSWORD": SENTINEL}, quiet):
            if not env["PACKATA_PASSWORD"]:
                (home / ".my.cnf").write_text(f"[client]\npassword={SENTINEL}\n")
            done = cli("check", str(contract), "--url", url, "--format", "json", env=env)
            assert done.returncode == 0, done.stdout + done.stderr
            assert json.loads(done.stdout)["read_only"] == "credentials"
            assert "holds a password" not in done.stderr
            assert SENTINEL not in done.stdout + done.stderr
        assert SENTINEL not in _outputs(tmp_path, contract, "--url", url, env=quiet)
        wrong = {**quiet, "PACKATA_PASSWORD": SENTINEL + "x"}
        done = cli("check", str(contract), "--url", url, "--format", "json", env=wrong)
        assert json.loads(done.stdout)["rules"][0]["diagnostic"]["code"] \
            == "authentication-failed"
        assert SENTINEL not in _outputs(tmp_path, contract, "--url", url, env=wrong)
    finally:
        mysql.execute(f"DROP USER IF EXISTS '{_login(mysql)}'@'%'", "DROP TABLE IF EXISTS probe")


TLS_REQUIRED = {"postgres": "sslmode=require", "mysql": "ssl_mode=REQUIRED"}


def test_tls_required_against_a_server_without_tls_fails_before_the_password(server, tmp_path):
    """The local servers run without TLS: a URL that requires it must not connect in clear."""
    contract = write_contract(tmp_path / "c.yaml", [{"metric": "rowCount", "mustBe": 1}])
    endpoint = server.reader
    scheme = "postgresql" if server.engine == "postgres" else "mysql"
    url = (f"{scheme}://{endpoint.user}@{endpoint.host}:{endpoint.port}/{endpoint.database}"
           f"?{TLS_REQUIRED[server.engine]}")
    env = {"PACKATA_PASSWORD": SENTINEL}
    done = cli("check", str(contract), "--url", url, "--format", "json", env=env)
    assert done.returncode == 2
    rule = json.loads(done.stdout)["rules"][0]
    assert (rule["status"], rule["diagnostic"]["code"]) == ("error", "connection-failed")
    assert "cannot connect to" in done.stderr
    doctor = cli("doctor", "--url", url, env=env)
    assert doctor.returncode == 2
    assert "connection: failed (connection-failed)" in doctor.stdout
    assert SENTINEL not in _outputs(tmp_path, contract, "--url", url, env=env)
    plain = url.split("?")[0]
    assert cli("doctor", "--url", plain, env={"PACKATA_PASSWORD": endpoint.password or ""}) \
        .returncode == 0


def test_statements_may_run_longer_than_the_connect_limit(mysql, tmp_path):
    """Connecting is bounded; a statement is bounded by its own deadline, not by that limit."""
    contract = write_contract(tmp_path / "c.yaml", [
        # Several seconds of work (~64M joined rows) without a sleep function (those are refused).
        {"id": "slow", "type": "sql", "mustBe": 64_000_000,
         "query": "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 400) "
                  "SELECT COUNT(*) FROM r a, r b, r c"},
    ])
    loaded = load_odcs(str(contract))
    compiled = compile_contract(loaded, get_dialect("mysql"), parameters={})
    endpoint = replace(mysql.reader, connect_timeout_s=1.0)
    report = run(loaded, compiled, endpoint, RunOptions(timeout_s=30))
    assert report.results[0].status is Status.PASSED, report.results[0].diagnostic


# What only each engine writes when a query names a column that does not exist: packata-sql's
# own sentences never say any of it.
ENGINE_SAID = {
    "duckdb": 'Binder Error: Referenced column "no_such_column_zz" not found',
    "sqlite": "OperationalError: no such column: no_such_column_zz",
    "postgres": 'UndefinedColumn: column "no_such_column_zz" does not exist',
    "mysql": "Unknown column 'no_such_column_zz'",
}


@pytest.mark.parametrize("engine", sorted(ENGINE_SAID))
def test_verbose_prints_the_engine_message_on_stderr_only(engine, tmp_path, request):
    """`-v` prints the engine's own message and the bound SQL of the errored rule on stderr;
    without `-v`, and in every report, neither appears."""
    if engine in ("duckdb", "sqlite"):
        built = embedded_database(engine, tmp_path / f"v.{engine}",
                                  ["CREATE TABLE probe (c INTEGER)"],
                                  "INSERT INTO probe VALUES (?)", [[1]])
        url = f"{engine}:///{built.database}"
    else:
        server = request.getfixturevalue(engine)
        server.execute("DROP TABLE IF EXISTS probe", "CREATE TABLE probe (c INT)",
                       "INSERT INTO probe VALUES (1)")
        url = server.reader_url
    contract = write_contract(tmp_path / "c.yaml", [
        {"metric": "rowCount", "mustBe": 1},
        {"type": "sql", "query": "SELECT COUNT(no_such_column_zz) FROM {object}", "mustBe": 0}])
    report = tmp_path / "r.json"
    quiet = cli("check", str(contract), "--url", url, "--format", "json")
    loud = cli("check", str(contract), "--url", url, "--format", "junit", "-v",
               "--output", f"json={report}", "--progress", "none")
    assert quiet.returncode == loud.returncode == 2
    assert ENGINE_SAID[engine] not in quiet.stdout + quiet.stderr
    assert ENGINE_SAID[engine] in loud.stderr
    assert loud.stderr.count("engine said:") == 1  # the errored rule only
    assert re.search(r"^  SQL: SELECT COUNT\(no_such_column_zz\) FROM [\"`]?probe", loud.stderr,
                     re.M)
    assert "no_such_column_zz" not in loud.stdout + report.read_text(encoding="utf-8")


def test_verbose_shows_the_login_failure_without_the_password(postgres, mysql, tmp_path):
    """A refused login: `-v` prints what the server said (PostgreSQL and MariaDB name the
    user), never the password, given in the URL or in PACKATA_PASSWORD."""
    contract = write_contract(tmp_path / "c.yaml", [{"metric": "rowCount", "mustBe": 1}])
    said = {"postgres": "password authentication failed for user", "mysql": "Access denied for user"}
    for server in (postgres, mysql):
        reader = server.reader
        place = f"{reader.host}:{reader.port}/{reader.database}"
        scheme = "postgresql" if server.engine == "postgres" else "mysql"
        for url, env in ((f"{scheme}://{reader.user}:{SENTINEL}@{place}", {}),
                         (f"{scheme}://{reader.user}@{place}", {"PACKATA_PASSWORD": SENTINEL})):
            done = cli("check", str(contract), "--url", url, "-v", "--format", "json",
                       "--progress", "none", env=env)
            assert done.returncode == 2
            assert said[server.engine] in done.stderr, done.stderr
            assert SENTINEL not in done.stderr + done.stdout
