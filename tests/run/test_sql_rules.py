"""docs/semantics.md 4: authored SQL rules on DuckDB and SQLite, end to end through the runner."""

from __future__ import annotations

import datetime
import re
from decimal import Decimal
from fractions import Fraction

import pytest
import yaml

from packata_sql.report import Status

TABLE = [("orders", [("amount", "decimal"), ("note", "text")],
          [(10, "it's"), (-5, "{property}"), (None, "x")])]


def sql_rule(query: str, on_property: bool = True, **keys: object) -> str:
    """A contract with one SQL rule, declared on property `amount` or on the object."""
    rule = {"type": "sql", "query": query, **keys}
    obj: dict[str, object] = {"name": "orders"}
    if on_property:
        obj["properties"] = [{"name": "amount", "logicalType": "number", "quality": [rule]}]
    else:
        obj["quality"] = [rule]
    return yaml.safe_dump({"apiVersion": "v3.1.0", "kind": "DataContract", "id": "t",
                           "version": "1.0.0", "status": "active", "schema": [obj]})


def one(report):
    assert len(report.results) == 1
    return report.results[0]


def test_sql_rule_measures_and_compares(engine, check):
    contract = sql_rule("SELECT COUNT(*) FROM {object} WHERE {property} < 0",
                        mustBe=0)
    result = one(check(engine, contract, TABLE))
    assert (result.status, result.value, result.failed) == (Status.FAILED, 1, ("= 0",))


def test_placeholders_in_literals_are_kept(engine, check):
    contract = sql_rule("SELECT COUNT(*) FROM {object} WHERE note = '{property}' OR note = 'it''s'",
                        mustBe=2)
    assert one(check(engine, contract, TABLE)).status is Status.PASSED


@pytest.mark.parametrize("query,code", [
    ("SELECT COUNT(*), 1 FROM {object}", "several-columns"),
    ("SELECT amount FROM {object}", "several-rows"),
    ("SELECT amount FROM {object} WHERE 1 = 0", "no-rows"),
    ("SELECT MAX(amount) FROM {object} WHERE amount > 100", "null-result"),
    ("SELECT 'five'", "not-a-number"),
    ("SELECT CAST('NaN' AS DOUBLE)", "not-a-number"),
])
def test_single_cell_violations_are_inconclusive(engine, check, query, code):
    if engine == "sqlite" and "NaN" in query:
        query = "SELECT 1e999 - 1e999"  # SQLite's way to a NaN (it returns NULL)
        code = "null-result"
    result = one(check(engine, sql_rule(query, mustBe=0), TABLE))
    assert (result.status, result.diagnostic.code) == (Status.INCONCLUSIVE, code)


@pytest.mark.parametrize("query,code", [
    ("SELECT 1; SELECT 2", "several-statements"),
    ("SELECT 'open", "unterminated-string"),
    ("SELECT {nope}", "unknown-placeholder"),
])
def test_lexical_problems_are_findings(engine, check, query, code):
    result = one(check(engine, sql_rule(query, mustBe=0), TABLE))
    assert (result.status, result.diagnostic.code) == (Status.SKIPPED, code)


def test_property_placeholder_on_object_rule_is_a_finding(engine, check):
    contract = sql_rule("SELECT COUNT({property}) FROM {object}", on_property=False, mustBe=0)
    result = one(check(engine, contract, TABLE))
    assert (result.status, result.diagnostic.code) == (Status.SKIPPED,
                                                      "property-placeholder-without-property")


def test_parameters_bind_through_the_driver(engine, check):
    contract = sql_rule("SELECT COUNT(*) FROM {object} WHERE note = {param:wanted} "
                        "OR {property} > {param:limit}",
                        mustBe=2)
    report = check(engine, contract, TABLE, parameters={"wanted": "it's", "limit": Decimal("-6")})
    assert one(report).status is Status.PASSED
    assert (one(report).value) == 2


def test_missing_parameter_is_a_finding(engine, check):
    contract = sql_rule("SELECT COUNT(*) FROM {object} WHERE note = {param:wanted}",
                        mustBe=0)
    result = one(check(engine, contract, TABLE))
    assert (result.status, result.diagnostic.code) == (Status.SKIPPED, "missing-parameter")


