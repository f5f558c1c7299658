"""Rules + contract schema + dialect → plans and findings. Never touches a database."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from fractions import Fraction
from typing import Any, Protocol

import sqlglot.expressions as exp

from packata_sql.authored.template import bind
from packata_sql.catalog import MeasureContext, MetricHandler, handler_for
from packata_sql.catalog.base import logical_family
from packata_sql.catalog.constraints import CONSTRAINT_HANDLERS, ConstraintHandler
from packata_sql.catalog.expressif_rules import ExpressifHandler, ExpressifRule
from packata_sql.catalog.freshness import KIND as LATENCY
from packata_sql.catalog.freshness import NEWEST
from packata_sql.catalog.nested_types import NESTED_TYPE_HANDLERS
from packata_sql.catalog.rows import ROW_HANDLERS, predicate_query
from packata_sql.contracts.constraints import CATALOG_KINDS, INVALID
from packata_sql.contracts.model import (
    Category,
    Constraint,
    Contract,
    Custom,
    Expectation,
    Expressif,
    Finding,
    Latency,
    Level,
    Library,
    Operator,
    Predicate,
    Rule,
    SchemaObject,
    Site,
    SlaDescriptive,
    Sql,
    Text,
)
from packata_sql.contracts.zones import ReadingZone, default_zone, property_zone
from packata_sql.dialects import Dialect, Layout
from packata_sql.plans.expressif import (
    compile_expressif,
    declared_logical_type,
    observation_statement,
)
from packata_sql.report import SLA_DESCRIPTIVE

#: Findings of rules that describe quality rather than measure it here: a `text` rule, or a
#: `custom` rule for another tool. `--accept-unexecutable` accepts them unexecuted.
NOT_EXECUTABLE_BY_DESIGN = frozenset({"text-not-executable", "custom-engine-not-supported",
                                      SLA_DESCRIPTIVE})


@dataclass(frozen=True)
class Plan:
    """One row-reading measurement (a library metric or a schema constraint): what to count,
    on which object, reading which columns. Every Plan of an object fuses into one scan."""

    rule: Rule
    handler: MetricHandler | ConstraintHandler | ExpressifHandler
    library: Library | Constraint | ExpressifRule
    object_segments: tuple[str, ...]
    columns: tuple[str, ...]
    declared_types: tuple[str | None, ...] = ()  # the contract's logicalType of each column
    #: The contract's physicalType of each column, where declared: `compile` checks members
    #: and bounds against it without a database (catalog/holding.py).
    declared_physical: tuple[str | None, ...] = ()
    #: Values an Expressif rule's own arguments bind, by parameter name (never SQL text),
    #: and the run's parameters (`--param`) it reads.
    bindings: tuple[tuple[str, object], ...] = ()
    parameters: tuple[str, ...] = ()
    #: The zone each column's values without one are read in (`defaultTimezone`; UTC if None).
    declared_zones: tuple[str | None, ...] = ()
    #: A rule on a nested property: the physical field path inside `columns[0]`.
    fields: tuple[str, ...] = ()

    @property
    def percent(self) -> bool:
        return self.rule.unit == "percent"

    def context(self, context: MeasureContext) -> MeasureContext:
        """The object's context as this plan reads it: its nested field, if it has one."""
        if not self.fields:
            return context
        zone = self.declared_zones[0] if self.declared_zones else None
        return context.with_fields(self.columns[0], self.fields, self.rule.target.logical_type,
                                   zone)

    def count(self, context: MeasureContext) -> exp.Expr:
        """The plan's integer aggregate; raises TypeMismatch when a column cannot be compared."""
        context = self.context(context)
        if isinstance(self.library, Constraint):
            assert isinstance(self.handler, ConstraintHandler)
            return self.handler.count(self.rule, self.library, context, self.columns)
        if isinstance(self.library, ExpressifRule):
            assert isinstance(self.handler, ExpressifHandler)
            return self.handler.count(self.rule, self.library, context, self.columns)
        assert isinstance(self.handler, MetricHandler)
        return self.handler.count(self.rule, self.library, context, self.columns)

    @property
    def measure(self) -> str:
        """The metric or constraint kind, for plans and reports."""
        return self.library.metric if isinstance(self.library, Library) else self.library.kind


