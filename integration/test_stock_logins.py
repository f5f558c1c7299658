"""Logins as a DBA hands them out, on a database nobody hardened (issue 19, item 1): a plain
SELECT-only login on a freshly created PostgreSQL database is `enforced` and runs SQL rules
through `check`, with the default PUBLIC grant of `pg_logical_emit_message` reported as
hardening advice, not as a route; a MariaDB login granted SELECT on one database is
`credentials`. Each test creates its own database and login (unique names: the servers are
shared) and drops them afterwards."""

from __future__ import annotations

import json
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from packata_sql.sessions.base import ProviderError, open_session
from packata_sql.sessions.endpoint import parse_url

PASSWORD = "stock-login-pw"


DEFINER = {"id": "definer", "type": "sql", "query": "SELECT big_orders()", "mustBe": 2}


def contract_file(tmp_path: Path, extra: list[dict[str, Any]] | None = None) -> Path:
    rules = [{"id": "sql_count", "type": "sql",
              "query": "SELECT COUNT(*) FROM {object} WHERE amount > 1", "mustBe": 2},
             {"id": "rows", "metric": "rowCount", "mustBe": 3}, *(extra or [])]
    path = tmp_path / "stock.yaml"
    path.write_text(yaml.safe_dump({
        "apiVersion": "v3.1.0", "kind": "DataContract", "id": "stock", "version": "1.0.0",
        "status": "active", "schema": [{"name": "orders", "quality": rules}],
    }), encoding="utf-8")
    return path


def cli(*arguments: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "packata_sql", *arguments],
                          capture_output=True, text=True, timeout=300)


def check(contract: Path, url: str) -> tuple[dict[str, Any], subprocess.CompletedProcess[str]]:
    done = cli("check", str(contract), "--url", url, "--format", "json", "--timeout", "20")
    assert "Traceback" not in done.stderr, done.stderr
    return json.loads(done.stdout), done


def statuses(report: dict[str, Any]) -> dict[str, tuple[str, str | None]]:
    return {r["key"].rpartition(".")[2]: (r["status"], (r.get("diagnostic") or {}).get("code"))
            for r in report["rules"]}


class StockPostgres:
    """A new database and a login that may connect and read one table: nothing revoked."""

    def __init__(self, server: Any) -> None:
        self.server = server
        self.name = f"pk_stock_{uuid.uuid4().hex[:10]}"
        admin = parse_url(server.admin_url)
        self.host, self.port = admin.host, admin.port or 5432
        server.execute(f'CREATE DATABASE "{self.name}"',
                       f"CREATE ROLE {self.name} LOGIN PASSWORD '{PASSWORD}'")

    @property
    def url(self) -> str:
        return f"postgresql://{self.name}:{PASSWORD}@{self.host}:{self.port}/{self.name}"

    def admin(self, *statements: str) -> list[Any]:
        """Statements as the admin on the new database."""
        import psycopg

        admin = parse_url(self.server.admin_url)
        with psycopg.connect(host=admin.host, port=admin.port, user=admin.user,
                             password=admin.password, dbname=self.name,
                             autocommit=True) as connection:
            rows: list[Any] = []
            for statement in statements:
                cursor = connection.execute(statement)
                rows = cursor.fetchall() if cursor.description else rows
            return rows

    def drop(self) -> None:
        self.server.execute(f'DROP DATABASE IF EXISTS "{self.name}" WITH (FORCE)',
                            f"DROP ROLE IF EXISTS {self.name}")


@pytest.fixture
def stock_postgres(postgres: Any) -> Iterator[StockPostgres]:
    stock = StockPostgres(postgres)
    try:
        stock.admin("CREATE TABLE orders (id int, amount numeric)",
                    "INSERT INTO orders VALUES (1, 1), (2, 5), (3, 7)",
                    f"GRANT SELECT ON orders TO {stock.name}",
                    # A definer function of a role that only reads: no route, although every
                    # role holds PostgreSQL's default UPDATE on pg_settings (that is SET).
                    f"CREATE ROLE {stock.name}_owner NOLOGIN",
                    f"GRANT SELECT ON orders TO {stock.name}_owner",
                    "CREATE FUNCTION big_orders() RETURNS bigint LANGUAGE sql SECURITY DEFINER"
                    " AS $$ SELECT COUNT(*) FROM orders WHERE amount > 1 $$",
                    f"ALTER FUNCTION big_orders() OWNER TO {stock.name}_owner")
        yield stock
    finally:
        stock.drop()
        stock.server.execute(f"DROP ROLE IF EXISTS {stock.name}_owner")


