"""docs/semantics.md 3: every library metric as a worked example, executed on DuckDB and SQLite."""

from __future__ import annotations

import tempfile
from fractions import Fraction
from pathlib import Path
from textwrap import dedent

import pytest

from packata_sql.contracts.model import Category
from packata_sql.report import Report, RuleResult, Status

HEAD = "apiVersion: v3.1.0\nkind: DataContract\nid: t\nversion: 1.0.0\nstatus: active\n"


def only(report: Report) -> RuleResult:
    assert len(report.results) == 1, report.results
    return report.results[0]


def column_table(values: list[object], kind: str = "text", name: str = "c") -> list[tuple]:
    return [("t", [(name, kind)], [(v,) for v in values])]


# docs/semantics.md 3, rowCount: every row, including rows with NULL fields; empty table → 0.
def test_row_count_counts_rows_with_nulls(engine, check, contract_for):
    contract = contract_for("", object_rules="- metric: rowCount\n  mustBe: 3")
    result = only(check(engine, contract, column_table(["a", None, None])))
    assert (result.status, result.value) == (Status.PASSED, 3)


def test_row_count_of_empty_table_is_zero(engine, check, contract_for):
    contract = contract_for("", object_rules="- metric: rowCount\n  mustBeGreaterThan: 0")
    result = only(check(engine, contract, column_table([])))
    assert (result.status, result.value, result.failed) == (Status.FAILED, 0, ("> 0",))


def test_row_count_percent_is_a_finding(engine, check, contract_for):
    contract = contract_for("", object_rules="- metric: rowCount\n  unit: percent\n  mustBe: 1")
    result = only(check(engine, contract, column_table(["a"])))
    assert result.status is Status.SKIPPED
    assert result.diagnostic.code == "unit-not-supported"


# docs/semantics.md 3, nullValues: SQL NULL only; empty strings and markers are not NULL.
def test_null_values_ignore_empty_strings_and_markers(engine, check, contract_for):
    contract = contract_for("- metric: nullValues\n  mustBe: 2")
    result = only(check(engine, contract, column_table(["", "NULL", "null", None, None, "x"])))
    assert (result.status, result.value) == (Status.PASSED, 2)


def test_null_values_percent_uses_every_row(engine, check, contract_for):
    contract = contract_for("- metric: nullValues\n  unit: percent\n  mustBeLessThan: 10")
    result = only(check(engine, contract, column_table([None, "a", "b"])))
    assert result.status is Status.FAILED
    assert result.value == Fraction(100, 3)
    assert result.evidence == {"numerator": 1, "denominator": 3}


def test_percent_of_empty_table_is_inconclusive(engine, check, contract_for):
    contract = contract_for("- metric: nullValues\n  unit: percent\n  mustBe: 0")
    result = only(check(engine, contract, column_table([])))
    assert result.status is Status.INCONCLUSIVE
    assert result.diagnostic.code == "zero-rows"


# docs/semantics.md 3, missingValues: members of the list; NULL only when the list holds null.
def test_missing_values_count_members_but_not_null_unless_listed(engine, check, contract_for):
    rules = """
    - metric: missingValues
      arguments: {missingValues: ['', 'N/A']}
      mustBe: 2
    - metric: missingValues
      arguments: {missingValues: ['', 'N/A', null]}
      mustBe: 3
    - metric: missingValues
      arguments: {missingValues: []}
      mustBe: 0
    """
    report = check(engine, contract_for(rules), column_table(["", "N/A", None, "n/a", " ", "x"]))
    assert [(r.status, r.value) for r in report.results] == [
        (Status.PASSED, 2), (Status.PASSED, 3), (Status.PASSED, 0)
    ]


def test_missing_values_requires_its_list(engine, check, contract_for):
    result = only(check(engine, contract_for("- metric: missingValues\n  mustBe: 0"),
                        column_table(["a"])))
    assert result.status is Status.SKIPPED
    assert result.diagnostic.code == "missing-argument"


# docs/semantics.md 3.2: text equality is exact: case, accents and trailing spaces matter.
def test_text_membership_is_binary_whatever_the_collation(engine, check, contract_for):
    rules = """
    - metric: invalidValues
      arguments: {validValues: ['a', 'é']}
      mustBe: 0
    """
    values = ["a", "A", "a ", "e", "é", "É"]
    result = only(check(engine, contract_for(rules), column_table(values, "nocase")))
    assert result.value == 4  # A, "a ", e, É


