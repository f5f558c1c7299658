"""`packata-sql demo` and `packata-sql compile`, as a user runs them."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from packata_sql.demo import contract_path
from packata_sql.dialects import get_dialect


def run(*args: str, env: dict[str, str] | None = None,
        cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "packata_sql", *args], capture_output=True,
                          text=True, timeout=300, env=env, cwd=cwd)


def test_demo_builds_a_warehouse_and_reports_passes_failures_and_a_warning(tmp_path):
    env = {**os.environ, "PACKATA_SQL_CACHE": str(tmp_path)}
    done = run("demo", "--format", "json", env=env)
    assert done.returncode == 1, done.stderr
    assert list(tmp_path.glob("demo-v*.duckdb"))
    report = json.loads(done.stdout)
    statuses = {r["key"]: (r["status"], r["severity"]) for r in report["rules"]}
    assert statuses["email_well_formed"] == ("failed", "error")
    assert statuses["order_id_unique"] == ("failed", "error")
    assert statuses["country_known"] == ("failed", "warning")
    assert statuses["customers_row_count"] == ("passed", "error")
    assert statuses["orders_description"][0] == "skipped"
    assert report["read_only"] == "enforced"
    assert sum(1 for status, _ in statuses.values() if status == "passed") >= 5
    table = run("demo", env=env)
    assert "(warning)" in table.stdout and "expected = 0" in table.stdout


def test_compile_prints_plans_and_findings_without_a_database(tmp_path):
    # Where `demo` would build its warehouse, and the working directory: both stay empty.
    cache, work = tmp_path / "cache", tmp_path / "work"
    cache.mkdir()
    work.mkdir()
    done = run("compile", str(contract_path()), "--dialect", "duckdb",
               env={**os.environ, "PACKATA_SQL_CACHE": str(cache)}, cwd=work)
    assert done.returncode == 0, done.stderr
    plan = json.loads(done.stdout)
    assert plan["format"] == "packata-sql/plan@1"
    assert [scan["object"] for scan in plan["scans"]] == [["customers"], ["orders"]]
    rules = {r["key"]: r for r in plan["rules"]}
    assert rules["email_well_formed"]["sql"].startswith("SELECT")
    assert "regexp_matches" in rules["email_well_formed"]["sql"].lower()
    assert rules["orders_description"]["status"] == "skipped"
    assert rules["orders_description"]["finding"] == "text-not-executable"
    assert all(r["parameters"] == [] for r in plan["rules"])
    assert list(cache.iterdir()) == [] and list(work.iterdir()) == []


def test_compile_shows_bound_sql_and_parameter_names(tmp_path):
    contract = tmp_path / "c.yaml"
    contract.write_text(
        "apiVersion: v3.1.0\nkind: DataContract\nid: x\nversion: 1.0.0\nstatus: active\n"
        "schema:\n  - name: t\n    physicalName: 'my t'\n    properties:\n      - name: c\n"
        "        quality:\n          - type: sql\n"
        "            query: \"SELECT COUNT(*) FROM {object} WHERE {property} LIKE 'a%' AND x = {param:p}\"\n"
        "            mustBe: 0\n", encoding="utf-8")
    for dialect, sql in [
        ("postgres", "SELECT COUNT(*) FROM \"my t\" WHERE \"c\" LIKE 'a%%' AND x = %s"),
        ("mysql", "SELECT COUNT(*) FROM `my t` WHERE `c` LIKE 'a%%' AND x = %s"),
        ("sqlserver", "SELECT COUNT(*) FROM [my t] WHERE [c] LIKE 'a%' AND x = ?"),
    ]:
        done = run("compile", str(contract), "--dialect", dialect)
        rule = json.loads(done.stdout)["rules"][0]
        assert (rule["sql"], rule["parameters"]) == (sql, ["p"])


SERVERS = """\
servers:
  - {server: warehouse, type: snowflake, account: a, database: DB, schema: MART}
  - {server: prod, type: postgres, host: db.example, database: shop, schema: Sales}
  - {server: lake, type: spark, host: spark.example, catalog: main, schema: bronze}
