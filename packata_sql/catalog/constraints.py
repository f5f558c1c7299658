"""Row-reading schema constraints, one handler per kind: each count is the number of violating
rows, an integer aggregate that fuses into the object's scan next to the library metrics.

Options (`logicalTypeOptions`) apply to non-NULL values only; NULLs are `required`'s business.
Text is compared exactly (binary) and lengths count characters, trailing spaces included.
"""

from __future__ import annotations

import hashlib
from decimal import Decimal
from fractions import Fraction

import sqlglot.expressions as exp

from packata_sql.authored.template import parameter
from packata_sql.catalog.base import (
    MeasureContext,
    TypeMismatch,
    check_members,
    distinct_keys,
    logical_family,
    repeated_keys,
    rows_where,
)
from packata_sql.catalog.holding import column_type
from packata_sql.catalog.metrics import engine_pattern_findings
from packata_sql.catalog.patterns import pattern_problem
from packata_sql.catalog.temporal import temporal_bound
from packata_sql.contracts.model import Constraint, Finding, Rule, SchemaObject, Site
from packata_sql.dialects import Dialect, Family, case
from packata_sql.dialects.regex import portable

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
    return exp.Count(this=case((_is_null(column), exp.Null()), (valid, exp.Null()),
                               default=exp.Literal.number(1)))


def _guarded(guard: exp.Expr | None, condition: exp.Expr) -> exp.Expr:
    return condition if guard is None else exp.and_(guard, condition)


