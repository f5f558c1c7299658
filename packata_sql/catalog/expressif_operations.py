"""What each Expressif operation means in SQL: its types, its arguments and its rendering,
with the engines that cannot give it the language's exact meaning.

The meanings are the language's own conformance cases (tests/expressif/conformance), run on
every live engine by integration/test_expressif_conformance.py.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from fractions import Fraction

import sqlglot.expressions as exp

from packata_sql.authored.expressif import Call, ExpressifError, Interval
from packata_sql.dialects import Dialect, number_literal


class UnsupportedOnEngine(ExpressifError):
    """An operation the engine cannot give the exact meaning of: a finding on that engine."""

    def __init__(self, message: str, operation: str | None = None) -> None:
        super().__init__("expressif-unsupported-on-engine", message, operation)


@dataclass(frozen=True)
class Typed:
    """A rendered value and what it holds (text, number, boolean, temporal, any)."""

    expression: exp.Expr
    family: str


@dataclass(frozen=True)
class Rendering:
    """What one operation's rendering is handed: the engine and its checked arguments."""

    dialect: Dialect
    written: str
    arguments: tuple[object, ...]

    def value(self, index: int) -> exp.Expr:
        argument = self.arguments[index]
        assert isinstance(argument, Typed)
        return argument.expression

    def optional(self, index: int, default: exp.Expr) -> exp.Expr:
        return self.value(index) if index < len(self.arguments) else default

    def interval(self, index: int) -> Interval:
        argument = self.arguments[index]
        assert isinstance(argument, Interval)
        return argument


Render = Callable[[Rendering, exp.Expr], exp.Expr]


@dataclass(frozen=True)
class Operation:
    #: The family read and the one returned ("same": what was read).
    reads: str
    returns: str
    render: Render
    #: Parameter kinds in order: number, integer, text, boolean, interval, predication; a
    #: trailing "?" marks an optional one.
    parameters: tuple[str, ...] = ()
    #: Engine name → why it cannot give the exact meaning.
    unsupported: Mapping[str, str] = field(default_factory=dict)
    #: Whether the rendering is chosen per engine (else one portable tree).
    per_dialect: bool = False


def as_boolean(predicate: exp.Expr) -> exp.Expr:
    """Two-valued: NULL is false (docs/semantics.md, Expressif)."""
    return exp.Coalesce(this=exp.paren(predicate, copy=False), expressions=[exp.false()])


_NUMBER = re.compile(r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)")


def typed_literal(call: Call, kind: str, text: str) -> exp.Expr:
    """An unquoted program literal typed by the parameter that takes it (program text, so a
    sqlglot literal, never a binding)."""
    if kind in ("number", "integer"):
        if not _NUMBER.fullmatch(text.strip()):
            raise ExpressifError("expressif-argument",
                                 f"'{call.written}' takes a number, not {text!r}", call.name)
        try:
            number = Fraction(Decimal(text.strip()))
        except InvalidOperation:  # pragma: no cover (the pattern admits only numbers)
            raise ExpressifError("expressif-argument", f"{text!r} is not a number",
                                 call.name) from None
        if kind == "integer" and number.denominator != 1:
            raise ExpressifError("expressif-argument",
                                 f"'{call.written}' takes a whole number, not {text!r}", call.name)
        return number_literal(number)
    if kind == "boolean":
        folded = text.strip().lower()
        if folded not in ("true", "false"):
            raise ExpressifError("expressif-argument",
                                 f"'{call.written}' takes true or false, not {text!r}", call.name)
        return exp.Boolean(this=folded == "true")
    return exp.Literal.string(text)


def _p(node: exp.Expr) -> exp.Expr:
    return exp.paren(node, copy=False)


def _number(text: str) -> exp.Expr:
    return number_literal(Fraction(Decimal(text)))


def _within(interval: Interval, value: exp.Expr) -> exp.Expr:
    tests: list[exp.Expr] = []
    if interval.lower is not None:
        op: type[exp.Binary] = exp.GTE if interval.lower_closed else exp.GT
        tests.append(op(this=value, expression=_number(interval.lower)))
    if interval.upper is not None:
        op = exp.LTE if interval.upper_closed else exp.LT
        tests.append(op(this=value, expression=_number(interval.upper)))
    if not tests:
        return exp.Not(this=exp.Is(this=value, expression=exp.Null()))
    return exp.and_(*tests) if len(tests) > 1 else tests[0]


