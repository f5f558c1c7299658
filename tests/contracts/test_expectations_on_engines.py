"""docs/semantics.md 2 through a real measurement on DuckDB and SQLite: same expectations, same results."""

from __future__ import annotations

from packata_sql.report import Status

ROWS = [("t", [("c", "text")], [("a",), ("b",), (None,)])]  # rowCount = 3, nulls = 1


def object_rule(contract_for, rule: str) -> str:
    return contract_for("", object_rules=rule)


def test_odcs_between_is_exclusive_on_engines(engine, check, contract_for):
    report = check(engine, object_rule(contract_for, "- metric: rowCount\n  mustBeBetween: [0, 3]"), ROWS)
    assert (report.results[0].status, report.results[0].failed) == (Status.FAILED, ("in (0, 3)",))
    inclusive = check(engine, object_rule(contract_for, "- metric: rowCount\n  mustBeBetween: [0, 3]"),
                      ROWS, inclusive_between=True)
    assert inclusive.results[0].status is Status.PASSED


def test_conjunction_and_guidance_order_on_engines(engine, check, contract_for):
    rule = "- metric: rowCount\n  mustBeLessThan: 2\n  must_not_be: 3\n  mustBeGreaterThan: 5"
    result = check(engine, object_rule(contract_for, rule), ROWS).results[0]
    assert result.status is Status.FAILED
    assert result.failed == ("> 5", "< 2", "!= 3")


def test_exact_decimal_percentages_on_engines(engine, check, contract_for):
    rule = "- metric: nullValues\n  unit: percent\n  mustBeLessOrEqualTo: 33.33333333333333333"
    result = check(engine, contract_for(rule), ROWS).results[0]
    assert (result.status, result.failed) == (Status.FAILED, ("<= 33.33333333333333333",))


def test_invalid_operands_skip_only_their_rule(engine, check, contract_for):
    rules = "- metric: rowCount\n  mustBeGreaterThan: true\n- metric: rowCount\n  mustBe: 3"
    report = check(engine, object_rule(contract_for, rules), ROWS)
    assert [(r.status, r.diagnostic.code if r.diagnostic else None) for r in report.results] == [
        (Status.SKIPPED, "invalid-operand"), (Status.PASSED, None)
    ]


def test_count_without_expectation_is_inconclusive_on_engines(engine, check, contract_for):
    result = check(engine, object_rule(contract_for, "- metric: rowCount"), ROWS).results[0]
    assert (result.status, result.value, result.diagnostic.code) == (
        Status.INCONCLUSIVE, 3, "no-expectation"
    )


def test_odcs_30_null_check_without_threshold_says_which_key_to_add(engine, check, contract_for):
    """ODCS 3.0 `rule: nullCheck` with no threshold: still inconclusive, never a guessed pass."""
    contract = contract_for("- type: library\n  rule: nullCheck").replace("v3.1.0", "v3.0.2")
    result = check(engine, contract, ROWS).results[0]
    assert (result.status, result.value, result.diagnostic.code) == (
        Status.INCONCLUSIVE, 1, "no-expectation"
    )
    assert "add one, e.g. 'mustBe: 0' to require no NULL cells" in result.diagnostic.message
    assert "'nullCheck'" in result.diagnostic.message
