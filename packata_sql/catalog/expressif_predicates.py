"""The Expressif predicates in SQL: numeric, boolean, text and special (docs/expressif.md).
Each renders a condition that may be NULL; the caller makes it two-valued (`as_boolean`)."""

from __future__ import annotations

import sqlglot.expressions as exp

from packata_sql.catalog.expressif_operations import (
    Operation,
    Rendering,
    as_boolean,
    compare,
    constant,
    is_null,
    mod,
    paren,
    within,
)
from packata_sql.catalog.expressif_regex import render_matches
from packata_sql.dialects import Dialect, data_type

_NUMERIC_PREDICATES: dict[str, Operation] = {
    "equal-to": Operation("number", "boolean", compare(exp.EQ), ("number",)),
    "greater-than": Operation("number", "boolean", compare(exp.GT), ("number",)),
    "greater-than-or-equal": Operation("number", "boolean", compare(exp.GTE), ("number",)),
    "less-than": Operation("number", "boolean", compare(exp.LT), ("number",)),
    "less-than-or-equal": Operation("number", "boolean", compare(exp.LTE), ("number",)),
    "opposite": Operation("number", "boolean",
                          lambda r, v: exp.EQ(this=v, expression=exp.Neg(this=paren(r.value(0)))),
                          ("number",)),
    "positive": Operation("number", "boolean", constant(exp.GT, 0)),
    "positive-or-zero": Operation("number", "boolean", constant(exp.GTE, 0)),
    "negative": Operation("number", "boolean", constant(exp.LT, 0)),
    "negative-or-zero": Operation("number", "boolean", constant(exp.LTE, 0)),
    "zero": Operation("number", "boolean", constant(exp.EQ, 0)),
    "one": Operation("number", "boolean", constant(exp.EQ, 1)),
    "zero-or-null": Operation("number", "boolean", lambda r, v: exp.or_(
        is_null(v), exp.EQ(this=v, expression=exp.Literal.number(0)))),
    "even": Operation("number", "boolean", lambda r, v: exp.EQ(
        this=mod(v, exp.Literal.number(2)), expression=exp.Literal.number(0))),
    "odd": Operation("number", "boolean", lambda r, v: exp.EQ(
        this=exp.Abs(this=mod(v, exp.Literal.number(2))), expression=exp.Literal.number(1))),
    "integer": Operation("number", "boolean",
                         lambda r, v: exp.EQ(this=v, expression=exp.Floor(this=v))),
    "modulo": Operation("number", "boolean", lambda r, v: exp.EQ(
        this=mod(v, r.value(0)), expression=r.optional(1, exp.Literal.number(0))),
        ("number", "number?")),
    "within-interval": Operation("number", "boolean",
                                 lambda r, v: within(r.interval(0), v), ("interval",)),
}

_SPECIAL_PREDICATES: dict[str, Operation] = {
    "null": Operation("any", "boolean", lambda r, v: is_null(v)),
}

_BOOLEAN_PREDICATES: dict[str, Operation] = {
    "true": Operation("boolean", "boolean", lambda r, v: exp.EQ(this=v, expression=exp.true())),
    "false": Operation("boolean", "boolean", lambda r, v: exp.EQ(this=v, expression=exp.false())),
    "true-or-null": Operation("boolean", "boolean", lambda r, v: exp.or_(
        is_null(v), exp.EQ(this=v, expression=exp.true()))),
    "false-or-null": Operation("boolean", "boolean", lambda r, v: exp.or_(
        is_null(v), exp.EQ(this=v, expression=exp.false()))),
    "not": Operation("boolean", "boolean", lambda r, v: exp.Not(this=as_boolean(v))),
    "and": Operation("boolean", "boolean", lambda r, v: exp.and_(
        as_boolean(v), as_boolean(r.value(0))), ("predication",)),
    "or": Operation("boolean", "boolean", lambda r, v: exp.or_(
        as_boolean(v), as_boolean(r.value(0))), ("predication",)),
    "xor": Operation("boolean", "boolean", lambda r, v: exp.NEQ(
        this=paren(as_boolean(v)), expression=paren(as_boolean(r.value(0)))), ("predication",)),
    "identical-to": Operation("boolean", "boolean", lambda r, v: exp.EQ(
        this=v, expression=r.value(0)), ("boolean",)),
}

_TEXT_PREDICATES: dict[str, Operation] = {
    "empty": Operation("text", "boolean", lambda r, v: exp.EQ(
        this=r.dialect.char_length(v), expression=exp.Literal.number(0))),
    "empty-or-null": Operation("text", "boolean", lambda r, v: exp.or_(
        is_null(v), exp.EQ(this=r.dialect.char_length(v), expression=exp.Literal.number(0)))),
    "matches-regex": Operation("text", "boolean", render_matches, ("text",), per_dialect=True),
}

def no_temporal(dialect: Dialect) -> str | None:
    """Why the engine's dates and times cannot keep Expressif's meaning (the dialect says)."""
    return dialect.temporal_problem()


def _temporal(op: type[exp.Binary]) -> Operation:
    return Operation("temporal", "boolean", compare(op), ("temporal",), problem=no_temporal)


def _leap(r: Rendering, value: exp.Expr) -> exp.Expr:
    year = exp.Year(this=value)
    def divisible(n: int) -> exp.Expr:
        return exp.EQ(this=mod(year.copy(), exp.Literal.number(n)), expression=exp.Literal.number(0))
    return exp.and_(divisible(4), exp.or_(exp.Not(this=divisible(100)), divisible(400)))


_TEMPORAL_PREDICATES: dict[str, Operation] = {
    "before": _temporal(exp.LT),
    "after": _temporal(exp.GT),
    "before-or-same-instant": _temporal(exp.LTE),
    "after-or-same-instant": _temporal(exp.GTE),
    "same-instant": _temporal(exp.EQ),
    "on-the-day": Operation("temporal", "boolean", lambda r, v: exp.EQ(
        this=exp.cast(v, data_type("DATE")), expression=v.copy()),
        problem=no_temporal),
    "leap-year": Operation("temporal", "boolean", _leap, problem=no_temporal),
}

PREDICATES: dict[str, Operation] = {**_NUMERIC_PREDICATES, **_SPECIAL_PREDICATES,
                                    **_BOOLEAN_PREDICATES, **_TEXT_PREDICATES,
                                    **_TEMPORAL_PREDICATES}


