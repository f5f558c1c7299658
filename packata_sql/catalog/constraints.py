"""Row-reading schema constraints, one handler per kind: each count is the number of violating
rows, an integer aggregate that fuses into the object's scan next to the library metrics.

Options (`logicalTypeOptions`) apply to non-NULL values only; NULLs are `required`'s business.
Text is compared exactly (binary) and lengths count characters, trailing spaces included.
"""

from __future__ import annotations

from decimal import Decimal
from fractions import Fraction

import sqlglot.expressions as exp

from packata_sql.catalog.base import (
    MeasureContext,
    TypeMismatch,
    check_members,
    logical_family,
    repeated_keys,
    rows_where,
)
from packata_sql.catalog.metrics import engine_pattern_findings
from packata_sql.catalog.patterns import pattern_problem
from packata_sql.contracts.model import Constraint, Finding, Rule, SchemaObject, Site
from packata_sql.dialects import Dialect, Family
from packata_sql.dialects.regex import portable

_ONE = exp.Literal.number(1)
#: `format` values with one meaning on every engine, checked as (anchored) patterns.
PORTABLE_FORMATS = {
    "uuid": "^[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}$",
    "email": "^[^@ ]+@[^@ ]+[.][^@ .]+$",
    # Four octets spelled out: a repeated group with alternation is refused on backtracking
    # engines (docs/semantics.md 3.3).
    "ipv4": "^" + "[.]".join(["(?:25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])"] * 4) + "$",
}
_TEXT_ONLY = (None, Family.TEXT, Family.DYNAMIC)
_NUMBER_ONLY = (None, Family.NUMBER, Family.DYNAMIC)


def _rows() -> exp.Expr:
    return exp.Count(this=exp.Star())


def _is_null(column: exp.Expr) -> exp.Expr:
    return exp.Is(this=column.copy(), expression=exp.Null())


def _violations(context: MeasureContext, name: str, valid: exp.Expr) -> exp.Expr:
    """Non-NULL cells for which `valid` is not true (false or unknown)."""
    column = context.column(name)
    return exp.Count(this=exp.Case().when(_is_null(column), exp.Null())
                     .when(valid, exp.Null()).else_(_ONE))


def _guarded(guard: exp.Expr | None, condition: exp.Expr) -> exp.Expr:
    return condition if guard is None else exp.and_(guard, condition)


def _distinct_keys(context: MeasureContext, columns: tuple[str, ...]) -> exp.Expr:
    """Distinct keys among rows whose key columns are all non-NULL (binary text keys)."""
    if len(columns) == 1:
        return exp.Count(this=exp.Distinct(expressions=[context.key(columns[0])]))
    keys = exp.select(*(context.key(c) for c in columns)).distinct().from_(context.table.copy())
    for column in columns:
        keys = keys.where(exp.Not(this=exp.paren(_is_null(context.column(column)), copy=False)))
    return exp.select(_rows()).from_(keys.subquery("packata_keys")).subquery()


class ConstraintHandler:
    """One constraint kind: what it accepts and its count of violating rows."""

    kind = ""
    #: What a rule without expectations is told to add (constraints always have one).
    threshold_hint: str = "'mustBe: 0'"

    def __init__(self, kind: str | None = None) -> None:
        if kind is not None:
            self.kind = kind  # one class serves sibling options (minLength and maxLength)

    def validate(self, rule: Rule, constraint: Constraint, schema: SchemaObject | None,
                 site: Site) -> list[Finding]:
        return []

    def dialect_findings(self, constraint: Constraint, dialect: Dialect,
                         site: Site) -> list[Finding]:
        return []

    def columns(self, rule: Rule, constraint: Constraint,
                schema: SchemaObject | None) -> tuple[str, ...]:
        return constraint.columns

    def count(self, rule: Rule, constraint: Constraint, context: MeasureContext,
              columns: tuple[str, ...]) -> exp.Expr:
        raise NotImplementedError

    def offending(self, rule: Rule, constraint: Constraint, context: MeasureContext,
                  columns: tuple[str, ...]) -> exp.Expr | None:
        """The predicate of the rows the count counts. A count `COUNT(x)` of a per-row `x`
        counts exactly the rows where `x` is not NULL, so that is the predicate: read off the
        count itself, it cannot drift from it. None for a count of another shape."""
        return counted_rows(self.count(rule, constraint, context, columns))

    def inspect(self, rule: Rule, constraint: Constraint, context: MeasureContext,
                columns: tuple[str, ...]) -> exp.Select | None:
        """A query listing the offending keys, for failure triage; never run by a check."""
        predicate = self.offending(rule, constraint, context, columns)
        return None if predicate is None else rows_where(context, columns, predicate)


