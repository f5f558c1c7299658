"""The five ODCS library metrics, one handler each (docs/semantics.md 3). Each count is an integer
aggregate over every row of the object; percentages are computed in Python."""

from __future__ import annotations

import sqlglot.expressions as exp

from packata_sql.catalog.base import (
    MeasureContext,
    MetricHandler,
    TypeMismatch,
    check_members,
    distinct_keys,
    held_members,
    logical_family,
    repeated_keys,
)
from packata_sql.catalog.patterns import backtracking_problem, pattern_problem
from packata_sql.contracts.model import Finding, Library, Rule, SchemaObject, Site
from packata_sql.dialects import Dialect, Family, case
from packata_sql.dialects.regex import portable


def _one() -> exp.Expr:
    return exp.Literal.number(1)


def _count_when(condition: exp.Expr) -> exp.Expr:
    return exp.Count(this=case((condition, _one())))


def _rows() -> exp.Expr:
    return exp.Count(this=exp.Star())


def engine_pattern_findings(pattern: object, dialect: Dialect, site: Site) -> list[Finding]:
    """What the target engine cannot run safely or at all, for a pattern that passed the
    engine-independent guard (`invalidValues.pattern`, `logicalTypeOptions.pattern`)."""
    if not isinstance(pattern, str) or pattern_problem(pattern) is not None:
        return []  # reported once, by the argument check
    if dialect.regex_backtracks and (unsafe := backtracking_problem(pattern)):
        return [site.finding("unsafe-pattern", f"{unsafe} ({dialect.name})")]
    problem = dialect.pattern_problem(pattern)
    return [site.finding("unsupported-pattern", problem)] if problem else []


class RowCount(MetricHandler):
    name = "rowCount"
    object_scope = True
    property_scope = False
    percent = False
    threshold_hint = "'mustBeGreaterThan: 0' to require rows"

    def count(self, rule: Rule, library: Library, context: MeasureContext,
              columns: tuple[str, ...]) -> exp.Expr:
        return _rows()


class NullValues(MetricHandler):
    name = "nullValues"
    threshold_hint = "'mustBe: 0' to require no NULL cells (ODCS 3.0 'nullCheck' needs it too)"

    def count(self, rule: Rule, library: Library, context: MeasureContext,
              columns: tuple[str, ...]) -> exp.Expr:
        return exp.Sub(this=_rows(), expression=exp.Count(this=context.column(columns[0])))

    def offending(self, rule: Rule, library: Library, context: MeasureContext,
                  columns: tuple[str, ...]) -> exp.Expr | None:
        return exp.Is(this=context.column(columns[0]), expression=exp.Null())


class MissingValues(MetricHandler):
    name = "missingValues"
    arguments = frozenset({"missingValues"})
    threshold_hint = "'mustBe: 0' to require no missing cells"

    def check_arguments(self, rule: Rule, library: Library, schema: SchemaObject | None,
                        site: Site) -> list[Finding]:
        if not library.has("missingValues"):
            return [site.finding("missing-argument", "'missingValues' needs 'arguments.missingValues'")]
        return check_members(library.argument("missingValues"), "missingValues",
                             rule.target.logical_type, site, self.name)

    def count(self, rule: Rule, library: Library, context: MeasureContext,
              columns: tuple[str, ...]) -> exp.Expr:
        predicate = self.offending(rule, library, context, columns)
        assert predicate is not None
        return _count_when(predicate)

    def offending(self, rule: Rule, library: Library, context: MeasureContext,
                  columns: tuple[str, ...]) -> exp.Expr | None:
        members = library.argument("missingValues")
        assert isinstance(members, tuple)
        return context.any_member(columns[0], held_members(members, rule.target.logical_type))


