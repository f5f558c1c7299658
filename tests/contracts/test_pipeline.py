"""Pipeline `data_quality.rules`: spellings, operand validation at load without echoing the
operand, defaults, and the expression binder (issue 12; docs/semantics.md 2)."""

from __future__ import annotations

import textwrap
from fractions import Fraction
from pathlib import Path

import pytest

from packata_sql.contracts.formats import load_declaration
from packata_sql.contracts.model import Constraint, Custom, Expectation, Library, Operator
from packata_sql.contracts.yaml_source import SourceError
from packata_sql.dialects import get_dialect
from packata_sql.plans.compiler import compile_contract
from packata_sql.plans.document import plan_document


def _load(tmp_path: Path, rules: str, head: str = "table: orders\n"):
    path = tmp_path / "pipeline.yaml"
    body = textwrap.indent(textwrap.dedent(rules).strip(), "    ")
    path.write_text(f"{head}data_quality:\n  rules:\n{body}\n", encoding="utf-8")
    return load_declaration(str(path))


def _rule(tmp_path: Path, rule: str):
    [loaded] = _load(tmp_path, rule).rules
    return loaded


def test_camel_and_snake_spellings_of_one_assertion_collapse(tmp_path):
    rule = _rule(tmp_path, """\
        - name: volume
          rule: row_count
          mustBeGreaterThan: 1
          must_be_greater_than: 1.0
          must_be_less_than: "10"
          mustBeBetween: null
        """)
    assert rule.key == "volume" and rule.definition == Library("rowCount")
    assert rule.expectations == (Expectation(Operator.GT, Fraction(1)),
                                 Expectation(Operator.LT, Fraction(10)))


@pytest.mark.parametrize("assertions,expected", [
    ("mustBeBetween: [3, 3]", Expectation(Operator.BETWEEN, (Fraction(3), Fraction(3)), True)),
    ("must_be_greater_than: -5", Expectation(Operator.GT, Fraction(-5))),
    ("mustBe: '7'", Expectation(Operator.EQ, Fraction(7))),
    ("must_not_be: 0", Expectation(Operator.NE, Fraction(0))),
    ("mustBe: null", Expectation(Operator.EQ, Fraction(0))),  # null is unset: the default
])
def test_valid_operands(tmp_path, assertions, expected):
    rule = _rule(tmp_path, f"- {{name: r, rule: not_null, column: c, {assertions}}}")
    assert rule.expectations == (expected,)


def test_between_is_inclusive(tmp_path):
    rule = _rule(tmp_path, "- {name: r, rule: row_count, mustBeBetween: [1, 2]}")
    assert rule.expectations[0].inclusive is True


@pytest.mark.parametrize("assertion,problem", [
    ("mustBe: true", "not a boolean"),
    ("mustBeGreaterThan: false", "not a boolean"),
    ("mustBeLessThan: ninety-eight-thousand", "needs a finite number"),
    ("mustBe: ninety-eight-thousand", "needs a finite number"),
    ("mustBeLessThan: .nan", "needs a finite number"),
    ("mustBeLessThan: -.inf", "needs a finite number"),
    ("mustBeLessThan: [98765]", "needs a finite number"),
    ("mustBeBetween: 98765", "exactly two numbers"),
    ("mustBeBetween: [98765, 12345]", "ascending order"),
    ("mustBeBetween: [1, 2, 98765]", "exactly two numbers"),
    ("mustBeBetween: [1, ninety-eight-thousand]", "two finite numbers"),
    ("mustBeBetween: [true, 98765]", "not a boolean"),
    ("mustBeLessThan: 98765, must_be_less_than: 12345", "same operator with different operands"),
])
def test_malformed_operands_fail_loading_without_echo(tmp_path, assertion, problem):
    with pytest.raises(SourceError) as caught:
        _load(tmp_path, f"""\
            - {{name: fine, rule: row_count, mustBeGreaterThan: 0}}
            - {{name: broken, rule: row_count, {assertion}}}
            """)
    message = str(caught.value)
    assert "data_quality.rules[1] (name 'broken')" in message and problem in message
    assert "(e.g. mustBeGreaterThan: 0)" in message  # repair guidance
    for operand in ("98765", "12345", "ninety", "nan", "inf", "true", "false"):
        assert operand not in message.lower()
    assert caught.value.line == 5


@pytest.mark.parametrize("rule,named", [
    ("- {rule: row_count}", "'name' is required"),
    ("- {name: a, rule: rows}", "'rule' must be one of"),
    ("- {name: a, rule: row_count, mustBeLesThan: 3}", "'mustBeLesThan' is not a key"),
    ("- {name: a, rule: not_null}", "needs 'column'"),
    ("- {name: a, rule: not_null, column: c, columns: [d]}", "needs 'column'"),
    ("- {name: a, rule: accepted_values, column: c}", "'values' must be a non-empty list"),
    ("- {name: a, rule: regex, column: c}", "'pattern' must be a regular expression"),
    ("- {name: a, rule: range, column: c}", "needs 'minimum' and/or 'maximum'"),
    ("- {name: a, rule: range, column: c, minimum: 3, maximum: 1}", "greater than 'maximum'"),
    ("- {name: a, rule: expression}", "'expression' must be a boolean SQL expression"),
    ("- {name: a, rule: row_count, severity: high}", "'severity' must be 'error'"),
    ("- {name: a, rule: row_count}\n- {name: a, rule: row_count}", "also the name of"),
])
def test_malformed_rules_fail_loading_naming_rule_and_key(tmp_path, rule, named):
    with pytest.raises(SourceError, match=r"data_quality\.rules") as caught:
        _load(tmp_path, rule)
    assert named in str(caught.value)


