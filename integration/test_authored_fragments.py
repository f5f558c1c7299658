"""SQL text a declaration supplies outside ODCS `type: sql` (issue 20.1): a pipeline
`expression` rule is authored SQL. On a login that can EXECUTE a superuser's (root's) definer
function writing a server file, the run is `library-only · authored SQL: refused`, so the
expression that calls the function is refused like a SQL rule and no file appears. The test
first shows the route is live for the login (the function, called unguarded, writes a file),
then runs the pipeline file through the real `check` CLI as that login. With
--trust-environment it runs (the refusal is the decision's, not a broken rule)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import uuid
from pathlib import Path
from typing import Any

import pytest

from packata_sql.sessions.endpoint import parse_url

LOGIN, PASSWORD = "packata_exprsql_esc", "packata-exprsql-pw"
TABLE, FUNCTION = "packata_expr_rows", "packata_expr_write"


def _login_url(server: Any) -> str:
    admin = parse_url(server.admin_url)
    scheme = "postgresql" if server.engine == "postgres" else "mysql"
    return f"{scheme}://{LOGIN}:{PASSWORD}@{admin.host}:{admin.port or 3306}/{admin.database}"


def _cleanup(server: Any) -> tuple[str, ...]:
    if server.engine == "postgres":
        return (f"DROP FUNCTION IF EXISTS {FUNCTION}(text)", f"DROP TABLE IF EXISTS {TABLE}",
                f"DO $$ BEGIN IF EXISTS (SELECT FROM pg_roles WHERE rolname = '{LOGIN}') THEN"
                f" DROP OWNED BY {LOGIN}; END IF; END $$", f"DROP ROLE IF EXISTS {LOGIN}")
    return (f"DROP FUNCTION IF EXISTS {FUNCTION}", f"DROP TABLE IF EXISTS {TABLE}",
            f"DROP USER IF EXISTS '{LOGIN}'@'%'")


def _set_up(server: Any) -> None:
    """A table the login reads and a definer function (owned by the superuser/root) that
    writes the file its argument names: the login may EXECUTE it, nothing more."""
    database = parse_url(server.admin_url).database
    if server.engine == "postgres":
        server.execute(
            f"CREATE ROLE {LOGIN} LOGIN PASSWORD '{PASSWORD}'",
            f'GRANT CONNECT ON DATABASE "{database}" TO {LOGIN}',
            f"GRANT USAGE ON SCHEMA public TO {LOGIN}",
            f"CREATE TABLE {TABLE} (n int)", f"INSERT INTO {TABLE} VALUES (1)",
            f"GRANT SELECT ON {TABLE} TO {LOGIN}",
            f"CREATE FUNCTION {FUNCTION}(p text) RETURNS int SECURITY DEFINER LANGUAGE plpgsql"
            " AS $$ BEGIN EXECUTE format('COPY (SELECT 1) TO %L', p); RETURN 1; END $$",
            f"GRANT EXECUTE ON FUNCTION {FUNCTION}(text) TO {LOGIN}")
        return
    server.execute(
        f"CREATE USER '{LOGIN}'@'%' IDENTIFIED BY '{PASSWORD}'",
        f"GRANT SELECT ON `{database}`.* TO '{LOGIN}'@'%'",
        f"CREATE TABLE {TABLE} (n INT)", f"INSERT INTO {TABLE} VALUES (1)",
        # Dynamic SQL is not allowed in a stored function; INTO OUTFILE takes a literal, so the
        # function writes the one file the test names.
        f"GRANT EXECUTE ON `{database}`.* TO '{LOGIN}'@'%'")


def _mysql_function(server: Any, path: str) -> None:
    server.execute(f"DROP FUNCTION IF EXISTS {FUNCTION}",
                   f"CREATE DEFINER = CURRENT_USER FUNCTION {FUNCTION}(p TEXT) RETURNS INT"
                   f" SQL SECURITY DEFINER BEGIN SELECT 1 INTO OUTFILE '{path}'; RETURN 1; END")


def _target_folder(server: Any) -> str:
    """Where the server may write files: MariaDB's `secure_file_priv` when it names a folder
    (a test writing elsewhere would see no file for the wrong reason)."""
    if server.engine == "mysql":
        (folder,) = server.execute("SELECT @@secure_file_priv")[0]
        if folder:
            return str(folder).rstrip("/")
    return "/tmp"


def _exists(server: Any, path: str) -> bool:
    if server.engine == "postgres":
        return bool(server.execute(f"SELECT (pg_stat_file('{path}', true)).size IS NOT NULL")
                    [0][0])
    return bool(server.execute(f"SELECT LOAD_FILE('{path}') IS NOT NULL")[0][0]) \
        or os.path.exists(path)


def _remove(server: Any, path: str) -> None:
    if server.engine == "postgres":
        server.execute(f"COPY (SELECT 1 WHERE false) TO PROGRAM 'rm -f {path}'")
    elif os.path.exists(path):
        os.remove(path)  # the local and CI servers share this host


def _as_login(server: Any, sql: str) -> None:
    endpoint = parse_url(_login_url(server))
    if server.engine == "postgres":
        import psycopg

        with psycopg.connect(host=endpoint.host, port=endpoint.port, user=endpoint.user,
                             password=endpoint.password, dbname=endpoint.database,
                             autocommit=True) as connection:
            connection.execute(sql)
        return
    import pymysql

    connection = pymysql.connect(host=endpoint.host, port=endpoint.port or 3306,
                                 user=endpoint.user or "", password=endpoint.password or "",
                                 database=endpoint.database, autocommit=True)
    try:
        with connection.cursor() as cursor:
            cursor.execute(sql)
    finally:
        connection.close()


def _check(server: Any, pipeline: Path, *extra: str) -> tuple[int, dict[str, Any]]:
    done = subprocess.run(
        [sys.executable, "-m", "packata_sql", "check", str(pipeline), "--url", _login_url(server),
         "--format", "json", "--progress", "none", "--timeout", "20", *extra],
        capture_output=True, text=True, timeout=180)
    assert "Traceback" not in done.stderr, done.stderr
    return done.returncode, json.loads(done.stdout)


@pytest.mark.parametrize("engine", ["postgres", "mysql"])
def test_an_expression_calling_a_definer_function_is_refused_and_writes_nothing(
        engine: str, request: pytest.FixtureRequest, tmp_path: Path) -> None:
    server = request.getfixturevalue(engine)
    server.execute(*_cleanup(server))
    folder = _target_folder(server)
    live, refused = (f"{folder}/packata_expr_{uuid.uuid4().hex}" for _ in range(2))
    try:
        _set_up(server)
        # The route is live: the login itself, unguarded, has the server write a file.
        call = f"{FUNCTION}('{live}')" if engine == "postgres" else f"{FUNCTION}('x')"
        if engine == "mysql":
            _mysql_function(server, live)
        _as_login(server, f"SELECT {call}")
        assert _exists(server, live), "the definer function wrote nothing for the login"
        if engine == "mysql":
            _mysql_function(server, refused)
        call = f"{FUNCTION}('{refused}')" if engine == "postgres" else f"{FUNCTION}('x')"
        pipeline = tmp_path / "pipeline.yaml"
        pipeline.write_text(
            f"table: {TABLE}\ndata_quality:\n  rules:\n"
            "    - {name: volume, rule: row_count, mustBe: 1}\n"
            f"    - {{name: writes, rule: expression, expression: \"{call} = 1\"}}\n",
            encoding="utf-8")
        code, report = _check(server, pipeline)
        assert report["authored_sql"] == "refused", report
        assert report["read_only"] == "library-only"
        results = {r["key"]: r for r in report["rules"]}
        assert results["volume"]["status"] == "passed"  # library rules still run
        assert results["writes"]["status"] == "error"
        assert results["writes"]["diagnostic"]["code"] == "read-only-not-guaranteed"
        assert code != 0 and report["outcome"] != "pass"
        assert not _exists(server, refused), "the refused expression wrote a server file"
        # Trusted, the login-wide refusal is lifted, but the call is still followed into the
        # definer function's body (its owner can do more than read): refused by name, no file.
        code, report = _check(server, pipeline, "--trust-environment")
        assert report["read_only"] == "trusted"
        writes = {r["key"]: r for r in report["rules"]}["writes"]
        assert writes["status"] == "error"
        assert writes["diagnostic"]["code"] == "denied-function"
        assert FUNCTION in writes["diagnostic"]["message"]
        assert not _exists(server, refused), "a trusted run still wrote through a definer"
    finally:
        server.execute(*_cleanup(server))
        _remove(server, live)
        _remove(server, refused)


def test_an_expression_on_spark_is_authored_sql(spark: Any, tmp_path: Path) -> None:
    """Spark has no read-only mode: authored SQL needs --trust-environment, and an expression
    is authored SQL; trusted, it meets Spark's own wall and the deny-list (no Java call)."""
    admin = spark.admin()
    try:
        admin.createDataFrame([(1,), (2,)], schema="n INT").write.mode("overwrite") \
            .format("parquet").saveAsTable(f"{spark.database}.{TABLE}")
    finally:
        admin.stop()
    pipeline = tmp_path / "pipeline.yaml"
    pipeline.write_text(
        f"table: {TABLE}\ndata_quality:\n  rules:\n"
        "    - {name: volume, rule: row_count, mustBe: 2}\n"
        "    - {name: positive, rule: expression, expression: n > 0}\n"
        "    - {name: java, rule: expression, expression: "
        "\"reflect('java.lang.System', 'getProperty', 'user.dir') IS NOT NULL\"}\n",
        encoding="utf-8")
    url = f"{spark.url};schema={spark.database}"

    def check(*extra: str) -> dict[str, Any]:
        done = subprocess.run(
            [sys.executable, "-m", "packata_sql", "check", str(pipeline), "--url", url,
             "--format", "json", "--progress", "none", "--timeout", "60", *extra],
            capture_output=True, text=True, timeout=300)
        assert "Traceback" not in done.stderr, done.stderr
        return dict(json.loads(done.stdout))

    refused = check()
    assert refused["read_only"] == "library-only" and refused["authored_sql"] == "refused"
    rules = {r["key"]: (r["status"], (r["diagnostic"] or {}).get("code"))
             for r in refused["rules"]}
    assert rules == {"volume": ("passed", None),
                     "positive": ("error", "read-only-not-guaranteed"),
                     "java": ("skipped", "denied-function")}
    trusted = check("--trust-environment")
    rules = {r["key"]: (r["status"], (r["diagnostic"] or {}).get("code"))
             for r in trusted["rules"]}
    assert rules == {"volume": ("passed", None), "positive": ("passed", None),
                     "java": ("skipped", "denied-function")}
