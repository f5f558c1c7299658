"""The Expressif language's own conformance cases (tests/expressif/conformance, plus
tests/expressif/cases.yaml) for every operation packata-sql supports, rendered for and run on
DuckDB, SQLite, PostgreSQL, MariaDB and Spark: every cell equals the language's expected value
exactly, and an engine refuses (UnsupportedOnEngine) exactly the operations
tests/expressif/expectations.yaml lists for it. One SELECT per operation; in CI a missing
engine fails (integration/conftest.py)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import duckdb
import pytest

from packata_sql.catalog.expressif import supported
from packata_sql.sessions.base import open_session
from packata_sql.sessions.endpoint import Endpoint
from tests.expressif.harness import (
    ENGINES,
    expected_unsupported,
    run_cases,
    runnable,
)

Execute = Callable[[str], tuple[Any, ...]]


@pytest.fixture(params=ENGINES)
def engine(request: pytest.FixtureRequest) -> Iterator[tuple[str, Execute]]:
    name = request.param
    if name == "duckdb":
        embedded: Any = duckdb.connect()
        yield name, lambda sql: tuple(embedded.execute(sql).fetchone())
        embedded.close()
    elif name == "sqlite":
        # The run's own session: it registers the `regexp` function patterns call.
        session = open_session(Endpoint("sqlite", ":memory:"), trust_environment=False)
        yield name, lambda sql: tuple(session.fetch_row(sql, 60))
        session.close()
    elif name == "spark":
        session = request.getfixturevalue("spark").admin()
        yield name, lambda sql: tuple(session.sql(sql).collect()[0])
        session.stop()
    else:
        connection = request.getfixturevalue(name).connect()

        def execute(sql: str) -> tuple[Any, ...]:
            cursor = connection.cursor()
            cursor.execute(sql)
            row = cursor.fetchone()
            cursor.close()
            return tuple(row)

        yield name, execute
        connection.close()


def test_every_supported_case_has_the_languages_value(engine: tuple[str, Execute]) -> None:
    name, execute = engine
    prepared, _outside = runnable()
    outcome = run_cases(name, execute, prepared)
    assert outcome.mismatches == []
    listed = expected_unsupported(name)
    assert sorted(outcome.unsupported) == sorted(listed)
    for operation, phrase in listed.items():
        assert phrase in outcome.unsupported[operation]
    refused = sum(1 for p in prepared
                  if f"{p.case.kind}:{p.case.operator}" in outcome.unsupported)
    assert outcome.compared == len(prepared) - refused


def test_every_operation_supported_on_the_engine_is_run(engine: tuple[str, Execute]) -> None:
    """Coverage measured: each operation `supported()` lists for the engine has cases that
    ran on it, and nothing listed as refused is also listed as supported."""
    name, _execute = engine
    prepared, _outside = runnable()
    with_cases = {f"{p.case.kind}:{p.case.operator}" for p in prepared}
    listed = expected_unsupported(name)
    for operation in supported(name):
        kind, _, bare = operation.rpartition(":")
        keys = {f"{kind}:{bare}"} if kind else {f"function:{bare}", f"predicate:{bare}"}
        assert keys & with_cases, f"{operation} has no conformance case"
        assert not keys & set(listed), f"{operation} is both supported and refused on {name}"