# docs/semantics.md 3.2: 1, 1.0 and "1" are different members; no silent casts.
def test_numeric_member_never_matches_text_cells(engine, check, contract_for):
    rules = """
    - metric: missingValues
      arguments: {missingValues: [1]}
      mustBe: 0
    """
    report = check(engine, contract_for(rules, logical_type="string"),
                   column_table(["1", "1.0", "x"]))
    assert (only(report).status, only(report).value) == (Status.PASSED, 0)  # 1 matches no text
    assert [(f.code, f.level.value) for f in report.findings] == [("member-type-mismatch", "warning")]


def test_text_member_never_matches_number_cells_without_declared_type(engine, check):
    contract = HEAD + dedent("""
    schema:
      - name: t
        properties:
          - name: n
            quality:
              - metric: missingValues
                arguments: {missingValues: ['1', '', null]}
                mustBe: 1
    """)
    result = only(check(engine, contract, column_table([1, 2, None], "int", "n")))
    assert (result.status, result.value) == (Status.PASSED, 1)  # only the NULL


def test_numeric_members_compare_mathematically(engine, check, contract_for):
    rules = """
    - metric: invalidValues
      arguments: {validValues: [1, 2.5]}
      mustBe: 1
    """
    result = only(check(engine, contract_for(rules, column="n", logical_type="number"),
                        column_table([1, 2.5, 1.0, 3], "decimal", "n")))
    assert (result.status, result.value) == (Status.PASSED, 1)


# docs/semantics.md 3, invalidValues: NULL is valid only when validValues holds null and no pattern.
def test_invalid_values_null_handling(engine, check, contract_for):
    rules = """
    - metric: invalidValues
      arguments: {validValues: ['a']}
      mustBe: 2
    - metric: invalidValues
      arguments: {validValues: ['a', null]}
      mustBe: 1
    - metric: invalidValues
      arguments: {validValues: ['a', null], pattern: '^a$'}
      mustBe: 2
    """
    report = check(engine, contract_for(rules), column_table(["a", None, "b"]))
    assert [(r.status, r.value) for r in report.results] == [
        (Status.PASSED, 2), (Status.PASSED, 1), (Status.PASSED, 2)
    ]


# docs/semantics.md 3.3: unanchored search semantics.
def test_pattern_is_a_search_unless_anchored(engine, check, contract_for):
    rules = """
    - metric: invalidValues
      arguments: {pattern: 'b'}
      mustBe: 1
    - metric: invalidValues
      arguments: {pattern: '^b$'}
      mustBe: 3
    """
    report = check(engine, contract_for(rules), column_table(["abc", "b", "xyz", "bb"]))
    assert [(r.status, r.value) for r in report.results] == [(Status.PASSED, 1), (Status.PASSED, 3)]


def test_valid_cell_satisfies_every_criterion(engine, check, contract_for):
    rules = """
    - metric: invalidValues
      arguments: {validValues: ['ab', 'cd'], pattern: '^a'}
      mustBe: 2
    """
    report = check(engine, contract_for(rules), column_table(["ab", "cd", "ax"]))
    assert only(report).value == 2


@pytest.mark.parametrize("pattern,code", [
    ("a" * 201, "unsafe-pattern"),
    ("[unclosed", "unsafe-pattern"),
])
def test_guarded_patterns_are_findings(engine, check, contract_for, pattern, code):
    rules = f"- metric: invalidValues\n  arguments: {{pattern: '{pattern}'}}\n  mustBe: 0"
    result = only(check(engine, contract_for(rules), column_table(["a"])))
    assert result.status is Status.SKIPPED
    assert result.diagnostic.code == code
    assert pattern not in result.diagnostic.message


def test_backtracking_guard_is_per_engine(check, contract_for):
    """RE2 (DuckDB) runs `(a+)+$` at once; a backtracking matcher (MariaDB) is refused it."""
    from packata_sql.contracts.odcs import load_odcs
    from packata_sql.dialects import get_dialect
    from packata_sql.plans.compiler import compile_contract

    rules = "- metric: invalidValues\n  arguments: {pattern: '(a+)+$'}\n  mustBe: 1"
    duck = only(check("duckdb", contract_for(rules), column_table(["a" * 5000 + "!", "aa"])))
    assert (duck.status, duck.value) == (Status.PASSED, 1)
    path = Path(tempfile.mkdtemp()) / "contract.yaml"
    path.write_text(contract_for(rules), encoding="utf-8")
    findings = compile_contract(load_odcs(str(path)), get_dialect("mysql")).findings
    assert [(f.code, "mysql" in f.message) for f in findings] == [("unsafe-pattern", True)]


def test_lookaround_is_unsupported_where_patterns_run_in_re2(engine, check, contract_for):
    """DuckDB and SQLite's REGEXP both run RE2 (SQLite's for linear time)."""
    rules = "- metric: invalidValues\n  arguments: {pattern: 'a(?=b)'}\n  mustBe: 1"
    result = only(check(engine, contract_for(rules), column_table(["ab", "ac"])))
    assert (result.status, result.diagnostic.code) == (Status.SKIPPED, "unsupported-pattern")