def test_select_only_login_on_a_new_postgres_database_is_enforced(stock_postgres, tmp_path):
    stock = stock_postgres
    version = stock.admin("SHOW server_version_num")[0][0]
    assert int(version) >= 150000
    # The default grant is there: the login can emit a WAL message when nothing guards it.
    import psycopg

    endpoint = parse_url(stock.url)
    with psycopg.connect(host=endpoint.host, port=endpoint.port, user=endpoint.user,
                         password=endpoint.password, dbname=endpoint.database,
                         autocommit=True) as unguarded:
        assert unguarded.execute(
            "SELECT pg_logical_emit_message(false, 'packata', 'x') IS NOT NULL").fetchone()
    report, done = check(contract_file(tmp_path, [
        DEFINER, {"id": "wal", "type": "sql", "mustBe": 1,
         "query": "SELECT COUNT(*) FROM {object} WHERE pg_logical_emit_message(false, 'p', 'x')"
                  " IS NOT NULL"}]), stock.url)
    assert (report["read_only"], report["authored_sql"], report["routes"]) == \
        ("enforced", "allowed", [])
    assert statuses(report) == {"sql_count": ("passed", None), "rows": ("passed", None),
                                "definer": ("passed", None),
                                "wal": ("skipped", "denied-function")}
    (advice,) = report["hardening"]
    assert "pg_logical_emit_message" in advice and "REVOKE EXECUTE ON FUNCTION" in advice
    assert "FROM PUBLIC" in advice and done.returncode == 2  # the skipped rule: incomplete
    table = cli("check", str(contract_file(tmp_path)), "--url", stock.url)
    assert table.returncode == 0 and "hardening" in table.stdout, table.stdout
    doctor = cli("doctor", "--url", stock.url)
    assert "read-only level: enforced" in doctor.stdout
    assert "authored SQL rules: allowed" in doctor.stdout
    assert "routes out of read-only mode" not in doctor.stdout
    assert "hardening" in doctor.stdout and "REVOKE EXECUTE ON FUNCTION" in doctor.stdout
    assert PASSWORD not in doctor.stdout + doctor.stderr + table.stdout


def test_a_transactional_wal_message_is_refused_by_the_statement_check(stock_postgres):
    """The deny-list refuses the call by name; should it arrive anyway, a transactional
    message assigns a transaction id and the session's write check refuses it."""
    session = open_session(parse_url(stock_postgres.url), trust_environment=False)
    try:
        assert session.read_only == "enforced"
        with pytest.raises(ProviderError) as raised:
            session.fetch_cell("SELECT pg_logical_emit_message(true, 'p', 'x')::text", [], 5.0)
        assert raised.value.code == "wrote-in-read-only-transaction"
    finally:
        session.close()


def test_the_hardened_postgres_database_is_enforced_without_advice(stock_postgres, tmp_path):
    stock = stock_postgres
    stock.admin("DO $$ DECLARE f regprocedure; BEGIN FOR f IN SELECT oid::regprocedure"
                " FROM pg_proc WHERE proname = 'pg_logical_emit_message' LOOP"
                " EXECUTE format('REVOKE EXECUTE ON FUNCTION %s FROM PUBLIC', f);"
                " END LOOP; END $$")
    report, done = check(contract_file(tmp_path, [DEFINER]), stock.url)
    assert (report["read_only"], report["authored_sql"], report["routes"],
            report["hardening"]) == ("enforced", "allowed", [], [])
    assert statuses(report) == {"sql_count": ("passed", None), "rows": ("passed", None),
                                "definer": ("passed", None)}
    assert done.returncode == 0


def test_select_on_one_database_is_credentials_on_mariadb(mysql, tmp_path):
    name = f"pk_stock_{uuid.uuid4().hex[:10]}"
    admin = parse_url(mysql.admin_url)
    mysql.execute(f"CREATE DATABASE `{name}`",
                  f"CREATE TABLE `{name}`.orders (id INT, amount DECIMAL(10, 2))",
                  f"INSERT INTO `{name}`.orders VALUES (1, 1), (2, 5), (3, 7)",
                  f"CREATE USER '{name}'@'%' IDENTIFIED BY '{PASSWORD}'",
                  f"GRANT SELECT ON `{name}`.* TO '{name}'@'%'")
    try:
        url = f"mysql://{name}:{PASSWORD}@{admin.host}:{admin.port or 3306}/{name}"
        report, done = check(contract_file(tmp_path), url)
        assert (report["read_only"], report["authored_sql"], report["routes"],
                report["hardening"]) == ("credentials", "allowed", [], [])
        assert statuses(report) == {"sql_count": ("passed", None), "rows": ("passed", None)}
        assert done.returncode == 0
    finally:
        mysql.execute(f"DROP USER IF EXISTS '{name}'@'%'", f"DROP DATABASE IF EXISTS `{name}`")


def test_function_bodies_the_login_cannot_read_refuse_the_rule(stock_postgres, tmp_path):
    """A DBA who hides function bodies (every pg_proc column but prosrc and prosqlbody stays
    readable, so the login's inspection still works): a rule calling a function cannot be
    followed, and is refused with a clear reason instead of an engine error (issue 19.2)."""
    stock = stock_postgres
    columns = [row[0] for row in stock.admin(
        "SELECT attname FROM pg_attribute WHERE attrelid = 'pg_catalog.pg_proc'::regclass"
        " AND attnum > 0 AND attname NOT IN ('prosrc', 'prosqlbody')")]
    stock.admin("REVOKE SELECT ON pg_catalog.pg_proc FROM PUBLIC",
                f"GRANT SELECT ({', '.join(columns)}) ON pg_catalog.pg_proc TO PUBLIC")
    report, _ = check(contract_file(tmp_path, [DEFINER]), stock.url)
    assert (report["read_only"], report["authored_sql"]) == ("enforced", "allowed")
    found = {r["key"].rpartition(".")[2]: r for r in report["rules"]}
    assert found["rows"]["status"] == "passed"
    definer = found["definer"]
    assert (definer["status"], definer["diagnostic"]["code"]) == ("error", "denied-function")
    assert "cannot read the catalog's function bodies" in definer["diagnostic"]["message"]