def counted_rows(count: exp.Expr) -> exp.Expr | None:
    """`NOT (x IS NULL)` for `COUNT(x)` over one row's cells; None for any other count."""
    counted = count.this if isinstance(count, exp.Count) else None
    if not isinstance(counted, exp.Expr) or isinstance(counted, exp.Star | exp.Distinct) \
            or counted.find(exp.AggFunc, exp.Select) is not None:
        return None
    # Parenthesised: MySQL's HIGH_NOT_PRECEDENCE reads `NOT x IS NULL` as `(NOT x) IS NULL`.
    return exp.Not(this=exp.paren(_is_null(counted), copy=False))


class Required(ConstraintHandler):
    """Rows without a value. On a nested field, rows whose enclosing object exists without
    it: a missing object is its own property's `required` (as JSON Schema reads it)."""

    kind = "required"

    def count(self, rule: Rule, constraint: Constraint, context: MeasureContext,
              columns: tuple[str, ...]) -> exp.Expr:
        enclosing = context.enclosing(columns[0])
        present = _rows() if enclosing is None else exp.Count(this=enclosing)
        return exp.Sub(this=present, expression=exp.Count(this=context.column(columns[0])))

    def offending(self, rule: Rule, constraint: Constraint, context: MeasureContext,
                  columns: tuple[str, ...]) -> exp.Expr | None:
        missing = _is_null(context.column(columns[0]))
        enclosing = context.enclosing(columns[0])
        if enclosing is None:
            return missing
        return exp.and_(exp.Not(this=exp.paren(_is_null(enclosing), copy=False)), missing)


class Unique(ConstraintHandler):
    """Excess occurrences among non-NULL values: NULLs never collide, as in SQL UNIQUE."""

    kind = "unique"

    def count(self, rule: Rule, constraint: Constraint, context: MeasureContext,
              columns: tuple[str, ...]) -> exp.Expr:
        return exp.Sub(this=exp.Count(this=context.column(columns[0])),
                       expression=_distinct_keys(context, columns))

    def inspect(self, rule: Rule, constraint: Constraint, context: MeasureContext,
                columns: tuple[str, ...]) -> exp.Select | None:
        """Each non-NULL value occurring more than once, with its occurrences."""
        return repeated_keys(context, columns, where=_complete(context, columns))


class PrimaryKey(ConstraintHandler):
    """Rows with a NULL in any key column plus excess occurrences of complete keys."""

    kind = "primaryKey"

    def count(self, rule: Rule, constraint: Constraint, context: MeasureContext,
              columns: tuple[str, ...]) -> exp.Expr:
        return exp.Sub(this=_rows(), expression=_distinct_keys(context, columns))

    def inspect(self, rule: Rule, constraint: Constraint, context: MeasureContext,
                columns: tuple[str, ...]) -> exp.Select | None:
        """Each key with a NULL in it, and each complete key occurring more than once, with
        its occurrences."""
        nulls = [_is_null(context.column(c)) for c in columns]
        incomplete = nulls[0]
        for null in nulls[1:]:
            incomplete = exp.Or(this=incomplete, expression=null)
        return repeated_keys(context, columns, or_having=exp.paren(incomplete, copy=False))


def _complete(context: MeasureContext, columns: tuple[str, ...]) -> exp.Expr:
    """No key column is NULL."""
    return exp.and_(*(exp.Not(this=exp.paren(_is_null(context.column(c)), copy=False))
                      for c in columns))


def _text_option(constraint: Constraint, site: Site) -> list[Finding]:
    declared = logical_family(_logical(constraint))
    if declared is not None and declared is not Family.TEXT:
        return [site.finding("constraint-not-checkable",
                             f"'{constraint.kind}' applies to string properties only")]
    return []


def _logical(constraint: Constraint) -> str | None:
    value = constraint.argument("logicalType")
    return value if isinstance(value, str) else None


class Length(ConstraintHandler):
    """minLength / maxLength: characters of non-NULL text."""

    def validate(self, rule: Rule, constraint: Constraint, schema: SchemaObject | None,
                 site: Site) -> list[Finding]:
        value = constraint.argument(self.kind)
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            return [site.finding("invalid-constraint",
                                 f"'{self.kind}' must be a non-negative integer")]
        return _text_option(constraint, site)

    def count(self, rule: Rule, constraint: Constraint, context: MeasureContext,
              columns: tuple[str, ...]) -> exp.Expr:
        if context.family(columns[0]) not in _TEXT_ONLY:
            raise TypeMismatch
        bound = constraint.argument(self.kind)
        assert isinstance(bound, int)
        length = context.dialect.char_length(context.column(columns[0]))
        limit = exp.Literal.number(bound)
        valid = exp.GTE(this=length, expression=limit) if self.kind == "minLength" \
            else exp.LTE(this=length, expression=limit)
        return _violations(context, columns[0], valid)


