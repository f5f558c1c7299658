"""Executes plans serially, object by object, and owns statuses, timeouts and the budget."""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from fractions import Fraction
from typing import Any, TypeVar

from packata_sql.catalog_checks import catalog_result
from packata_sql.compiler import NOT_EXECUTABLE_BY_DESIGN, AnyPlan, Compiled, Plan, SqlPlan, rebind
from packata_sql.contracts.model import Contract, Finding, Level, Rule
from packata_sql.dialects import Family
from packata_sql.endpoint import Endpoint
from packata_sql.expectations import expects_boolean, verdict
from packata_sql.names import closest_hint, find_column, resolved_note, unquoted_reading
from packata_sql.planner import ObjectWork, Scan, build_scan, plan_scans, work_units
from packata_sql.progress import Progress
from packata_sql.readonly import Decision
from packata_sql.report import Diagnostic, Report, RuleResult, Status, result_of
from packata_sql.session import Interrupted, ProviderError, Session, open_session
from packata_sql.values import NotExact, measured_value, truth_value

DEFAULT_TIMEOUT_S = 300.0
T = TypeVar("T")
_DIAGNOSTICS = {
    "missing-column": "the property's column does not exist in the object",
    "type-mismatch": "the column's type cannot be compared with the rule's values without a cast",
    "timeout": "the measurement ran past the per-rule timeout and was cancelled",
    "budget-exhausted": "the run's time budget was used up before this rule finished",
    "zero-rows": "the object has no rows, so a percentage has no denominator",
    "no-expectation": "the rule declares no expectation (no 'mustBe…' key) for a numeric "
                      "measurement",
    "not-a-number": "the measurement is not a finite number or a boolean",
    "null-result": "the measurement is NULL",
    "cancelled": "the run was interrupted before this rule finished",
    "no-result-set": "the query returned no result set",
    "several-columns": "the query returned more than one column; a rule needs exactly one cell",
    "no-rows": "the query returned no row; a rule needs exactly one cell",
    "several-rows": "the query returned more than one row; a rule needs exactly one cell",
}

_SQL_HINT = "'mustBe: 0' or 'mustBeLessThan: 10'"


@dataclass(frozen=True)
class RunOptions:
    timeout_s: float = DEFAULT_TIMEOUT_S
    budget_s: float | None = None
    trust_environment: bool = False
    show_sql: bool = False
    parameters: dict[str, object] = field(default_factory=dict)
    settings: dict[str, str] = field(default_factory=dict)
    accept_unexecutable: bool = False
    #: Told when each object's scan or SQL rule starts and ends (progress on stderr).
    progress: Callable[[Progress], None] | None = None
    #: Told the engine's own message and the SQL of each errored statement (`--verbose`,
    #: stderr only: neither ever reaches a report).
    on_error: Callable[[str, str, str | None], None] | None = None
    #: `--samples N`: up to N offending rows of each failed library rule, handed as text to
    #: `on_samples` (the terminal), never to a result.
    samples: int = 0
    on_samples: Callable[[str, str], None] | None = None


def diagnostic(code: str, provider_code: str | None = None, detail: str | None = None) -> Diagnostic:
    message = _DIAGNOSTICS.get(code, ProviderError.MESSAGES.get(code, code))
    return Diagnostic(code, f"{message}; {detail}" if detail else message, provider_code)


_result = result_of


@dataclass
class _Run:
    options: RunOptions
    clock: Callable[[], float]
    started: float
    results: dict[str, RuleResult] = field(default_factory=dict)
    prefix: tuple[str, ...] = ()
    #: Objects found under the engine's unquoted reading of their name, and the notes saying so.
    renamed: dict[tuple[str, ...], tuple[str, ...]] = field(default_factory=dict)
    notes: list[Finding] = field(default_factory=list)

    def remaining(self) -> float:
        if self.options.budget_s is None:
            return self.options.timeout_s
        left = self.options.budget_s - (self.clock() - self.started)
        return min(self.options.timeout_s, left)

    def budget_bound(self) -> bool:
        return self.options.budget_s is not None and self.remaining() < self.options.timeout_s

    def notify(self, step: str, label: str = "", rules: int = 0, total: int = 0) -> None:
        if self.options.progress is not None:
            self.options.progress(Progress(step, label, rules, total))

    def engine_error(self, error: Exception, plans: Sequence[AnyPlan], sql: str | None) -> None:
        """Hands the engine's own message (the exception the session translated) to
        `--verbose`; it never reaches a result."""
        if self.options.on_error is None:
            return
        cause = error.__cause__ or error.__context__
        message = f"{type(cause).__name__}: {cause}" if cause is not None else str(error)
        for key in [plan.rule.key for plan in plans] or [""]:  # "": the connection itself
            self.options.on_error(key, message, sql)

    def settle(self, plans: Sequence[AnyPlan], status: Status, code: str,
               provider_code: str | None = None, detail: str | None = None) -> None:
        for plan in plans:
            self.results.setdefault(plan.rule.key, _result(
                plan.rule, status, unit=plan.rule.unit,
                diagnostic=diagnostic(code, provider_code, detail),
            ))


