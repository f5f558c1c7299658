"""Findings, not refusals (issue 19 items 3-5, docs/semantics.md 1.2-1.3): an unknown metric, operator
or key skips its rule (or keeps the run from passing when it names no rule), every other rule
runs, and the exit code says incomplete (2) or fail (1); only a file that cannot be parsed is
a usage error (3). Other tools' spellings of ODCS 3 keys are read, with an info finding that
changes nothing. The real program on DuckDB."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import duckdb
import pytest

HEAD = "apiVersion: {version}\nkind: DataContract\nid: x\nversion: 1.0.0\nstatus: active\n"
BODY = """\
servers:
  - {server: w, type: duckdb, database: w.duckdb}
schema:
  - name: orders
    quality:
      - {id: counted, metric: rowCount, mustBe: 3}
      - {id: EXTRA, metric: rowCount, mustBe: 3}
    properties:
      - name: id
        logicalType: integer
        required: true
"""


def packata(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "packata_sql", *args], capture_output=True,
                          text=True, timeout=120, cwd=cwd, env={**os.environ, "COLUMNS": "100"})


@pytest.fixture
def write(tmp_path: Path) -> Any:
    connection = duckdb.connect(str(tmp_path / "w.duckdb"))
    connection.execute("CREATE TABLE orders (id INTEGER, status VARCHAR)")
    connection.execute("INSERT INTO orders VALUES (1, 'new'), (2, 'new'), (3, NULL)")
    connection.close()

    def make(body: str, version: str = "v3.1.0") -> Path:
        path = tmp_path / "c.yaml"
        path.write_text(HEAD.format(version=version) + body, encoding="utf-8")
        return path
    return make


def check(path: Path) -> tuple[int, dict[str, Any], str]:
    done = packata("check", path.name, "--format", "json", "--progress", "none", cwd=path.parent)
    return done.returncode, json.loads(done.stdout), done.stderr


def statuses(report: dict[str, Any]) -> dict[str, tuple[str, str | None]]:
    return {r["key"]: (r["status"], (r["diagnostic"] or {}).get("code"))
            for r in report["rules"]}


def test_the_valid_contract_passes(write):
    code, report, _ = check(write(BODY))
    assert (code, report["outcome"]) == (0, "pass")


def test_an_unknown_metric_skips_its_rule_and_the_others_run_exit_2(write):
    path = write(BODY.replace("{id: EXTRA, metric: rowCount", "{id: EXTRA, metric: rowCounts"))
    code, report, stderr = check(path)
    assert (code, report["outcome"]) == (2, "incomplete")
    assert statuses(report) == {
        "counted": ("passed", None), "EXTRA": ("skipped", "unknown-metric"),
        "schema[orders].properties[id].logicalType": ("passed", None),
        "schema[orders].properties[id].required": ("passed", None)}
    assert stderr.splitlines()[0] == (
        "packata-sql: c.yaml:12: error unknown-metric at schema[0].quality[1]: 'rowCounts' is "
        "not a metric of catalog odcs 3.2.0; did you mean 'rowCount'?")


def test_an_error_severity_failure_beside_a_finding_fails_the_run_exit_1(write):
    path = write(BODY.replace("{id: EXTRA, metric: rowCount", "{id: EXTRA, metric: rowCounts")
                 .replace("mustBe: 3}\n      - {id: EXTRA", "mustBe: 4}\n      - {id: EXTRA"))
    code, report, _ = check(path)
    assert (code, report["outcome"]) == (1, "fail")
    assert statuses(report)["counted"] == ("failed", None)
    assert statuses(report)["EXTRA"] == ("skipped", "unknown-metric")


def test_only_a_file_that_cannot_be_parsed_is_a_usage_error_exit_3(write):
    path = write(BODY.replace("schema:", "schema: [unclosed", 1))
    done = packata("check", path.name, "--progress", "none", cwd=path.parent)
    assert done.returncode == 3 and "Traceback" not in done.stderr
    assert "c.yaml" in done.stderr


def test_an_unknown_key_on_an_object_names_no_rule_and_keeps_the_run_from_passing(write):
    code, report, stderr = check(write(BODY.replace("    quality:\n", "    colour: blue\n"
                                                    "    quality:\n", 1)))
    assert (code, report["outcome"]) == (2, "incomplete")
    assert {s for s, _ in statuses(report).values()} == {"passed"}
    assert [(f["code"], f["level"], f["rule_key"], f["line"]) for f in report["findings"]] == [
        ("unknown-key", "error", None, 10)]
    assert "c.yaml:10: error unknown-key at schema[0]: unknown key 'colour'" in stderr


def test_rules_under_a_misspelt_quality_key_are_read_and_skipped(write):
    code, report, _ = check(write(BODY.replace("    quality:\n", "    qualty:\n", 1)))
    assert (code, report["outcome"]) == (2, "incomplete")
    assert statuses(report) == {
        "counted": ("skipped", "unknown-key"), "EXTRA": ("skipped", "unknown-key"),
        "schema[orders].properties[id].logicalType": ("passed", None),
        "schema[orders].properties[id].required": ("passed", None)}
    skipped = next(f for f in report["findings"] if f["rule_key"] == "counted")
    assert (skipped["source_path"], skipped["line"]) == ("schema[0].qualty[0]", 11)
    assert "did you mean 'quality'?" in skipped["message"]


def test_constraints_under_a_misspelt_properties_key_are_read_and_skipped(write):
    code, report, _ = check(write(BODY.replace("    properties:\n", "    propertes:\n", 1)))
    assert (code, report["outcome"]) == (2, "incomplete")
    found = statuses(report)
    assert found["schema[orders].properties[id].required"] == ("skipped", "unknown-key")
    assert found["counted"] == ("passed", None)


def test_other_tools_spellings_are_read_as_odcs_3_keys_with_info_findings(write):
    body = BODY.replace("        required: true\n", "        isNullable: false\n"
                        "        isUnique: true\n        isPrimaryKey: true\n")
    code, report, _ = check(write(body))
    assert (code, report["outcome"]) == (0, "pass")  # info findings change nothing
    p = "schema[orders].properties[id]"
    assert {k: v for k, v in statuses(report).items() if k.startswith("schema")} == {
        f"{p}.logicalType": ("passed", None), f"{p}.required": ("passed", None),
        f"{p}.unique": ("passed", None), "schema[orders].primaryKey": ("passed", None)}
    assert [(f["code"], f["level"], f["line"], f["message"]) for f in report["findings"]] == [
        ("other-spelling", "info", 16, "'isNullable: false' is read as ODCS 3 'required: true'"),
        ("other-spelling", "info", 17, "'isUnique: true' is read as ODCS 3 'unique: true'"),
        ("other-spelling", "info", 18,
         "'isPrimaryKey: true' is read as ODCS 3 'primaryKey: true'")]
    lines = {r["key"]: r["line"] for r in report["rules"]}
    assert (lines[f"{p}.required"], lines[f"{p}.unique"]) == (16, 17)


def test_a_misspelt_other_spelling_is_a_finding_with_the_right_one(write):
    code, report, _ = check(write(BODY.replace("        required: true\n",
                                               "        isUniqe: true\n")))
    assert code == 2
    assert statuses(report)["schema[orders].properties[id].isUniqe"] == (
        "skipped", "unknown-constraint-key")
    finding = next(f for f in report["findings"] if f["code"] == "unknown-constraint-key")
    assert "did you mean 'isUnique'?" in finding["message"]


def test_an_unsupported_api_version_is_measured_as_odcs_32_and_cannot_pass(write):
    code, report, stderr = check(write(BODY, version="v3.9.0"))
    assert (code, report["outcome"]) == (2, "incomplete")
    assert {s for s, _ in statuses(report).values()} == {"passed"}
    assert [(f["code"], f["line"], f["rule_key"]) for f in report["findings"]] == [
        ("catalog-version-mismatch", 1, None)]
    assert "c.yaml:1: error catalog-version-mismatch" in stderr
    assert "catalog odcs 3.2.0" in report["findings"][0]["message"]
    for version in ("v3.0.0", "3.0.2", "v3.1.0", "v3.2.0"):
        code, _, _ = check(write(BODY, version=version))
        assert code == 0, version


def test_two_rules_with_one_id_are_both_measured_under_their_source_paths(write):
    code, report, stderr = check(write(BODY.replace("{id: EXTRA", "{id: counted")))
    assert (code, report["outcome"]) == (2, "incomplete")
    assert {k: v for k, v in statuses(report).items() if "quality" in k} == {
        "schema[0].quality[0]": ("passed", None), "schema[0].quality[1]": ("passed", None)}
    assert [(f["code"], f["line"]) for f in report["findings"]] == [("duplicate-id", 11)]
    assert "c.yaml:11: error duplicate-id" in stderr


def test_compile_lists_the_findings_and_plans_the_other_rules(write):
    path = write(BODY.replace("{id: EXTRA, metric: rowCount", "{id: EXTRA, metric: rowCounts"))
    done = packata("compile", path.name, "--dialect", "duckdb", "--format", "json",
                   cwd=path.parent)
    assert done.returncode == 0, done.stderr
    assert "c.yaml:12: error unknown-metric" in done.stderr.splitlines()[0]
    plan = json.loads(done.stdout)
    assert [(f["code"], f["rule_key"], f["line"]) for f in plan["findings"]] == [
        ("unknown-metric", "EXTRA", 12)]
    table = packata("compile", path.name, "--dialect", "duckdb", "--format", "sql",
                    cwd=path.parent)
    assert table.returncode == 0 and "unknown-metric" in table.stdout


def test_lint_still_exits_3_on_any_of_them(write):
    path = write(BODY.replace("    quality:\n", "    colour: blue\n    quality:\n", 1),
                 version="v3.9.0")
    done = packata("lint", path.name, cwd=path.parent)
    assert done.returncode == 3
    assert "c.yaml:1: error catalog-version-mismatch" in done.stdout
    assert "c.yaml:10: error unknown-key" in done.stdout


def test_a_misspelt_unit_skips_its_rule_with_the_right_spelling(write):
    body = BODY + ("        quality:\n          - {id: nulls, metric: nullValues, unit: percnt, "
                   "mustBeLessThan: 5}\n")
    code, report, stderr = check(write(body))
    assert (code, statuses(report)["nulls"]) == (2, ("skipped", "unknown-unit"))
    assert ("c.yaml:18: error unknown-unit at schema[0].properties[0].quality[0]: 'unit' must "
            "be 'rows' or 'percent', not 'percnt'; did you mean 'percent'?") in stderr


def test_odcs_30_rule_names_stay_accepted_and_min_check_is_no_metric(write):
    """ODCS 3.0.2's `rule` examples (duplicateCount, validValues, rowCount) are measured;
    `minCheck` is in no ODCS version: a finding on its rule only."""
    body = BODY.replace("{id: EXTRA, metric: rowCount, mustBe: 3}",
                        "{id: EXTRA, rule: minCheck, mustBe: 3}") \
        .replace("{id: counted, metric: rowCount", "{id: counted, rule: rowCount") + (
        "        quality:\n"
        "          - {id: dups, rule: duplicateCount, mustBe: 0}\n"
        "      - name: status\n"
        "        quality:\n"
        "          - {id: known, rule: validValues, validValues: [new, null], mustBe: 0}\n")
    code, report, _ = check(write(body, version="v3.0.2"))
    assert code == 2
    found = statuses(report)
    assert {k: found[k] for k in ("counted", "dups", "known", "EXTRA")} == {
        "counted": ("passed", None), "dups": ("passed", None), "known": ("passed", None),
        "EXTRA": ("skipped", "unknown-metric")}
