"""`packata-sql import sql` on the servers: the DDL that built the tables, read in the server's
dialect, gives a contract that lints clean and passes on those tables through the SELECT-only
login, and fails exactly what rows the DDL would refuse break (PostgreSQL, MariaDB; DuckDB in
tests/cli/test_starter_contracts.py). Real program throughout."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

BINARY = str(Path(sys.executable).with_name("packata-sql"))
DDL = """CREATE TABLE {s}imp_customers (
  id integer PRIMARY KEY,
  email varchar(100) NOT NULL UNIQUE
);
CREATE TABLE {s}imp_orders (
  id integer NOT NULL,
  customer_id integer REFERENCES {s}imp_customers (id),
  amount decimal(10,2) CHECK (amount >= 0),
  status varchar(10) CHECK (status IN ('open', 'done')),
  PRIMARY KEY (id)
);
"""
ROWS = ("INSERT INTO {s}imp_customers VALUES (1, 'a@x.org')",
        "INSERT INTO {s}imp_orders VALUES (10, 1, 5.5, 'open'), (11, NULL, NULL, NULL)")
# The same tables without their constraints, holding what the DDL refuses.
LOOSE = ("CREATE TABLE {s}imp_customers (id integer, email varchar(100))",
         "CREATE TABLE {s}imp_orders (id integer, customer_id integer, amount decimal(10,2), "
         "status varchar(10))",
         "INSERT INTO {s}imp_customers VALUES (1, 'a@x.org'), (2, NULL)",
         "INSERT INTO {s}imp_orders VALUES (10, 7, -1, 'lost'), (10, NULL, NULL, NULL)")


def packata(*args: str, cwd: Path, env: dict[str, str]) -> Any:
    return subprocess.run([BINARY, *args], capture_output=True, text=True, timeout=180, cwd=cwd,
                          env={**os.environ, "COLUMNS": "120", **env})


def _schema(server: Any, name: str) -> str:
    """A schema (MariaDB: a database) of the test's own, readable by the SELECT-only login."""
    reader = server.reader.user
    if server.engine == "postgres":
        server.execute(f"DROP SCHEMA IF EXISTS {name} CASCADE", f"CREATE SCHEMA {name}",
                       f"GRANT USAGE ON SCHEMA {name} TO {reader}",
                       f"ALTER DEFAULT PRIVILEGES IN SCHEMA {name} GRANT SELECT ON TABLES "
                       f"TO {reader}")
    else:
        server.execute(f"DROP DATABASE IF EXISTS {name}", f"CREATE DATABASE {name}",
                       f"GRANT SELECT ON {name}.* TO '{reader}'@'%'")
    return name


@pytest.mark.parametrize("engine", ["postgres", "mysql"])
def test_imported_ddl_passes_on_its_tables_and_fails_what_they_refuse(
        engine: str, tmp_path: Path, request: pytest.FixtureRequest) -> None:
    server = request.getfixturevalue(engine)
    base = os.environ.get("PACKATA_TEST_DB", "packata_test")
    good, bad = _schema(server, f"{base}_imp_good"), _schema(server, f"{base}_imp_bad")
    drop = "SCHEMA {} CASCADE" if engine == "postgres" else "DATABASE {}"
    request.addfinalizer(lambda: server.execute(*(f"DROP {drop.format(n)}" for n in (good, bad))))
    for statement in DDL.format(s=f"{good}.").split(";")[:-1]:
        server.execute(statement)
    server.execute(*(r.format(s=f"{good}.") for r in ROWS))
    server.execute(*(r.format(s=f"{bad}.") for r in LOOSE))
    (tmp_path / "shop.sql").write_text(DDL.format(s=""), encoding="utf-8")
    reader = server.reader
    login = {"PACKATA_MAIN_USERNAME": reader.user or "", "PACKATA_MAIN_PASSWORD": reader.password or ""}
    url = f"{server.reader_url}?schema={good}" if engine == "postgres" \
        else server.reader_url.rsplit("/", 1)[0] + f"/{good}"
    done = packata("import", "sql", "shop.sql", "--dialect", engine, "--url", url, "-o",
                   "shop.yaml", cwd=tmp_path, env={})
    assert done.returncode == 0, done.stderr
    assert reader.password is None or reader.password not in \
        (tmp_path / "shop.yaml").read_text(encoding="utf-8")
    linted = packata("lint", "shop.yaml", cwd=tmp_path, env={})
    assert linted.returncode == 0, linted.stdout

    checked = packata("check", "shop.yaml", "--format", "json", "--progress", "none",
                      cwd=tmp_path, env=login)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert {r["status"] for r in json.loads(checked.stdout)["rules"]} == {"passed"}

    elsewhere = f"{server.reader_url}?schema={bad}" if engine == "postgres" \
        else server.reader_url.rsplit("/", 1)[0] + f"/{bad}"
    checked = packata("check", "shop.yaml", "--url", elsewhere, "--format", "json",
                      "--progress", "none", cwd=tmp_path, env={})
    assert checked.returncode == 1, checked.stdout + checked.stderr
    failed = {r["key"]: r["value"] for r in json.loads(checked.stdout)["rules"]
              if r["status"] != "passed"}
    assert failed == {
        "schema[imp_customers].properties[email].required": 1,
        "schema[imp_orders].primaryKey": 1,
        "schema[imp_orders].properties[amount].logicalTypeOptions.minimum": 1,
        "schema[imp_orders].properties[status].quality[0]": 1,
        "schema[imp_orders].properties[customer_id].quality[0]": 1,
    }