"""


def test_compile_prepends_the_declared_schema_as_check_does(tmp_path):
    """The schema a run on the contract's server of that dialect reads in: `{object}` and
    `{schema}` bind to it and the scan reads it, as in `check` (no
    schema-placeholder-without-schema)."""
    contract = tmp_path / "c.yaml"
    contract.write_text(
        "apiVersion: v3.1.0\nkind: DataContract\nid: x\nversion: 1.0.0\nstatus: active\n"
        + SERVERS + "schema:\n  - name: t\n    quality:\n"
        "      - {id: rows, metric: rowCount, mustBe: 1}\n"
        "      - {id: q, type: sql, query: 'SELECT COUNT(*) FROM {schema}.u JOIN {object} ON 1 = 1',"
        " mustBe: 0}\n", encoding="utf-8")
    for dialect, schema in [("postgres", '"Sales"'), ("spark", "`main`.`bronze`"),
                            ("databricks", "`main`.`bronze`"), ("snowflake", '"MART"'),
                            ("duckdb", None)]:
        done = run("compile", str(contract), "--dialect", dialect, "--format", "json")
        assert done.returncode == 0, done.stderr
        plan = json.loads(done.stdout)
        rules = {r["key"]: r for r in plan["rules"]}
        if schema is None:  # no server of that dialect: nothing to prepend, as in check
            assert rules["q"]["finding"] == "schema-placeholder-without-schema"
            assert plan["scans"][0]["object"] == ["t"]
            continue
        table = get_dialect(dialect).quote_identifier("t")
        assert f"FROM {schema}.{table}" in rules["rows"]["sql"], dialect
        if dialect == "snowflake":  # compiled only: no authored SQL
            assert [f["code"] for f in plan["findings"]] == ["dialect-not-supported"]
            continue
        assert plan["findings"] == [], dialect
        assert rules["q"]["sql"] == f"SELECT COUNT(*) FROM {schema}.u JOIN {schema}.{table} ON 1 = 1"
    first = json.loads(run("compile", str(contract), "--format", "json").stdout)
    assert first["dialect"] == "snowflake"
    assert first["scans"][0]["object"] == ["MART", "t"]


def test_check_takes_typed_parameters(tmp_path):
    import duckdb

    database = tmp_path / "w.duckdb"
    connection = duckdb.connect(str(database))
    connection.execute("CREATE TABLE t AS SELECT 5 AS c")
    connection.close()
    contract = tmp_path / "c.yaml"
    contract.write_text(
        "apiVersion: v3.1.0\nkind: DataContract\nid: x\nversion: 1.0.0\nstatus: active\n"
        "schema:\n  - name: t\n    quality:\n      - type: sql\n"
        "        query: SELECT COUNT(*) FROM {object} WHERE c = {param:n}\n        mustBe: 1\n",
        encoding="utf-8")
    url = f"duckdb:///{database}"
    assert run("check", str(contract), "--url", url, "--param", "n=5").returncode == 0
    assert run("check", str(contract), "--url", url, "--param", "n:int=4").returncode == 1
    bad = run("check", str(contract), "--url", url, "--param", "n:int=five")
    assert bad.returncode == 3 and "five" not in bad.stderr
    missing = run("check", str(contract), "--url", url, "--format", "json")
    assert json.loads(missing.stdout)["rules"][0]["diagnostic"]["code"] == "missing-parameter"


def test_demo_ends_with_a_next_command_that_works(tmp_path):
    """The command the demo prints is copied and run as printed (PATH without the venv)."""
    import shlex

    env = {**os.environ, "PACKATA_SQL_CACHE": str(tmp_path), "PATH": "/usr/bin:/bin"}
    done = run("demo", env=env)
    assert done.returncode == 1
    assert "packata-sql exits 1 here: failures of severity error" in done.stdout
    lines = done.stdout.splitlines()
    command = lines[lines.index("Next, check the same contract yourself:") + 1].strip()
    assert str(tmp_path / "demo-contract.yaml") in command
    again = subprocess.run([*shlex.split(command), "--format", "json"], capture_output=True,
                           text=True, timeout=300, env=env)
    assert again.returncode == 1, again.stderr
    report = json.loads(again.stdout)
    assert report["target"] == f"duckdb:{tmp_path / 'demo-v1.duckdb'}"
    assert {r["key"]: r["status"] for r in report["rules"]}["order_id_unique"] == "failed"