@dataclass(frozen=True)
class ObservationPlan:
    """An observation-scope Expressif rule: it reads no object; the run applies the program
    (`sql`, over the parameter OBSERVED) to the value the caller supplies for the rule's key,
    or the rule is inconclusive."""

    rule: Rule
    sql: str
    parameters: tuple[str, ...]
    bindings: tuple[tuple[str, object], ...] = ()
    #: The program is a predicate: the statement answers 1 or 0, judged as a boolean.
    boolean: bool = True


@dataclass(frozen=True)
class SqlPlan:
    """An authored query, bound for one dialect: it runs as written (docs/semantics.md 4). An
    expression rule's predicate runs as one too, so it meets the same refusal."""

    rule: Rule
    sql: str
    parameters: tuple[str, ...]


@dataclass(frozen=True)
class CatalogPlan:
    """A schema check answered from the engine's catalog without reading rows: a declared
    column is present, its type is compatible with the declared logical/physical type."""

    rule: Rule
    constraint: Constraint
    object_segments: tuple[str, ...]
    #: A row measurement the same rule makes once the catalog check holds (a policy `field`
    #: with `nullable: false` counts NULL rows): it joins the object's scan, one result.
    rows: Plan | None = None
    #: Whether `rows` is among the compiled plans (`compile`, the dbt gate). A nested field's
    #: count runs only where the run finds a JSON document: on an engine whose columns hold
    #: structs by default (DuckDB, Spark) the catalog is expected to answer, so it is not.
    rows_listed: bool = True


AnyPlan = Plan | SqlPlan | CatalogPlan | ObservationPlan


@dataclass(frozen=True)
class Compiled:
    """Every executable plan in contract order (one ordered union, dispatched by kind)."""

    ordered: tuple[AnyPlan, ...]
    #: Rules that will not run, with the error finding that stopped each (first one wins).
    blocked: dict[str, Finding] = field(default_factory=dict)
    findings: tuple[Finding, ...] = ()

    @property
    def plans(self) -> tuple[Plan, ...]:
        """The row-reading plans, which fuse per object (with those catalog checks carry)."""
        found: list[Plan] = []
        for plan in self.ordered:
            if isinstance(plan, Plan):
                found.append(plan)
            elif isinstance(plan, CatalogPlan) and plan.rows is not None and plan.rows_listed:
                found.append(plan.rows)
        return tuple(found)

    @property
    def sql_plans(self) -> tuple[SqlPlan, ...]:
        return tuple(p for p in self.ordered if isinstance(p, SqlPlan))

    @property
    def catalog_plans(self) -> tuple[CatalogPlan, ...]:
        return tuple(p for p in self.ordered if isinstance(p, CatalogPlan))

    @property
    def observation_plans(self) -> tuple[ObservationPlan, ...]:
        return tuple(p for p in self.ordered if isinstance(p, ObservationPlan))

    @property
    def executable(self) -> int:
        return len(self.ordered)


