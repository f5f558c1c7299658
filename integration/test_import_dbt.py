"""`packata-sql import dbt target/manifest.json`: a manifest the installed dbt-core wrote for a
small project (models, descriptions, data types, generic, custom and singular tests) becomes a
contract that lints clean and passes on the tables dbt built, on DuckDB and PostgreSQL; rows
that break a dbt test fail the imported rule, and the tests ODCS cannot state are listed, not
dropped. Real dbt, real binary, real engines (docs/cli.md, import dbt)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from .dbt_harness import runner_class

BINARY = Path(sys.executable).with_name("packata-sql")
DBT = Path(sys.executable).with_name("dbt")
PROJECT = "shop_import"
MODELS = {
    "customers.sql": "select * from (values (1, 'Ann'), (2, 'Bob')) as t(id, name)\n",
    "orders.sql": "select * from (values (10, 1, 'open', 5.5), (11, 2, 'done', 7.5), "
                  "(12, null, 'open', 1.0)) as t(id, customer_id, status, amount)\n",
}
SCHEMA_YML = """version: 2
models:
  - name: customers
    description: One row per customer.
    columns:
      - name: id
        description: The customer key.
        data_type: integer
        data_tests: [unique, not_null]
      - name: name
        data_type: {text}
  - name: orders
    columns:
      - name: id
        data_tests: [unique, not_null]
      - name: customer_id
        data_tests:
          - relationships:
              arguments: {{to: "ref('customers')", field: id}}
      - name: status
        data_tests:
          - accepted_values:
              arguments: {{values: ['open', 'done']}}
          - not_null:
              config: {{where: "amount > 0"}}
      - name: amount
        data_tests: [positive]
