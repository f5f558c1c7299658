"""Appending runs: one transaction per run, idempotent by run id (a spooled run imported twice,
or by two writers at once, lands once)."""

from __future__ import annotations

from sqlalchemy import Connection, select

from packata_sql.history.records import RuleRecord, RunRecord
from packata_sql.history.schema import rule_results, runs


def append(connection: Connection, record: RunRecord) -> bool:
    """Inserts the run and its rules inside the caller's transaction; False when the run id
    is already stored (nothing written)."""
    known = connection.execute(select(runs.c.run_id).where(runs.c.run_id == record.run_id))
    if known.first() is not None:
        return False
    connection.execute(runs.insert().values(**record.header()))
    rows = [{"run_id": record.run_id, "rule_key": rule.key, "category": rule.category,
             "severity": rule.severity, "status": rule.status, "value": rule.value,
             "numerator": rule.numerator, "denominator": rule.denominator,
             "rows_counted": rule.rows_counted, "expectation": rule.expectation,
             "diagnostic_code": rule.diagnostic_code} for rule in _unique(record)]
    if rows:
        connection.execute(rule_results.insert(), rows)
    return True


def _unique(record: RunRecord) -> list[RuleRecord]:
    """Rule keys are unique in a contract; a report repeating one keeps its first result."""
    seen: set[str] = set()
    kept: list[RuleRecord] = []
    for rule in record.rules:
        if rule.key not in seen:
            seen.add(rule.key)
            kept.append(rule)
    return kept

