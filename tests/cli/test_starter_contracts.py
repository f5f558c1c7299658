"""`init` with several objects, globs and a whole schema, and `import sql`: the contract says
what the source states, lints clean, passes `check` on the data the source describes and fails
exactly the rules a violating row breaks, on DuckDB. Real program throughout (docs/cli.md,
init and import)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import duckdb
import yaml

DDL = """-- the shop, as a DBA wrote it
CREATE TABLE customers (
  id integer PRIMARY KEY,
  email varchar(100) NOT NULL UNIQUE,
  name text
);

CREATE TABLE orders (
  id integer,
  line integer,
  customer_id integer,
  amount numeric(10,2) CHECK (amount >= 0 AND amount < 10000),
  qty int CHECK (qty BETWEEN 1 AND 99),
  status varchar(10) CHECK (status IN ('open', 'done')),
  created_at timestamp NOT NULL,
  CONSTRAINT sane CHECK (qty < amount + 100),
  UNIQUE (customer_id, created_at),
  PRIMARY KEY (id, line),
  FOREIGN KEY (customer_id) REFERENCES customers (id)
);
CREATE INDEX orders_status ON orders (status);
COMMENT ON COLUMN customers.email IS 'Where receipts go';
CREATE VIEW big_orders AS SELECT id, amount AS total FROM orders WHERE amount > 100;
"""
ROWS = ("INSERT INTO customers VALUES (1, 'a@x.org', 'Ann'), (2, 'b@x.org', NULL)",
        "INSERT INTO orders VALUES (1, 1, 1, 5.5, 3, 'open', '2024-01-01'), "
        "(1, 2, NULL, NULL, NULL, NULL, '2024-01-02'), (2, 1, 2, 200, 99, 'done', '2024-01-03')")


def packata(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "packata_sql", *args], capture_output=True,
                          text=True, timeout=180, cwd=cwd, env={**os.environ, "COLUMNS": "120"})


def warehouse(folder: Path, ddl: str = DDL, rows: tuple[str, ...] = ROWS) -> Path:
    """A DuckDB file built from the DDL itself (DuckDB enforces its CHECKs and keys)."""
    path = folder / "shop.duckdb"
    connection = duckdb.connect(str(path))
    connection.execute(ddl)
    for statement in rows:
        connection.execute(statement)
    connection.close()
    return path


def report(folder: Path, contract: str, *extra: str) -> tuple[int, dict[str, Any]]:
    done = packata("check", contract, "--format", "json", "--progress", "none", *extra, cwd=folder)
    return done.returncode, json.loads(done.stdout)


def test_import_sql_declares_what_the_ddl_states(tmp_path: Path) -> None:
    (tmp_path / "shop.sql").write_text(DDL, encoding="utf-8")
    done = packata("import", "sql", "shop.sql", "--dialect", "postgres", "-o", "c.yaml",
                   cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    document = yaml.safe_load((tmp_path / "c.yaml").read_text(encoding="utf-8"))
    assert "servers" not in document  # no --url: nothing is invented
    customers, orders, view = document["schema"]
    assert [o["name"] for o in document["schema"]] == ["customers", "orders", "big_orders"]
    assert customers["properties"][0] == {"name": "id", "logicalType": "integer",
                                          "physicalType": "INT", "primaryKey": True,
                                          "primaryKeyPosition": 1}
    assert customers["properties"][1] == {"name": "email", "logicalType": "string",
                                          "physicalType": "VARCHAR(100)", "required": True,
                                          "unique": True, "description": "Where receipts go"}
    props = {p["name"]: p for p in orders["properties"]}
    assert [(n, p.get("primaryKeyPosition")) for n, p in props.items() if p.get("primaryKey")] \
        == [("id", 1), ("line", 2)]
    assert props["amount"]["logicalTypeOptions"] == {"minimum": 0, "exclusiveMaximum": 10000}
    assert props["qty"]["logicalTypeOptions"] == {"minimum": 1, "maximum": 99}
    [values] = props["status"]["quality"]
    assert values["metric"] == "invalidValues" and values["mustBe"] == 0
    assert values["arguments"] == {"validValues": ["open", "done", None]}  # NULL passes a CHECK
    [reference] = props["customer_id"]["quality"]
    assert reference["type"] == "sql" and reference["mustBe"] == 0
    assert '"customers" AS parent WHERE parent."id" = child.{property}' in reference["query"]
    assert "unique" not in props["customer_id"] and props["created_at"]["required"] is True
    assert [p["name"] for p in view["properties"]] == ["id", "total"]
    # What has no ODCS equivalent is named on stderr and in the file, never dropped silently.
    assert "not imported: orders: CHECK constraint sane on amount, qty" in done.stderr
    assert "not imported: orders: UNIQUE (customer_id, created_at)" in done.stderr
    assert "# CHECK constraint sane on amount, qty: no ODCS equivalent" in \
        (tmp_path / "c.yaml").read_text(encoding="utf-8")
    linted = packata("lint", "c.yaml", cwd=tmp_path)
    assert linted.returncode == 0 and "c.yaml: 0 error(s), 0 warning(s)" in linted.stdout


def test_an_imported_contract_passes_on_its_source_and_fails_what_a_bad_row_breaks(
        tmp_path: Path) -> None:
    warehouse(tmp_path)
    (tmp_path / "shop.sql").write_text(DDL, encoding="utf-8")
    done = packata("import", "sql", "shop.sql", "--dialect", "duckdb", "--url",
                   "duckdb:///shop.duckdb", "-o", "c.yaml", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert packata("lint", "c.yaml", cwd=tmp_path).returncode == 0
    code, passed = report(tmp_path, "c.yaml")
    assert code == 0 and passed["outcome"] == "pass", passed["summary"]
    assert {r["status"] for r in passed["rules"]} == {"passed"}

    # A second warehouse whose rows the DDL would refuse (built without its constraints).
    bad = tmp_path / "bad"
    bad.mkdir()
    loose = ("CREATE TABLE customers (id integer, email varchar(100), name text); "
             "CREATE TABLE orders (id integer, line integer, customer_id integer, amount "
             "numeric(10,2), qty int, status varchar(10), created_at timestamp); "
             "CREATE VIEW big_orders AS SELECT id, amount AS total FROM orders")
    warehouse(bad, loose, ("INSERT INTO customers VALUES (1, 'a@x.org', 'Ann'), (1, NULL, 'B')",
                           "INSERT INTO orders VALUES (1, 1, 1, -1, 3, 'lost', '2024-01-01'), "
                           "(1, 2, 7, 10000, 0, NULL, '2024-01-02')"))
    code, failed = report(tmp_path, "c.yaml", "--url", "duckdb:///bad/shop.duckdb")
    assert code == 1
    values = {r["key"]: r["value"] for r in failed["rules"] if r["status"] == "failed"}
    assert values == {
        "schema[customers].primaryKey": 1, "schema[customers].properties[email].required": 1,
        "schema[orders].properties[amount].logicalTypeOptions.minimum": 1,
        "schema[orders].properties[amount].logicalTypeOptions.exclusiveMaximum": 1,
        "schema[orders].properties[qty].logicalTypeOptions.minimum": 1,
        "schema[orders].properties[status].quality[0]": 1,  # 'lost'; the NULL passes
        "schema[orders].properties[customer_id].quality[0]": 1,  # 7 has no customer
        # The catalog checks: the loose tables' columns are still the declared types.
    }


def test_bad_ddl_and_a_misspelt_dialect_are_one_clear_line(tmp_path: Path) -> None:
    (tmp_path / "bad.sql").write_text("CREATE TABLE ok (a int);\n\nCREATE TABLE (\n",
                                      encoding="utf-8")
    done = packata("import", "sql", "bad.sql", "--dialect", "postgres", cwd=tmp_path)
    assert done.returncode == 3 and "Traceback" not in done.stderr
    assert done.stderr.startswith("packata-sql: error: bad.sql:3:14: not postgres DDL")
    typo = packata("import", "sql", "bad.sql", "--dialect", "postgress", cwd=tmp_path)
    assert typo.returncode == 3 and "did you mean 'postgres'?" in typo.stderr
    (tmp_path / "none.sql").write_text("SELECT 1;\n", encoding="utf-8")
    empty = packata("import", "sql", "none.sql", "--dialect", "duckdb", cwd=tmp_path)
    assert empty.returncode == 3 and "no CREATE TABLE or CREATE VIEW in none.sql" in empty.stderr


def test_init_takes_several_objects_globs_and_a_whole_schema(tmp_path: Path) -> None:
    database = warehouse(tmp_path)
    connection = duckdb.connect(str(database))
    connection.execute("CREATE TABLE order_notes (id integer)")  # empty
    connection.execute("CREATE SCHEMA other; CREATE TABLE other.elsewhere (x integer)")
    connection.close()
    url = "duckdb:///shop.duckdb"

    several = packata("init", "--url", url, "--object", "customers", "--object", "order*",
                      "-o", "several.yaml", cwd=tmp_path)
    assert several.returncode == 0, several.stderr
    document = yaml.safe_load((tmp_path / "several.yaml").read_text(encoding="utf-8"))
    assert [o["name"] for o in document["schema"]] == ["customers", "order_notes", "orders"]
    by_name = {o["name"]: o for o in document["schema"]}
    assert by_name["orders"]["quality"] == [{"metric": "rowCount", "mustBeGreaterThan": 0}]
    assert "quality" not in by_name["order_notes"]  # empty: rowCount > 0 would fail
    assert "# no rowCount rule: the object was empty when read" in \
        (tmp_path / "several.yaml").read_text(encoding="utf-8")

    whole = packata("init", "--url", url, "--schema", "main", "-o", "whole.yaml", cwd=tmp_path)
    assert whole.returncode == 0, whole.stderr
    document = yaml.safe_load((tmp_path / "whole.yaml").read_text(encoding="utf-8"))
    assert [o["name"] for o in document["schema"]] == [
        "big_orders", "customers", "order_notes", "orders"]  # tables and the view
    assert document["servers"][0]["schema"] == "main"
    other = packata("init", "--url", url, "--schema", "other", cwd=tmp_path)
    assert other.returncode == 0 and "- name: elsewhere" in other.stdout

    for contract in ("several.yaml", "whole.yaml"):
        assert packata("lint", contract, cwd=tmp_path).returncode == 0
        code, checked = report(tmp_path, contract)
        assert code == 0 and {r["status"] for r in checked["rules"]} == {"passed"}, contract


def test_init_never_drops_an_object_silently(tmp_path: Path) -> None:
    warehouse(tmp_path)
    url = "duckdb:///shop.duckdb"
    typo = packata("init", "--url", url, "--object", "customers", "--object", "ordres",
                   "-o", "c.yaml", cwd=tmp_path)
    assert typo.returncode == 3 and "cannot read the columns of ordres" in typo.stderr
    assert "did you mean 'orders'?" in typo.stderr and not (tmp_path / "c.yaml").exists()
    glob = packata("init", "--url", url, "--object", "zz*", cwd=tmp_path)
    assert glob.returncode == 3 and "matches 'zz*'" in glob.stderr and "customers" in glob.stderr
    nothing = packata("init", "--url", url, cwd=tmp_path)
    assert nothing.returncode == 3 and "--object NAME" in nothing.stderr