def compile_contract(
    contract: Contract,
    dialect: Dialect,
    *,
    prefix: Sequence[str] = (),
    select: Iterable[str] | None = None,
    parameters: Iterable[str] | None = None,
    categories: Iterable[Category] | None = None,
    zone: ReadingZone | None = None,
) -> Compiled:
    """`prefix` holds the server's database/schema segments placed before each object name;
    `parameters` names the run's parameter values (None when compiling without a run);
    `categories` keeps only rules of these categories (`--category`); `zone` is the one
    values without a zone are read in where their property declares none (the run's server's,
    the contract's, UTC: contracts/zones.py; default: the contract's, else UTC)."""
    if zone is None:
        zone = default_zone(contract.zone, contract.servers, None)
    wanted = set(select) if select is not None else None
    kinds = set(categories) if categories is not None else None
    rules = [r for r in contract.rules if (wanted is None or r.key in wanted)
             and (kinds is None or r.category in kinds)]
    keys = {r.key for r in rules}
    findings = [f for f in contract.findings if f.rule_key is None or f.rule_key in keys]
    plans: list[AnyPlan] = []
    known = None if parameters is None else frozenset(parameters)
    for rule in rules:
        site = Site(rule.source_path, rule.key, rule.line)
        plan, problems = _compile_rule(rule, contract, dialect, tuple(prefix), site, known,
                                       zone)
        findings.extend(problems)
        if plan is not None:
            plans.append(plan)
    blocked: dict[str, Finding] = {}
    for finding in findings:
        if finding.level is Level.ERROR and finding.rule_key is not None:
            blocked.setdefault(finding.rule_key, finding)
    runnable = tuple(p for p in plans if p.rule.key not in blocked)
    return Compiled(runnable, blocked, tuple(findings))


def _compile_rule(
    rule: Rule, contract: Contract, dialect: Dialect, prefix: tuple[str, ...], site: Site,
    parameters: frozenset[str] | None, zone: ReadingZone,
) -> tuple[AnyPlan | None, list[Finding]]:
    definition = rule.definition
    if isinstance(definition, Text):
        return None, [site.finding("text-not-executable",
                                   "a text rule describes quality; there is nothing to execute")]
    if isinstance(definition, Custom):
        return None, [site.finding("custom-engine-not-supported",
                                   "custom rules for this engine are not executed by packata-sql")]
    if isinstance(definition, Expressif):
        return _compile_expressif(rule, definition, contract, dialect, prefix, site, parameters)
    if isinstance(definition, Sql):
        return _compile_sql(rule, definition, dialect, prefix, site, parameters)
    if isinstance(definition, Predicate):
        return _compile_predicate(rule, definition, dialect, (*prefix, rule.target.physical_object),
                                  site)
    if isinstance(definition, Constraint):
        return _compile_constraint(rule, definition, contract, dialect, prefix, site, zone)
    if isinstance(definition, SlaDescriptive):
        return None, [site.finding(SLA_DESCRIPTIVE, f"SLA '{definition.property}' is an "
                                   "operational promise no query observes: listed, not measured")]
    if isinstance(definition, Latency):
        return _compile_latency(rule, definition, contract, dialect, prefix, site, zone)
    handler = handler_for(definition.metric)
    if handler is None:
        if not definition.metric:
            return None, []  # the loader already reported the missing metric
        return None, [site.finding("unknown-metric", _unknown_metric(definition.metric))]
    if not dialect.library_metrics:
        return None, [site.finding("dialect-not-supported",
                                   f"library metrics are not rendered for {dialect.name} yet")]
    if rule.target.nested:
        problems = nested_problems(rule, dialect, site)
        if problems:
            return None, problems
    if not rule.target.physical_object:
        return None, [site.finding("unresolved-object", "the rule's object has no name")]
    return _row_plan(rule, handler, definition, contract, dialect,
                     (*prefix, rule.target.physical_object), site, zone)


def _compile_latency(rule: Rule, latency: Latency, contract: Contract, dialect: Dialect,
                     prefix: tuple[str, ...], site: Site,
                     zone: ReadingZone) -> tuple[Plan | None, list[Finding]]:
    """One MAX of the element's column, in its object's fused scan; the rule's zone is the
    property's, else `zone` (and the rule says whose it is)."""
    if latency.zone is None:
        rule = replace(rule, definition=replace(latency, zone=zone.name,
                                                declared_by=zone.said()))
    column = rule.target.physical_property
    if not rule.target.physical_object or column is None:
        return None, []  # the loader's finding (carrying this rule's key) skips it
    probe = exp.Max(this=dialect.column(column))
    if not dialect.library_metrics or dialect.epoch_micros(probe, "timestamp") is None:
        return None, [site.finding("dialect-not-supported",
                                   f"SLA latency is not rendered for {dialect.name} yet")]
    return _row_plan(rule, NEWEST, Constraint(LATENCY, (column,)), contract, dialect,
                     (*prefix, rule.target.physical_object), site, zone)


