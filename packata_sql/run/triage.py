"""Failure triage (issue 14.5): a failed library or constraint rule gets the query that lists
its offending keys, and with `--samples` a few offending values go to the terminal, never into
a result (run/samples.py)."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING

from packata_sql.dialects import Family
from packata_sql.plans.compiler import Plan, SqlPlan
from packata_sql.plans.planner import inspect_query, inspect_sql, sample_sql
from packata_sql.report import RuleResult
from packata_sql.run.samples import Sampling, sample_lines, withheld_values
from packata_sql.sessions.base import Interrupted, ProviderError, Session

if TYPE_CHECKING:
    from packata_sql.run.run_state import RunOptions


def triage(session: Session, segments: tuple[str, ...], plan: Plan, families: dict[str, Family],
           result: RuleResult, options: RunOptions, remaining: Callable[[], float],
           engine_error: Callable[[Exception, Sequence[Plan | SqlPlan], str | None], None],
           natives: Mapping[str, str] | None = None,
           sampling: Sampling | None = None) -> RuleResult:
    query = inspect_query(segments, plan, session.dialect, dict(families), natives)
    if query is None:
        return result
    if options.samples > 0 and options.on_samples is not None and remaining() > 0:
        _sample(session, query.copy(), plan, families, options, remaining, engine_error,
                sampling or Sampling((), (), {}, {}))
    return dataclasses.replace(result, inspect_sql=inspect_sql(query, session.dialect))


#: Where a refused sample's reason is (the engine's message may quote a row's value).
_WHY = "-v shows the engine's message"


def _sample(session: Session, query: object, plan: Plan, families: Mapping[str, Family],
            options: RunOptions, remaining: Callable[[], float],
            engine_error: Callable[[Exception, Sequence[Plan | SqlPlan], str | None], None],
            sampling: Sampling) -> None:
    """One read-only statement, through the check's own session; it holds no fetched value
    (the rule's literals only), so there is nothing to bind but what the scan binds."""
    import sqlglot.expressions as exp

    assert isinstance(query, exp.Select)
    if set(sampling.keys) <= set(plan.columns):  # the rule's own values are the row's key
        sampling = dataclasses.replace(sampling, keys=(), families=())
    withheld = withheld_values(plan, sampling)
    keys = [session.dialect.column(name) for name in sampling.keys]
    withheld_keys = frozenset(i for i, name in enumerate(sampling.keys)
                              if name in sampling.withheld)
    grouped = query.args.get("group") is not None
    unordered = frozenset(i for i, family in enumerate(sampling.families)  # `json`
                          if family is Family.OTHER)
    built = sample_sql(query, session.dialect, options.samples, keys, frozenset(withheld),
                       withheld_keys, unordered)
    if built is None:
        return
    sql, layout = built
    if grouped:
        sampling = dataclasses.replace(sampling, keys=(), families=())
    try:
        row = session.fetch_row(sql, remaining())
    except (ProviderError, Interrupted) as error:
        engine_error(error, [plan], sql)
        assert options.on_samples is not None  # said, so a missing sample is never silent
        options.on_samples(plan.rule.key, (f"not read: the sample query failed or ran out of "
                                           f"time ({_WHY})",))
        return
    assert options.on_samples is not None
    shown = [families.get(column) for column in plan.columns]
    options.on_samples(plan.rule.key, tuple(sample_lines(row, layout, plan, shown, sampling,
                                                         withheld, grouped)))