class InvalidValues(MetricHandler):
    name = "invalidValues"
    arguments = frozenset({"validValues", "pattern"})
    threshold_hint = "'mustBe: 0' to require no invalid cells"

    def check_arguments(self, rule: Rule, library: Library, schema: SchemaObject | None,
                        site: Site) -> list[Finding]:
        if not (library.has("validValues") or library.has("pattern")):
            return [site.finding(
                "missing-argument",
                "'invalidValues' needs 'arguments.validValues' and/or 'arguments.pattern'",
            )]
        findings = []
        if library.has("validValues"):
            findings += check_members(library.argument("validValues"), "validValues",
                                      rule.target.logical_type, site, self.name)
        if library.has("pattern"):
            findings += self._check_pattern(rule, library.argument("pattern"), site)
        return findings

    def _check_pattern(self, rule: Rule, pattern: object, site: Site) -> list[Finding]:
        if not isinstance(pattern, str) or not pattern:
            return [site.finding("invalid-argument", "'invalidValues.pattern' must be text")]
        declared = logical_family(rule.target.logical_type)
        if declared is not None and declared is not Family.TEXT:
            return [site.finding(
                "pattern-on-non-text", "'invalidValues.pattern' applies to text properties only"
            )]
        problem = pattern_problem(pattern)
        return [site.finding("unsafe-pattern", problem)] if problem else []

    def dialect_findings(self, library: Library, dialect: Dialect, site: Site) -> list[Finding]:
        return engine_pattern_findings(library.argument("pattern"), dialect, site)

    def count(self, rule: Rule, library: Library, context: MeasureContext,
              columns: tuple[str, ...]) -> exp.Expr:
        # CASE sends both false and unknown (NULL) to the invalid branch.
        return exp.Count(this=case((self._valid(rule, library, context, columns), exp.Null()),
                                   default=_one()))

    def offending(self, rule: Rule, library: Library, context: MeasureContext,
                  columns: tuple[str, ...]) -> exp.Expr | None:
        flag = case((self._valid(rule, library, context, columns), exp.Literal.number(0)),
                    default=_one())
        return exp.EQ(this=flag, expression=_one())

    def _valid(self, rule: Rule, library: Library, context: MeasureContext,
               columns: tuple[str, ...]) -> exp.Expr:
        name = columns[0]
        column = context.column(name)
        criteria: list[exp.Expr] = []
        if library.has("validValues"):
            members = library.argument("validValues")
            assert isinstance(members, tuple)
            held = held_members(members, rule.target.logical_type)
            criteria.append(exp.paren(context.any_member(name, held), copy=False))
        pattern = library.argument("pattern")
        if isinstance(pattern, str):
            if context.family(name) not in (None, Family.TEXT, Family.DYNAMIC):
                raise TypeMismatch
            text_guard = context.dialect.is_text(column)
            # NOT (x IS NULL), parenthesised: MySQL's HIGH_NOT_PRECEDENCE reads `NOT x IS NULL`
            # as `(NOT x) IS NULL`.
            not_null = exp.paren(exp.Is(this=column, expression=exp.Null()), copy=False)
            criteria.append(exp.Not(this=not_null))
            if text_guard is not None:
                criteria.append(text_guard)
            spelled = portable(pattern, context.dialect.regex_flavor)
            criteria.append(context.dialect.regex_search(column, spelled))
        valid = criteria[0]
        for criterion in criteria[1:]:
            valid = exp.And(this=valid, expression=criterion)
        return valid


class DuplicateValues(MetricHandler):
    name = "duplicateValues"
    object_scope = True
    arguments = frozenset({"properties"})
    threshold_hint = "'mustBe: 0' to require no duplicates"

    def check_arguments(self, rule: Rule, library: Library, schema: SchemaObject | None,
                        site: Site) -> list[Finding]:
        names = library.argument("properties")
        if rule.target.property_path:
            return []  # 'properties' on a property is reported by the scope check below
        if not isinstance(names, tuple) or not names or not all(
            isinstance(n, str) and n for n in names
        ):
            return [site.finding(
                "missing-argument",
                "'duplicateValues' on an object needs 'arguments.properties', "
                "a non-empty list of property names",
            )]
        unknown = [n for n in names if schema is None or schema.property(str(n)) is None]
        return [site.finding(
            "unknown-property",
            f"'duplicateValues.properties' names a property the object does not declare: {n}",
        ) for n in unknown]

    def validate(self, rule: Rule, library: Library, schema: SchemaObject | None,
                 site: Site) -> list[Finding]:
        findings = super().validate(rule, library, schema, site)
        if rule.target.property_path and library.has("properties"):
            findings.append(site.finding(
                "wrong-scope", "'arguments.properties' applies to object-level duplicateValues"
            ))
        return findings

    def columns(self, rule: Rule, library: Library, schema: SchemaObject | None) -> tuple[str, ...]:
        if rule.target.property_path:
            return super().columns(rule, library, schema)
        names = library.argument("properties")
        assert isinstance(names, tuple) and schema is not None
        declared = [schema.property(str(n)) for n in names]
        return tuple(p.physical for p in declared if p is not None)

    def count(self, rule: Rule, library: Library, context: MeasureContext,
              columns: tuple[str, ...]) -> exp.Expr:
        if len(columns) == 1:
            # COUNT(DISTINCT) skips NULL; NULL is one more key when present (docs/semantics.md 3).
            null_key = exp.Coalesce(
                this=exp.Max(this=case(
                    (exp.Is(this=context.column(columns[0]), expression=exp.Null()), _one()),
                    default=exp.Literal.number(0))),
                expressions=[exp.Literal.number(0)],
            )
            distinct = exp.Count(this=exp.Distinct(expressions=[context.key(columns[0])]))
            return exp.Sub(
                this=exp.Sub(this=_rows(), expression=distinct),
                expression=null_key,
            )
        # Composite keys: NULL equal to NULL, as SELECT DISTINCT reads them.
        return exp.Sub(this=_rows(), expression=distinct_keys(context, columns, complete=False))

    def inspect(self, rule: Rule, library: Library, context: MeasureContext,
                columns: tuple[str, ...]) -> exp.Select | None:
        """Each duplicated key with how often it occurs (NULL keys grouped as one)."""
        return repeated_keys(context, columns)


HANDLERS: dict[str, MetricHandler] = {
    handler.name: handler
    for handler in (RowCount(), NullValues(), MissingValues(), InvalidValues(), DuplicateValues())
}
