"""The store read back as `trends.History`: a contract's last N runs, per rule its points."""

from __future__ import annotations

from dataclasses import replace

from sqlalchemy import Connection, select

from packata_sql.history.records import number
from packata_sql.history.schema import rule_results, runs
from packata_sql.trends import FAILED, PASSED, History, Point, RuleTrend, RunCounts, anomaly


def contracts(connection: Connection) -> list[str]:
    """Every contract the store knows, by its newest run, newest first."""
    rows = connection.execute(select(runs.c.contract_id, runs.c.observed_at)
                              .order_by(runs.c.observed_at.desc(), runs.c.recorded_at.desc()))
    seen: list[str] = []
    for contract_id, _ in rows:
        if contract_id not in seen:
            seen.append(contract_id)
    return seen


def history(connection: Connection, store: str, contract_id: str, *, last: int,
            rule: str | None = None) -> History:
    """The last `last` runs of one contract, oldest first; a rule's points are the runs that
    checked it (a `--select` run checks fewer)."""
    newest = connection.execute(
        select(runs.c.run_id, runs.c.observed_at)
        .where(runs.c.contract_id == contract_id)
        .order_by(runs.c.observed_at.desc(), runs.c.recorded_at.desc()).limit(last)).all()
    chosen = list(reversed(newest))
    order = {run_id: index for index, (run_id, _) in enumerate(chosen)}
    observed = dict(chosen)
    query = select(rule_results.c.run_id, rule_results.c.rule_key, rule_results.c.status,
                   rule_results.c.value).where(rule_results.c.run_id.in_(list(order)))
    if rule is not None:
        query = query.where(rule_results.c.rule_key == rule)
    points: dict[str, list[tuple[int, Point]]] = {}
    counts = {run_id: [0, 0, 0] for run_id in order}
    for run_id, key, status, value in connection.execute(query) if order else ():
        points.setdefault(key, []).append(
            (order[run_id], Point(run_id, observed[run_id], status, number(value))))
        counts[run_id][0 if status == PASSED else 1 if status == FAILED else 2] += 1
    trends = tuple(RuleTrend(key, tuple(point for _, point in sorted(found, key=_first)))
                   for key, found in points.items())
    return History(store=store, rules=tuple(sorted(trends, key=lambda t: t.key)),
                   runs=tuple(RunCounts(run_id, observed[run_id], *counts[run_id])
                              for run_id, _ in chosen), contract=contract_id)


def _first(item: tuple[int, Point]) -> int:
    return item[0]


def with_anomalies(found: History) -> History:
    """Each rule's newest numeric value judged against its earlier ones (`trends.anomaly`);
    a note only, verdicts are untouched."""
    judged = []
    for trend in found.rules:
        values = [point.value for point in trend.points]
        newest = values[-1] if values else None
        earlier = [value for value in values[:-1] if value is not None]
        judged.append(replace(trend, anomaly=anomaly(newest, earlier))
                      if newest is not None else trend)
    return replace(found, rules=tuple(judged))