def test_boolean_result_defaults_to_true(check):
    contract = sql_rule("SELECT COUNT(*) = 3 FROM {object}")
    assert one(check("duckdb", contract, TABLE)).status is Status.PASSED


def test_numeric_result_without_expectation_is_inconclusive(engine, check):
    result = one(check(engine, sql_rule("SELECT COUNT(*) FROM {object}"), TABLE))
    assert (result.status, result.diagnostic.code) == (Status.INCONCLUSIVE, "no-expectation")


def test_unit_is_a_label_only(engine, check):
    contract = sql_rule("SELECT 25", unit="percent", mustBe=25)
    result = one(check(engine, contract, TABLE))
    assert (result.status, result.value, result.unit) == (Status.PASSED, Fraction(25), "percent")


def test_writes_in_sql_rules_end_in_error(engine, check):
    contract = sql_rule("DELETE FROM {object}", mustBe=0)
    result = one(check(engine, contract, TABLE))
    assert result.status is Status.ERROR
    assert result.diagnostic.code == "permission-denied"


def test_provider_failure_is_error_without_the_message(engine, check):
    result = one(check(engine, sql_rule("SELECT no_such_column FROM {object}",
                                        mustBe=0), TABLE))
    assert result.status is Status.ERROR
    assert "no_such_column" not in result.diagnostic.message


def test_date_parameter(check):
    contract = sql_rule("SELECT CASE WHEN {param:day} = DATE '2024-02-29' THEN 1 ELSE 0 END",
                        mustBe=1)
    report = check("duckdb", contract, TABLE, parameters={"day": datetime.date(2024, 2, 29)})
    assert one(report).status is Status.PASSED


MAILS = [("people", [("email", "text")],
          [("jane.doe@example.com",), ("max.mustermann@example.org",), ("x@y.io",)])]
# The e-mails' first code points and lengths, three digits each, packed into one number of
# 39 digits (HUGEINT's most): a server engine's NUMERIC takes every character of a table.
PACKED_MAILS = ("SELECT CAST('10' || left(string_agg(lpad(CAST(unicode(email) AS VARCHAR), 3, '0') "
                "|| lpad(CAST(length(email) AS VARCHAR), 3, '0'), '') || repeat('7', 37), 37) "
                "AS HUGEINT) FROM {object}")


@pytest.mark.parametrize("query", [
    PACKED_MAILS,
    "SELECT CAST(170141183460469231731687303715884105727 AS HUGEINT)",
    "SELECT CAST(1 || repeat('0', 38) AS HUGEINT) + SUM(length(email)) FROM {object}",
])
def test_values_beyond_any_measurement_are_inconclusive_and_never_shown(check, query):
    """An authored rule could spell a table's rows as one number (docs/semantics.md 4.4): a value
    beyond 38 significant digits is `value-out-of-range` and no report format shows it."""
    from packata_sql.render import FORMATS, render

    contract = yaml.safe_load(sql_rule(query, on_property=False, mustBe=0))
    contract["schema"][0]["name"] = "people"
    report = check("duckdb", yaml.safe_dump(contract), MAILS)
    result = one(report)
    assert (result.status, result.diagnostic.code) == (Status.INCONCLUSIVE, "value-out-of-range")
    assert (result.value, result.evidence) == (None, {})
    for fmt in FORMATS:
        assert re.search(r"\d{20}", render(report, fmt)) is None, fmt


@pytest.mark.parametrize("query,expected", [
    ("SELECT 9223372036854775807", Fraction(9223372036854775807)),
    ("SELECT -9223372036854775807", Fraction(-9223372036854775807)),
    ("SELECT 1.7976931348623157e308", Fraction(Decimal("1.7976931348623157e308"))),
    ("SELECT 5e-324", Fraction(Decimal("5e-324"))),
    ("SELECT 0.1", Fraction(1, 10)),
])
def test_the_largest_measurements_stay_measured(engine, check, query, expected):
    result = one(check(engine, sql_rule(query, mustBeGreaterThan=-10**30), TABLE))
    assert (result.status, result.value) == (Status.PASSED, expected)


def test_thirty_eight_digits_stay_measured(check):
    query = "SELECT CAST('99999999999999999999999999999999999999' AS DECIMAL(38, 0)) / 10**30"
    result = one(check("duckdb", sql_rule(query, mustBeGreaterThan=0), TABLE))
    assert result.status is Status.PASSED
