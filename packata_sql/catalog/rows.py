"""Row checks declared by the JSON quality policy and pipeline `data_quality` rules. Each
count is the number of failing rows, an integer aggregate that fuses into the object's scan
next to the library metrics and schema constraints. An `expression` rule is authored SQL: its
predicate is checked here and runs as an authored query of its own (`predicate_query`).

Over several columns a row fails when any of its listed cells fails. NULL is a failure only
where the check says so (`not_null`, or `allow_null: false`); text compares exactly (binary).
"""

from __future__ import annotations

from collections.abc import Sequence
from decimal import Decimal
from fractions import Fraction

import sqlglot
import sqlglot.expressions as exp
from sqlglot.errors import SqlglotError

from packata_sql.authored.template import bind
from packata_sql.catalog.base import MeasureContext, TypeMismatch, check_members, too_deep
from packata_sql.catalog.constraints import CONSTRAINT_HANDLERS, ConstraintHandler
from packata_sql.catalog.metrics import HANDLERS
from packata_sql.catalog.patterns import pattern_problem
from packata_sql.contracts.model import Constraint, Finding, Library, Rule, SchemaObject, Site
from packata_sql.dialects import Dialect, Family, case
from packata_sql.dialects.regex import portable

#: The most members an allowed-values set may hold; a larger set is a finding (not run).
MAX_ALLOWED_VALUES = 1000
_TEXT_ONLY = (None, Family.TEXT, Family.DYNAMIC)
_NUMBER_ONLY = (None, Family.NUMBER, Family.DYNAMIC)
#: What a one-row predicate may not contain: it would read other rows or other objects.
_NOT_ONE_ROW = (exp.Select, exp.Subquery, exp.AggFunc, exp.Window, exp.Star)
#: Expression tree levels, well within what sqlglot's generator recurses through.
MAX_TREE_DEPTH = 64


def _one() -> exp.Expr:
    return exp.Literal.number(1)


def _zero() -> exp.Expr:
    return exp.Literal.number(0)


def _is_null(column: exp.Expr) -> exp.Expr:
    return exp.Is(this=column.copy(), expression=exp.Null())


def _any(conditions: list[exp.Expr]) -> exp.Expr:
    combined: exp.Expr = exp.paren(conditions[0], copy=False)
    for condition in conditions[1:]:
        combined = exp.Or(this=combined, expression=exp.paren(condition, copy=False))
    return combined


class RowCheck(ConstraintHandler):
    """A check of each listed cell; `valid` is None when every non-NULL cell passes."""

    def valid(self, constraint: Constraint, context: MeasureContext, name: str) -> exp.Expr | None:
        return None

    def count(self, rule: Rule, constraint: Constraint, context: MeasureContext,
              columns: tuple[str, ...]) -> exp.Expr:
        null_fails = constraint.argument("allow_null") is False
        failing: list[exp.Expr] = []
        for name in columns:
            column = context.column(name)
            valid = self.valid(constraint, context, name)
            # A 0/1 flag per cell: CASE never leaves a comparison's unknown in the sum.
            first = (_is_null(column), _one() if null_fails else _zero())
            flag = case(first, default=_zero()) if valid is None else \
                case(first, (valid, _zero()), default=_one())
            failing.append(exp.EQ(this=flag, expression=_one()))
        return exp.Count(this=case((_any(failing), _one())))


class NotNull(ConstraintHandler):
    """Rows with a NULL in any listed column."""

    kind = "notNull"

    def count(self, rule: Rule, constraint: Constraint, context: MeasureContext,
              columns: tuple[str, ...]) -> exp.Expr:
        nulls = [_is_null(context.column(name)) for name in columns]
        return exp.Count(this=case((_any(nulls), _one())))


class Range(RowCheck):
    """Non-NULL numbers outside `[minimum, maximum]` (inclusive); NULL per `allow_null`."""

    kind = "range"

    def valid(self, constraint: Constraint, context: MeasureContext, name: str) -> exp.Expr | None:
        if context.family(name) not in _NUMBER_ONLY:
            raise TypeMismatch
        column = context.column(name)
        tests: list[exp.Expr] = []
        guard = context.dialect.is_number(column)
        if guard is not None:
            tests.append(guard)
        for key, kind in (("minimum", exp.GTE), ("maximum", exp.LTE)):
            bound = constraint.argument(key)
            if isinstance(bound, int | Decimal):
                tests.append(context.number_compare(name, kind, Fraction(bound)))
        return exp.and_(*tests) if tests else None


class AllowedValues(RowCheck):
    """Non-NULL cells that equal no member (typed, exact); NULL per `allow_null`."""

    kind = "allowedValues"

    def validate(self, rule: Rule, constraint: Constraint, schema: SchemaObject | None,
                 site: Site) -> list[Finding]:
        members = constraint.argument("values")
        if isinstance(members, tuple) and len(members) > MAX_ALLOWED_VALUES:
            return [site.finding(
                "too-many-values",
                f"an allowed-values set holds at most {MAX_ALLOWED_VALUES} members; check a "
                "larger set against a reference table with a SQL rule",
            )]
        return check_members(members, "values", rule.target.logical_type, site, "allowed values")

    def valid(self, constraint: Constraint, context: MeasureContext, name: str) -> exp.Expr | None:
        members = constraint.argument("values")
        assert isinstance(members, tuple)
        return context.any_member(name, members)