"""
POSITIVE = ("{% test positive(model, column_name) %}\nselect * from {{ model }} "
            "where {{ column_name }} <= 0\n{% endtest %}\n")
SINGULAR = "select * from {{ ref('orders') }} where amount > 1000\n"


def packata(*args: str, cwd: Path, env: dict[str, str] | None = None) -> Any:
    return subprocess.run([str(BINARY), *args], capture_output=True, text=True, timeout=300,
                          cwd=cwd, env={**os.environ, "COLUMNS": "120", **(env or {})})


def dbt_run(root: Path) -> None:
    """`dbt run` as a user runs it (its own process, so DuckDB's file is free afterwards)."""
    done = subprocess.run([str(DBT), "run", "--project-dir", str(root), "--profiles-dir",
                           str(root)], capture_output=True, text=True, timeout=600,
                          cwd=root)
    assert done.returncode == 0, done.stdout[-3000:]


def project(root: Path, target: str, profile: str) -> None:
    (root / "models").mkdir(parents=True)
    (root / "macros").mkdir()
    (root / "tests").mkdir()
    for name, sql in MODELS.items():
        (root / "models" / name).write_text(sql, encoding="utf-8")
    text = "text" if target == "postgres" else "varchar"
    (root / "models" / "schema.yml").write_text(SCHEMA_YML.format(text=text), encoding="utf-8")
    (root / "macros" / "positive.sql").write_text(POSITIVE, encoding="utf-8")
    (root / "tests" / "no_big_orders.sql").write_text(SINGULAR, encoding="utf-8")
    (root / "dbt_project.yml").write_text(
        f"name: {PROJECT}\nversion: '1.0.0'\nprofile: {PROJECT}\nconfig-version: 2\n"
        f"models:\n  {PROJECT}:\n    +materialized: table\n", encoding="utf-8")
    (root / "profiles.yml").write_text(
        f"{PROJECT}:\n  target: {target}\n  outputs:\n    {target}:\n{profile}", encoding="utf-8")


@pytest.fixture(params=["duckdb", "postgres"])
def built(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[tuple[Path, str, Any]]:
    """The dbt project after `dbt run`; the URL packata-sql reads it through and a function
    that runs SQL on the built tables as their owner."""
    runner_class()  # a missing dbt skips (fails in CI)
    root = tmp_path / "project"
    if request.param == "duckdb":
        database = tmp_path / "shop.duckdb"
        project(root, "duckdb", f"      type: duckdb\n      path: '{database}'\n"
                                "      threads: 1\n")
        dbt_run(root)

        def duck(sql: str) -> None:
            import duckdb

            connection = duckdb.connect(str(database))
            connection.execute(sql)
            connection.close()

        yield root, f"duckdb:///{database}", duck
        return
    server = request.getfixturevalue("postgres")
    admin = server.admin
    schema = f"packata_import_dbt_{uuid.uuid4().hex[:8]}"
    server.execute(f"CREATE SCHEMA {schema}")
    try:
        project(root, "postgres",
                f"      type: postgres\n      host: '{admin.host}'\n      port: {admin.port}\n"
                f"      dbname: '{admin.database}'\n      schema: '{schema}'\n"
                f"      user: '{admin.user}'\n      password: '{admin.password or ''}'\n"
                "      threads: 1\n")
        dbt_run(root)
        reader = server.reader
        server.execute(f"GRANT USAGE ON SCHEMA {schema} TO {reader.user}",
                       f"GRANT SELECT ON ALL TABLES IN SCHEMA {schema} TO {reader.user}")
        yield root, server.reader_url, lambda sql: server.execute(
            sql.replace("orders", f"{schema}.orders"))
    finally:
        server.execute(f"DROP SCHEMA IF EXISTS {schema} CASCADE")


def test_a_dbt_manifest_becomes_a_contract_that_passes_on_what_dbt_built(
        built: tuple[Path, str, Any], tmp_path: Path) -> None:
    root, url, execute = built
    manifest = root / "target" / "manifest.json"
    done = packata("import", "dbt", str(manifest), "--url", url, "-o", "shop.yaml", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    text = (tmp_path / "shop.yaml").read_text(encoding="utf-8")
    document = yaml.safe_load(text)
    assert document["id"] == f"urn:packata-sql:{PROJECT}"
    customers, orders = document["schema"]
    assert customers["name"] == "customers" and customers["description"] == "One row per customer."
    assert customers["properties"][0] == {
        "name": "id", "logicalType": "integer", "physicalType": "integer",
        "description": "The customer key.", "unique": True, "required": True}
    props = {p["name"]: p for p in orders["properties"]}
    assert props["id"] == {"name": "id", "unique": True, "required": True}  # no data_type
    [values] = props["status"]["quality"]
    assert values["arguments"] == {"validValues": ["open", "done", None]}  # NULL passes, as in dbt
    assert "required" not in props["status"]  # its not_null has a `where`
    [reference] = props["customer_id"]["quality"]
    assert reference["type"] == "sql" and "customers" in reference["description"]
    for unread in ("dbt test positive", "its `where` filter", "a singular test"):
        assert unread in done.stderr and unread in text, unread
    linted = packata("lint", "shop.yaml", cwd=tmp_path)
    assert linted.returncode == 0, linted.stdout

    login = {}
    if url.startswith("postgresql"):
        from packata_sql.sessions.endpoint import parse_url

        reader = parse_url(url)
        login = {"PACKATA_MAIN_USERNAME": reader.user or "",
                 "PACKATA_MAIN_PASSWORD": reader.password or ""}
    checked = packata("check", "shop.yaml", "--format", "json", "--progress", "none",
                      cwd=tmp_path, env=login)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    report = json.loads(checked.stdout)
    assert {r["status"] for r in report["rules"]} == {"passed"}

    # An order of no customer, in a status dbt does not accept: the two imported tests fail.
    execute("INSERT INTO orders VALUES (13, 99, 'lost', 2.0)")
    checked = packata("check", "shop.yaml", "--format", "json", "--progress", "none",
                      cwd=tmp_path, env=login)
    assert checked.returncode == 1
    failed = {r["key"]: r["value"] for r in json.loads(checked.stdout)["rules"]
              if r["status"] != "passed"}
    assert failed == {"schema[orders].properties[customer_id].quality[0]": 1,
                      "schema[orders].properties[status].quality[0]": 1}


def test_a_model_glob_and_a_bad_manifest(tmp_path: Path) -> None:
    manifest = tmp_path / "manifest.json"
    manifest.write_text(json.dumps({
        "metadata": {"project_name": "p", "adapter_type": "postgres"},
        "nodes": {f"model.p.{n}": {"resource_type": "model", "package_name": "p", "name": n,
                                   "unique_id": f"model.p.{n}", "schema": "s", "columns": {}}
                  for n in ("stg_orders", "stg_customers", "orders")}}), encoding="utf-8")
    staged = packata("import", "dbt", str(manifest), "--model", "stg_*", cwd=tmp_path)
    assert staged.returncode == 0, staged.stderr
    assert [o["name"] for o in yaml.safe_load(staged.stdout)["schema"]] == [
        "stg_customers", "stg_orders"]
    typo = packata("import", "dbt", str(manifest), "--model", "ordres", cwd=tmp_path)
    assert typo.returncode == 3 and "did you mean 'orders'?" in typo.stderr
    (tmp_path / "broken.json").write_text("{", encoding="utf-8")
    broken = packata("import", "dbt", "broken.json", cwd=tmp_path)
    assert broken.returncode == 3 and "broken.json is not readable JSON" in broken.stderr
    assert "Traceback" not in broken.stderr
