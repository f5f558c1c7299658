"""Conformance vectors (`dialects/*.yaml`) for the template binder: every case binds to the
expected text or finding; cases with `run` execute on DuckDB and SQLite here (PostgreSQL and
MariaDB in `integration/`), proving literals survive byte for byte and placeholders resolve.
A file whose engine no suite runs says `executed: false` and holds no `run` value."""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

import pytest
import yaml

from packata_sql.authored.template import bind
from packata_sql.dialects import BINDER_DIALECTS, get_dialect
from packata_sql.sessions.base import open_session
from packata_sql.sessions.endpoint import Endpoint

VECTORS = Path(__file__).resolve().parents[2] / "dialects"


#: Engines whose `run` values some suite executes (DuckDB and SQLite here, the servers in
#: integration/test_vectors_on_servers.py).
EXECUTED = {"duckdb", "sqlite", "postgres", "mysql", "spark"}


def load_document(dialect: str) -> dict[str, Any]:
    document = yaml.safe_load((VECTORS / f"{dialect}.yaml").read_text(encoding="utf-8"))
    assert document["dialect"] == dialect
    return dict(document)


def load_cases(dialect: str) -> list[dict[str, Any]]:
    return list(load_document(dialect)["cases"])


ALL = [(d, case) for d in BINDER_DIALECTS for case in load_cases(d)]


def test_every_dialect_has_at_least_forty_cases():
    for dialect in BINDER_DIALECTS:
        cases = load_cases(dialect)
        assert len(cases) >= 40
        assert len({c["id"] for c in cases}) == len(cases), "case ids are unique"


@pytest.mark.parametrize("dialect", BINDER_DIALECTS)
def test_only_executed_engines_carry_run_values(dialect):
    document = load_document(dialect)
    assert document["executed"] is (dialect in EXECUTED)
    if not document["executed"]:
        assert not [c["id"] for c in document["cases"] if "run" in c]


def bind_case(dialect: str, case: dict[str, Any]) -> tuple[Any, list[Any]]:
    return bind(case["sql"], get_dialect(dialect), case["object"], case["property"],
                schema=case.get("schema", ()))


@pytest.mark.parametrize("dialect,case", ALL, ids=[f"{d}:{c['id']}" for d, c in ALL])
def test_vector_binds_as_expected(dialect, case):
    bound, problems = bind_case(dialect, case)
    if "finding" in case:
        assert bound is None
        assert case["finding"] in [p.code for p in problems]
        if "mentions" in case:  # a denied call or statement is named in its finding
            found = [p.message for p in problems if p.code == case["finding"]]
            assert any(case["mentions"] in message for message in found), found
    else:
        assert problems == []
        assert bound.sql == case["expect"]
        assert list(bound.parameters) == case.get("parameters", [])


def _build(engine: str, path: Path, case: dict[str, Any]) -> None:
    import sqlite3

    import duckdb

    dialect = get_dialect(engine)
    table = dialect.quote_path(case["object"])
    column = dialect.quote_identifier(case["property"] or "c")
    connection: Any = duckdb.connect(str(path)) if engine == "duckdb" else sqlite3.connect(str(path))
    connection.execute(f"CREATE TABLE {table} ({column} VARCHAR)")
    for value in case.get("rows", ["a", "b", None]):
        connection.execute(f"INSERT INTO {table} VALUES (?)", (value,))
    if engine == "sqlite":
        connection.commit()
    connection.close()


RUNNABLE = [(d, c) for d in ("duckdb", "sqlite") for c in load_cases(d) if "run" in c]


@pytest.mark.parametrize("engine,case", RUNNABLE, ids=[f"{d}:{c['id']}" for d, c in RUNNABLE])
def test_vector_executes_on_the_engine(engine, case, tmp_path):
    path = tmp_path / f"vector.{engine}"
    _build(engine, path, case)
    bound, problems = bind_case(engine, case)
    assert bound is not None, problems
    session = open_session(Endpoint(engine, str(path)), trust_environment=False)
    try:
        result = session.fetch_cell(bound.sql, [], 30)
    finally:
        session.close()
    assert (result.width, len(result.rows)) == (1, 1)
    assert result.rows[0][0] == case["run"]


@functools.cache
def engine_functions(engine: str) -> frozenset[str]:
    import sqlite3

    import duckdb

    if engine == "duckdb":
        query = "SELECT function_name FROM duckdb_functions()"
        return frozenset(row[0] for row in duckdb.connect().execute(query).fetchall())
    listing = sqlite3.connect(":memory:").execute("SELECT name FROM pragma_function_list")
    return frozenset(row[0] for row in listing)


DENIED_HERE = [(d, c) for d in ("duckdb", "sqlite") for c in load_cases(d)
               if c.get("finding") == "denied-function"]


@pytest.mark.parametrize("engine,case", DENIED_HERE, ids=[f"{d}:{c['id']}" for d, c in DENIED_HERE])
def test_denied_function_exists_in_the_engine(engine, case):
    """The deny-list names functions the engine has, not spellings it would reject anyway;
    a function only an extension brings says so."""
    if case.get("on_engine") == "none":
        assert case["why"]
        assert case["mentions"] not in engine_functions(engine)
    else:
        assert case["mentions"] in engine_functions(engine)
