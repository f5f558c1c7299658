"""A report as the store keeps it: the run's header and, per rule, codes, counts and exact
numbers. Built here, from a `Report`, so nothing else (a diagnostic's message, SQL, samples,
a drift change's before/after, a URL's password) can reach a row or a spool file."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from fractions import Fraction
from typing import Any

from packata_sql import __version__
from packata_sql.report import Report, RuleResult
from packata_sql.values import to_decimal


@dataclass(frozen=True)
class RuleRecord:
    key: str
    category: str
    severity: str
    status: str
    value: str | None
    numerator: str | None
    denominator: str | None
    rows_counted: str | None
    expectation: str | None
    diagnostic_code: str | None


@dataclass(frozen=True)
class RunRecord:
    run_id: str
    contract_id: str
    contract_version: str | None
    contract_path: str
    target: str
    observed_at: str
    started_at: str | None
    duration_ms: int | None
    outcome: str
    complete: bool
    selection: str | None
    packata_sql_version: str
    recorded_at: str
    rules: tuple[RuleRecord, ...]

    def header(self) -> dict[str, Any]:
        """The `packata_runs` row."""
        row = asdict(self)
        del row["rules"]
        return row

    def to_json(self) -> str:
        return json.dumps(asdict(self), ensure_ascii=False, indent=1)

    @classmethod
    def from_json(cls, text: str) -> RunRecord:
        """A spool file back; raises ValueError (or KeyError, TypeError) on anything else."""
        document = json.loads(text)
        rules = tuple(RuleRecord(**rule) for rule in document.pop("rules"))
        record = cls(**document, rules=rules)
        if not isinstance(record.run_id, str) or not record.run_id:
            raise ValueError("no run id")
        return record


def utc_text(moment: str | datetime) -> str:
    """ISO 8601 in UTC with microseconds, so text order is time order in every store."""
    when = datetime.fromisoformat(moment) if isinstance(moment, str) else moment
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return when.astimezone(UTC).isoformat(timespec="microseconds")


def exact_text(value: Fraction | bool | None) -> str | None:
    """A measured value exactly: a terminating decimal as such, else `n/d`."""
    if value is None:
        return None
    if isinstance(value, bool):
        return "true" if value else "false"
    decimal = to_decimal(value)
    return format(decimal, "f") if Fraction(decimal) == value else f"{value.numerator}/" \
        f"{value.denominator}"


def number(text: str | None) -> Fraction | None:
    """The stored value as a number (a boolean or nothing: None)."""
    if text is None or text in ("true", "false"):
        return None
    return Fraction(text)


def contract_identity(report: Report) -> str:
    """What the history groups runs by: the contract's `id`, else its path."""
    return report.contract_id or report.contract


def _count(evidence: dict[str, int], name: str) -> str | None:
    return str(evidence[name]) if name in evidence else None


def rule_record(result: RuleResult) -> RuleRecord:
    return RuleRecord(
        key=result.key, category=result.category.value, severity=result.severity.value,
        status=result.status.value, value=exact_text(result.value),
        numerator=_count(result.evidence, "numerator"),
        denominator=_count(result.evidence, "denominator"),
        rows_counted=_count(result.evidence, "rows"), expectation=result.expectation,
        diagnostic_code=result.diagnostic.code if result.diagnostic else None)


def run_record(report: Report, run_id: str, now: datetime | None = None) -> RunRecord:
    recorded = utc_text(now or datetime.now(UTC))
    return RunRecord(
        run_id=run_id, contract_id=contract_identity(report),
        contract_version=report.contract_version, contract_path=report.contract,
        target=report.target, observed_at=utc_text(report.observed_at or recorded),
        started_at=utc_text(report.started_at) if report.started_at else None,
        duration_ms=report.elapsed_ms, outcome=report.outcome.value, complete=report.complete,
        selection=json.dumps(report.selection.document(), sort_keys=True)
        if report.selection else None,
        packata_sql_version=__version__, recorded_at=recorded,
        rules=tuple(rule_record(result) for result in report.results))
