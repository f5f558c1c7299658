"""Boolean results of authored SQL read the same on every engine (issue 10.5).

PostgreSQL and DuckDB return a comparison as a boolean; MariaDB returns an integer 0/1 of
display width 1, and SQLite has no boolean type. A 0/1 the engine reports as a boolean
expression is read as a boolean where the rule expects one; an integer that merely holds 0 or
1 (a COUNT, a literal, a CASE) stays a number, so `mustBe: true` on it is a type mismatch
everywhere. Table `flags` holds x = 1, 2, 3."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from fractions import Fraction
from pathlib import Path
from typing import Any

import duckdb
import pytest
import yaml

from packata_sql.contracts.odcs import load_odcs
from packata_sql.dialects import get_dialect
from packata_sql.plans.compiler import compile_contract
from packata_sql.report import Status
from packata_sql.run.runner import RunOptions, run
from packata_sql.sessions.endpoint import Endpoint

PASSED, FAILED, INCONCLUSIVE = Status.PASSED, Status.FAILED, Status.INCONCLUSIVE
# id: (query, expectation, expected status, expected value or diagnostic code)
CASES: dict[str, tuple[str, dict[str, Any], Status, object]] = {
    "eq_true": ("SELECT COUNT(*) = 3 FROM {object}", {"mustBe": True}, PASSED, True),
    "eq_false": ("SELECT COUNT(*) = 0 FROM {object}", {"mustBe": False}, PASSED, False),
    "eq_violated": ("SELECT COUNT(*) = 0 FROM {object}", {"mustBe": True}, FAILED, False),
    "ne_true": ("SELECT COUNT(*) <> 3 FROM {object}", {"mustNotBe": True}, PASSED, False),
    "lt": ("SELECT MAX(x) < 10 FROM {object}", {"mustBe": True}, PASSED, True),
    "aliased": ("SELECT (COUNT(*) = 3) AS ok FROM {object}", {"mustBe": True}, PASSED, True),
    "not": ("SELECT NOT (COUNT(*) = 0) FROM {object}", {"mustBe": True}, PASSED, True),
    "and": ("SELECT COUNT(*) > 0 AND MIN(x) >= 1 FROM {object}", {"mustBe": True}, PASSED, True),
    "or": ("SELECT COUNT(*) = 0 OR MAX(x) = 2 FROM {object}", {"mustBe": False}, PASSED, False),
    "exists": ("SELECT EXISTS (SELECT 1 FROM {object} WHERE x > 2)", {"mustBe": True},
               PASSED, True),
    "not_exists": ("SELECT NOT EXISTS (SELECT 1 FROM {object} WHERE x > 2)", {"mustBe": True},
                   FAILED, False),
    "is_null": ("SELECT MAX(x) IS NULL FROM {object}", {"mustBe": False}, PASSED, False),
    "in": ("SELECT MIN(x) IN (1, 5) FROM {object}", {"mustBe": True}, PASSED, True),
    "between": ("SELECT MAX(x) BETWEEN 1 AND 2 FROM {object}", {"mustBe": True}, FAILED, False),
    "no_expectation": ("SELECT COUNT(*) = 3 FROM {object}", {}, PASSED, True),
    "no_expectation_false": ("SELECT COUNT(*) = 4 FROM {object}", {}, FAILED, False),
    # Integers that merely hold 0 or 1 never become booleans.
    "count_one": ("SELECT COUNT(*) FROM {object} WHERE x = 1", {"mustBe": True},
                  INCONCLUSIVE, "type-mismatch"),
    "count_zero": ("SELECT COUNT(*) FROM {object} WHERE x > 5", {"mustBe": False},
                   INCONCLUSIVE, "type-mismatch"),
    "literal_one": ("SELECT 1", {"mustBe": True}, INCONCLUSIVE, "type-mismatch"),
    "case_one": ("SELECT CASE WHEN COUNT(*) = 3 THEN 1 ELSE 0 END FROM {object}",
                 {"mustBe": True}, INCONCLUSIVE, "type-mismatch"),
    "min_one": ("SELECT MIN(x) FROM {object}", {"mustBe": True}, INCONCLUSIVE, "type-mismatch"),
    # Numbers compared with numbers are untouched.
    "count_number": ("SELECT COUNT(*) FROM {object} WHERE x = 1", {"mustBe": 1}, PASSED, 1),
    "literal_number": ("SELECT 1", {"mustBe": 1}, PASSED, 1),
    "integer_no_expectation": ("SELECT COUNT(*) FROM {object} WHERE x = 1", {}, INCONCLUSIVE,
                               "no-expectation"),
}


def _embedded(engine: str, tmp_path: Path) -> Endpoint:
    path = tmp_path / f"flags.{engine}"
    connection: Any = duckdb.connect(str(path)) if engine == "duckdb" else sqlite3.connect(str(path))
    connection.execute("CREATE TABLE flags (x INTEGER)")
    connection.executemany("INSERT INTO flags VALUES (?)", [(1,), (2,), (3,)])
    if engine == "sqlite":
        connection.commit()
    connection.close()
    return Endpoint(engine, str(path))


@pytest.fixture(params=["duckdb", "sqlite", "postgres", "mysql"])
def endpoint(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Endpoint]:
    engine = str(request.param)
    if engine in ("duckdb", "sqlite"):
        yield _embedded(engine, tmp_path)
        return
    server = request.getfixturevalue(engine)
    server.execute("DROP TABLE IF EXISTS flags", "CREATE TABLE flags (x INTEGER)",
                   "INSERT INTO flags VALUES (1), (2), (3)")
    try:
        yield server.reader
    finally:
        server.execute("DROP TABLE IF EXISTS flags")


def test_boolean_results_read_the_same_on_every_engine(endpoint: Endpoint, tmp_path: Path) -> None:
    quality = [{"id": key, "type": "sql", "query": query, **expect}
               for key, (query, expect, _, _) in CASES.items()]
    document = {"apiVersion": "v3.1.0", "kind": "DataContract", "id": "flags", "version": "1.0.0",
                "status": "active", "schema": [{"name": "flags", "quality": quality}]}
    path = tmp_path / "contract.yaml"
    path.write_text(yaml.safe_dump(document), encoding="utf-8")
    loaded = load_odcs(str(path))
    compiled = compile_contract(loaded, get_dialect(endpoint.engine))
    report = run(loaded, compiled, endpoint, RunOptions(timeout_s=30))
    measured = {
        r.key: (r.status, r.diagnostic.code if r.status is INCONCLUSIVE and r.diagnostic else r.value)
        for r in report.results
    }
    expected = {key: (status, outcome) for key, (_, _, status, outcome) in CASES.items()}
    assert measured == expected
    kinds = {key: type(value) for key, (_, value) in measured.items()}
    assert all(kinds[key] is bool for key, (_, _, _, want) in CASES.items() if want in (True, False)
               and isinstance(want, bool))
    assert kinds["count_number"] is Fraction
