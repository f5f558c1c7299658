"""The README's "your own database in three commands" run verbatim, as a shell runs them, on
a DuckDB file and on PostgreSQL through the SELECT-only login (its password from PGPASSWORD,
as the README says): `init` exits 0, `lint` finds nothing, `check` passes every rule of the
schema's tables and view (issue 24)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import uuid
from pathlib import Path

import duckdb
import pytest

README = Path(__file__).resolve().parents[1] / "README.md"
TABLES = ("CREATE TABLE shop.customers (id INTEGER PRIMARY KEY, email VARCHAR(50) NOT NULL)",
          "CREATE TABLE shop.orders (id INTEGER, customer_id INTEGER, placed DATE)",
          "CREATE TABLE shop.returns (id INTEGER)",
          "INSERT INTO shop.customers VALUES (1, 'a@x.org')",
          "INSERT INTO shop.orders VALUES (10, 1, DATE '2024-01-01')",
          "CREATE VIEW shop.recent AS SELECT id FROM shop.orders")


def quickstart() -> list[str]:
    found = re.search(r"<!-- readme-quickstart -->\n```sh\n(.*?)```", README.read_text(
        encoding="utf-8"), re.DOTALL)
    assert found, "the README lost its quick start"
    lines = [line for line in found.group(1).splitlines() if line.strip()]
    assert [line.split()[:2] for line in lines] == [
        ["packata-sql", "init"], ["packata-sql", "lint"], ["packata-sql", "check"]]
    return lines


@pytest.mark.parametrize("engine", ["duckdb", "postgres"])
def test_the_readme_quick_start_runs_verbatim(engine: str, tmp_path: Path,
                                              request: pytest.FixtureRequest) -> None:
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
           "COLUMNS": "120"}
    if engine == "duckdb":
        connection = duckdb.connect(str(tmp_path / "warehouse.duckdb"))
        connection.execute("CREATE SCHEMA shop")
        for statement in TABLES:
            connection.execute(statement)
        connection.close()
        env["DATABASE_URL"] = "duckdb:///warehouse.duckdb"
    else:
        server = request.getfixturevalue("postgres")
        # The schema is named `shop` as in the README: a database of the test's own holds it.
        database = f"packata_quickstart_{uuid.uuid4().hex[:8]}"
        server.execute(f"CREATE DATABASE {database}")
        request.addfinalizer(lambda: server.execute(f"DROP DATABASE IF EXISTS {database} "
                                                    "WITH (FORCE)"))
        admin = server.admin
        import psycopg

        with psycopg.connect(host=admin.host, port=admin.port, user=admin.user,
                             password=admin.password, dbname=database, autocommit=True) as conn:
            conn.execute("CREATE SCHEMA shop")
            for statement in TABLES:
                conn.execute(statement)
            reader = server.reader
            conn.execute(f"GRANT USAGE ON SCHEMA shop TO {reader.user}")
            conn.execute(f"GRANT SELECT ON ALL TABLES IN SCHEMA shop TO {reader.user}")
        env["DATABASE_URL"] = f"postgresql://{reader.user}@{reader.host}:{reader.port}/{database}"
        env["PGPASSWORD"] = reader.password or ""
    init, lint, check = quickstart()
    done = subprocess.run(["bash", "-c", init], capture_output=True, text=True, timeout=180,
                          cwd=tmp_path, env=env)
    assert done.returncode == 0, done.stderr
    assert "wrote shop.yaml (4 object(s): customers, orders, recent, returns)" in done.stderr
    linted = subprocess.run(["bash", "-c", lint], capture_output=True, text=True, timeout=180,
                            cwd=tmp_path, env=env)
    assert linted.returncode == 0 and "shop.yaml: 0 error(s), 0 warning(s)" in linted.stdout
    checked = subprocess.run(["bash", "-c", check], capture_output=True, text=True,
                             timeout=180, cwd=tmp_path, env=env)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert "PASS ·" in checked.stdout and "read-only: enforced" in checked.stdout
    again = subprocess.run(["bash", "-c", check.split("#")[0] + " --format json"],
                           capture_output=True, text=True, timeout=180, cwd=tmp_path, env=env)
    rules = json.loads(again.stdout)["rules"]
    assert {r["status"] for r in rules} == {"passed"}
    assert "schema[customers].primaryKey" in {r["key"] for r in rules}
