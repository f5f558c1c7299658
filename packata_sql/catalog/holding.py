"""What a column of its native type can hold (issue 15). When the scan is built, a numeric or
temporal member (`validValues`, `missingValues`, `enum`, allowed values) is checked against the
column's type as the engine's catalog names it (`decimal(10,2)`, `bigint unsigned`, `date`,
`datetime(3)`). A member the column cannot hold equals no cell: it is rendered FALSE and
reported, instead of being left to the engine, which rounds it to the column's scale (Spark:
`DECIMAL(38,18) 0 = 1e-19` is true), truncates a time of day to a date (DuckDB, PostgreSQL,
Spark), or fails the whole statement (a time member on a date column). A range bound is moved
to the column's scale in the direction that keeps the comparison exact, or becomes a constant
when it lies beyond every value of the type. Engines whose cells ignore the declared type
(SQLite) are not checked."""

from __future__ import annotations

import datetime
import math
import re
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import sqlglot.expressions as exp

from packata_sql.dialects import Dialect
from packata_sql.dialects.facts import parsed_type

_DT = exp.DataType.Type
#: Integer types and the bits of their range (signed, unsigned).
_INTEGER_BITS = {
    _DT.TINYINT: (8, False), _DT.UTINYINT: (8, True), _DT.SMALLINT: (16, False),
    _DT.USMALLINT: (16, True), _DT.MEDIUMINT: (24, False), _DT.UMEDIUMINT: (24, True),
    _DT.INT: (32, False), _DT.UINT: (32, True), _DT.BIGINT: (64, False), _DT.UBIGINT: (64, True),
    _DT.INT128: (128, False), _DT.UINT128: (128, True), _DT.INT256: (256, False),
    _DT.UINT256: (256, True),
}
_DECIMALS = {_DT.DECIMAL: False, _DT.UDECIMAL: True}
_DATES = {_DT.DATE, _DT.DATE32}
#: Timestamp types and the fractional-second digits they keep when the type names none
#: (None: the dialect's default, `Dialect.time_fraction_digits`).
_TIMESTAMPS: dict[Any, int | None] = {
    _DT.TIMESTAMP: None, _DT.DATETIME: None, _DT.TIMESTAMPTZ: None, _DT.TIMESTAMPLTZ: None,
    _DT.TIMESTAMPNTZ: None, _DT.DATETIME2: 7, _DT.DATETIME64: 3, _DT.TIMESTAMP_S: 0,
    _DT.TIMESTAMP_MS: 3, _DT.TIMESTAMP_NS: 9,
}
_TIMES = {_DT.TIME, _DT.TIMETZ}
_TEMPORAL_MEMBER = re.compile(
    r"(?:(?P<date>\d{4}-\d{2}-\d{2})(?:[ T](?P<clock>\d{2}:\d{2}(?::\d{2}(?:\.(?P<f1>\d{1,6}))?)?))?"
    r"|(?P<time>\d{2}:\d{2}(?::\d{2}(?:\.(?P<f2>\d{1,6}))?)?))"
)


@dataclass(frozen=True)
class ColumnType:
    """The part of a column's native type that decides which members it holds."""

    kind: str  # "number" (integers and decimals), "date", "timestamp" or "time"
    label: str  # the type as the catalog names it, for messages
    #: Numbers: the smallest step between values (10**-scale; 1 for integers) and the range.
    step: Fraction = Fraction(1)
    low: Fraction | None = None
    high: Fraction | None = None
    #: Timestamps and times: the fractional-second digits kept.
    fraction_digits: int = 6