def test_defaults_and_definitions(tmp_path):
    contract = _load(tmp_path, """\
        - {name: volume, rule: row_count}
        - {name: keys, rule: unique, columns: [a, b], ignore_nulls: true}
        - {name: known, rule: accepted_values, column: s, values: [x, 1]}
        - {name: shape, rule: regex, columns: [s, t], pattern: '^x'}
        - {name: sane, rule: range, column: n, minimum: -1.5}
        - {name: rows, rule: expression, expression: n > 0}
        - {name: python, rule: custom, callable: mod.fn}
        - {name: other, function: mod.other}
        """)
    rules = {r.key: r for r in contract.rules}
    zero = (Expectation(Operator.EQ, Fraction(0)),)
    assert all(r.expectations == zero for r in rules.values())
    assert rules["keys"].definition == Constraint("uniqueKey", ("a", "b"), (("ignore_nulls", True),))
    assert rules["known"].definition.argument("allow_null") is True
    assert rules["shape"].definition.columns == ("s", "t")
    assert rules["sane"].definition.argument("minimum") == Fraction(-3, 2)
    assert rules["python"].definition == rules["other"].definition == Custom("callable")
    assert dict(contract.declaration) == {"format": "pipeline"}


def _compiled(tmp_path: Path, expression: str, dialect: str = "duckdb"):
    contract = _load(tmp_path, f"- {{name: e, rule: expression, expression: {expression!r}}}")
    return compile_contract(contract, get_dialect(dialect))


@pytest.mark.parametrize("expression,code", [
    ("amount >= 0; DELETE FROM orders", "several-statements"),
    ("amount >= 0 amount", "invalid-expression"),
    ("(SELECT max(amount) FROM orders) > 0", "invalid-expression"),
    ("sum(amount) > 0", "invalid-expression"),
    ("amount > {param:limit}", "parameter-in-expression"),
    ("amount > (SELECT 1 FROM {object})", "unresolved-object"),
    ("'unterminated > 0", "unterminated-string"),
])
def test_expressions_that_are_not_one_row_predicates_are_findings(tmp_path, expression, code):
    compiled = _compiled(tmp_path, expression)
    assert compiled.blocked["e"].code == code
    assert not compiled.ordered


def test_an_expression_keeps_no_authored_comment(tmp_path):
    contract = _load(tmp_path, "- {name: e, rule: expression, "
                               "expression: 'amount >= 0 /*! OR 1 = 1 */ -- note'}")
    mysql = get_dialect("mysql")
    compiled = compile_contract(contract, mysql)
    document = plan_document(contract, compiled, mysql)
    assert document["scans"] == []  # authored SQL: its own query, never a column of the scan
    [rule] = document["rules"]
    sql = rule["sql"]
    assert "amount >= 0" in sql and "/*" not in sql and "1 = 1" not in sql


def test_expressions_need_a_dialect_with_pinned_lexical_rules(tmp_path):
    assert _compiled(tmp_path, "amount >= 0", "postgres").ordered
    assert _compiled(tmp_path, "amount >= 0", "snowflake").blocked["e"].code == \
        "dialect-not-supported"


def test_contradictory_assertions_load_with_a_warning(tmp_path):
    contract = _load(tmp_path, "- {name: never, rule: row_count, mustBeGreaterThan: 10, "
                               "must_be_less_than: 5}")
    [finding] = contract.findings
    assert (finding.code, finding.rule_key, finding.level.value) == \
        ("contradictory-expectations", "never", "warning")
    assert finding.source_path == "data_quality.rules[0]" and finding.line == 4


def test_expressions_get_the_authored_sql_deny_list(tmp_path):
    compiled = _compiled(tmp_path, "pg_sleep(5) IS NOT NULL", "postgres")
    assert compiled.blocked["e"].code == "denied-function"


@pytest.mark.parametrize(("dialect", "written"), [
    ("postgres", "'a%%b'"),  # psycopg always gets parameters: `%` escaped once, read as `%`
    ("mysql", "'a%b'"), ("duckdb", "'a%b'"), ("sqlite", "'a%b'"),
])
def test_an_expression_is_an_authored_query_escaped_once(tmp_path, dialect, written):
    contract = _load(tmp_path, "- {name: e, rule: expression, expression: \"s <> 'a%b'\"}")
    [plan] = compile_contract(contract, get_dialect(dialect)).sql_plans
    assert plan.parameters == () and plan.sql.count(written) == 1
    assert "%%%" not in plan.sql