def run(
    contract: Contract,
    compiled: Compiled,
    endpoint: Endpoint,
    options: RunOptions,
    *,
    clock: Callable[[], float] = time.monotonic,
) -> Report:
    state = _Run(options, clock, clock(), prefix=endpoint.schema)
    started_at = datetime.now(UTC).isoformat(timespec="seconds")
    for key, finding in compiled.blocked.items():
        rule = next(r for r in contract.rules if r.key == key)
        state.results[key] = _result(
            rule, Status.SKIPPED, unit=rule.unit,
            diagnostic=Diagnostic(finding.code, finding.message),
            descriptive=finding.code in NOT_EXECUTABLE_BY_DESIGN,
        )
    everything = compiled.ordered
    interrupted = False
    connection_problem: str | None = None
    read_only: str | None = None
    decision: Decision | None = None
    session: Session | None = None
    try:
        if compiled.executable:
            try:
                session = open_session(_bounded(endpoint, state.remaining()),
                                       trust_environment=options.trust_environment)
                decision = session.decision
                read_only = decision.level
            except ProviderError as error:
                connection_problem = str(error)
                state.engine_error(error, [], None)
                state.settle(everything, Status.ERROR, error.category, error.code)
            if session is not None:
                state.notify("started", total=compiled.executable)
                for unit in work_units(compiled.ordered):
                    if isinstance(unit, SqlPlan):
                        state.notify("sql", unit.rule.key, 1)
                        _run_sql(state, session, unit)
                        state.notify("done", unit.rule.key, 1)
                    else:
                        label, count = ".".join(unit.segments), len(unit.plans) + len(unit.catalog)
                        state.notify("scan", label, count)
                        _run_object(state, session, unit)
                        state.notify("done", label, count)
    except KeyboardInterrupt:
        interrupted = True
        if session is not None:
            session.cancel()
        state.settle(everything, Status.SKIPPED, "cancelled")
    finally:
        if session is not None:
            session.close()
    selected = {p.rule.key for p in everything} | set(compiled.blocked)
    ordered = tuple(state.results[r.key] for r in contract.rules if r.key in selected)
    accept = options.accept_unexecutable or contract.accept_unexecutable
    settings = {**options.settings, **({"accept_unexecutable": "true"} if accept else {})}
    return Report(contract.path, endpoint.describe(), read_only, ordered,
                  (*compiled.findings, *state.notes),
                  interrupted, settings, connection_problem,
                  schema=session.schema if session is not None else None,
                  accept_unexecutable=accept,
                  authored_sql=decision.authored_label if decision else None,
                  routes=decision.routes if decision else (), contract_id=contract.id,
                  contract_version=contract.version, started_at=started_at,
                  elapsed_ms=int((clock() - state.started) * 1000))


def _bounded(endpoint: Endpoint, remaining_s: float) -> Endpoint:
    """Connecting counts against the per-rule timeout and the run's budget."""
    return replace(endpoint, connect_timeout_s=min(endpoint.connect_timeout_s, remaining_s))


def _run_object(state: _Run, session: Session, unit: ObjectWork) -> None:
    if unit.catalog:
        _run_catalog(state, session, unit)
    # A catalog check that holds hands its rule on to the row measurement it carries.
    carried = [p.rows for p in unit.catalog if p.rows is not None
               and state.results[p.rule.key].status is Status.PASSED]
    for plan in carried:
        del state.results[plan.rule.key]
    if unit.plans or carried:
        _run_scan(state, session, unit.segments, [*unit.plans, *carried])


