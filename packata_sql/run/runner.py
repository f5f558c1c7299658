"""Executes plans serially, object by object (`object_run`), and authored SQL rules; owns
statuses, timeouts and the budget."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import replace
from datetime import UTC, datetime
from typing import Any

from packata_sql.authored.template import OBSERVATION_PARAMETER
from packata_sql.contracts.expectations import expects_boolean
from packata_sql.contracts.model import Contract
from packata_sql.plans.compiler import (
    NOT_EXECUTABLE_BY_DESIGN,
    Compiled,
    ObservationPlan,
    SqlPlan,
    rebind,
)
from packata_sql.plans.planner import ObjectWork, work_units
from packata_sql.report import Diagnostic, Report, Status, result_of
from packata_sql.run.names import find_column, query_object_hint
from packata_sql.run.object_run import run_object
from packata_sql.run.observations import run_observation
from packata_sql.run.run_state import (
    DEFAULT_TIMEOUT_S,
    RunOptions,
    RunState,
    diagnostic,
    judged,
    limit_code,
    probe,
)
from packata_sql.run.samples import object_keys
from packata_sql.sessions.base import Interrupted, ProviderError, Session, open_session
from packata_sql.sessions.endpoint import Endpoint
from packata_sql.sessions.readonly import Decision
from packata_sql.values import NotExact, measured_value, not_exact_code, truth_value

__all__ = ["DEFAULT_TIMEOUT_S", "RunOptions", "diagnostic", "run"]


def run(
    contract: Contract,
    compiled: Compiled,
    endpoint: Endpoint,
    options: RunOptions,
    *,
    clock: Callable[[], float] = time.monotonic,
) -> Report:
    started = datetime.now(UTC)
    started_at = started.isoformat(timespec="seconds")
    observed_at = (options.observed_at or started.replace(microsecond=0)).astimezone(UTC)
    state = RunState(options, clock, clock(), observed_at, prefix=endpoint.schema,
                     keys=object_keys(contract) if options.samples else {})
    for key, finding in compiled.blocked.items():
        rule = next(r for r in contract.rules if r.key == key)
        state.results[key] = result_of(
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
                # Each rule's engine message for `-v`; reports group the rules in one line.
                state.engine_error(error, everything, None)
                state.settle(everything, Status.ERROR, error.category, error.code,
                             message=connection_problem)
            if session is not None:
                if options.progress is not None:
                    session.watch(state.engine_progress)
                state.notify("started", total=compiled.executable)
                units = work_units(compiled.ordered)
                # Every object's column facts in one catalog read, not a few reads per object.
                session.read_ahead([u.segments for u in units if isinstance(u, ObjectWork)])
                for unit in units:
                    if isinstance(unit, SqlPlan):
                        state.notify("sql", unit.rule.key, 1)
                        _run_sql(state, session, unit)
                        state.notify("done", unit.rule.key, 1)
                    elif isinstance(unit, ObservationPlan):
                        state.notify("sql", unit.rule.key, 1)
                        run_observation(state, session, unit)
                        state.notify("done", unit.rule.key, 1)
                    else:
                        label, count = ".".join(unit.segments), len(unit.plans) + len(unit.catalog)
                        state.notify("scan", label, count)
                        run_object(state, session, unit)
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
                  routes=decision.routes if decision else (),
                  hardening=decision.hardening if decision else (), contract_id=contract.id,
                  contract_version=contract.version, started_at=started_at,
                  observed_at=observed_at.isoformat(),
                  elapsed_ms=int((clock() - state.started) * 1000))


def _bounded(endpoint: Endpoint, remaining_s: float) -> Endpoint:
    """Connecting counts against the per-rule timeout and the run's budget."""
    return replace(endpoint, connect_timeout_s=min(endpoint.connect_timeout_s, remaining_s))


def _run_sql(state: RunState, session: Session, plan: SqlPlan) -> None:
    """An authored query: exactly one result set, one row, one column (docs/semantics.md 4.4)."""
    if state.remaining() <= 0:
        state.settle([plan], Status.INCONCLUSIVE, "budget-exhausted")
        return
    bindings = {**state.options.parameters,
                OBSERVATION_PARAMETER: session.dialect.instant(state.observed_at)}
    values: list[object] | dict[str, object] = \
        {name: bindings[name] for name in plan.parameters} \
        if session.dialect.named_parameters \
        else [bindings[name] for name in plan.parameters]
    started = state.clock()
    try:
        result = session.fetch_cell(plan.sql, values, state.remaining())
    except Interrupted as stopped:
        state.settle([plan], Status.INCONCLUSIVE, limit_code(state), detail=stopped.detail)
        return
    except ProviderError as error:
        again = _rebound(state, session, plan) if error.category == "missing-object" else None
        if again is not None:
            _run_sql(state, session, again)
            return
        state.engine_error(error, [plan], plan.sql)
        detail = error.detail
        if error.category == "missing-object":  # named as a library rule's missing object is
            target = plan.rule.target
            declared = (*state.prefix, target.physical_object) if target.physical_object \
                else None
            detail = query_object_hint(session, plan.sql, declared) or detail
        state.settle([plan], Status.ERROR, error.category, error.code, detail, sql=plan.sql)
        return
    elapsed = int((state.clock() - started) * 1000)
    rule = plan.rule
    common: dict[str, Any] = {"unit": rule.unit, "elapsed_ms": elapsed,
                              "sql": plan.sql if state.options.show_sql else None}
    shape = _shape_problem(result.width, len(result.rows))
    if shape is not None:
        state.results[rule.key] = result_of(rule, Status.INCONCLUSIVE, diagnostic=diagnostic(shape),
                                          **common)
        return
    cell = result.rows[0][0]
    if cell is None:
        state.results[rule.key] = result_of(rule, Status.INCONCLUSIVE,
                                          diagnostic=diagnostic("null-result"), **common)
        return
    try:
        value = measured_value(cell)
    except NotExact as refused:
        state.results[rule.key] = result_of(rule, Status.INCONCLUSIVE,
                                          diagnostic=diagnostic(not_exact_code(refused)),
                                          **common)
        return
    value = truth_value(value, boolean_valued=result.boolean_valued,
                        wants_boolean=expects_boolean(rule.expectations))
    state.results[rule.key] = judged(rule, value, **common)


def _rebound(state: RunState, session: Session, plan: SqlPlan) -> SqlPlan | None:
    """The query bound to the engine's unquoted reading of its object's name, when that name
    is missing as written and the reading exists; None otherwise."""
    target = plan.rule.target
    if not target.physical_object or target.exact_object:
        return None
    segments = (*state.prefix, target.physical_object)
    if segments not in state.renamed:
        try:
            probe(state, session, segments, False, plan.rule, session.columns)
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