# docs/semantics.md 3.3: engines with a linear-time matcher run `.*.*…=` (backtracking ones refuse it as
# polynomial); SQLite's matcher held one 60 kB cell for half an hour when it backtracked. Every
# such engine measures it within --timeout.
def test_patterns_that_pass_the_guard_run_in_linear_time(engine, check, contract_for):
    import time

    rules = ("- metric: invalidValues\n  arguments: {pattern: '.*.*.*.*.*.*.*.*.*.*.*.*='}\n"
             "  mustBe: 1")
    started = time.monotonic()
    result = only(check(engine, contract_for(rules),
                        column_table(["a" * 60_000, "b" * 60_000 + "=", "c="]), timeout_s=10))
    assert (result.status, result.value) == (Status.PASSED, 1)
    assert time.monotonic() - started < 10


def test_pattern_on_declared_non_text_property_is_a_finding(engine, check, contract_for):
    rules = "- metric: invalidValues\n  arguments: {pattern: '^1'}\n  mustBe: 0"
    result = only(check(engine, contract_for(rules, column="n", logical_type="integer"),
                        column_table([1], "int", "n")))
    assert result.diagnostic.code == "pattern-on-non-text"


# docs/semantics.md 3, duplicateValues: excess occurrences, NULL takes part in equality.
def test_duplicates_count_excess_occurrences(engine, check, contract_for):
    contract = contract_for("- metric: duplicateValues\n  mustBe: 3")
    result = only(check(engine, contract, column_table(["A", "A", "A", "B", "B", "C"])))
    assert (result.status, result.value) == (Status.PASSED, 3)


def test_duplicate_nulls_are_one_key(engine, check, contract_for):
    contract = contract_for("- metric: duplicateValues\n  mustBe: 2")
    result = only(check(engine, contract, column_table([None, None, None, "a"])))
    assert (result.status, result.value) == (Status.PASSED, 2)


def test_duplicates_are_case_and_space_exact(engine, check, contract_for):
    contract = contract_for("- metric: duplicateValues\n  mustBe: 1")
    result = only(check(engine, contract, column_table(["a", "A", "a ", "a"], "nocase")))
    assert (result.status, result.value) == (Status.PASSED, 1)


def test_composite_duplicates_on_object(engine, check):
    contract = HEAD + dedent("""
    schema:
      - name: t
        quality:
          - metric: duplicateValues
            arguments: {properties: [a, b]}
            mustBe: 3
          - metric: duplicateValues
            arguments: {properties: [a, b]}
            unit: percent
            mustBe: 50
        properties:
          - {name: a, logicalType: string}
          - {name: b, logicalType: integer}
    """)
    rows = [("x", 1), ("x", 1), ("x", 2), (None, None), (None, None), (None, None)]
    report = check(engine, contract, [("t", [("a", "text"), ("b", "int")], rows)])
    assert [(r.status, r.value) for r in report.results] == [(Status.PASSED, 3), (Status.PASSED, 50)]


def test_composite_duplicates_need_declared_properties(engine, check):
    contract = HEAD + dedent("""
    schema:
      - name: t
        quality:
          - metric: duplicateValues
            arguments: {properties: [a, nope]}
            mustBe: 0
          - metric: duplicateValues
            mustBe: 0
        properties:
          - {name: a}
    """)
    report = check(engine, contract, [("t", [("a", "text")], [("x",)])])
    assert [(r.status, r.diagnostic.code) for r in report.results] == [
        (Status.SKIPPED, "unknown-property"), (Status.SKIPPED, "missing-argument")
    ]


@pytest.mark.parametrize("rule,code", [
    ("- metric: rowCount\n  mustBe: 1", "wrong-scope"),
    ("- metric: fooValues\n  mustBe: 1", "unknown-metric"),
    ("- metric: nullValues\n  arguments: {x: 1}\n  mustBe: 1", "unknown-argument"),
    ("- metric: nullValues\n  unit: bytes\n  mustBe: 1", "unknown-unit"),
    ("- metric: invalidValues\n  mustBe: 1", "missing-argument"),
    ("- metric: invalidValues\n  arguments: {validValues: [[1]]}\n  mustBe: 1", "invalid-argument"),
])
def test_malformed_library_rules_are_skipped_with_findings(engine, check, contract_for, rule, code):
    result = only(check(engine, contract_for(rule), column_table(["a"])))
    assert result.status is Status.SKIPPED
    assert result.diagnostic.code == code


