"""Thresholds: which operators exist, how operands are validated, and the verdict.

This is the only module that knows the eight operators (docs/semantics.md 2).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction

from packata_sql.contracts.model import Expectation, Finding, Interval, Level, Operand, Operator, Site
from packata_sql.values import NotExact, exact_number, format_value

_SNAKE = {
    Operator.EQ: "must_be",
    Operator.NE: "must_not_be",
    Operator.GT: "must_be_greater_than",
    Operator.GE: "must_be_greater_or_equal_to",
    Operator.LT: "must_be_less_than",
    Operator.LE: "must_be_less_or_equal_to",
    Operator.BETWEEN: "must_be_between",
    Operator.NOT_BETWEEN: "must_not_be_between",
}
SPELLINGS: dict[str, Operator] = {
    **{op.value: op for op in Operator},
    **{snake: op for op, snake in _SNAKE.items()},
}
_RANGES = (Operator.BETWEEN, Operator.NOT_BETWEEN)
_ORDERING = (Operator.GT, Operator.GE, Operator.LT, Operator.LE)
# docs/semantics.md 2.3: failure guidance order, whatever the declaration order.
GUIDANCE_ORDER = (
    Operator.EQ, Operator.GT, Operator.GE, Operator.LT, Operator.LE,
    Operator.BETWEEN, Operator.NE, Operator.NOT_BETWEEN,
)


def parse_expectations(
    declaration: Mapping[str, object], site: Site, *, inclusive_between: bool
) -> tuple[tuple[Expectation, ...], list[Finding]]:
    """Operators of one declaration, validated; operand values never appear in findings."""
    findings: list[Finding] = []
    chosen: dict[Operator, Expectation] = {}
    spelled: dict[Operator, str] = {}
    for key, raw in declaration.items():
        operator = SPELLINGS.get(key)
        if operator is None or raw is None:
            continue
        expectation = _parse_operand(operator, raw, key, site, inclusive_between, findings)
        if expectation is None:
            continue
        if operator in chosen and not _same(chosen[operator], expectation):
            findings.append(site.finding(
                "conflicting-operands",
                f"'{spelled[operator]}' and '{key}' are the same operator with different operands",
            ))
            continue
        chosen[operator] = expectation
        spelled[operator] = key
    ordered = tuple(chosen[op] for op in GUIDANCE_ORDER if op in chosen)
    if _contradictory(ordered):
        findings.append(site.finding(
            "contradictory-expectations",
            "no value can satisfy every expectation of this rule",
            Level.WARNING,
        ))
    return ordered, findings


def _same(first: Expectation, second: Expectation) -> bool:
    """Equal operands of the same kind: `1` and `1.0` collapse, `true` and `1` do not."""
    return first == second and type(first.operand) is type(second.operand)


def _parse_operand(
    operator: Operator,
    raw: object,
    key: str,
    site: Site,
    inclusive: bool,
    findings: list[Finding],
) -> Expectation | None:
    if operator in _RANGES:
        return _parse_range(operator, raw, key, site, inclusive, findings)
    if operator in (Operator.EQ, Operator.NE):
        if isinstance(raw, bool):
            return Expectation(operator, raw)
        if isinstance(raw, str):
            findings.append(site.finding(
                "invalid-operand", f"'{key}' needs a number or a boolean, not text"
            ))
            return None
    elif isinstance(raw, bool):
        findings.append(site.finding("invalid-operand", f"'{key}' needs a number, not a boolean"))
        return None
    try:
        return Expectation(operator, exact_number(raw, allow_text=operator in _ORDERING))
    except NotExact as problem:
        findings.append(site.finding(
            "invalid-operand", f"'{key}' needs a finite number (the operand is {problem})"
        ))
        return None


def _parse_range(
    operator: Operator,
    raw: object,
    key: str,
    site: Site,
    inclusive: bool,
    findings: list[Finding],
) -> Expectation | None:
    if not isinstance(raw, list) or len(raw) != 2:
        findings.append(site.finding("invalid-range", f"'{key}' needs a list of exactly two numbers"))
        return None
    try:
        low, high = (exact_number(end, allow_text=True) for end in raw)
    except NotExact as problem:
        findings.append(site.finding(
            "invalid-range", f"'{key}' needs two finite numbers (an endpoint is {problem})"
        ))
        return None
    if low > high:
        findings.append(site.finding("invalid-range", f"'{key}' endpoints are not in ascending order"))
        return None
    if low == high and not inclusive:
        findings.append(site.finding(
            "empty-range", f"'{key}' has equal endpoints and exclusive bounds: the interval is empty"
        ))
        return None
    return Expectation(operator, (low, high), inclusive)


def _contradictory(expectations: tuple[Expectation, ...]) -> bool:
    lower: tuple[Fraction, bool] | None = None  # (bound, strict)
    upper: tuple[Fraction, bool] | None = None
    equal: Operand | None = None
    unequal: list[Operand] = []

    def tighten_lower(bound: Fraction, strict: bool) -> None:
        nonlocal lower
        if lower is None or bound > lower[0] or (bound == lower[0] and strict):
            lower = (bound, strict)

    def tighten_upper(bound: Fraction, strict: bool) -> None:
        nonlocal upper
        if upper is None or bound < upper[0] or (bound == upper[0] and strict):
            upper = (bound, strict)

    for item in expectations:
        operand = item.operand
        if item.operator is Operator.EQ and not isinstance(operand, tuple):
            equal = operand
        elif item.operator is Operator.NE and not isinstance(operand, tuple):
            unequal.append(operand)
        elif item.operator is Operator.BETWEEN and isinstance(operand, tuple):
            tighten_lower(operand[0], not item.inclusive)
            tighten_upper(operand[1], not item.inclusive)
        elif isinstance(operand, Fraction):
            if item.operator in (Operator.GT, Operator.GE):
                tighten_lower(operand, item.operator is Operator.GT)
            elif item.operator in (Operator.LT, Operator.LE):
                tighten_upper(operand, item.operator is Operator.LT)
    if lower is not None and upper is not None and (
        lower[0] > upper[0] or (lower[0] == upper[0] and (lower[1] or upper[1]))
    ):
        return True
    if equal is None:
        return False
    if any(type(equal) is type(other) and equal == other for other in unequal):
        return True
    return not isinstance(equal, bool) and any(
        item.operator in (*_ORDERING, Operator.BETWEEN) and not holds(item, equal)
        for item in expectations
    )


def holds(expectation: Expectation, value: Fraction | bool) -> bool:
    """Whether one expectation holds for a value of the same kind (number or boolean)."""
    operand = expectation.operand
    operator = expectation.operator
    if isinstance(operand, tuple):
        assert not isinstance(value, bool)
        inside = _inside(operand, value, expectation.inclusive)
        return inside if operator is Operator.BETWEEN else not inside
    if operator is Operator.EQ:
        return value == operand
    if operator is Operator.NE:
        return value != operand
    assert isinstance(operand, Fraction) and not isinstance(value, bool)
    return {
        Operator.GT: value > operand,
        Operator.GE: value >= operand,
        Operator.LT: value < operand,
        Operator.LE: value <= operand,
    }[operator]


def _inside(interval: Interval, value: Fraction, inclusive: bool) -> bool:
    low, high = interval
    return low <= value <= high if inclusive else low < value < high


def comparable(expectation: Expectation, value: Fraction | bool) -> bool:
    """A boolean measurement compares only with boolean operands (docs/semantics.md 2.5)."""
    operand = expectation.operand
    if isinstance(value, bool):
        return isinstance(operand, bool)
    return not isinstance(operand, bool)


@dataclass(frozen=True)
class Verdict:
    """`status` is passed, failed, or inconclusive; `diagnostic` says why when inconclusive."""

    status: str
    failed: tuple[str, ...] = ()
    diagnostic: str | None = None


def verdict(expectations: tuple[Expectation, ...], value: Fraction | bool) -> Verdict:
    if not expectations:
        if isinstance(value, bool):
            return Verdict("passed") if value else Verdict("failed", ("= true",))
        return Verdict("inconclusive", diagnostic="no-expectation")
    if not all(comparable(item, value) for item in expectations):
        return Verdict("inconclusive", diagnostic="type-mismatch")
    failed = tuple(describe(item) for item in expectations if not holds(item, value))
    return Verdict("failed", failed) if failed else Verdict("passed")


def expects_boolean(expectations: tuple[Expectation, ...]) -> bool:
    """The rule wants a truth value: every operand is a boolean, or there is no expectation
    (a measurement without one is judged only as a boolean, docs/semantics.md 2.6)."""
    return all(isinstance(item.operand, bool) for item in expectations)


def describe(expectation: Expectation) -> str:
    """The requirement as users read it: `> 10`, `in (0, 100)`, `not in [1, 5]`."""
    operand = expectation.operand
    if isinstance(operand, tuple):
        left, right = ("[", "]") if expectation.inclusive else ("(", ")")
        interval = f"{left}{format_value(operand[0])}, {format_value(operand[1])}{right}"
        return f"in {interval}" if expectation.operator is Operator.BETWEEN else f"not in {interval}"
    symbol = {
        Operator.EQ: "=", Operator.NE: "!=", Operator.GT: ">",
        Operator.GE: ">=", Operator.LT: "<", Operator.LE: "<=",
    }[expectation.operator]
    return f"{symbol} {format_value(operand)}"
