"""Observation-scope Expressif rules (docs/semantics.md 3.5): the program applied to the value
the caller supplies for the rule, bound through the driver; no value, no verdict."""

from __future__ import annotations

from typing import Any

from packata_sql.authored.template import OBSERVATION_PARAMETER
from packata_sql.plans.compiler import ObservationPlan
from packata_sql.plans.expressif import OBSERVED
from packata_sql.report import Status, result_of
from packata_sql.run.run_state import RunState, diagnostic, judged, limit_code
from packata_sql.sessions.base import Interrupted, ProviderError, Session
from packata_sql.values import NotExact, measured_value, not_exact_code


def run_observation(state: RunState, session: Session, plan: ObservationPlan) -> None:
    rule = plan.rule
    if rule.key not in state.options.observations:
        state.settle([plan], Status.INCONCLUSIVE, "no-observation")
        return
    if state.remaining() <= 0:
        state.settle([plan], Status.INCONCLUSIVE, "budget-exhausted")
        return
    bindings = {**state.options.parameters,
                OBSERVATION_PARAMETER: session.dialect.instant(state.observed_at),
                **dict(plan.bindings), OBSERVED: state.options.observations[rule.key]}
    values: list[object] | dict[str, object] = \
        {name: bindings[name] for name in plan.parameters} \
        if session.dialect.named_parameters else [bindings[name] for name in plan.parameters]
    started = state.clock()
    try:
        row = session.fetch_row(plan.sql, state.remaining(), values)
    except Interrupted as stopped:
        state.settle([plan], Status.INCONCLUSIVE, limit_code(state), detail=stopped.detail)
        return
    except ProviderError as error:
        state.engine_error(error, [plan], plan.sql)
        state.settle([plan], Status.ERROR, error.category, error.code, sql=plan.sql)
        return
    common: dict[str, Any] = {"unit": None, "elapsed_ms": int((state.clock() - started) * 1000),
                              "sql": plan.sql if state.options.show_sql else None}
    if row[0] is None:
        state.results[rule.key] = result_of(rule, Status.INCONCLUSIVE,
                                            diagnostic=diagnostic("null-result"), **common)
        return
    try:
        value = measured_value(row[0])
    except NotExact as refused:
        state.results[rule.key] = result_of(
            rule, Status.INCONCLUSIVE, diagnostic=diagnostic(not_exact_code(refused)), **common)
        return
    measured = bool(value) if plan.boolean else value
    state.results[rule.key] = judged(rule, measured, **common)