def test_missing_column_is_inconclusive_and_the_rest_still_runs(engine, check, contract_for):
    contract = contract_for("- metric: nullValues\n  mustBe: 0", column="nope",
                            object_rules="- metric: rowCount\n  mustBe: 1")
    report = check(engine, contract, column_table(["a"]))
    assert [(r.status, r.diagnostic.code if r.diagnostic else None) for r in report.results] == [
        (Status.PASSED, None), (Status.INCONCLUSIVE, "missing-column")
    ]


def test_missing_table_is_error(engine, check, contract_for):
    contract = contract_for("- metric: nullValues\n  mustBe: 0", table="absent")
    result = only(check(engine, contract, column_table(["a"])))
    assert (result.status, result.diagnostic.code) == (Status.ERROR, "missing-object")


@pytest.mark.parametrize("name", ['a"b', "a`b", "a]b", "select", "Mixed Case", "naïve", "a.b", "a'b"])
def test_odd_column_and_table_names(engine, check, contract_for, name):
    contract = contract_for("- metric: missingValues\n  arguments: {missingValues: [\"it's\"]}\n"
                            "  mustBe: 1", column=name, table=name)
    report = check(engine, contract, [(name, [(name, "text")], [("it's",), ("x",)])])
    assert (only(report).status, only(report).value) == (Status.PASSED, 1)


def test_fused_scan_runs_every_metric_once_per_object(engine, check, contract_for):
    rules = """
    - metric: nullValues
      mustBe: 1
    - metric: duplicateValues
      mustBe: 1
    - metric: invalidValues
      arguments: {validValues: [a, b]}
      mustBe: 1
    """
    report = check(engine, contract_for(rules, object_rules="- metric: rowCount\n  mustBe: 4"),
                   column_table(["a", "a", None, "b"]))
    assert all(r.status is Status.PASSED for r in report.results), report.results
    assert all(r.fused for r in report.results)


def test_rule_whose_sql_fails_errors_alone(check, contract_for):
    """RE2 refuses repetitions over 1000 that Python accepts: the fused scan fails, each rule
    then runs alone, and only the failing rule ends error."""
    rules = """
    - id: bad
      metric: invalidValues
      arguments: {pattern: 'a{1001}'}
      mustBe: 0
    - id: good
      metric: nullValues
      mustBe: 0
    """
    report = check("duckdb", contract_for(rules), column_table(["a"]))
    results = {r.key: r for r in report.results}
    assert results["bad"].status is Status.ERROR
    assert results["bad"].diagnostic.code == "provider-error"
    assert (results["good"].status, results["good"].fused) == (Status.PASSED, False)


def test_composite_duplicates_on_a_missing_column_are_inconclusive(engine, check):
    contract = HEAD + dedent("""
    schema:
      - name: t
        quality:
          - metric: duplicateValues
            arguments: {properties: [a, b]}
            mustBe: 0
        properties:
          - {name: a}
          - {name: b}
    """)
    report = check(engine, contract, [("t", [("a", "text")], [("x",)])])
    assert (report.results[0].status, report.results[0].diagnostic.code) == (
        Status.INCONCLUSIVE, "missing-column"
    )


def test_duckdb_enum_columns_compare_as_text(tmp_path):
    import duckdb

    from packata_sql.contracts.odcs import load_odcs
    from packata_sql.dialects import get_dialect
    from packata_sql.plans.compiler import compile_contract
    from packata_sql.run.runner import RunOptions, run
    from packata_sql.sessions.endpoint import Endpoint

    database = tmp_path / "enum.duckdb"
    connection = duckdb.connect(str(database))
    connection.execute("CREATE TYPE mood AS ENUM ('ok', 'OK', 'sad')")
    connection.execute("CREATE TABLE t (m mood)")
    connection.execute("INSERT INTO t VALUES ('ok'), ('OK'), ('sad'), (NULL), ('ok')")
    connection.close()
    contract = tmp_path / "c.yaml"
    contract.write_text(
        HEAD + "schema:\n  - name: t\n    properties:\n      - name: m\n        quality:\n"
        "          - {id: valid, metric: invalidValues, arguments: {validValues: [ok]}, mustBe: 3}\n"
        "          - {id: dups, metric: duplicateValues, mustBe: 1}\n", encoding="utf-8")
    loaded = load_odcs(str(contract))
    compiled = compile_contract(loaded, get_dialect("duckdb"), categories=[Category.QUALITY])
    report = run(loaded, compiled, Endpoint("duckdb", str(database)), RunOptions())
    assert {r.key: (r.status, r.value) for r in report.results} == {
        "valid": (Status.PASSED, 3), "dups": (Status.PASSED, 1)
    }
