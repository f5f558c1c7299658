"""The verdict of an SLA latency (docs/semantics.md 1.1): the scan's newest value, as epoch
microseconds, against the run's observation time. Exact: integer microseconds and calendar
units (`Duration.before`), never a float and never "30 days" for a month."""

from __future__ import annotations

import dataclasses
from datetime import UTC, datetime, timedelta
from fractions import Fraction
from typing import Any
from zoneinfo import ZoneInfo

from packata_sql.contracts.model import Latency
from packata_sql.dialects import Dialect
from packata_sql.plans.compiler import Plan
from packata_sql.report import RuleResult, Status, result_of
from packata_sql.run.run_state import diagnostic
from packata_sql.values import NotExact, measured_value, not_exact_code

_EPOCH = datetime(1970, 1, 1)  # a wall clock: the zone is applied after


def newest_instant(micros: int, zone: str | None) -> datetime:
    """The instant of epoch microseconds: as UTC for a column of instants (`zone` None), or
    the wall clock read in `zone` (an ambiguous or missing local time takes the first reading,
    `fold=0`)."""
    wall = _EPOCH + timedelta(microseconds=micros)
    if zone is None:
        return wall.replace(tzinfo=UTC)
    return wall.replace(tzinfo=ZoneInfo(zone)).astimezone(UTC)


def judge_latency(plan: Plan, raw: object, rows: object, observed_at: datetime,
                  dialect: Dialect, native_type: str | None, **common: Any) -> RuleResult:
    """`native_type`: the column's type as the catalog names it (None where unknown: read as
    a wall clock)."""
    rule = plan.rule
    latency = rule.definition
    assert isinstance(latency, Latency) and latency.limit is not None
    instants = dialect.holds_instants(native_type)
    expectation = f"no older than {latency.limit.text()}" + (
        "" if instants else f" (values without a zone read in {latency.zone}{latency.declared_by})")
    try:
        population = measured_value(rows)
        newest = None if raw is None else measured_value(raw)
    except NotExact as refused:
        return _with(result_of(rule, Status.INCONCLUSIVE, **common,
                               diagnostic=diagnostic(not_exact_code(refused))), expectation)
    evidence = {"rows": int(population)} if isinstance(population, Fraction) else {}
    if newest is None or isinstance(newest, bool) or newest.denominator != 1:
        code = "zero-rows-latency" if population == 0 else "all-null-latency"
        return _with(result_of(rule, Status.INCONCLUSIVE, evidence=evidence,
                               diagnostic=diagnostic(code), **common), expectation)
    instant = newest_instant(int(newest), None if instants else latency.zone)
    age = observed_at - instant
    seconds = Fraction(age.days * 86400 + age.seconds) + Fraction(age.microseconds, 1_000_000)
    fresh = instant >= latency.limit.before(observed_at)
    failed = () if fresh else (expectation.split(" (")[0],)
    return _with(result_of(rule, Status.PASSED if fresh else Status.FAILED, value=seconds,
                           failed=failed, evidence=evidence, **common), expectation)


def _with(result: RuleResult, expectation: str) -> RuleResult:
    return dataclasses.replace(result, expectation=expectation)
