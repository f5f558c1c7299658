"""One object's work in a run: its catalog checks, then its row measurements in one fused
scan (or the planner's few per object), a failed fused scan falling back to one statement per
rule, each rule's verdict, and failure triage."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator, Mapping
from fractions import Fraction
from typing import Any

from packata_sql.authored.template import OBSERVATION_PARAMETER
from packata_sql.catalog.expressif_rules import IN_BAND, ExpressifRule
from packata_sql.catalog.nested_types import NestedType
from packata_sql.contracts.model import Constraint, Latency
from packata_sql.dialects import Family, Layout
from packata_sql.dialects.fields import struct_field
from packata_sql.plans.compiler import Plan
from packata_sql.plans.planner import ObjectWork, Scan, build_scan, plan_scans
from packata_sql.report import Diagnostic, RuleResult, Status, result_of
from packata_sql.run.catalog_checks import catalog_result
from packata_sql.run.freshness import judge_latency
from packata_sql.run.names import find_column, object_hint, resolved_note
from packata_sql.run.run_state import RunState, diagnostic, judged, limit_code, probe
from packata_sql.run.samples import Sampling, resolve
from packata_sql.sessions.base import Interrupted, ProviderError, Session
from packata_sql.spelling import closest_hint
from packata_sql.values import NotExact, measured_value, not_exact_code


def run_object(state: RunState, session: Session, unit: ObjectWork) -> None:
    # A catalog check that holds hands its rule on to the row measurement it carries.
    carried = _run_catalog(state, session, unit) if unit.catalog else []
    for plan in carried:
        del state.results[plan.rule.key]
    if unit.plans or carried:
        _run_scan(state, session, unit.segments, [*unit.plans, *carried])


def _run_catalog(state: RunState, session: Session, unit: ObjectWork) -> list[Plan]:
    """The catalog checks' results, and the row measurements they hand their rules on to."""
    if state.remaining() <= 0:
        state.settle(unit.catalog, Status.INCONCLUSIVE, "budget-exhausted")
        return []
    exact = any(plan.rule.target.exact_object for plan in unit.catalog)
    try:
        _, facts = probe(state, session, unit.segments, exact, unit.catalog[0].rule,
                          session.column_facts)
    except ProviderError as error:
        hint = object_hint(session, unit.segments) if error.category == "missing-object" \
            else None
        state.engine_error(error, unit.catalog, None)
        state.settle(unit.catalog, Status.ERROR, error.category, error.code, hint)
        return []
    except Interrupted as stopped:
        state.settle(unit.catalog, Status.INCONCLUSIVE, limit_code(state), detail=stopped.detail)
        return []
    carried = []
    for plan in unit.catalog:
        state.results[plan.rule.key], carries = catalog_result(plan, facts, session.dialect)
        if carries and plan.rows is not None:
            carried.append(plan.rows)
    return carried


def _run_scan(state: RunState, session: Session, segments: tuple[str, ...],
              plans: list[Plan]) -> None:
    if state.remaining() <= 0:
        state.settle(plans, Status.INCONCLUSIVE, "budget-exhausted")
        return
    exact = any(plan.rule.target.exact_object for plan in plans)
    try:
        segments, columns = probe(state, session, segments, exact, plans[0].rule,
                                   session.columns)
    except ProviderError as error:
        hint = object_hint(session, segments) if error.category == "missing-object" else None
        state.engine_error(error, plans, None)
        state.settle(plans, Status.ERROR, error.category, error.code, hint)
        return
    except Interrupted as stopped:
        state.settle(plans, Status.INCONCLUSIVE, limit_code(state), detail=stopped.detail)
        return
    runnable = []
    for plan in plans:
        actual = _plan_columns(state, session, columns, plan)
        missing = [name for name, found in zip(plan.columns, actual, strict=True) if found is None]
        if missing:
            state.settle([plan], Status.INCONCLUSIVE, "missing-column",
                         detail=closest_hint("column", missing[0], columns))
        else:
            runnable.append(dataclasses.replace(plan, columns=tuple(str(a) for a in actual)))
    families = {name: columns[name] for plan in runnable for name in plan.columns}
    natives = _CatalogTypes(session, segments, families,
                            {plan.columns[0] for plan in runnable if plan.fields})
    runnable = _present_fields(state, session, runnable, natives)
    sampling = resolve(state.keys.get(plans[0].rule.target.object_name), session.dialect,
                       columns) if state.options.samples else None
    for scan in plan_scans(segments, runnable, session.dialect, families, natives):
        for finding in scan.findings():
            if finding not in state.notes:
                state.notes.append(finding)
        state.settle([p for p in scan.mismatched if not _latency(p)], Status.INCONCLUSIVE,
                     "type-mismatch")
        state.settle([p for p in scan.mismatched if _latency(p)], Status.ERROR,
                     "latency-not-temporal")
        for plan, code, message in scan.refused:  # skipped, as its compilation would have been
            state.results.setdefault(plan.rule.key, result_of(
                plan.rule, Status.SKIPPED, unit=plan.rule.unit,
                diagnostic=Diagnostic(code, message)))
        _measure(state, session, scan, families, natives, sampling)


