"""Schema checks answered from column facts, without reading rows: `present`, `logicalType`,
`physicalType`, of a column or of a field its struct type lists (a JSON document's field is
counted in its rows instead). Each answer is a boolean measurement (true: the schema holds); a declared
column that is absent fails each of them (`present` is derived only for a property that
declares no type)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from packata_sql import engines
from packata_sql.contracts.drift import Classification, baseline_of
from packata_sql.contracts.model import Severity
from packata_sql.dialects import Dialect, Family, Layout
from packata_sql.dialects.facts import (
    ColumnFact,
    logical_compatible,
    physical_matches,
    type_base,
    unknown_type,
)
from packata_sql.dialects.fields import struct_field
from packata_sql.plans.compiler import CatalogPlan
from packata_sql.report import Diagnostic, RuleResult, Status, result_of
from packata_sql.run.drift import classify
from packata_sql.run.names import find_column
from packata_sql.spelling import closest


@dataclass(frozen=True)
class Answer:
    """Whether the schema holds, and if not, what was expected (the report's `failed`)."""

    holds: bool
    failed: tuple[str, ...] = ()
    #: The rule's row measurement still decides (a JSON document's field, counted in its rows).
    rows: bool = False
    #: Why the check cannot be answered at all (code, message): the rule is `inconclusive`.
    skipped: tuple[str, str] | None = None
    #: Drift: the severity its classification gives (breaking: error, warning: warning).
    severity: Severity | None = None
    changes: tuple[dict[str, str | None], ...] = ()


def catalog_result(plan: CatalogPlan, facts: Sequence[ColumnFact],
                   dialect: Dialect) -> tuple[RuleResult, bool]:
    """The rule's result: a boolean measurement, passed when the schema holds; drift sets the
    severity from its classification. And whether the row measurement the plan carries runs:
    a policy field's NULL count once its column holds, a JSON document's field always."""
    found = answer(plan, facts, dialect)
    if found.skipped is not None:
        code, message = found.skipped
        return result_of(plan.rule, Status.INCONCLUSIVE,
                         diagnostic=Diagnostic(code, message)), False
    result = result_of(plan.rule, Status.PASSED if found.holds else Status.FAILED,
                       value=found.holds, failed=found.failed, changes=found.changes)
    carried = plan.rows is not None and found.holds and (found.rows
                                                        or not plan.rule.target.fields)
    return replace(result, severity=found.severity or result.severity), carried


def answer(plan: CatalogPlan, facts: Sequence[ColumnFact], dialect: Dialect) -> Answer:
    constraint = plan.constraint
    if constraint.kind == "drift":
        return _drift(plan, facts, dialect)
    by_name = {f.name: f for f in facts}

    def fact_of(column: str) -> ColumnFact | None:
        name = find_column(dialect, by_name, column, exact=plan.rule.target.exact_property)
        return by_name.get(name) if name is not None else None

    def absent(column: str) -> str:
        """What was expected of a missing column, with the closest existing one as the fix."""
        match = closest(column, by_name)
        return f"the column {column} to exist" + (
            f" (did you mean '{match}'?)" if match is not None else "")

    if constraint.kind == "present" and len(constraint.columns) > 1:  # a policy's fields
        missing = [c for c in constraint.columns if fact_of(c) is None]
        return Answer(False, tuple(absent(c) for c in missing)) if missing \
            else Answer(True)
    fact = fact_of(constraint.columns[0])
    if fact is None:  # every catalog check of a declared column includes its presence
        return Answer(False, (absent(constraint.columns[0]),))
    if plan.rule.target.fields:
        return _nested(plan, fact, dialect)
    return _typed(plan, fact, dialect)


def _typed(plan: CatalogPlan, fact: ColumnFact, dialect: Dialect) -> Answer:
    """The judgement of a present column's (or struct field's) type: `fact` is its own."""
    constraint = plan.constraint
    if constraint.kind == "present":
        return Answer(True)
    if constraint.kind == "logicalType":
        declared = str(constraint.argument("logicalType"))
        compatible = logical_compatible(declared, fact, dialect)
        if compatible is None:  # an unknown logicalType (a warning finding): presence only
            return Answer(True)
        return Answer(True) if compatible else Answer(False, (
            f"a type compatible with logicalType {declared} (found {fact.native_type})",))
    declared = str(constraint.argument("physicalType"))
    if physical_matches(declared, fact, dialect):
        return Answer(True)
    if unknown_type(declared, dialect):
        spec = engines.engine(dialect.name)
        title = spec.title if spec is not None else dialect.name
        return Answer(False, (f"physicalType {declared}, but {title} has no type named "
                              f"'{type_base(declared, dialect)}' (found {fact.native_type})",))
    return Answer(False, (f"physicalType {declared} (found {fact.native_type})",))


def _nested(plan: CatalogPlan, fact: ColumnFact, dialect: Dialect) -> Answer:
    """A nested field of the present column `fact`: a struct's catalog type lists its fields
    and their types, judged as a column's; a JSON document's keys are counted in its rows
    (the plan's row measurement, `Answer.rows`), and its leaves have no physical type."""
    fields = plan.rule.target.fields
    shown = ".".join((fact.name, *fields))
    layout = dialect.field_layout(fact.native_type)
    if layout is None:
        return Answer(False, (f"the field {shown}, in a column that holds fields (found "
                              f"{fact.native_type})",))
    if layout is not Layout.STRUCT:
        if plan.constraint.kind == "physicalType":
            return Answer(False, skipped=(
                "nested-physical-type-in-json", f"a field of a JSON document ({fact.name}, "
                f"{fact.native_type}) has no physical type; declare a logicalType instead"))
        return Answer(True, rows=True)
    found = struct_field(fact.native_type, fields, dialect)
    if found is None:
        return Answer(False, skipped=(
            "nested-type-not-read", f"the catalog names the type of {fact.name} "
            f"({fact.native_type}) without listing its fields"))
    if not found.found:
        hint = closest(found.missing, found.siblings)
        return Answer(False, (f"the field {shown} to exist" + (
            f" (did you mean '{hint}'?)" if hint is not None else ""),))
    native = found.native or ""
    family = found.family or Family.OTHER
    return _typed(plan, replace(fact, native_type=native, family=family), dialect)


def _drift(plan: CatalogPlan, facts: Sequence[ColumnFact], dialect: Dialect) -> Answer:
    fields, overrides = baseline_of(plan.constraint)
    drift = classify(fields, facts, dialect, overrides)
    level = drift.classification
    changes = tuple(c.document() for c in drift.changes)
    if level is Classification.COMPATIBLE:
        return Answer(True, changes=changes)
    severity = Severity.ERROR if level is Classification.BREAKING else Severity.WARNING
    more = f" ({drift.omitted} more changes not listed)" if drift.omitted else ""
    return Answer(False, (f"no {level.value} schema drift{more}",), severity=severity,
                  changes=changes)
