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
import sqlglot.expressions as exp

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


def test_postgres_case_mapping_ignores_the_collation_and_the_database_locale(
        postgres: Any) -> None:
    """LOWER and UPPER follow their input's collation (the database's LC_CTYPE by default):
    under "C" they map ASCII letters only. The rendering asks for Unicode's simple mapping
    explicitly, so a "C" column (or database) maps 'É' and keeps 'ß' as .NET does."""
    from packata_sql.authored.expressif import Payload, parse
    from packata_sql.catalog.expressif import render
    from packata_sql.dialects import get_dialect

    dialect = get_dialect("postgres")
    cells = []
    for text, value in (("lower", "ÉCOLE ΑΒΓ"), ("upper", "straße é")):
        under_c = exp.Collate(this=exp.cast(exp.Literal.string(value), exp.DataType.build("TEXT")),
                              expression=exp.Identifier(this="C", quoted=True))
        cells.append(render(parse(Payload("1", "expression", "value", text)), dialect,
                            subject=under_c, fields={}, variable=lambda n: exp.Null()))
    connection = postgres.connect()
    try:
        cursor = connection.cursor()
        cursor.execute(dialect.render(exp.select(*cells)))
        assert cursor.fetchone() == ("école αβγ", "STRAßE É")
        cursor.execute("SELECT LOWER(CAST('ÉCOLE' AS TEXT) COLLATE \"C\")")
        assert cursor.fetchone() == ("École",)  # what the plain rendering gave under "C"
    finally:
        connection.close()
