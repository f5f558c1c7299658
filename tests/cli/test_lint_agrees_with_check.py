"""`lint` and `check` agree on what is an error (issue 14 item 6): what `check` prints before
connecting is a `lint` error at its file:line (issue 19 item 3: printed, and the run goes on
without passing), what `check` runs is no `lint` error, and each problem is printed once.
Real program."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import duckdb

from packata_sql.demo import user_contract

HEAD = "apiVersion: v3.1.0\nkind: DataContract\nid: x\nversion: 1.0.0\nstatus: active\n"


def packata(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "packata_sql", *args], capture_output=True,
                          text=True, timeout=120, env={**os.environ, "COLUMNS": "100"})


def _drift_contract(tmp_path: Path, level: str) -> Path:
    path = tmp_path / "drift.yaml"
    path.write_text(HEAD + textwrap.dedent(f"""\
        schema:
          - name: orders
            properties:
              - name: id
                logicalType: integer
        customProperties:
          - property: schemaDrift
            value:
              order-changed: compatible
              field-removed: {level}
        """), encoding="utf-8")
    return path


def test_an_invalid_drift_override_is_a_lint_error_and_printed_by_check_at_its_line(tmp_path):
    contract = _drift_contract(tmp_path, "compatibel")
    expected = (f"{contract}:15: error invalid-drift-override at "
                "customProperties[0].value.field-removed: schemaDrift: drift classification for "
                "'field-removed' must be compatible, warning or breaking")
    linted = packata("lint", str(contract))
    assert linted.returncode == 3
    assert expected in linted.stdout.splitlines()
    database = tmp_path / "w.duckdb"
    connection = duckdb.connect(str(database))
    connection.execute("CREATE TABLE orders (id INTEGER)")
    connection.close()
    checked = packata("check", str(contract), "--url", f"duckdb:///{database}", "--progress",
                      "none", "--format", "json")
    assert f"packata-sql: {expected}" in checked.stderr.splitlines()
    # The rules run (drift with the valid override), and the finding keeps the run from passing.
    report = json.loads(checked.stdout)
    assert {r["key"]: r["status"] for r in report["rules"]} == {
        "schema[orders].properties[id].logicalType": "passed", "schema[orders].drift": "passed"}
    assert (checked.returncode, report["outcome"]) == (2, "incomplete")


def test_an_unknown_drift_change_names_the_changes(tmp_path):
    contract = tmp_path / "drift.yaml"
    contract.write_text(_drift_contract(tmp_path, "warning").read_text()
                        .replace("order-changed", "order-change"), encoding="utf-8")
    linted = packata("lint", str(contract))
    assert linted.returncode == 3
    assert (f"{contract}:14: error invalid-drift-override at customProperties[0].value."
            "order-change: schemaDrift: unknown drift change 'order-change'; did you mean "
            "'order-changed'? (one of: field-added-nullable,") in linted.stdout


def test_a_valid_drift_override_lints_clean(tmp_path):
    linted = packata("lint", str(_drift_contract(tmp_path, "warning")))
    assert linted.returncode == 0, linted.stdout
    assert "0 error(s), 0 warning(s)" in linted.stdout


def test_the_demo_contract_lints_without_error_and_warns_about_its_text_rule(tmp_path):
    copy = user_contract(tmp_path / "demo-v1.duckdb")  # what `packata-sql demo` writes
    linted = packata("lint", str(copy))
    assert linted.returncode == 0, linted.stdout
    lines = linted.stdout.splitlines()
    assert [line for line in lines if "text-not-executable" in line] == [
        f"{copy}:67: warning text-not-executable at schema[1].quality[1]: a text rule describes "
        "quality; there is nothing to execute"]
    assert lines[-1].startswith(f"{copy}: 0 error(s), 1 warning(s), 18 rule(s)")


def test_each_lint_problem_is_printed_once(tmp_path):
    contract = tmp_path / "bad.yaml"
    contract.write_text(HEAD + textwrap.dedent("""\
        schema:
          - name: orders
            properties:
              - name: id
                logicalType: string
                logicalTypeOptions: 5
        """), encoding="utf-8")
    linted = packata("lint", str(contract))
    assert linted.returncode == 3
    problems = linted.stdout.splitlines()[:-1]
    assert len(problems) == len(set(problems))
    assert f"{contract}:11: error odcs-schema at $.schema[0].properties[0].logicalTypeOptions: " \
           'ODCS 3.1.0 schema: 5 is not of type "object"' in problems
    # check's one-line notice counts each problem once too.
    checked = packata("check", str(contract), "--url", f"duckdb:///{tmp_path / 'absent.duckdb'}",
                      "--progress", "none")
    assert f"lint: {contract}:11: ODCS 3.1.0 schema: 5 is not of type \"object\"; " \
           f"`packata-sql lint {contract}` lists them (the check goes on)" in checked.stderr
