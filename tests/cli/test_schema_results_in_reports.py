"""Schema-declared constraint results in every report, as a user reads them (the real program
on DuckDB): catalog checks (logicalType, physicalType, presence) carry their object.column,
line, kind and expectation like every other rule; labels name the constraint's kind; a missing
column suggests the closest one; counts read `1 row`; keys wrap only between their parts."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from xml.etree import ElementTree

import duckdb
import pytest

CONTRACT = """\
apiVersion: v3.1.0
kind: DataContract
id: shop
version: 1.0.0
status: active
schema:
  - name: orders
    properties:
      - name: order_id
        logicalType: integer
      - name: emial
        logicalType: string
      - name: email
        logicalType: string
        logicalTypeOptions: {maxLength: 8}
      - name: status
        physicalType: varchar
"""


def packata(*args: str, columns: int = 200) -> subprocess.CompletedProcess[str]:
    environment = {k: v for k, v in os.environ.items() if k != "GITHUB_ACTIONS"}
    return subprocess.run([sys.executable, "-m", "packata_sql", *args, "--progress", "none"],
                          capture_output=True, text=True, timeout=120,
                          env={**environment, "COLUMNS": str(columns)})


@pytest.fixture
def shop(tmp_path: Path) -> list[str]:
    database = tmp_path / "shop.duckdb"
    connection = duckdb.connect(str(database))
    connection.execute("CREATE TABLE orders (order_id INTEGER, email VARCHAR, status VARCHAR)")
    connection.execute("INSERT INTO orders VALUES (1, 'a@x.org', 'new'), "
                       "(2, 'toolong@x.org', 'old')")
    connection.close()
    contract = tmp_path / "orders.yaml"
    contract.write_text(CONTRACT, encoding="utf-8")
    return ["check", str(contract), "--url", f"duckdb:///{database}"]


KEY = "schema[orders].properties[{}].{}"


def test_json_gives_every_constraint_its_target_line_kind_and_expectation(shop):
    rules = {r["key"]: r for r in json.loads(packata(*shop, "--format", "json").stdout)["rules"]}
    assert {k: (r["target"], r["line"], r["kind"], r["expectation"]) for k, r in rules.items()} \
        == {
        KEY.format("order_id", "logicalType"): (
            "orders.order_id", 10, "logicalType", "logicalType integer"),
        KEY.format("emial", "logicalType"): (
            "orders.emial", 12, "logicalType", "logicalType string"),
        KEY.format("email", "logicalType"): (
            "orders.email", 14, "logicalType", "logicalType string"),
        KEY.format("email", "logicalTypeOptions.maxLength"): (
            "orders.email", 15, "maxLength", "= 0"),
        KEY.format("status", "physicalType"): (
            "orders.status", 17, "physicalType", "physicalType varchar"),
    }
    missing = rules[KEY.format("emial", "logicalType")]
    assert missing["failed"] == ["the column emial to exist (did you mean 'email'?)"]


def test_junit_github_and_html_place_catalog_checks_under_their_object(shop, tmp_path):
    suite = ElementTree.fromstring(packata(*shop, "--format", "junit").stdout)
    classnames = {case.get("name"): case.get("classname") for case in suite.iter("testcase")}
    assert classnames[KEY.format("order_id", "logicalType")] == "orders.order_id"
    assert classnames[KEY.format("status", "physicalType")] == "orders.status"
    failure = suite.find(f"testcase[@name='{KEY.format('emial', 'logicalType')}']/failure")
    assert failure is not None and "did you mean 'email'?" in failure.get("message", "")

    github = packata(*shop, "--format", "github").stdout.splitlines()
    missing = next(line for line in github if KEY.format("emial", "logicalType") in line)
    assert missing.startswith("::error file=") and ",line=12," in missing
    assert "title=failed%3A orders.emial · logicalType::" in missing

    html = tmp_path / "r.html"
    packata(*shop, "--output", f"html={html}")
    headings = re.findall(r"<h2>([^<]*)</h2>", html.read_text(encoding="utf-8"))
    assert headings == ["orders"]


def test_table_and_markdown_label_the_kind_and_show_every_expectation(shop):
    table = packata(*shop).stdout
    for label in ("orders.order_id · logicalType", "orders.emial · logicalType",
                  "orders.email · maxLength", "orders.status · physicalType"):
        assert label in table
    assert "· constraint" not in table
    assert "expected logicalType integer" in table  # a passing row
    assert re.search(r"│\s+1 row │", table) and "1 rows" not in table
    markdown = packata(*shop, "--format", "markdown").stdout.replace("\u00a0", " ")
    row = next(line for line in markdown.splitlines() if "orders.status · physicalType" in line)
    assert "| true<br>expected physicalType varchar |" in row
    assert "| orders.email · maxLength<br>" in markdown and "| 1 row<br>expected " in markdown


def test_rule_keys_wrap_only_between_their_parts_at_80_columns(shop):
    """A key too long for its column breaks after a `.` (or before a `[`), never mid-name."""
    table = packata(*shop, columns=80).stdout
    rule_column = [line.split("│")[2].strip() for line in table.splitlines()
                   if line.count("│") == 4]
    wrapped = 0
    for index, cell in enumerate(rule_column):
        if cell.startswith("schema[") and not cell.endswith("]"):
            rest = rule_column[index + 1]
            assert cell.endswith(".") or rest.startswith("["), (cell, rest)
            wrapped += 1
    assert wrapped  # the keys here do not fit at 80 columns
    joined = "".join(rule_column)
    assert KEY.format("email", "logicalTypeOptions.maxLength") in joined