def _row_plan(
    rule: Rule, handler: MetricHandler | ConstraintHandler, definition: Library | Constraint,
    contract: Contract, dialect: Dialect, segments: tuple[str, ...], site: Site,
    zone: ReadingZone,
) -> tuple[Plan | None, list[Finding]]:
    """A row-reading plan once its handler accepts the definition on this dialect; a
    column's zone is its property's, else `zone`."""
    schema = contract.object(rule.target.object_name)
    checker: _Checks = handler
    problems = checker.validate(rule, definition, schema, site)
    problems += checker.dialect_findings(definition, dialect, site)
    if any(p.level is Level.ERROR for p in problems):
        return None, problems
    columns = checker.columns(rule, definition, schema)
    too_long = name_problems(dialect, (*segments, *columns), site)
    if too_long:
        return None, problems + too_long
    declared = tuple(declared_logical_type(rule, schema, column) for column in columns)
    physical = tuple(_declared_physical(schema, column) for column in columns)
    zones = tuple((rule.target.zone if rule.target.fields else _declared_zone(schema, column))
                  or zone.name for column in columns)
    fields = rule.target.fields
    if fields and columns != (rule.target.physical_property,):
        return None, [*problems, site.finding(
            "nested-property-not-supported",
            "a measurement across several columns is not made on a nested field yet")]
    bindings = checker.bindings(rule, definition, dialect, zones[0] if zones else None)
    return Plan(rule, handler, definition, segments, columns, declared, physical,
                bindings=bindings, declared_zones=zones, fields=fields), problems


class _Checks(Protocol):
    """What metric and constraint handlers share before SQL exists (each takes its own
    definition type, which `_row_plan`'s caller pairs with it)."""

    def validate(self, rule: Rule, definition: Any, schema: SchemaObject | None,
                 site: Site) -> list[Finding]: ...

    def dialect_findings(self, definition: Any, dialect: Dialect, site: Site) -> list[Finding]: ...

    def columns(self, rule: Rule, definition: Any,
                schema: SchemaObject | None) -> tuple[str, ...]: ...

    def bindings(self, rule: Rule, definition: Any, dialect: Dialect,
                 zone: str | None) -> tuple[tuple[str, object], ...]: ...


def _compile_constraint(
    rule: Rule, constraint: Constraint, contract: Contract, dialect: Dialect,
    prefix: tuple[str, ...], site: Site, zone: ReadingZone,
) -> tuple[Plan | CatalogPlan | None, list[Finding]]:
    segments = (*prefix, rule.target.physical_object)
    if constraint.kind == INVALID:
        return None, []  # the loader's finding (carrying this rule's key) skips it
    if constraint.kind in CATALOG_KINDS and rule.target.fields:
        return _compile_nested_type(rule, constraint, contract, dialect, segments, site, zone)
    if constraint.kind in CATALOG_KINDS:
        declared = constraint.argument("logicalType")
        if constraint.kind == "logicalType" and logical_family(str(declared)) is None:
            return CatalogPlan(rule, constraint, segments), [site.finding(
                "constraint-not-checkable",
                f"logicalType '{declared}' is not one ODCS defines: only the column's presence "
                "is checked", Level.WARNING,
            )]
        if constraint.argument("nullable") is False:
            rows, problems = _row_plan(rule, ROW_HANDLERS["notNull"], Constraint(
                "notNull", constraint.columns), contract, dialect, segments, site, zone)
            return (CatalogPlan(rule, constraint, segments, rows) if rows else None), problems
        return CatalogPlan(rule, constraint, segments), []
    handler = CONSTRAINT_HANDLERS.get(constraint.kind) or ROW_HANDLERS.get(constraint.kind)
    problems = nested_problems(rule, dialect, site) if rule.target.nested else []
    if problems:
        return None, problems
    if handler is None:
        return None, [site.finding(
            "constraint-not-checkable", f"'{constraint.kind}' is not checked by packata-sql"
        )]
    return _row_plan(rule, handler, constraint, contract, dialect, segments, site, zone)


