"""Every typo draws a suggestion and the full list (issue 24.4), through the real
`packata-sql` binary: server types, `--server`, `--select` (and its globs), `--format`,
`--output` kinds, `--category`, dialect names; a YAML syntax error shows line, column and a
snippet with a caret."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import duckdb
import pytest
import yaml

from packata_sql.contracts.odcs_schema import server_types

BINARY = str(Path(sys.executable).with_name("packata-sql"))


def packata(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("CI", "GITHUB_ACTIONS")}
    return subprocess.run([BINARY, *args], capture_output=True, text=True, timeout=120,
                          cwd=cwd, env=env)


def _contract(tmp_path: Path, server_type: str = "duckdb") -> Path:
    database = tmp_path / "shop.duckdb"
    if not database.exists():
        connection = duckdb.connect(str(database))
        connection.execute("CREATE TABLE orders AS SELECT range AS id, 'x' AS status "
                           "FROM range(5)")
        connection.execute("CREATE TABLE customers AS SELECT range AS id FROM range(3)")
        connection.close()
    document = {
        "apiVersion": "v3.1.0", "kind": "DataContract", "id": "shop", "version": "1.0.0",
        "status": "active",
        "servers": [{"server": "production", "type": server_type, "database": str(database)}],
        "schema": [
            {"name": "orders", "quality": [{"id": "orders_rows", "metric": "rowCount",
                                            "mustBeGreaterThan": 0}],
             "properties": [{"name": "id", "quality": [
                 {"id": "order_id_unique", "metric": "duplicateValues", "mustBe": 0}]},
                 {"name": "status", "quality": [
                     {"id": "status_present", "metric": "nullValues", "mustBe": 0}]}]},
            {"name": "customers", "quality": [{"id": "customers_rows", "metric": "rowCount",
                                               "mustBeGreaterThan": 0}]},
        ],
    }
    path = tmp_path / "shop.yaml"
    path.write_text(yaml.safe_dump(document, sort_keys=False), encoding="utf-8")
    return path


def test_a_misspelt_server_type_is_named_with_every_odcs_type(tmp_path):
    contract = _contract(tmp_path, "postgress")
    every = ", ".join(server_types())
    assert every.endswith("custom") and "postgres" in every
    linted = packata("lint", str(contract))
    assert linted.returncode == 3
    assert f"'postgress' is not one of {every}; did you mean 'postgres'?" in linted.stdout
    # The misspelt type is the one problem: not the settings it left "unevaluated".
    assert "Unevaluated" not in linted.stdout
    checked = packata("check", str(contract))
    assert checked.returncode == 3
    assert ("server 'production' has type 'postgress', which ODCS does not define; did you "
            f"mean 'postgres'? (ODCS server types: {every})") in checked.stderr
    named = packata("check", str(contract), "--server", "production")
    assert named.returncode == 3 and "did you mean 'postgres'?" in named.stderr


def test_a_misspelt_server_name_is_suggested_with_the_servers(tmp_path):
    done = packata("check", str(_contract(tmp_path)), "--server", "prodution")
    assert done.returncode == 3
    assert ("the contract has no server named 'prodution'; did you mean 'production'? "
            "(servers: production)") in done.stderr


def test_a_misspelt_rule_key_is_suggested_with_every_key(tmp_path):
    done = packata("check", str(_contract(tmp_path)), "--select", "order_id_uniqe")
    assert done.returncode == 3
    assert "select 'order_id_uniqe' names no rule of the contract; did you mean " \
           "'order_id_unique'?" in done.stderr
    listed = done.stderr.split("(rule keys: ")[1].split(";")[0]
    assert listed.split(", ") == [
        "orders_rows", "order_id_unique", "status_present", "schema[orders].properties[id].present",
        "schema[orders].properties[status].present", "customers_rows"]


def test_a_glob_selects_every_rule_of_an_object(tmp_path):
    done = packata("check", str(_contract(tmp_path)), "--select", "orders.*", "--format",
                   "json", "--progress", "none")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert sorted(r["key"] for r in report["rules"]) == [
        "order_id_unique", "orders_rows", "schema[orders].properties[id].present",
        "schema[orders].properties[status].present", "status_present"]
    by_key = packata("check", str(_contract(tmp_path)), "--select", "*_rows", "--format",
                     "json", "--progress", "none")
    assert sorted(r["key"] for r in json.loads(by_key.stdout)["rules"]) == [
        "customers_rows", "orders_rows"]
    nothing = packata("check", str(_contract(tmp_path)), "--select", "order.*")
    assert nothing.returncode == 3
    assert "select 'order.*' matches no rule of the contract" in nothing.stderr


@pytest.mark.parametrize(("arguments", "says"), [
    (["--format", "html"], "argument --format: invalid choice 'html' (one of: table, json, "
                           "junit, markdown, github); html is written as a file: "
                           "--output html=FILE"),
    (["--format", "jsno"], "invalid choice 'jsno', did you mean 'json'? (one of: table, json, "
                           "junit, markdown, github)"),
    (["--category", "qualty"], "invalid choice 'qualty', did you mean 'quality'? (one of: "
                               "constraint, quality, sla)"),
    (["--output", "htm=report.html"], "--output: unknown report kind 'htm'; did you mean "
                                      "'html'? (one of: json, junit, markdown, html)"),
])
def test_misspelt_kinds_draw_the_closest_and_every_choice(tmp_path, arguments, says):
    done = packata("check", str(_contract(tmp_path)), *arguments)
    assert done.returncode == 3
    assert says in done.stderr
    assert "not shown" not in done.stderr
    assert not (tmp_path / "report.html").exists()


@pytest.mark.parametrize(("dialect", "close"), [("postgress", "postgres"),
                                                ("mariadbb", "mariadb"), ("sparkk", "spark")])
def test_a_misspelt_dialect_is_suggested_with_every_dialect(tmp_path, dialect, close):
    done = packata("compile", str(_contract(tmp_path)), "--dialect", dialect)
    assert done.returncode == 3
    assert (f"unknown dialect '{dialect}'; did you mean '{close}'? (one of: duckdb, sqlite, "
            "postgres, mysql, sqlserver, spark, snowflake, bigquery, trino, databricks)"
            ) in done.stderr


BROKEN = """\
apiVersion: v3.1.0
kind: DataContract
id: shop
schema:
  - name: orders
    properties:
      - name: id
        logicalType: integer: 3
      - name: status
"""


@pytest.mark.parametrize("command", ["lint", "check", "compile"])
def test_a_yaml_error_shows_line_column_and_a_caret(tmp_path, command):
    contract = tmp_path / "broken.yaml"
    contract.write_text(BROKEN, encoding="utf-8")
    done = packata(command, str(contract), *(["--url", "duckdb:///x.duckdb"]
                                             if command == "check" else []))
    assert done.returncode == 3
    lines = done.stderr.splitlines()
    head = next(i for i, line in enumerate(lines) if "not valid YAML" in line)
    assert lines[head].startswith(f"packata-sql: error: {contract}:8:29: not valid YAML")
    assert lines[head + 1:head + 5] == [
        "  7 |       - name: id",
        "  8 |         logicalType: integer: 3",
        "    |                             ^",
        "  9 |       - name: status",
    ]
    caret = lines[head + 3].index("^") - lines[head + 2].index("|")
    assert lines[head + 2][lines[head + 2].index("|") + caret] == ":"