class Pattern(ConstraintHandler):
    kind = "pattern"

    def _pattern(self, constraint: Constraint) -> object:
        return constraint.argument(self.kind)

    def validate(self, rule: Rule, constraint: Constraint, schema: SchemaObject | None,
                 site: Site) -> list[Finding]:
        pattern = self._pattern(constraint)
        if not isinstance(pattern, str) or not pattern:
            return [site.finding("invalid-constraint", f"'{self.kind}' must be text")]
        problem = pattern_problem(pattern)
        if problem:
            return [site.finding("unsafe-pattern", problem)]
        return _text_option(constraint, site)

    def dialect_findings(self, constraint: Constraint, dialect: Dialect,
                         site: Site) -> list[Finding]:
        return engine_pattern_findings(self._pattern(constraint), dialect, site)

    def count(self, rule: Rule, constraint: Constraint, context: MeasureContext,
              columns: tuple[str, ...]) -> exp.Expr:
        if context.family(columns[0]) not in _TEXT_ONLY:
            raise TypeMismatch
        pattern = self._pattern(constraint)
        assert isinstance(pattern, str)
        column = context.column(columns[0])
        spelled = portable(pattern, context.dialect.regex_flavor)
        matches = context.dialect.regex_search(column, spelled)
        return _violations(context, columns[0], _guarded(context.dialect.is_text(column), matches))


class Format(Pattern):
    """Only formats with one meaning on every engine; any other is a finding."""

    kind = "format"

    def _pattern(self, constraint: Constraint) -> object:
        return PORTABLE_FORMATS.get(str(constraint.argument(self.kind)).lower())

    def validate(self, rule: Rule, constraint: Constraint, schema: SchemaObject | None,
                 site: Site) -> list[Finding]:
        if self._pattern(constraint) is None or _text_option(constraint, site):
            return [site.finding(
                "constraint-not-checkable",
                f"format is checked only on strings, for {', '.join(sorted(PORTABLE_FORMATS))}",
            )]
        return []


class Bound(ConstraintHandler):
    """minimum/maximum (inclusive unless the ODCS 3.0 boolean says exclusive) and the numeric
    exclusiveMinimum/exclusiveMaximum, on numbers."""

    def validate(self, rule: Rule, constraint: Constraint, schema: SchemaObject | None,
                 site: Site) -> list[Finding]:
        value = constraint.argument(self.kind)
        if isinstance(value, bool) or not isinstance(value, int | Decimal) or (
            isinstance(value, Decimal) and not value.is_finite()
        ):
            return [site.finding("constraint-not-checkable",
                                 f"'{self.kind}' is checked for finite numbers only")]
        declared = logical_family(_logical(constraint))
        if declared is not None and declared is not Family.NUMBER:
            return [site.finding("constraint-not-checkable",
                                 f"'{self.kind}' is checked on integer and number properties only")]
        return []

    def count(self, rule: Rule, constraint: Constraint, context: MeasureContext,
              columns: tuple[str, ...]) -> exp.Expr:
        if context.family(columns[0]) not in _NUMBER_ONLY:
            raise TypeMismatch
        value = constraint.argument(self.kind)
        assert isinstance(value, int | Decimal)
        column = context.column(columns[0])
        strict = self.kind.startswith("exclusive") or constraint.argument("exclusive") is True
        lower = self.kind in ("minimum", "exclusiveMinimum")
        kind: type[exp.Binary] = (exp.GT if strict else exp.GTE) if lower \
            else (exp.LT if strict else exp.LTE)
        valid = context.number_compare(columns[0], kind, Fraction(value))
        return _violations(context, columns[0], _guarded(context.dialect.is_number(column), valid))


class ValidValues(ConstraintHandler):
    """An enum-like list of permitted values (`validValues`, or `enum`), compared typed."""

    kind = "validValues"

    def validate(self, rule: Rule, constraint: Constraint, schema: SchemaObject | None,
                 site: Site) -> list[Finding]:
        # ODCS 3.2's `enum` sits on the property itself; `validValues` (and an `enum` written
        # there) under logicalTypeOptions: the message names where the member is written.
        written = "logicalTypeOptions" if rule.source_path.endswith(
            f"logicalTypeOptions.{self.kind}") else "property"
        return check_members(constraint.argument(self.kind), self.kind, _logical(constraint),
                             site, written)

    def count(self, rule: Rule, constraint: Constraint, context: MeasureContext,
              columns: tuple[str, ...]) -> exp.Expr:
        members = constraint.argument(self.kind)
        assert isinstance(members, tuple)
        return _violations(context, columns[0], context.any_member(columns[0], members))


CONSTRAINT_HANDLERS: dict[str, ConstraintHandler] = {
    handler.kind: handler
    for handler in (Required(), Unique(), PrimaryKey(), Length("minLength"), Length("maxLength"),
                    Pattern(), Format(), Bound("minimum"), Bound("maximum"),
                    Bound("exclusiveMinimum"), Bound("exclusiveMaximum"), ValidValues(),
                    ValidValues("enum"))
}
