"""docs/semantics.md 2: operators, validation, verdicts and failure guidance."""

from __future__ import annotations

from decimal import Decimal
from fractions import Fraction

import pytest

from packata_sql.contracts.expectations import parse_expectations, verdict
from packata_sql.contracts.model import Level, Operator, Site

SITE = Site("schema[0].quality[0]", "k", 3)


def parse(declaration: dict, inclusive: bool = False):
    return parse_expectations(declaration, SITE, inclusive_between=inclusive)


def judge(declaration: dict, value, inclusive: bool = False):
    expectations, findings = parse(declaration, inclusive)
    assert not [f for f in findings if f.level is Level.ERROR], findings
    return verdict(expectations, value)


# 2.1 every operator, camel and snake spellings.
@pytest.mark.parametrize("camel,snake,operand,passing,failing", [
    ("mustBe", "must_be", 5, 5, 6),
    ("mustNotBe", "must_not_be", 5, 6, 5),
    ("mustBeGreaterThan", "must_be_greater_than", 5, 6, 5),
    ("mustBeGreaterOrEqualTo", "must_be_greater_or_equal_to", 5, 5, 4),
    ("mustBeLessThan", "must_be_less_than", 5, 4, 5),
    ("mustBeLessOrEqualTo", "must_be_less_or_equal_to", 5, 5, 6),
])
def test_operators_in_both_spellings(camel, snake, operand, passing, failing):
    for key in (camel, snake):
        assert judge({key: operand}, Fraction(passing)).status == "passed"
        assert judge({key: operand}, Fraction(failing)).status == "failed"


def test_equivalent_spellings_collapse_to_one():
    expectations, findings = parse({"mustBe": 1, "must_be": Decimal("1.0")})
    assert len(expectations) == 1 and findings == []


def test_different_operands_for_one_operator_are_a_finding():
    _, findings = parse({"mustBeLessThan": 1, "must_be_less_than": 2})
    assert [f.code for f in findings] == ["conflicting-operands"]
    assert "1" not in findings[0].message.replace("mustBeLessThan", "")


def test_null_means_unset():
    expectations, findings = parse({"mustBe": None, "mustBeLessThan": 3})
    assert [e.operator for e in expectations] == [Operator.LT] and findings == []


# 2.2 ODCS between is exclusive; inclusive by switch; brackets in the guidance.
def test_odcs_between_is_exclusive():
    assert judge({"mustBeBetween": [0, 100]}, Fraction(0)).status == "failed"
    assert judge({"mustBeBetween": [0, 100]}, Fraction(1)).status == "passed"
    assert judge({"mustBeBetween": [0, 100]}, Fraction(100)).failed == ("in (0, 100)",)


def test_inclusive_between_switch():
    assert judge({"mustBeBetween": [0, 100]}, Fraction(0), inclusive=True).status == "passed"
    assert judge({"mustBeBetween": [0, 100]}, Fraction(101), inclusive=True).failed == ("in [0, 100]",)


def test_not_between_passes_at_or_outside_endpoints():
    assert judge({"mustNotBeBetween": [0, 10]}, Fraction(0)).status == "passed"
    assert judge({"mustNotBeBetween": [0, 10]}, Fraction(10)).status == "passed"
    assert judge({"mustNotBeBetween": [0, 10]}, Fraction(5)).failed == ("not in (0, 10)",)
    assert judge({"mustNotBeBetween": [0, 10]}, Fraction(10), inclusive=True).status == "failed"


# 2.3 conjunction and the fixed guidance order.
def test_every_failed_requirement_in_fixed_order():
    declaration = {"mustNotBeBetween": [0, 100], "mustNotBe": 50, "mustBeBetween": [60, 70],
                   "mustBeLessOrEqualTo": 40, "mustBeLessThan": 45, "mustBeGreaterOrEqualTo": 55,
                   "mustBeGreaterThan": 51, "mustBe": 49}
    expectations, findings = parse(declaration)
    assert [f.code for f in findings] == ["contradictory-expectations"]
    assert verdict(expectations, Fraction(50)).failed == (
        "= 49", "> 51", ">= 55", "< 45", "<= 40", "in (60, 70)", "!= 50", "not in (0, 100)"
    )