class _CatalogTypes(Mapping[str, str]):
    """The measured number and date/time columns' types as the catalog names them, so members
    and bounds are checked against the column's precision, scale and kind
    (catalog/holding.py). Read on first use: only a member or bound on such a column asks, so
    an object without one costs no catalog read."""

    def __init__(self, session: Session, segments: tuple[str, ...],
                 families: dict[str, Family], structured: set[str]) -> None:
        self._session, self._segments, self._families = session, segments, families
        self._structured = structured  # columns holding a rule's nested field
        self._read: dict[str, str] | None = None

    def _types(self) -> dict[str, str]:
        if self._read is None:
            self._read = _native_types(self._session, self._segments, self._families,
                                       self._structured)
        return self._read

    def __getitem__(self, name: str) -> str:
        return self._types()[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._types())

    def __len__(self) -> int:
        return len(self._types())


def _native_types(session: Session, segments: tuple[str, ...],
                  families: dict[str, Family], structured: set[str]) -> dict[str, str]:
    """One catalog read of the object's columns (shared with its catalog checks: the session
    keeps the facts); nothing when the catalog cannot say."""
    wanted = structured | {name for name, family in families.items()
                           if family in (Family.NUMBER, Family.TEMPORAL)}
    if not wanted or session.dialect.dynamic_typing:
        return {}
    try:
        facts = session.column_facts(segments)
    except (ProviderError, Interrupted):
        return {}
    by_name = {fact.name: fact for fact in facts}
    found = {}
    for name in wanted:
        column = find_column(session.dialect, by_name, name, exact=True)
        if column is not None:
            found[name] = by_name[column].native_type
    return found


def _measure(state: RunState, session: Session, scan: Scan, families: dict[str, Family],
             natives: Mapping[str, str], sampling: Sampling | None = None) -> None:
    """Runs one scan; a failed fused scan falls back to one statement per rule."""
    if not scan.plans:
        return
    if state.remaining() <= 0:
        state.settle(scan.plans, Status.INCONCLUSIVE, "budget-exhausted")
        return
    started = state.clock()
    try:
        row = session.fetch_row(scan.sql, state.remaining(), scan_values(state, session, scan))
    except Interrupted as stopped:
        state.settle(scan.plans, Status.INCONCLUSIVE, limit_code(state), detail=stopped.detail)
        return
    except ProviderError as error:
        if len(scan.plans) == 1:
            state.engine_error(error, scan.plans, scan.sql)
            state.settle(scan.plans, Status.ERROR, error.category, error.code, sql=scan.sql)
            return
        for plan in scan.plans:  # one bad rule must not take the others down
            alone = build_scan(scan.object_segments, [plan], session.dialect, families, natives)
            _measure(state, session, alone, families, natives, sampling)
        return
    elapsed = int((state.clock() - started) * 1000)
    for index, plan in enumerate(scan.plans):
        common: dict[str, Any] = {"elapsed_ms": elapsed, "fused": len(scan.plans) > 1,
                  "sql": scan.sql if state.options.show_sql else None}
        if _latency(plan):
            state.results[plan.rule.key] = judge_latency(
                plan, row[index + 1], row[0], state.observed_at, session.dialect,
                natives.get(plan.columns[0]), unit=plan.rule.unit, **common)
            continue
        result = _evaluate(plan, row[index + 1], row[0], common["elapsed_ms"],
                           fused=common["fused"], sql=common["sql"])
        if result.status is Status.FAILED:
            from packata_sql.run.triage import triage

            result = triage(session, scan.object_segments, plan, families, result,
                            state.options, state.remaining, state.engine_error, natives,
                            sampling)
        state.results[plan.rule.key] = result


def scan_values(state: RunState, session: Session,
                scan: Scan) -> list[object] | dict[str, object] | None:
    """What the scan's parameters bind: the rules' own arguments, the observation instant
    and the run's `--param` values; None for a scan that reads none."""
    if not scan.parameters:
        return None
    bindings = {**state.options.parameters,
                OBSERVATION_PARAMETER: session.dialect.instant(state.observed_at),
                **dict(scan.bindings)}
    if session.dialect.named_parameters:
        return {name: bindings[name] for name in scan.parameters}
    return [bindings[name] for name in scan.parameters]