def _run_catalog(state: _Run, session: Session, unit: ObjectWork) -> None:
    if state.remaining() <= 0:
        state.settle(unit.catalog, Status.INCONCLUSIVE, "budget-exhausted")
        return
    exact = any(plan.rule.target.exact_object for plan in unit.catalog)
    try:
        _, facts = _probe(state, session, unit.segments, exact, unit.catalog[0].rule,
                          session.column_facts)
    except ProviderError as error:
        hint = _object_hint(session, unit.segments) if error.category == "missing-object" \
            else None
        state.engine_error(error, unit.catalog, None)
        state.settle(unit.catalog, Status.ERROR, error.category, error.code, hint)
        return
    except Interrupted:
        state.settle(unit.catalog, Status.INCONCLUSIVE, _limit_code(state))
        return
    for plan in unit.catalog:
        state.results[plan.rule.key] = catalog_result(plan, facts, session.dialect)


def _run_scan(state: _Run, session: Session, segments: tuple[str, ...],
              plans: list[Plan]) -> None:
    if state.remaining() <= 0:
        state.settle(plans, Status.INCONCLUSIVE, "budget-exhausted")
        return
    exact = any(plan.rule.target.exact_object for plan in plans)
    try:
        segments, columns = _probe(state, session, segments, exact, plans[0].rule,
                                   session.columns)
    except ProviderError as error:
        hint = _object_hint(session, segments) if error.category == "missing-object" else None
        state.engine_error(error, plans, None)
        state.settle(plans, Status.ERROR, error.category, error.code, hint)
        return
    except Interrupted:
        state.settle(plans, Status.INCONCLUSIVE, _limit_code(state))
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
    for scan in plan_scans(segments, runnable, session.dialect, families):
        for plan, note in scan.notes:
            finding = Finding("member-not-representable", note, plan.rule.source_path,
                              Level.WARNING, rule_key=plan.rule.key)
            if finding not in state.notes:
                state.notes.append(finding)
        state.settle(scan.mismatched, Status.INCONCLUSIVE, "type-mismatch")
        _measure(state, session, scan, families)


def _measure(state: _Run, session: Session, scan: Scan, families: dict[str, Family]) -> None:
    """Runs one scan; a failed fused scan falls back to one statement per rule."""
    if not scan.plans:
        return
    if state.remaining() <= 0:
        state.settle(scan.plans, Status.INCONCLUSIVE, "budget-exhausted")
        return
    started = state.clock()
    try:
        row = session.fetch_row(scan.sql, state.remaining())
    except Interrupted:
        state.settle(scan.plans, Status.INCONCLUSIVE, _limit_code(state))
        return
    except ProviderError as error:
        if len(scan.plans) == 1:
            state.engine_error(error, scan.plans, scan.sql)
            state.settle(scan.plans, Status.ERROR, error.category, error.code)
            return
        for plan in scan.plans:  # one bad rule must not take the others down
            alone = build_scan(scan.object_segments, [plan], session.dialect, families)
            _measure(state, session, alone, families)
        return
    elapsed = int((state.clock() - started) * 1000)
    for index, plan in enumerate(scan.plans):
        result = _evaluate(
            plan, row[index + 1], row[0], elapsed, fused=len(scan.plans) > 1,
            sql=scan.sql if state.options.show_sql else None,
        )
        if result.status is Status.FAILED:
            from packata_sql.triage import triage

            result = triage(session, scan.object_segments, plan, families, result,
                            state.options, state.remaining, state.engine_error)
        state.results[plan.rule.key] = result


def _limit_code(state: _Run) -> str:
    return "budget-exhausted" if state.budget_bound() else "timeout"


def _probe(state: _Run, session: Session, segments: tuple[str, ...], exact: bool,
           rule: Rule, read: Callable[[tuple[str, ...]], T]) -> tuple[tuple[str, ...], T]:
    """The object's columns (`read`: the session's column probe, or its column facts); a
    missing name without physicalName is tried again as the engine reads it unquoted (issue
    10.3), and the report says so."""
    try:
        return segments, read(segments)
    except ProviderError as error:
        folded = unquoted_reading(session.dialect, segments[-1], exact=exact)
        if error.category != "missing-object" or folded is None:
            raise
        other = (*segments[:-1], folded)
        try:
            columns = read(other)
        except ProviderError:
            raise error from None
        state.renamed[segments] = other
        note = resolved_note("object", segments[-1], folded, session.dialect,
                             f"schema[{rule.target.object_name}]")
        if note not in state.notes:
            state.notes.append(note)
        return other, columns


def _object_hint(session: Session, segments: tuple[str, ...]) -> str:
    try:
        visible = session.objects(segments[-2] if len(segments) > 1 else None)
    except (ProviderError, Interrupted):
        visible = []
    return closest_hint("object", ".".join(segments), visible) if not visible else \
        closest_hint("object", segments[-1], visible)


