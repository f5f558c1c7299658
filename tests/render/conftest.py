"""A real report with a run history attached: a check on a DuckDB file, and a `History` built
from data (what the store would hand back), so the HTML trend tests draw real results."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from fractions import Fraction
from pathlib import Path

import duckdb
import pytest
import yaml

import packata_sql
from packata_sql.report import Report
from packata_sql.sessions.endpoint import Endpoint
from packata_sql.trends import Anomaly, History, Point, RuleTrend, RunCounts

#: Three rules on `people`: the row count passes, the missing emails fail, no email repeats.
TREND_CONTRACT = {
    "apiVersion": "v3.1.0", "kind": "DataContract", "id": "shop", "version": "1.0.0",
    "status": "active",
    "schema": [{"name": "people", "quality": [{"id": "rows", "metric": "rowCount", "mustBe": 3}],
                "properties": [{"name": "email", "quality": [
                    {"id": "emails", "metric": "nullValues", "mustBe": 0},
                    {"id": "unique", "metric": "duplicateValues", "mustBe": 0}]}]}],
}
OBSERVED = datetime(2026, 12, 3, 12, 0, tzinfo=UTC)


def run_time(index: int) -> str:
    """The observation time of run `index` (0 the oldest), one hour apart, as the store keeps
    it (UTC, microseconds)."""
    return f"2026-12-0{1 + index // 24}T{index % 24:02d}:00:00.000000+00:00"


def trend(key: str, statuses: Sequence[str], values: Sequence[Fraction | None] = (),
          anomaly: Anomaly | None = None) -> RuleTrend:
    points = tuple(Point(f"run-{i}", run_time(i), status, values[i] if i < len(values) else None)
                   for i, status in enumerate(statuses))
    return RuleTrend(key, points, anomaly)


def counts(rules: Sequence[RuleTrend]) -> tuple[RunCounts, ...]:
    """Each run's rules by status, from the trends themselves (as the store counts them)."""
    runs = max(len(rule.points) for rule in rules)
    found = []
    for index in range(runs):
        statuses = [rule.points[index].status for rule in rules if index < len(rule.points)]
        passed, failed = statuses.count("passed"), statuses.count("failed")
        found.append(RunCounts(f"run-{index}", run_time(index), passed, failed,
                               len(statuses) - passed - failed))
    return tuple(found)


def with_history(report: Report, rules: Sequence[RuleTrend],
                 store: str = "sqlite:///.packata/history.sqlite") -> Report:
    return dataclasses.replace(report, history=History(store, tuple(rules), counts(rules)))


def check_report(place: Path, contract: dict[str, object] | None = None) -> Report:
    """A real check of TREND_CONTRACT (or `contract`) on a DuckDB file in `place`."""
    database = place / "shop.duckdb"
    if not database.exists():
        connection = duckdb.connect(str(database))
        connection.execute("CREATE TABLE people AS SELECT * FROM (VALUES ('a@x'), (NULL),"
                           " ('b@y')) t(email)")
        connection.close()
    path = place / "c.yaml"
    path.write_text(yaml.safe_dump(contract or TREND_CONTRACT, allow_unicode=True,
                                   sort_keys=False), encoding="utf-8")
    return packata_sql.check(packata_sql.load(path), Endpoint("duckdb", str(database)),
                             observed_at=OBSERVED)


@pytest.fixture
def checked(tmp_path: Path) -> Callable[..., Report]:
    def check(contract: dict[str, object] | None = None) -> Report:
        return check_report(tmp_path, contract)
    return check