def test_conjunction_fails_when_one_expectation_fails():
    result = judge({"mustBeGreaterThan": 0, "mustBeLessThan": 10}, Fraction(10))
    assert (result.status, result.failed) == ("failed", ("< 10",))


# 2.4 validation without echoing operands.
@pytest.mark.parametrize("declaration,code", [
    ({"mustBeGreaterThan": True}, "invalid-operand"),
    ({"mustBeGreaterThan": "lots"}, "invalid-operand"),
    ({"mustBeLessThan": Decimal("NaN")}, "invalid-operand"),
    ({"mustBeLessThan": Decimal("Infinity")}, "invalid-operand"),
    ({"mustBe": "7"}, "invalid-operand"),
    ({"mustBeBetween": [10, 0]}, "invalid-range"),
    ({"mustBeBetween": [0]}, "invalid-range"),
    ({"mustBeBetween": [0, "x"]}, "invalid-range"),
    ({"mustBeBetween": [0, True]}, "invalid-range"),
    ({"mustBeBetween": [Decimal("-Infinity"), 1]}, "invalid-range"),
    ({"mustBeBetween": [5, 5]}, "empty-range"),
    ({"mustNotBeBetween": [5, 5]}, "empty-range"),
])
def test_invalid_operands_are_findings(declaration, code):
    expectations, findings = parse(declaration)
    assert expectations == ()
    assert [f.code for f in findings] == [code]
    assert findings[0].source_path == SITE.source_path and findings[0].line == 3
    assert "lots" not in findings[0].message and "NaN" not in findings[0].message


def test_equal_endpoints_are_valid_when_inclusive():
    assert judge({"mustBeBetween": [5, 5]}, Fraction(5), inclusive=True).status == "passed"


def test_numeric_strings_are_accepted_for_ordering():
    assert judge({"mustBeLessThan": "10.5"}, Fraction(10)).status == "passed"
    assert judge({"mustBeBetween": ["1", "1e1"]}, Fraction(9)).status == "passed"


def test_contradictions_stay_valid_with_a_warning():
    expectations, findings = parse({"mustBeGreaterThan": 10, "mustBeLessThan": 5})
    assert len(expectations) == 2
    assert [(f.code, f.level) for f in findings] == [("contradictory-expectations", Level.WARNING)]


# 2.5 exact comparison.
def test_comparison_is_exact_for_huge_integers():
    big = 10000000000000000000
    assert judge({"mustBeGreaterThan": big}, Fraction(big + 1)).status == "passed"
    assert judge({"mustBe": big}, Fraction(big + 1)).status == "failed"


def test_equality_is_mathematical():
    assert judge({"mustBe": Decimal("1.0")}, Fraction(1)).status == "passed"
    assert judge({"mustBe": Decimal("0.1")}, Fraction(1, 10)).status == "passed"


def test_boolean_measurement_against_number_is_type_mismatch():
    result = judge({"mustBe": 1}, True)
    assert (result.status, result.diagnostic) == ("inconclusive", "type-mismatch")
    result = judge({"mustBe": True}, Fraction(1))
    assert (result.status, result.diagnostic) == ("inconclusive", "type-mismatch")


def test_boolean_operands_on_equality():
    assert judge({"mustBe": True}, True).status == "passed"
    assert judge({"mustNotBe": False}, False).status == "failed"


# 2.6 defaults.
def test_boolean_defaults_to_true():
    assert verdict((), True).status == "passed"
    assert verdict((), False).status == "failed"


def test_numeric_without_expectation_is_inconclusive():
    result = verdict((), Fraction(3))
    assert (result.status, result.diagnostic) == ("inconclusive", "no-expectation")