def _latency(plan: Plan) -> bool:
    return isinstance(plan.rule.definition, Latency)
def _present_fields(state: RunState, session: Session, plans: list[Plan],
                    natives: Mapping[str, str]) -> list[Plan]:
    """A nested field its struct column's catalog type lacks is a missing column: the rule
    is `inconclusive` with the closest field named, and the scan still runs for the others.
    A JSON document has no catalog of its keys: an absent key reads as NULL."""
    present = []
    for plan in plans:
        native = natives.get(plan.columns[0]) if plan.fields else None
        found = None
        if native is not None and session.dialect.field_layout(native) is Layout.STRUCT:
            found = struct_field(native, plan.fields, session.dialect)
        if found is not None and not found.found:
            state.settle([plan], Status.INCONCLUSIVE, "missing-column",
                         detail=closest_hint("field", found.missing, found.siblings))
        else:
            present.append(plan)
    return present


def _plan_columns(state: RunState, session: Session, columns: dict[str, Family],
                  plan: Plan) -> list[str | None]:
    """Each column of the plan as the object names it (None when it has none)."""
    target = plan.rule.target
    found: list[str | None] = []
    for name in plan.columns:
        exact = target.exact_property and name == target.physical_property
        actual = find_column(session.dialect, columns, name, exact=exact)
        if actual is not None and actual != name and not session.dialect.same_name(actual, name):
            note = resolved_note("property", name, actual, session.dialect,
                                 f"schema[{target.object_name}].properties[{name}]")
            if note not in state.notes:
                state.notes.append(note)
        found.append(actual)
    return found


def _evaluate(plan: Plan, raw: object, rows: object, elapsed_ms: int, *, fused: bool,
              sql: str | None) -> RuleResult:
    rule = plan.rule
    common: dict[str, Any] = {"unit": rule.unit, "elapsed_ms": elapsed_ms, "fused": fused,
                              "sql": sql}
    if raw is None:
        # A value or row rule's count is NULL only when a text cell is one the language
        # reads otherwise than as its text (catalog/expressif_rules.py).
        code = IN_BAND if isinstance(plan.library, ExpressifRule) and plan.library.per_item \
            else "null-result"
        return result_of(rule, Status.INCONCLUSIVE, diagnostic=diagnostic(code), **common)
    try:
        count = measured_value(raw)
        population = measured_value(rows)
    except NotExact as refused:
        return result_of(rule, Status.INCONCLUSIVE, diagnostic=diagnostic(not_exact_code(refused)),
                         **common)
    assert isinstance(population, Fraction)
    if isinstance(plan.library, ExpressifRule):
        return _expressif_verdict(plan, plan.library, count, population, common)
    assert isinstance(count, Fraction)
    evidence = {"numerator": int(count), "denominator": int(population)} if plan.percent \
        else {"rows": int(population)}
    value: Fraction = count
    if plan.percent:
        if population == 0:
            return result_of(rule, Status.INCONCLUSIVE, evidence=evidence,
                           diagnostic=diagnostic("zero-rows"), **common)
        value = 100 * count / population
    result = judged(rule, value, hint=plan.handler.threshold_hint, evidence=evidence, **common)
    if result.status is Status.PASSED and isinstance(plan.handler, NestedType) \
            and isinstance(plan.library, Constraint) and plan.handler.inexact(plan.library):
        return dataclasses.replace(result, status=Status.INCONCLUSIVE,
                                   diagnostic=diagnostic("json-temporal-not-exact"))
    return result


def _expressif_verdict(plan: Plan, definition: ExpressifRule, value: Fraction | bool,
                       population: Fraction, common: dict[str, Any]) -> RuleResult:
    """Value and row programs count violations among the object's rows, which must not be
    none; a dataset `any`/`every` comes back as 1 or 0 and is judged as a boolean."""
    rule = plan.rule
    if not definition.per_item:
        measured = bool(value) if definition.boolean else value
        return judged(rule, measured, hint="'mustBeGreaterThan: 0'",
                      evidence={"rows": int(population)}, **{**common, "unit": None})
    assert isinstance(value, Fraction)
    evidence = {"numerator": int(value), "denominator": int(population)} if plan.percent \
        else {"rows": int(population)}
    if population == 0:
        return result_of(rule, Status.INCONCLUSIVE, evidence=evidence,
                         diagnostic=diagnostic("empty-population"), **common)
    return judged(rule, 100 * value / population if plan.percent else value,
                  hint=plan.handler.threshold_hint, evidence=evidence, **common)