def _compare(op: type[exp.Binary]) -> Render:
    return lambda r, v: op(this=v, expression=r.value(0))


def _constant(op: type[exp.Binary], number: int) -> Render:
    return lambda r, v: op(this=v, expression=exp.Literal.number(number))


def _mod(value: exp.Expr, modulus: exp.Expr) -> exp.Expr:
    return exp.Mod(this=_p(value), expression=_p(modulus))


def _is_null(value: exp.Expr) -> exp.Expr:
    return exp.Is(this=value, expression=exp.Null())


_NUMERIC_PREDICATES: dict[str, Operation] = {
    "equal-to": Operation("number", "boolean", _compare(exp.EQ), ("number",)),
    "greater-than": Operation("number", "boolean", _compare(exp.GT), ("number",)),
    "greater-than-or-equal": Operation("number", "boolean", _compare(exp.GTE), ("number",)),
    "less-than": Operation("number", "boolean", _compare(exp.LT), ("number",)),
    "less-than-or-equal": Operation("number", "boolean", _compare(exp.LTE), ("number",)),
    "opposite": Operation("number", "boolean",
                          lambda r, v: exp.EQ(this=v, expression=exp.Neg(this=_p(r.value(0)))),
                          ("number",)),
    "positive": Operation("number", "boolean", _constant(exp.GT, 0)),
    "positive-or-zero": Operation("number", "boolean", _constant(exp.GTE, 0)),
    "negative": Operation("number", "boolean", _constant(exp.LT, 0)),
    "negative-or-zero": Operation("number", "boolean", _constant(exp.LTE, 0)),
    "zero": Operation("number", "boolean", _constant(exp.EQ, 0)),
    "one": Operation("number", "boolean", _constant(exp.EQ, 1)),
    "zero-or-null": Operation("number", "boolean", lambda r, v: exp.or_(
        _is_null(v), exp.EQ(this=v, expression=exp.Literal.number(0)))),
    "even": Operation("number", "boolean", lambda r, v: exp.EQ(
        this=_mod(v, exp.Literal.number(2)), expression=exp.Literal.number(0))),
    "odd": Operation("number", "boolean", lambda r, v: exp.EQ(
        this=exp.Abs(this=_mod(v, exp.Literal.number(2))), expression=exp.Literal.number(1))),
    "integer": Operation("number", "boolean",
                         lambda r, v: exp.EQ(this=v, expression=exp.Floor(this=v))),
    "modulo": Operation("number", "boolean", lambda r, v: exp.EQ(
        this=_mod(v, r.value(0)), expression=r.optional(1, exp.Literal.number(0))),
        ("number", "number?")),
    "within-interval": Operation("number", "boolean",
                                 lambda r, v: _within(r.interval(0), v), ("interval",)),
}

_SPECIAL_PREDICATES: dict[str, Operation] = {
    "null": Operation("any", "boolean", lambda r, v: _is_null(v)),
}

_BOOLEAN_PREDICATES: dict[str, Operation] = {
    "true": Operation("boolean", "boolean", lambda r, v: exp.EQ(this=v, expression=exp.true())),
    "false": Operation("boolean", "boolean", lambda r, v: exp.EQ(this=v, expression=exp.false())),
    "true-or-null": Operation("boolean", "boolean", lambda r, v: exp.or_(
        _is_null(v), exp.EQ(this=v, expression=exp.true()))),
    "false-or-null": Operation("boolean", "boolean", lambda r, v: exp.or_(
        _is_null(v), exp.EQ(this=v, expression=exp.false()))),
    "not": Operation("boolean", "boolean", lambda r, v: exp.Not(this=as_boolean(v))),
    "and": Operation("boolean", "boolean", lambda r, v: exp.and_(
        as_boolean(v), as_boolean(r.value(0))), ("predication",)),
    "or": Operation("boolean", "boolean", lambda r, v: exp.or_(
        as_boolean(v), as_boolean(r.value(0))), ("predication",)),
    "xor": Operation("boolean", "boolean", lambda r, v: exp.NEQ(
        this=_p(as_boolean(v)), expression=_p(as_boolean(r.value(0)))), ("predication",)),
    "identical-to": Operation("boolean", "boolean", lambda r, v: exp.EQ(
        this=_p(as_boolean(v)), expression=_p(as_boolean(r.value(0)))), ("boolean",)),
}

