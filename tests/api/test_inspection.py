"""The API's calls without a run (issue 21: every frontend command is one API call): `lint`,
`Plans.document`, `doctor`, `snapshot`, `parse_parameters`, each against a real DuckDB file
and compared with what the real CLI prints."""

from __future__ import annotations

import json
import subprocess
import sys
from decimal import Decimal
from pathlib import Path

import duckdb
import pytest

from packata_sql import api
from packata_sql.errors import UsageError

CONTRACT = """\
apiVersion: v3.1.0
kind: DataContract
id: inspect-orders
version: 1.0.0
status: active
schema:
  - name: orders
    properties:
      - name: id
        logicalType: integer
        quality:
          - {metric: nullValues, mustBe: 0}
          - {metric: nullValuez, mustBe: 0}
      - name: amuont
        logicalType: number
    quality:
      - {metric: rowCount, mustBeGreaterThan: 0}
"""


@pytest.fixture()
def warehouse(tmp_path: Path) -> tuple[Path, str]:
    path = tmp_path / "w.duckdb"
    with duckdb.connect(str(path)) as con:
        con.execute("CREATE TABLE orders (id INTEGER NOT NULL PRIMARY KEY, amount DECIMAL(10,2))")
        con.execute("INSERT INTO orders VALUES (1, 2.50), (2, NULL)")
    contract = tmp_path / "orders.yaml"
    contract.write_text(CONTRACT, encoding="utf-8")
    return contract, f"duckdb:///{path}"


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "packata_sql", *args], capture_output=True,
                          text=True, timeout=120)


def test_lint_returns_the_problems_the_cli_prints(warehouse: tuple[Path, str]) -> None:
    contract, _ = warehouse
    linted = api.lint(contract)
    misspelt = [p for p in linted.problems if p.code == "unknown-metric"]
    assert [(p.line, p.level) for p in misspelt] == [(13, "error")]
    assert "nullValues" in misspelt[0].message  # the closest spelling
    assert linted.executable == len(linted.contract.rules) - 1  # all but the misspelt one
    printed = _cli("lint", str(contract))
    assert printed.returncode == 3
    assert f"{contract}:13: error unknown-metric" in printed.stdout
    assert printed.stdout.count(": error ") + printed.stdout.count(": warning ") \
        == len(linted.problems)


def test_the_plan_document_is_what_compile_prints(warehouse: tuple[Path, str]) -> None:
    contract, _ = warehouse
    plans = api.compile(api.load(contract), "duckdb")
    printed = _cli("compile", str(contract), "--dialect", "duckdb", "--format", "json")
    assert printed.returncode == 0, printed.stderr
    assert json.loads(printed.stdout) == json.loads(json.dumps(plans.document()))
    assert plans.document()["format"] == "packata-sql/plan@1"
    assert len(plans.document()["scans"]) == 1  # one fused scan for the object


def test_doctor_reads_the_level_and_finds_what_is_missing(warehouse: tuple[Path, str]) -> None:
    contract, url = warehouse
    found = api.doctor(api.load(contract), url)
    assert found.connection is None
    assert found.level == "enforced"
    assert found.login == ("login: none (a database file, opened read-only)",)
    assert found.presence[0] == "object orders: present, 1 of 2 declared columns found"
    assert "did you mean 'amount'" in found.presence[1]
    printed = _cli("doctor", str(contract), "--url", url)
    assert printed.returncode == 0, printed.stderr
    assert "read-only level: enforced" in printed.stdout
    assert found.presence[1] in printed.stdout


def test_doctor_says_why_a_connection_failed(tmp_path: Path) -> None:
    found = api.doctor(None, f"duckdb:///{tmp_path / 'absent.duckdb'}")
    assert found.connection is not None and found.connection.startswith("failed (")
    assert found.level is None and found.presence == ()


def test_snapshot_lists_the_live_columns(warehouse: tuple[Path, str]) -> None:
    _, url = warehouse
    document = json.loads(api.snapshot(url, ["orders"]))
    columns = {c["name"]: c for o in document["objects"] for c in o["fields"]}
    assert set(columns) == {"id", "amount"}
    assert columns["id"]["nullable"] is False
    assert api.snapshot(url, ["orders"]) == _cli("schema", "snapshot", "--url", url,
                                                 "--object", "orders").stdout
    with pytest.raises(UsageError, match="did you mean 'orders'"):
        api.snapshot(url, ["ordres"])


def test_parse_parameters_types_values_and_refuses_a_bad_one() -> None:
    assert api.parse_parameters(["n:int=3", "d:decimal=2.50", "s=abc"]) == {
        "n": 3, "d": Decimal("2.50"), "s": "abc"}
    with pytest.raises(UsageError, match="has no '='"):
        api.parse_parameters(["secret"])
