"""Retention: old runs and their rule rows deleted in one transaction."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from sqlalchemy import Connection, delete, func, select

from packata_sql.history.records import utc_text
from packata_sql.history.schema import rule_results, runs


@dataclass(frozen=True)
class Pruned:
    runs: int
    rules: int
    kept: int


def prune(connection: Connection, *, keep_days: int | None = None,
          keep_runs: int | None = None, now: datetime | None = None) -> Pruned:
    """Deletes runs observed more than `keep_days` ago, or all but each contract's newest
    `keep_runs`, inside the caller's transaction."""
    doomed: list[str] = []
    if keep_days is not None:
        cutoff = utc_text((now or datetime.now(UTC)) - timedelta(days=keep_days))
        doomed = list(connection.execute(select(runs.c.run_id)
                                         .where(runs.c.observed_at < cutoff)).scalars())
    elif keep_runs is not None:
        rows = connection.execute(select(runs.c.run_id, runs.c.contract_id).order_by(
            runs.c.contract_id, runs.c.observed_at.desc(), runs.c.recorded_at.desc()))
        seen: dict[str, int] = {}
        for run_id, contract_id in rows:
            seen[contract_id] = seen.get(contract_id, 0) + 1
            if seen[contract_id] > keep_runs:
                doomed.append(run_id)
    rules = 0
    for start in range(0, len(doomed), 500):  # bounded IN lists
        chunk = doomed[start:start + 500]
        rules += connection.execute(delete(rule_results)
                                    .where(rule_results.c.run_id.in_(chunk))).rowcount
        connection.execute(delete(runs).where(runs.c.run_id.in_(chunk)))
    kept = connection.execute(select(func.count()).select_from(runs)).scalar_one()
    return Pruned(runs=len(doomed), rules=rules, kept=int(kept))