def _distinct_keys(context: MeasureContext, columns: tuple[str, ...]) -> exp.Expr:
    """Distinct keys among rows whose key columns are all non-NULL (binary text keys)."""
    if len(columns) == 1:
        return exp.Count(this=exp.Distinct(expressions=[context.key(columns[0])]))
    return distinct_keys(context, columns, complete=True)


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

    def bindings(self, rule: Rule, constraint: Constraint, dialect: Dialect,
                 zone: str | None) -> tuple[tuple[str, object], ...]:
        """The driver parameters the count reads, by name (`zone`: the one the column's
        values without a zone are read in, None for UTC)."""
        return ()

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
    """minimum/maximum (inclusive unless the ODCS 3.0 boolean says exclusive) and the
    exclusiveMinimum/exclusiveMaximum: a number on numbers, an ISO date or timestamp on dates
    and timestamps (docs/semantics.md 3.2), compared as instants and bound through the
    driver."""

    def _operator(self, constraint: Constraint) -> type[exp.Binary]:
        strict = self.kind.startswith("exclusive") or constraint.argument("exclusive") is True
        if self.kind in ("minimum", "exclusiveMinimum"):
            return exp.GT if strict else exp.GTE
        return exp.LT if strict else exp.LTE

    def validate(self, rule: Rule, constraint: Constraint, schema: SchemaObject | None,
                 site: Site) -> list[Finding]:
        value = constraint.argument(self.kind)
        logical = (_logical(constraint) or "").lower()
        declared = logical_family(logical)
        if isinstance(value, str) and temporal_bound(value, "UTC") is not None:
            return _temporal_bound_problems(self.kind, value, logical, declared, site)
        if isinstance(value, bool) or not isinstance(value, int | Decimal) or (
            isinstance(value, Decimal) and not value.is_finite()
        ):
            return [site.finding(
                "constraint-not-checkable", f"'{self.kind}' is checked for finite numbers, and "
                "for ISO dates and timestamps (YYYY-MM-DD, YYYY-MM-DDTHH:MM:SS with an optional "
                "Z or ±HH:MM offset) on date and timestamp properties")]
        if declared is Family.TEMPORAL:
            return [site.finding(
                "bound-type-mismatch", f"'{self.kind}' on a '{logical}' property is a number, "
                "which it cannot hold: write it as an ISO date or timestamp")]
        if declared is not None and declared is not Family.NUMBER:
            return [site.finding("constraint-not-checkable",
                                 f"'{self.kind}' is checked on integer and number properties only")]
        return []

    def bindings(self, rule: Rule, constraint: Constraint, dialect: Dialect,
                 zone: str | None) -> tuple[tuple[str, object], ...]:
        """A date or timestamp bound's forms, bound as driver parameters (never SQL text)."""
        bound = temporal_bound(constraint.argument(self.kind), zone or "UTC")
        if bound is None:
            return ()
        forms: list[tuple[str, object]] = [
            ("instant", dialect.bound_instant(bound.instant)),
            ("wall", bound.wall.isoformat(sep=" "))]
        if bound.date is not None:
            forms.append(("date", bound.date.isoformat()))
        return tuple((_bound_parameter(rule, form), value) for form, value in forms)

    def count(self, rule: Rule, constraint: Constraint, context: MeasureContext,
              columns: tuple[str, ...]) -> exp.Expr:
        value = constraint.argument(self.kind)
        column = context.column(columns[0])
        if isinstance(value, str):
            valid = self._temporal(rule, constraint, context, columns[0], value)
            return _violations(context, columns[0], valid)
        if context.family(columns[0]) not in _NUMBER_ONLY:
            raise TypeMismatch
        assert isinstance(value, int | Decimal)
        valid = context.number_compare(columns[0], self._operator(constraint), Fraction(value))
        return _violations(context, columns[0], _guarded(context.dialect.is_number(column), valid))

    def _temporal(self, rule: Rule, constraint: Constraint, context: MeasureContext, name: str,
                  value: str) -> exp.Expr:
        """The bound compared as the column holds it: an instant on a column of instants, a
        wall clock in the declared zone on a zone-less one, a date on a date column (which
        cannot hold a time of day or an offset: TypeMismatch)."""
        if context.family(name) not in (None, Family.TEMPORAL, Family.DYNAMIC):
            raise TypeMismatch
        bound = temporal_bound(value, context.zones.get(name, "UTC"))
        assert bound is not None
        native = context.native(name)
        held = column_type(native, context.dialect) if native is not None \
            and not context.dialect.dynamic_typing else None
        declared = (context.declared_leaf.get(name) if name in context.fields
                    else rule.target.logical_type) or ""
        if context.dialect.dynamic_typing:
            kind = "text"
        elif context.dialect.holds_instants(native):
            kind = "instant"
        elif (held.kind if held is not None else declared.lower()) == "date":
            kind = "date"
        elif held is not None and held.kind != "timestamp":
            raise TypeMismatch  # a time of day holds no date
        else:
            kind = "timestamp"
        if kind == "date" and bound.date is None:
            raise TypeMismatch
        values = {form: parameter(_bound_parameter(rule, form))
                  for form in ("instant", "wall", "date")}
        return context.dialect.temporal_bound(context.column(name), self._operator(constraint),
                                              kind, values)

    def offending(self, rule: Rule, constraint: Constraint, context: MeasureContext,
                  columns: tuple[str, ...]) -> exp.Expr | None:
        if isinstance(constraint.argument(self.kind), str):
            return None  # its bound is a driver parameter, which inspect_sql cannot carry
        return super().offending(rule, constraint, context, columns)


def _bound_parameter(rule: Rule, form: str) -> str:
    """The parameter one form of a rule's temporal bound binds (a name the driver accepts)."""
    digest = hashlib.sha256(rule.key.encode("utf-8")).hexdigest()[:10]
    return f"packata_bound_{digest}_{form}"


def _temporal_bound_problems(kind: str, value: str, logical: str, declared: Family | None,
                             site: Site) -> list[Finding]:
    """A date or timestamp bound on a property whose type cannot hold it (a number, text, a
    time of day; an instant or a time of day on a date) is a finding: the rule is skipped."""
    if declared is None or logical == "timestamp":
        return []
    if logical == "date":
        bound = temporal_bound(value, "UTC")
        if bound is not None and bound.date is None:
            what = "an instant (it has an offset)" if bound.offset else "a time of day"
            return [site.finding("bound-type-mismatch",
                                 f"'{kind}' is {what}, which a 'date' property cannot hold")]
        return []
    where = " (a date string stays text on a string property)" if declared is Family.TEXT else ""
    return [site.finding("bound-type-mismatch",
                         f"'{kind}' is a date or timestamp, which a '{logical}' property cannot "
                         f"hold{where}")]


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