def _compile_nested_type(
    rule: Rule, constraint: Constraint, contract: Contract, dialect: Dialect,
    segments: tuple[str, ...], site: Site, zone: ReadingZone,
) -> tuple[CatalogPlan | None, list[Finding]]:
    """A nested field's presence and types: answered from a struct's catalog type, or (the
    row plan it carries) counted in JSON documents, as the column turns out to hold it."""
    problems = nested_problems(rule, dialect, site)
    if problems:
        return None, problems
    declared = constraint.argument("logicalType")
    if constraint.kind == "logicalType" and logical_family(str(declared)) is None:
        problems = [site.finding(
            "constraint-not-checkable", f"logicalType '{declared}' is not one ODCS defines: "
            "only the field's presence is checked", Level.WARNING)]
    handler = NESTED_TYPE_HANDLERS.get(constraint.kind)
    if handler is None:  # a physicalType is the catalog's alone: a JSON leaf has none
        return CatalogPlan(rule, constraint, segments), problems
    counted = replace(rule, expectations=(Expectation(Operator.EQ, Fraction(0)),))
    rows, more = _row_plan(counted, handler, constraint, contract, dialect, segments, site, zone)
    return CatalogPlan(rule, constraint, segments, rows,
                       rows_listed=dialect.nested_layout is not Layout.STRUCT), problems + more


def _compile_expressif(
    rule: Rule, definition: Expressif, contract: Contract, dialect: Dialect,
    prefix: tuple[str, ...], site: Site, parameters: frozenset[str] | None,
) -> tuple[Plan | ObservationPlan | None, list[Finding]]:
    """A value, row or dataset program is one more column of the object's fused scan."""
    if not definition.implementation:
        return None, []  # the loader reported the missing implementation on this rule
    schema = contract.object(rule.target.object_name)
    compiled, problems = compile_expressif(rule, definition, schema, dialect, site, parameters)
    if compiled is None:
        return None, problems
    program = compiled.definition.program
    if program.scope == "observation":
        sql, names = observation_statement(compiled, dialect)
        return ObservationPlan(compiled.rule, sql, names, compiled.bindings,
                               program.kind == "predicate"), problems
    segments = (*prefix, rule.target.physical_object)
    too_long = name_problems(dialect, (*segments, *compiled.columns), site)
    if too_long:
        return None, problems + too_long
    declared = tuple(declared_logical_type(rule, schema, column) for column in compiled.columns)
    physical = tuple(_declared_physical(schema, column) for column in compiled.columns)
    return Plan(compiled.rule, compiled.handler, compiled.definition, segments, compiled.columns,
                declared, physical, compiled.bindings, compiled.parameters), problems


def nested_problems(rule: Rule, dialect: Dialect, site: Site) -> list[Finding]:
    """Why a rule on a nested property cannot be measured on this engine (none when it can):
    array items are never flattened implicitly, and a field is only read where the engine
    has structured columns and can address its name exactly (docs/formats.md)."""
    target = rule.target
    if target.unreachable:
        return [site.finding(
            "array-items-not-flattened",
            "a rule inside array items or map entries is not executed: packata-sql never "
            "flattens arrays implicitly (write a SQL rule that unnests them)")]
    if dialect.nested_layout is None:
        return [site.finding("nested-property-not-supported",
                             f"nested fields are not read on {dialect.name}")]
    refused = next((p for p in map(dialect.field_problem, target.fields) if p), None)
    if refused:
        return [site.finding("nested-property-not-supported", refused)]
    return []


