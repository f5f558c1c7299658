"""Failure triage (issue 14.5): a failed library or constraint rule gets the query that lists
its offending keys, and with `--samples` a few offending values go to the terminal, never into
a result."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING

from packata_sql.dialects import Family
from packata_sql.plans.compiler import Plan, SqlPlan
from packata_sql.plans.planner import inspect_query, inspect_sql, sample_sql
from packata_sql.report import RuleResult
from packata_sql.sessions.base import Interrupted, ProviderError, Session

if TYPE_CHECKING:
    from packata_sql.run.run_state import RunOptions


def triage(session: Session, segments: tuple[str, ...], plan: Plan, families: dict[str, Family],
           result: RuleResult, options: RunOptions, remaining: Callable[[], float],
           engine_error: Callable[[Exception, Sequence[Plan | SqlPlan], str | None], None],
           natives: Mapping[str, str] | None = None) -> RuleResult:
    query = inspect_query(segments, plan, session.dialect, dict(families), natives)
    if query is None:
        return result
    sampled = sample_sql(query, session.dialect, options.samples) if options.samples > 0 \
        else None
    if sampled is not None and options.on_samples is not None and remaining() > 0:
        try:
            row = session.fetch_row(sampled, remaining())
            options.on_samples(plan.rule.key, "" if row[0] is None else str(row[0]))
        except (ProviderError, Interrupted) as error:
            engine_error(error, [plan], None)
    return dataclasses.replace(result, inspect_sql=inspect_sql(query, session.dialect))