def _plan_columns(state: _Run, session: Session, columns: dict[str, Family],
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
        return _result(rule, Status.INCONCLUSIVE, diagnostic=diagnostic("null-result"), **common)
    try:
        count = measured_value(raw)
        population = measured_value(rows)
    except NotExact:
        return _result(rule, Status.INCONCLUSIVE, diagnostic=diagnostic("not-a-number"), **common)
    assert isinstance(count, Fraction) and isinstance(population, Fraction)
    evidence = {"numerator": int(count), "denominator": int(population)} if plan.percent \
        else {"rows": int(population)}
    value: Fraction = count
    if plan.percent:
        if population == 0:
            return _result(rule, Status.INCONCLUSIVE, evidence=evidence,
                           diagnostic=diagnostic("zero-rows"), **common)
        value = 100 * count / population
    return _judged(rule, value, hint=plan.handler.threshold_hint, evidence=evidence, **common)


def _judged(rule: Rule, value: Fraction | bool, *, hint: str = _SQL_HINT,
            **fields: Any) -> RuleResult:
    """The verdict of a rule's expectations on its measured value; a rule without any is
    told which key to add."""
    judged = verdict(rule.expectations, value)
    found = diagnostic(judged.diagnostic) if judged.diagnostic else None
    if found is not None and found.code == "no-expectation":
        found = Diagnostic(found.code, f"{found.message}: add one, e.g. {hint}")
    return _result(rule, Status(judged.status), value=value, failed=judged.failed,
                   diagnostic=found, **fields)


def _run_sql(state: _Run, session: Session, plan: SqlPlan) -> None:
    """An authored query: exactly one result set, one row, one column (SEMANTICS 4.4)."""
    if state.remaining() <= 0:
        state.settle([plan], Status.INCONCLUSIVE, "budget-exhausted")
        return
    values = [state.options.parameters[name] for name in plan.parameters]
    started = state.clock()
    try:
        result = session.fetch_cell(plan.sql, values, state.remaining())
    except Interrupted:
        state.settle([plan], Status.INCONCLUSIVE, _limit_code(state))
        return
    except ProviderError as error:
        again = _rebound(state, session, plan) if error.category == "missing-object" else None
        if again is not None:
            _run_sql(state, session, again)
            return
        state.engine_error(error, [plan], plan.sql)
        state.settle([plan], Status.ERROR, error.category, error.code)
        return
    elapsed = int((state.clock() - started) * 1000)
    rule = plan.rule
    common: dict[str, Any] = {"unit": rule.unit, "elapsed_ms": elapsed,
                              "sql": plan.sql if state.options.show_sql else None}
    shape = _shape_problem(result.width, len(result.rows))
    if shape is not None:
        state.results[rule.key] = _result(rule, Status.INCONCLUSIVE, diagnostic=diagnostic(shape),
                                          **common)
        return
    cell = result.rows[0][0]
    if cell is None:
        state.results[rule.key] = _result(rule, Status.INCONCLUSIVE,
                                          diagnostic=diagnostic("null-result"), **common)
        return
    try:
        value = measured_value(cell)
    except NotExact:
        state.results[rule.key] = _result(rule, Status.INCONCLUSIVE,
                                          diagnostic=diagnostic("not-a-number"), **common)
        return
    value = truth_value(value, boolean_valued=result.boolean_valued,
                        wants_boolean=expects_boolean(rule.expectations))
    state.results[rule.key] = _judged(rule, value, **common)


def _rebound(state: _Run, session: Session, plan: SqlPlan) -> SqlPlan | None:
    """The query bound to the engine's unquoted reading of its object's name, when that name
    is missing as written and the reading exists; None otherwise."""
    target = plan.rule.target
    if not target.physical_object or target.exact_object:
        return None
    segments = (*state.prefix, target.physical_object)
    if segments not in state.renamed:
        try:
            _probe(state, session, segments, False, plan.rule, session.columns)
        except (ProviderError, Interrupted):
            return None
    other = state.renamed.get(segments)
    if other is None:
        return None
    column = None if target.nested else target.physical_property
    if column is not None:
        try:
            columns = session.columns(other)
        except (ProviderError, Interrupted):
            return None
        column = find_column(session.dialect, columns, column, exact=target.exact_property) \
            or column
    again = rebind(plan, session.dialect, other, column)
    return again if again is not None and again.sql != plan.sql else None


def _shape_problem(width: int, rows: int) -> str | None:
    if width == 0:
        return "no-result-set"
    if width > 1:
        return "several-columns"
    if rows == 0:
        return "no-rows"
    return "several-rows" if rows > 1 else None