_TEXT_PREDICATES: dict[str, Operation] = {
    "empty": Operation("text", "boolean", lambda r, v: exp.EQ(
        this=r.dialect.char_length(v), expression=exp.Literal.number(0))),
    "empty-or-null": Operation("text", "boolean", lambda r, v: exp.or_(
        _is_null(v), exp.EQ(this=r.dialect.char_length(v), expression=exp.Literal.number(0)))),
}

PREDICATES: dict[str, Operation] = {**_NUMERIC_PREDICATES, **_SPECIAL_PREDICATES,
                                    **_BOOLEAN_PREDICATES, **_TEXT_PREDICATES}


def _unary(node: type[exp.Func]) -> Render:
    return lambda r, v: node(this=v)


def _times(r: Rendering) -> exp.Expr:
    if len(r.arguments) < 2:
        return r.value(0)
    return exp.Mul(this=_p(r.value(0)), expression=_p(r.value(1)))


_NUMERIC_FUNCTIONS: dict[str, Operation] = {
    "absolute": Operation("number", "number", _unary(exp.Abs)),
    "ceiling": Operation("number", "number", _unary(exp.Ceil)),
    "floor": Operation("number", "number", _unary(exp.Floor)),
    "sign": Operation("number", "number", _unary(exp.Sign)),
    "increment": Operation("number", "number",
                           lambda r, v: exp.Add(this=_p(v), expression=exp.Literal.number(1))),
    "decrement": Operation("number", "number",
                           lambda r, v: exp.Sub(this=_p(v), expression=exp.Literal.number(1))),
    "oppose": Operation("number", "number", lambda r, v: exp.Neg(this=_p(v))),
    "add": Operation("number", "number",
                     lambda r, v: exp.Add(this=_p(v), expression=_p(_times(r))),
                     ("number", "number?")),
    "subtract": Operation("number", "number",
                          lambda r, v: exp.Sub(this=_p(v), expression=_p(_times(r))),
                          ("number", "number?")),
    "multiply": Operation("number", "number",
                          lambda r, v: exp.Mul(this=_p(v), expression=_p(r.value(0))), ("number",)),
    "square-power": Operation("number", "number",
                              lambda r, v: exp.Mul(this=_p(v), expression=_p(v))),
    "cube-power": Operation("number", "number", lambda r, v: exp.Mul(
        this=exp.Mul(this=_p(v), expression=_p(v)), expression=_p(v))),
    "null-to-zero": Operation("number", "number", lambda r, v: exp.Coalesce(
        this=v, expressions=[exp.Literal.number(0)])),
}

_TEXT_FUNCTIONS: dict[str, Operation] = {
    "length": Operation("text", "number", lambda r, v: exp.Coalesce(
        this=r.dialect.char_length(v), expressions=[exp.Literal.number(0)])),
    "null-to-empty": Operation("text", "text", lambda r, v: exp.Coalesce(
        this=v, expressions=[exp.Literal.string("")])),
    "empty-to-null": Operation("text", "text",
                               lambda r, v: exp.Nullif(this=v, expression=exp.Literal.string(""))),
}

_SPECIAL_FUNCTIONS: dict[str, Operation] = {
    "neutral": Operation("any", "same", lambda r, v: v),
}

FUNCTIONS: dict[str, Operation] = {**_NUMERIC_FUNCTIONS, **_TEXT_FUNCTIONS, **_SPECIAL_FUNCTIONS}


def _count(r: Rendering, v: exp.Expr) -> exp.Expr:
    return exp.Count(this=exp.Star())


ACCUMULATORS: dict[str, Operation] = {
    "count": Operation("any", "number", _count),
    "sum": Operation("number", "number", lambda r, v: exp.Sum(this=v)),
    "min": Operation("any", "same", lambda r, v: exp.Min(this=v)),
    "max": Operation("any", "same", lambda r, v: exp.Max(this=v)),
    "any": Operation("boolean", "boolean", lambda r, v: exp.GT(
        this=exp.Count(this=exp.Case(ifs=[exp.If(this=as_boolean(v), true=exp.Literal.number(1))])),
        expression=exp.Literal.number(0))),
    "every": Operation("boolean", "boolean", lambda r, v: exp.EQ(
        this=exp.Count(this=exp.Case(ifs=[exp.If(this=exp.Not(this=as_boolean(v)),
                                                 true=exp.Literal.number(1))])),
        expression=exp.Literal.number(0))),
}