class Matches(RowCheck):
    """Non-NULL text in which `pattern` finds no match (unanchored search, docs/semantics.md 3.3)."""

    kind = "matches"

    def validate(self, rule: Rule, constraint: Constraint, schema: SchemaObject | None,
                 site: Site) -> list[Finding]:
        pattern = constraint.argument("pattern")
        if not isinstance(pattern, str) or not pattern:
            return [site.finding("invalid-argument", "'pattern' must be text")]
        problem = pattern_problem(pattern)
        return [site.finding("unsafe-pattern", problem)] if problem else []

    def dialect_findings(self, constraint: Constraint, dialect: Dialect,
                         site: Site) -> list[Finding]:
        pattern = constraint.argument("pattern")
        problem = dialect.pattern_problem(pattern) if isinstance(pattern, str) else None
        return [site.finding("unsupported-pattern", problem)] if problem else []

    def valid(self, constraint: Constraint, context: MeasureContext, name: str) -> exp.Expr | None:
        if context.family(name) not in _TEXT_ONLY:
            raise TypeMismatch
        pattern = constraint.argument("pattern")
        assert isinstance(pattern, str)
        column = context.column(name)
        search = context.dialect.regex_search(column, portable(pattern, context.dialect.regex_flavor))
        guard = context.dialect.is_text(column.copy())
        return search if guard is None else exp.and_(guard, search)


class UniqueKey(ConstraintHandler):
    """Excess rows per key (rows minus distinct keys). NULLs take part in equality unless
    `ignore_nulls`, which leaves out every row with a NULL in its key."""

    kind = "uniqueKey"

    def count(self, rule: Rule, constraint: Constraint, context: MeasureContext,
              columns: tuple[str, ...]) -> exp.Expr:
        if constraint.argument("ignore_nulls") is not True:
            return HANDLERS["duplicateValues"].count(rule, Library("duplicateValues"), context,
                                                     columns)
        # primaryKey counts rows minus distinct complete keys; rows with a NULL key are not
        # violations here, so they come off again.
        rows_minus_keys = CONSTRAINT_HANDLERS["primaryKey"].count(rule, constraint, context,
                                                                  columns)
        incomplete = NotNull().count(rule, constraint, context, columns)
        return exp.Sub(this=rows_minus_keys, expression=incomplete)

    def inspect(self, rule: Rule, constraint: Constraint, context: MeasureContext,
                columns: tuple[str, ...]) -> exp.Select | None:
        """The repeated keys, as the count reads them: NULL keys among them unless
        `ignore_nulls`, where rows with a NULL in the key are left out as `unique` leaves them."""
        if constraint.argument("ignore_nulls") is not True:
            return HANDLERS["duplicateValues"].inspect(rule, Library("duplicateValues"), context,
                                                       columns)
        return CONSTRAINT_HANDLERS["unique"].inspect(rule, constraint, context, columns)


def predicate_query(text: str, dialect: Dialect, segments: Sequence[str],
                    ) -> tuple[str | None, list[tuple[str, str]]]:
    """An expression rule as the authored query that runs it: the rows of the object where the
    predicate is not true (false or NULL), counted in one statement of its own. The query is
    bound again as a whole, so the deny-list reads the text that runs and `%` is escaped for
    the driver as in every authored query."""
    condition, problems = predicate(text, dialect)
    if condition is None:
        return None, problems
    failing = exp.Count(this=case((exp.paren(condition, copy=False), exp.Null()),
                                  default=_one()))
    sql = dialect.render(exp.select(failing).from_(dialect.table(segments)))
    bound, found = bind(sql, dialect, None, None)
    if bound is None:
        return None, [(p.code, p.message) for p in found]
    return bound.sql, []


def predicate(text: str, dialect: Dialect) -> tuple[exp.Expr | None, list[tuple[str, str]]]:
    """The predicate bound by the dialect's lexer-aware binder (placeholders in code only,
    one statement) and parsed by sqlglot as exactly one expression over one row."""
    bound, problems = bind(text, dialect, None, None)
    if bound is None:
        return None, [(p.code, p.message) for p in problems]
    if bound.parameters:
        return None, [("parameter-in-expression",
                       "an expression rule takes no {param:NAME}; write the value in the rule")]
    # The binder escaped `%` for drivers that always take parameters (psycopg): that is the
    # driver's encoding, not SQL. Parsed escaped, `'%'` would reach the engine as `'%%'` once
    # the whole query is bound (predicate_query); without parameters the doubling is exact.
    sql = bound.sql.replace("%%", "%") if dialect.percent_escapes and dialect.always_parameters \
        else bound.sql
    try:
        parsed = sqlglot.parse_one(sql, read=dialect.sqlglot_name or None, into=exp.Condition)
    except (SqlglotError, ValueError, RecursionError):  # nesting the load-time bound missed
        parsed = None
    if parsed is None:
        return None, [("invalid-expression",
                       "the expression is not one SQL expression in this dialect")]
    if too_deep(parsed, MAX_TREE_DEPTH):
        return None, [("invalid-expression", f"the expression nests deeper than "
                                             f"{MAX_TREE_DEPTH} levels; write it flatter")]
    if parsed.find(*_NOT_ONE_ROW) is not None:
        return None, [("invalid-expression", "the expression must read one row: no subquery, "
                                             "aggregate, window function or *")]
    for node in parsed.walk():
        node.comments = None  # rendered into the query that runs it: authored comments stay out
    return parsed, []


ROW_HANDLERS: dict[str, ConstraintHandler] = {
    handler.kind: handler
    for handler in (NotNull(), Range(), AllowedValues(), Matches(), UniqueKey())
}
