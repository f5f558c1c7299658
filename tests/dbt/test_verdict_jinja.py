"""The dbt runtime's verdict (pure Jinja, exact integers) against packata_sql's own verdict.

The generated runtime is rendered with plain jinja2, as dbt would call it, on 20,000 random
expectation sets and driver cells: ints, Decimals, floats, booleans, text, NULL, NaN.
"""

from __future__ import annotations

import random
from decimal import Decimal
from fractions import Fraction
from typing import Any

import pytest

from packata_sql.contracts.expectations import verdict
from packata_sql.contracts.model import Expectation, Operator
from packata_sql.dbt.generate import runtime_text
from packata_sql.plans.gate import expectation_document
from packata_sql.values import NotExact, OutOfRange, format_value, measured_value

from .jinja_macros import load_macros

PURE = {"packata_sql_exact_cell", "packata_sql_cmp", "packata_sql_holds", "packata_sql_verdict",
        "packata_sql_display"}
NUMBERS = [Fraction(n, d) for n in range(-4, 5) for d in (1, 2, 3, 10)]
CASES = 20_000


def python_side(expectations: tuple[Expectation, ...], cell: object) -> tuple[str, tuple[str, ...]]:
    if cell is None:
        return "inconclusive:null-result", ()
    try:
        value = measured_value(cell)
    except OutOfRange:
        return "inconclusive:value-out-of-range", ()
    except NotExact:
        return "inconclusive:not-a-number", ()
    judged = verdict(expectations, value)
    return judged.status + (":" + judged.diagnostic if judged.diagnostic else ""), judged.failed


def jinja_side(macros: dict[str, Any], expectations: tuple[Expectation, ...],
               cell: object) -> tuple[str, tuple[str, ...]]:
    value = macros["packata_sql_exact_cell"](cell)
    if value["kind"] == "null":
        return "inconclusive:null-result", ()
    if value["kind"] == "bad":
        return "inconclusive:not-a-number", ()
    if value["kind"] == "range":
        return "inconclusive:value-out-of-range", ()
    judged = macros["packata_sql_verdict"]([expectation_document(e) for e in expectations], value)
    return judged["status"] + (":" + judged["code"] if judged.get("code") else ""), \
        tuple(judged["failed"])


def random_cell(rng: random.Random) -> object:
    kind = rng.randrange(8)
    if kind == 0:
        return rng.choice([True, False])
    if kind == 1:
        return rng.randrange(-5, 6)
    if kind == 2:
        return Decimal(rng.randrange(-500, 501)).scaleb(-rng.randrange(0, 3))
    if kind == 3:
        return rng.choice([0.1, 0.5, -1.25, 1e-05, 2.0, 1e20, -0.0, float("nan"), float("inf")])
    if kind == 4:
        return rng.choice([None, "1", Decimal("NaN"), Decimal("1E+2"), Decimal("-0.30"), 10**30])
    if kind == 5:  # the bound on a measurement (values.measured_value), near and past it
        return rng.choice([10**38 - 1, 10**38 + 1, -(10**39) - 7, 10**40, 10**324, 10**325,
                           Decimal("1E+324"), Decimal("1E+325"), Decimal("1E-324"),
                           Decimal("1E-325"), Decimal("1." + "3" * 37), Decimal("1." + "3" * 38),
                           1e300, 5e-324])
    return rng.randrange(-3, 4)


def random_expectations(rng: random.Random) -> tuple[Expectation, ...]:
    chosen = []
    for op in rng.sample(list(Operator), rng.randrange(0, 3)):
        if op in (Operator.BETWEEN, Operator.NOT_BETWEEN):
            low, high = sorted(rng.sample(NUMBERS, 2))
            chosen.append(Expectation(op, (low, high), rng.choice([True, False])))
        elif op in (Operator.EQ, Operator.NE) and rng.random() < 0.3:
            chosen.append(Expectation(op, rng.choice([True, False])))
        else:
            chosen.append(Expectation(op, rng.choice(NUMBERS)))
    return tuple(chosen)


def mismatches(macros: dict[str, Any], cases: int) -> list[object]:
    rng = random.Random(7)
    found = []
    for _ in range(cases):
        expectations, cell = random_expectations(rng), random_cell(rng)
        if python_side(expectations, cell) != jinja_side(macros, expectations, cell):
            found.append((cell, expectations))
    return found


def test_jinja_verdict_agrees_with_packata_sql_on_20000_cases() -> None:
    macros = load_macros(runtime_text(), PURE)
    assert mismatches(macros, CASES) == []


def test_the_differential_catches_a_one_character_mutation() -> None:
    mutated = runtime_text().replace("(lo >= 0 and hi <= 0)", "(lo > 0 and hi <= 0)")
    assert mutated != runtime_text()
    assert len(mismatches(load_macros(mutated, PURE), 5_000)) > 0


def test_percentages_are_exact_over_any_row_count() -> None:
    macros = load_macros(runtime_text(), PURE)
    rng = random.Random(11)
    for _ in range(2_000):
        count, rows = rng.randrange(0, 50), rng.randrange(1, 50)
        expectations = random_expectations(rng)
        expected = verdict(expectations, 100 * Fraction(count) / rows)
        value = {"kind": "number", "num": 100 * count, "den": rows}
        judged = macros["packata_sql_verdict"]([expectation_document(e) for e in expectations], value)
        assert (judged["status"], tuple(judged["failed"])) == (expected.status, expected.failed)


@pytest.mark.parametrize("value", [Fraction(0), Fraction(-7, 4), Fraction(1, 8), Fraction(50),
                                   Fraction(123456789, 1000), Fraction(-1, 1000000)])
def test_display_matches_the_reports_for_terminating_values(value: Fraction) -> None:
    macros = load_macros(runtime_text(), PURE)
    assert macros["packata_sql_display"](value.numerator, value.denominator) == format_value(value)
