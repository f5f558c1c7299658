"""A typo or an invalid value in a constraint declaration never lets `check` pass (issue 11
item 1, issue 14 item 1), as misspelt metrics and bad operands do not: a misspelt constraint or
option key is printed before connecting, with file:line and the right spelling, and skips its
rule (issue 19 item 3: a finding, not a refusal); an invalid value skips its rule too; the
other rules run and the run ends incomplete (exit 2). Real program, DuckDB."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import duckdb

HEAD = "apiVersion: v3.1.0\nkind: DataContract\nid: x\nversion: 1.0.0\nstatus: active\n"
VALID = """\
- name: id
  logicalType: integer
  required: true
  primaryKey: true
  primaryKeyPosition: 1
- name: email
  logicalType: string
  logicalTypeOptions: {maxLength: 20}
"""


def packata(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "packata_sql", *args], capture_output=True,
                          text=True, timeout=120, cwd=cwd, env={**os.environ, "COLUMNS": "100"})


def contract(tmp_path: Path, properties: str) -> Path:
    database = tmp_path / "w.duckdb"
    if not database.exists():
        connection = duckdb.connect(str(database))
        connection.execute("CREATE TABLE orders (id INTEGER NOT NULL, email VARCHAR)")
        connection.execute("INSERT INTO orders VALUES (1, 'a@x.org'), (2, NULL)")
        connection.close()
    path = tmp_path / "c.yaml"
    path.write_text(HEAD + "servers:\n  - {server: w, type: duckdb, database: w.duckdb}\n"
                    "schema:\n  - name: orders\n    properties:\n"
                    + textwrap.indent(properties, "      "), encoding="utf-8")
    return path


def test_the_valid_declarations_pass(tmp_path):
    contract(tmp_path, VALID)
    done = packata("check", "c.yaml", "--format", "json", cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert json.loads(done.stdout)["outcome"] == "pass"


def test_invalid_values_skip_their_rules_and_the_run_is_incomplete(tmp_path):
    contract(tmp_path, VALID.replace("required: true", 'required: "yes"')
             .replace("primaryKeyPosition: 1", "primaryKeyPosition: one")
             .replace("{maxLength: 20}", "5"))
    done = packata("check", "c.yaml", "--format", "json", "--progress", "none", cwd=tmp_path)
    assert done.returncode == 2, done.stdout + done.stderr
    report = json.loads(done.stdout)
    assert (report["outcome"], report["complete"]) == ("incomplete", False)
    skipped = {r["key"]: r["diagnostic"]["code"] for r in report["rules"]
               if r["status"] == "skipped"}
    p = "schema[orders].properties"
    assert skipped == {f"{p}[id].required": "invalid-constraint",
                       f"{p}[id].primaryKeyPosition": "invalid-constraint",
                       f"{p}[email].logicalTypeOptions": "invalid-constraint"}
    findings = {f["rule_key"]: (f["line"], f["source_path"], f["level"])
                for f in report["findings"] if f["code"] == "invalid-constraint"}
    assert findings == {
        f"{p}[id].required": (13, "schema[0].properties[0].required", "error"),
        f"{p}[id].primaryKeyPosition": (15, "schema[0].properties[0].primaryKeyPosition", "error"),
        f"{p}[email].logicalTypeOptions": (18, "schema[0].properties[1].logicalTypeOptions",
                                           "error"),
    }
    # Each skipped rule is named by what it declares, not by a placeholder kind.
    kinds = {r["key"]: r["kind"] for r in report["rules"] if r["status"] == "skipped"}
    assert kinds == {f"{p}[id].required": "required",
                     f"{p}[id].primaryKeyPosition": "primaryKeyPosition",
                     f"{p}[email].logicalTypeOptions": "logicalTypeOptions"}
    table = packata("check", "c.yaml", "--progress", "none", cwd=tmp_path)
    assert table.returncode == 2 and "INCOMPLETE" in table.stdout
    assert "orders.id · required" in table.stdout and "· invalid" not in table.stdout


def test_misspelt_constraint_and_option_keys_are_printed_first_and_skip_their_rules(tmp_path):
    path = contract(tmp_path, VALID.replace("required:", "requird:").replace("maxLength", "maxLenght"))
    done = packata("check", "c.yaml", "--progress", "none", "--format", "json", cwd=tmp_path)
    assert done.returncode == 2, done.stdout + done.stderr
    assert done.stderr.splitlines()[:2] == [
        "packata-sql: c.yaml:13: error unknown-constraint-key at "
        "schema[0].properties[0].requird: unknown key 'requird'; did you mean 'required'? "
        "(the constraint is not checked)",
        "packata-sql: c.yaml:18: error unknown-option at schema[0].properties[1]."
        "logicalTypeOptions.maxLenght: 'maxLenght' is not a logicalTypeOptions key; did you "
        "mean 'maxLength'?"]
    report = json.loads(done.stdout)
    p = "schema[orders].properties"
    statuses = {r["key"]: (r["status"], (r["diagnostic"] or {}).get("code"))
                for r in report["rules"]}
    assert statuses == {
        f"{p}[id].logicalType": ("passed", None),
        f"{p}[id].requird": ("skipped", "unknown-constraint-key"),
        f"{p}[email].logicalType": ("passed", None),
        f"{p}[email].logicalTypeOptions.maxLenght": ("skipped", "unknown-option"),
        "schema[orders].primaryKey": ("passed", None),
    }
    assert report["outcome"] == "incomplete"
    linted = packata("lint", path.name, cwd=tmp_path)
    assert linted.returncode == 3
    assert "c.yaml:13: error unknown-constraint-key" in linted.stdout
    assert "c.yaml:18: error unknown-option" in linted.stdout
    # compile plans the same contract and lists the same findings, with the same lines.
    compiled = packata("compile", path.name, "--dialect", "duckdb", "--format", "json",
                       cwd=tmp_path)
    assert compiled.returncode == 0, compiled.stderr
    assert compiled.stderr.splitlines()[:2] == done.stderr.splitlines()[:2]
    plan = json.loads(compiled.stdout)
    assert {(f["code"], f["line"]) for f in plan["findings"]} >= {
        ("unknown-constraint-key", 13), ("unknown-option", 18)}