def name_problems(dialect: Dialect, names: Sequence[str], site: Site) -> list[Finding]:
    """Names longer than the engine keeps are findings, never silently truncated."""
    found = (dialect.identifier_problem(name) for name in dict.fromkeys(names))
    return [site.finding("name-too-long", problem) for problem in found if problem]


def _declared_physical(schema: SchemaObject | None, column: str) -> str | None:
    found = next((p for p in schema.properties if p.physical == column), None) if schema else None
    return found.physical_type if found else None


def _declared_zone(schema: SchemaObject | None, column: str) -> str | None:
    found = next((p for p in schema.properties if p.physical == column), None) if schema else None
    return property_zone(found)[0] if found else None


def _compile_sql(
    rule: Rule, definition: Sql, dialect: Dialect, prefix: tuple[str, ...], site: Site,
    parameters: frozenset[str] | None,
) -> tuple[SqlPlan | None, list[Finding]]:
    if not definition.query.strip():
        return None, [site.finding("missing-query", "a SQL rule needs a 'query'")]
    if not dialect.authored_sql:
        return None, [site.finding("dialect-not-supported",
                                   f"SQL rules are not bound for {dialect.name} yet")]
    target = rule.target
    segments = (*prefix, target.physical_object) if target.physical_object else None
    column = None if target.nested else target.physical_property
    too_long = name_problems(dialect, (*(segments or ()), *([column] if column else [])), site)
    if too_long:
        return None, too_long
    bound, problems = bind(definition.query, dialect, segments, column, schema=prefix)
    findings = [site.finding(p.code, _NESTED_PROPERTY if target.nested
                             and p.code == "property-placeholder-without-property"
                             else p.message) for p in problems]
    if bound is None:
        return None, findings
    missing = sorted(set(bound.parameters) - parameters) if parameters is not None else []
    if missing:
        return None, [site.finding(
            "missing-parameter", f"no value for parameter(s) {', '.join(missing)}: pass --param NAME=VALUE"
        )]
    return SqlPlan(rule, bound.sql, bound.parameters), findings


_NESTED_PROPERTY = ("'{property}' names a column, and this rule is on a nested field: write the "
                    "field's path in the query, or declare the rule on the top-level property")


def _compile_predicate(
    rule: Rule, definition: Predicate, dialect: Dialect, segments: tuple[str, ...], site: Site,
) -> tuple[SqlPlan | None, list[Finding]]:
    """An expression rule: authored SQL, so an authored query, not a column of the scan."""
    if not dialect.authored_sql:  # no lexical rules pinned by vectors for it yet
        return None, [site.finding("dialect-not-supported",
                                   f"expressions are not bound for {dialect.name} yet")]
    if not rule.target.physical_object:
        return None, [site.finding("unresolved-object", "the rule's object has no name")]
    too_long = name_problems(dialect, segments, site)
    if too_long:
        return None, too_long
    sql, problems = predicate_query(definition.expression, dialect, segments)
    if sql is None:
        return None, [site.finding(code, message) for code, message in problems]
    return SqlPlan(rule, sql, ()), []


def rebind(plan: SqlPlan, dialect: Dialect, segments: tuple[str, ...],
           column: str | None) -> SqlPlan | None:
    """The authored query bound again with `{object}` and `{property}` naming what the engine
    reads for names that do not exist as written."""
    definition = plan.rule.definition
    if isinstance(definition, Predicate):
        sql, _ = predicate_query(definition.expression, dialect, segments)
        return None if sql is None else SqlPlan(plan.rule, sql, ())
    if not isinstance(definition, Sql):
        return None
    bound, _ = bind(definition.query, dialect, segments, column)
    return None if bound is None else SqlPlan(plan.rule, bound.sql, bound.parameters)


def _unknown_metric(metric: str) -> str:
    from packata_sql.catalog import HANDLERS
    from packata_sql.spelling import closest

    match = closest(metric, HANDLERS)
    hint = f"; did you mean '{match}'?" if match else ""
    return f"'{metric}' is not a metric of catalog odcs 3.2.0{hint}"