def column_type(native: str, dialect: Dialect) -> ColumnType | None:
    """What the column holds, or None when its type bounds no member (text, floats, an
    unconstrained NUMERIC, a type sqlglot cannot read)."""
    parsed = parsed_type(native, dialect)
    if parsed is None:
        return None
    kind = parsed.this
    sizes = [int(e.name) for e in parsed.expressions
             if isinstance(e, exp.DataTypeParam) and e.name.isdigit()]
    if kind in _INTEGER_BITS:
        bits, unsigned = _INTEGER_BITS[kind]
        low, high = (0, 2**bits - 1) if unsigned else (-(2 ** (bits - 1)), 2 ** (bits - 1) - 1)
        return ColumnType("number", native, Fraction(1), Fraction(low), Fraction(high))
    if kind in _DECIMALS and sizes:
        precision, scale = sizes[0], sizes[1] if len(sizes) > 1 else 0
        step = Fraction(1, 10**scale)
        high = Fraction(10**precision - 1, 10**scale)
        return ColumnType("number", native, step, Fraction(0) if _DECIMALS[kind] else -high, high)
    if kind in _DATES:
        return ColumnType("date", native)
    if kind in _TIMESTAMPS or kind in _TIMES:
        default = _TIMESTAMPS.get(kind)
        digits = sizes[0] if sizes else default if default is not None \
            else dialect.time_fraction_digits
        return ColumnType("timestamp" if kind in _TIMESTAMPS else "time", native,
                          fraction_digits=digits)
    return None


def number_problem(number: Fraction, held: ColumnType) -> str | None:
    """Why a column of this type cannot hold `number`, or None."""
    if held.kind != "number":
        return None
    if (number / held.step).denominator != 1:
        places = round(math.log10(held.step.denominator))
        return f"it has more than {places} decimal places" if places else "it is not an integer"
    if (held.low is not None and number < held.low) or (held.high is not None and number > held.high):
        return "it is outside the type's range"
    return None


def temporal_text(member: str, held: ColumnType) -> tuple[str | None, str | None]:
    """The text to compare a date/timestamp/time column with (every engine reads it as the
    same value), or None and why the column cannot hold the member."""
    match = _TEMPORAL_MEMBER.fullmatch(member)
    if match is None or held.kind not in ("date", "timestamp", "time"):
        return member, None
    date, clock, only_time = match.group("date"), match.group("clock"), match.group("time")
    fraction = (match.group("f1") or match.group("f2") or "").rstrip("0")
    try:
        if date is not None:
            datetime.date.fromisoformat(date)
        if clock or only_time:
            datetime.time.fromisoformat(clock or only_time)
    except ValueError:
        return None, "it is not a valid date or time"
    if held.kind == "date":
        if only_time:
            return None, "it is a time of day, not a date"
        if clock and (fraction or datetime.time.fromisoformat(clock) != datetime.time()):
            return None, "it has a time of day"
        return date, None
    if held.kind == "timestamp" and only_time:
        return None, "it is a time of day without a date"
    if held.kind == "time" and date is not None:
        return None, "it has a date"
    if len(fraction) > held.fraction_digits:
        return None, f"it has more than {held.fraction_digits} fractional-second digits"
    return member, None


def exact_bound(op: type[exp.Binary], number: Fraction,
                held: ColumnType) -> Fraction | bool:
    """`column op number` for the values the type holds: the bound moved onto the type's step
    (so no engine rounds it), or True/False when the bound lies beyond every value."""
    if held.kind != "number":
        return number
    steps = number / held.step
    upward = op in (exp.GTE, exp.LT)  # x >= b  <=>  x >= ceil(b); x < b  <=>  x < ceil(b)
    moved = (math.ceil(steps) if upward else math.floor(steps)) * held.step
    low, high = held.low, held.high
    if op in (exp.GTE, exp.GT):
        if high is not None and (moved > high or (op is exp.GT and moved >= high)):
            return False
        if low is not None and (moved <= low if op is exp.GTE else moved < low):
            return True
    else:
        if high is not None and (moved >= high if op is exp.LTE else moved > high):
            return True
        if low is not None and (moved < low or (op is exp.LT and moved <= low)):
            return False
    return moved