# Column types as DBAs write them; every declared physicalType and logicalType must hold on
# the table the DDL builds (serial is an integer NOT NULL; MariaDB's tinyint(1) a boolean).
TYPES = {
    "postgres": "CREATE TABLE {s}imp_types (a serial PRIMARY KEY, b bigserial, c text, "
                "d timestamptz, e varchar, f character varying(20), g numeric, h boolean, "
                "i jsonb, j uuid, k int4, l float8, m timestamp without time zone, "
                "n double precision, o smallint, p date, q time, r bytea, s char(3), "
                "t integer[])",
    "mysql": "CREATE TABLE {s}imp_types (a int(11) NOT NULL AUTO_INCREMENT, b tinyint(1), "
             "c datetime, d enum('x','y'), e text, f json, g int unsigned, h decimal(10,2), "
             "i varchar(20), j bigint, k double, l date, m timestamp NULL, n year, o blob, "
             "p boolean, q mediumtext, r float, s char(2), PRIMARY KEY (a), "
             "UNIQUE KEY uq_i (i), KEY idx_j (j)) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4",
}


@pytest.mark.parametrize("engine", ["postgres", "mysql"])
def test_every_common_column_type_round_trips(engine: str, tmp_path: Path,
                                              request: pytest.FixtureRequest) -> None:
    server = request.getfixturevalue(engine)
    schema = _schema(server, f"{os.environ.get('PACKATA_TEST_DB', 'packata_test')}_imp_types")
    drop = f"SCHEMA {schema} CASCADE" if engine == "postgres" else f"DATABASE {schema}"
    request.addfinalizer(lambda: server.execute(f"DROP {drop}"))
    server.execute(TYPES[engine].format(s=f"{schema}."))
    (tmp_path / "types.sql").write_text(TYPES[engine].format(s="") + ";\n", encoding="utf-8")
    url = f"{server.reader_url}?schema={schema}" if engine == "postgres" \
        else server.reader_url.rsplit("/", 1)[0] + f"/{schema}"
    done = packata("import", "sql", "types.sql", "--dialect", engine, "--url", url, "-o",
                   "types.yaml", cwd=tmp_path, env={})
    assert done.returncode == 0, done.stderr
    [obj] = yaml.safe_load((tmp_path / "types.yaml").read_text(encoding="utf-8"))["schema"]
    assert all("physicalType" in p for p in obj["properties"])
    assert obj["properties"][0]["required"] is True  # serial / AUTO_INCREMENT key: NOT NULL
    assert packata("lint", "types.yaml", cwd=tmp_path, env={}).returncode == 0
    checked = packata("check", "types.yaml", "--url", url, "--format", "json", "--progress",
                      "none", cwd=tmp_path, env={})
    rules = json.loads(checked.stdout)["rules"]
    assert {r["key"]: r["status"] for r in rules if r["status"] != "passed"} == {}
    assert sum(r["kind"] == "logicalType" for r in rules) >= 16
