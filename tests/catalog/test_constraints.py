"""Schema constraints as worked examples, executed on DuckDB and SQLite (docs/formats.md "Constraints")."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from packata_sql.contracts.model import Category
from packata_sql.report import Report, Status

HEAD = "apiVersion: v3.1.0\nkind: DataContract\nid: t\nversion: 1.0.0\nstatus: active\n"
CONSTRAINTS = (Category.CONSTRAINT,)


def schema(properties: str) -> str:
    return HEAD + "schema:\n  - name: t\n    properties:\n" + properties


def outcome(report: Report) -> dict[str, tuple[Status, object]]:
    return {r.key.removeprefix("schema[t]."): (r.status, r.value) for r in report.results}


def test_primary_key_counts_null_keys_and_excess_rows(engine, check):
    contract = schema("      - {name: id, primaryKey: true}\n")
    report = check(engine, contract, [("t", [("id", "int")], [(1,), (1,), (None,), (2,), (1,)])],
                   categories=CONSTRAINTS)
    assert outcome(report)["primaryKey"] == (Status.FAILED, 3)  # NULL, and 1 twice more


def test_unique_nulls_do_not_collide_and_text_is_exact(engine, check):
    contract = schema("      - {name: c, logicalType: string, unique: true, required: true}\n")
    rows = [(None,), (None,), ("a",), ("a",), ("A",), ("a ",), ("",)]
    report = check(engine, contract, [("t", [("c", "nocase")], rows)], categories=CONSTRAINTS)
    assert outcome(report) == {
        "properties[c].logicalType": (Status.PASSED, True),
        "properties[c].required": (Status.FAILED, 2),
        "properties[c].unique": (Status.FAILED, 1),
    }


def test_lengths_count_characters_and_trailing_spaces(engine, check):
    contract = schema("      - name: c\n        logicalType: string\n"
                      "        logicalTypeOptions: {minLength: 3, maxLength: 3}\n")
    rows = [("ab ",), ("ab",), ("naï",), ("☃☃☃☃",), (None,), ("",)]
    report = check(engine, contract, [("t", [("c", "text")], rows)], categories=CONSTRAINTS)
    assert outcome(report)["properties[c].logicalTypeOptions.minLength"] == (Status.FAILED, 2)
    assert outcome(report)["properties[c].logicalTypeOptions.maxLength"] == (Status.FAILED, 1)


def test_bounds_inclusive_exclusive_and_the_boolean_form(engine, check):
    contract = schema(
        "      - name: n\n        logicalType: number\n"
        "        logicalTypeOptions: {minimum: 1, exclusiveMinimum: true, maximum: 3}\n"
        "      - name: m\n        logicalType: number\n"
        "        logicalTypeOptions: {exclusiveMaximum: 2.5}\n")
    rows = [(1, 2.5), (2, 2.4), (3, 3), (4, None), (None, -1)]
    report = check(engine, contract, [("t", [("n", "decimal"), ("m", "decimal")], rows)],
                   categories=CONSTRAINTS)
    got = outcome(report)
    assert got["properties[n].logicalTypeOptions.minimum"] == (Status.FAILED, 1)  # 1 (exclusive)
    assert got["properties[n].logicalTypeOptions.maximum"] == (Status.FAILED, 1)  # 4
    assert got["properties[m].logicalTypeOptions.exclusiveMaximum"] == (Status.FAILED, 2)


def test_sqlite_text_in_a_number_column_violates_a_bound(check):
    contract = schema("      - name: n\n        logicalType: integer\n"
                      "        logicalTypeOptions: {minimum: 0}\n")
    report = check("sqlite", contract, [("t", [("n", "int")], [(1,), ("x",), (-2,)])],
                   categories=CONSTRAINTS)
    assert outcome(report)["properties[n].logicalTypeOptions.minimum"] == (Status.FAILED, 2)


def test_catalog_checks_type_presence_and_physical_type(check):
    contract = schema(
        "      - {name: i, logicalType: integer, physicalType: BIGINT}\n"
        "      - {name: s, logicalType: integer, physicalType: 'varchar'}\n"
        "      - {name: gone, required: true}\n"
        "      - {name: d, logicalType: date}\n")
    tables = [("t", [("i", "int"), ("s", "text"), ("d", "date")], [(1, "x", "2024-01-01")])]
    report = check("duckdb", contract, tables, categories=CONSTRAINTS)
    got = outcome(report)
    assert got["properties[i].logicalType"] == (Status.PASSED, True)
    assert got["properties[i].physicalType"] == (Status.PASSED, True)
    assert got["properties[s].logicalType"] == (Status.FAILED, False)
    assert got["properties[s].physicalType"] == (Status.PASSED, True)  # VARCHAR any length
    assert got["properties[gone].present"] == (Status.FAILED, False)
    assert got["properties[gone].required"][0] is Status.INCONCLUSIVE  # missing-column
    assert got["properties[d].logicalType"] == (Status.PASSED, True)
    failed = next(r for r in report.results if r.key.endswith("[s].logicalType")).failed
    assert failed == ("a type compatible with logicalType integer (found VARCHAR)",)


def test_options_on_a_column_of_another_type_are_inconclusive(check):
    contract = schema("      - name: c\n        logicalTypeOptions: {maxLength: 2}\n")
    report = check("duckdb", contract, [("t", [("c", "int")], [(123,)])], categories=CONSTRAINTS)
    result = next(r for r in report.results if r.key.endswith("maxLength"))
    assert (result.status, result.diagnostic.code) == (Status.INCONCLUSIVE, "type-mismatch")


@pytest.mark.parametrize("category, expected", [
    ("constraint", ["schema[people].properties[name].present",
                    "schema[people].properties[name].required"]),
    ("quality", ["q"]),
])
def test_category_selects_and_reports_keep_it(tmp_path, category, expected):
    import duckdb

    database = tmp_path / "w.duckdb"
    connection = duckdb.connect(str(database))
    connection.execute("CREATE TABLE people AS SELECT 'a' AS name")
    connection.close()
    contract = tmp_path / "c.yaml"
    contract.write_text(HEAD + "schema:\n  - name: people\n    properties:\n"
                        "      - name: name\n        required: true\n"
                        "        quality: [{id: q, metric: nullValues, mustBe: 0}]\n")
    done = subprocess.run([sys.executable, "-m", "packata_sql", "check", str(contract), "--url",
                           f"duckdb:///{database}", "--format", "json", "--category", category],
                          capture_output=True, text=True, timeout=120)
    rules = json.loads(done.stdout)["rules"]
    assert [r["key"] for r in rules] == expected
    assert {r["category"] for r in rules} == {category}
    assert done.returncode == 0


def test_compile_lists_catalog_checks_without_sql(tmp_path):
    contract = tmp_path / "c.yaml"
    contract.write_text(HEAD + "schema:\n  - name: t\n    properties:\n"
                        "      - {name: a, logicalType: string, required: true}\n")
    done = subprocess.run([sys.executable, "-m", "packata_sql", "compile", str(contract),
                           "--dialect", "postgres"], capture_output=True, text=True, timeout=120)
    plan = json.loads(done.stdout)
    rules = {r["key"]: r for r in plan["rules"]}
    assert rules["schema[t].properties[a].logicalType"]["sql"] is None
    assert rules["schema[t].properties[a].logicalType"]["metric"] == "logicalType"
    assert plan["scans"][0]["rules"] == ["schema[t].properties[a].required"]
    done = subprocess.run([sys.executable, "-m", "packata_sql", "compile", str(contract),
                           "--dialect", "postgres", "--category", "quality"],
                          capture_output=True, text=True, timeout=120)
    assert json.loads(done.stdout)["rules"] == []


def test_reports_count_constraint_and_quality_apart(check):
    from packata_sql.render import render

    contract = schema("      - name: c\n        required: true\n"
                      "        quality: [{id: q, metric: nullValues, mustBe: 0}]\n")
    report = check("duckdb", contract, [("t", [("c", "text")], [(None,)])], categories=None)
    assert report.summary_by_category() == {
        "constraint": {"passed": 1, "failed": 1, "error": 0, "inconclusive": 0, "skipped": 0},
        "quality": {"passed": 0, "failed": 1, "error": 0, "inconclusive": 0, "skipped": 0},
    }
    assert json.loads(render(report, "json", color=False))["summary_by_category"] == \
        report.summary_by_category()
    table = render(report, "table", color=False)
    assert "constraint: 1 passed, 1 failed" in table and "quality: 1 failed" in table


def test_unknown_logical_type_checks_presence_with_a_warning(check):
    contract = schema("      - {name: c, logicalType: decimal}\n      - {name: gone, logicalType: text}\n")
    report = check("duckdb", contract, [("t", [("c", "int")], [(1,)])], categories=CONSTRAINTS)
    assert outcome(report) == {"properties[c].logicalType": (Status.PASSED, True),
                               "properties[gone].logicalType": (Status.FAILED, False)}
    assert [(f.code, f.level.value) for f in report.findings] == [
        ("constraint-not-checkable", "warning")] * 2
    assert report.complete


@pytest.mark.parametrize("dialect", ["duckdb", "sqlite", "postgres", "mysql"])
def test_portable_formats_pass_every_live_engines_pattern_guard(dialect):
    from packata_sql.catalog.constraints import PORTABLE_FORMATS
    from packata_sql.catalog.metrics import engine_pattern_findings
    from packata_sql.catalog.patterns import pattern_problem
    from packata_sql.contracts.model import Site
    from packata_sql.dialects import get_dialect

    for pattern in PORTABLE_FORMATS.values():
        assert pattern_problem(pattern) is None
        assert engine_pattern_findings(pattern, get_dialect(dialect), Site("f")) == []


def test_odcs_32_enum_counts_values_outside_the_list(engine, check):
    contract = schema("      - name: n\n        logicalType: integer\n"
                      "        enum: [{value: 1, label: one}, {value: 2}]\n"
                      "      - name: s\n        enum: {value: 1}\n")
    report = check(engine, contract, [("t", [("n", "int"), ("s", "text")],
                                       [(1, "a"), (2, "a"), (3, "a"), (None, "a")])],
                   categories=CONSTRAINTS)
    assert outcome(report)["properties[n].enum"] == (Status.FAILED, 1)  # 3; NULL is not judged
    # An enum that is not a list is skipped with its finding, not dropped.
    assert outcome(report)["properties[s].enum"] == (Status.SKIPPED, None)
    assert [f.code for f in report.findings if f.code == "invalid-constraint"] == \
        ["invalid-constraint"]
