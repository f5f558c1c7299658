"""`doctor` explains the login and checks every declared object and column; `--url` keeps the
server's schema; `init` writes a starter contract that lints clean and checks. Real program."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import duckdb

HEAD = "apiVersion: v3.1.0\nkind: DataContract\nid: x\nversion: 1.0.0\nstatus: active\n"


def packata(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "packata_sql", *args], capture_output=True,
                          text=True, timeout=120, env={**os.environ, **(env or {})})


def shop(tmp_path: Path, schema: str | None = None) -> Path:
    database = tmp_path / "shop.duckdb"
    connection = duckdb.connect(str(database))
    if schema:
        connection.execute(f"CREATE SCHEMA {schema}")
    table = f"{schema}.people" if schema else "people"
    connection.execute(f"CREATE TABLE {table} AS SELECT 'ann' AS name, 'a@x' AS email, 3 AS age")
    connection.close()
    return database


def test_doctor_checks_every_object_and_column_with_the_closest_name(tmp_path):
    database = shop(tmp_path)
    contract = tmp_path / "c.yaml"
    contract.write_text(HEAD + f"""servers:
  - server: local
    type: duckdb
    database: {database}
schema:
  - name: people
    properties:
      - name: name
      - name: emial
  - name: peple
""", encoding="utf-8")
    done = packata("doctor", str(contract))
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert "login: none (a database file, opened read-only)" in lines
    assert "object people: present, 1 of 2 declared columns found" in lines
    assert "  missing: no column 'emial'; did you mean 'email'?" in lines
    assert "object peple: missing (no object 'peple'; did you mean 'people'?)" in lines


def test_doctor_says_where_the_login_came_from_never_the_password(tmp_path):
    contract = tmp_path / "c.yaml"
    contract.write_text(HEAD + """servers:
  - server: prod
    type: postgres
    host: 127.0.0.1
    port: 1
    database: shop
schema:
  - name: people
""", encoding="utf-8")
    secret = "s3cr3t_SENTINEL"
    done = packata("doctor", str(contract), env={"PACKATA_PROD_USERNAME": "alice",
                                                 "PACKATA_PROD_PASSWORD": secret})
    assert "login: alice, from the environment variable PACKATA_PROD_USERNAME" in done.stdout
    assert "password: from PACKATA_PROD_PASSWORD" in done.stdout
    assert "connection: failed (connection-refused)" in done.stdout
    assert secret not in done.stdout + done.stderr
    bare = packata("doctor", "--url", "postgresql://127.0.0.1:1/shop",
                   env={"PACKATA_PROD_USERNAME": ""})
    assert "from libpq's default: PGUSER, else the operating-system user" in bare.stdout


def test_url_keeps_the_servers_schema(tmp_path):
    database = shop(tmp_path, schema="sales")
    contract = tmp_path / "c.yaml"
    contract.write_text(HEAD + """servers:
  - server: prod
    type: duckdb
    database: elsewhere.duckdb
    schema: sales
schema:
  - name: people
    quality:
      - {metric: rowCount, mustBe: 1}
""", encoding="utf-8")
    done = packata("check", str(contract), "--url", f"duckdb:///{database}", "--format", "json")
    assert done.returncode == 0, done.stdout
    assert '"schema": "sales"' in done.stdout


def test_init_writes_a_starter_contract_that_lints_and_checks(tmp_path):
    database = shop(tmp_path)
    target = tmp_path / "people.yaml"
    done = packata("init", "--url", f"duckdb:///{database}", "--object", "people", "-o", str(target))
    assert done.returncode == 0, done.stderr
    text = target.read_text()
    assert "- name: email\n    logicalType: string" in text
    assert "- name: age\n    logicalType: integer\n    physicalType: INTEGER" in text
    assert packata("lint", str(target)).returncode == 0
    checked = packata("check", str(target), "--progress", "none")
    assert checked.returncode == 0 and "PASS" in checked.stdout
    again = packata("init", "--url", f"duckdb:///{database}", "--object", "people", "-o", str(target))
    assert again.returncode == 3 and "never overwrites" in again.stderr
    typo = packata("init", "--url", f"duckdb:///{database}", "--object", "peopel")
    assert typo.returncode == 3 and "did you mean 'people'?" in typo.stderr
