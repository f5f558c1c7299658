"""The binder's conformance vectors executed on PostgreSQL and MariaDB: each bound query runs
through the read-only session of a SELECT-only login and returns the expected cell, and each
call or statement the deny-list refuses is one the server really resolves (PostgreSQL plans it
with EXPLAIN or runs it in a rolled-back transaction; MariaDB prepares it), so the list names
live functions, not spellings the engine would reject anyway."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from packata_sql.authored.template import bind
from packata_sql.dialects import get_dialect
from packata_sql.sessions.base import open_session

VECTORS = Path(__file__).resolve().parents[1] / "dialects"
ENGINES = ("postgres", "mysql")


def cases(dialect: str) -> list[dict[str, Any]]:
    document = yaml.safe_load((VECTORS / f"{dialect}.yaml").read_text(encoding="utf-8"))
    assert document["executed"] is True
    return list(document["cases"])


CASES = [(engine, case) for engine in ENGINES for case in cases(engine) if "run" in case]
DENIED = [(engine, case) for engine in ENGINES for case in cases(engine)
          if str(case.get("finding", "")).startswith("denied-")]
RESOLVED = [(engine, case) for engine, case in DENIED if case["on_server"] != "none"]


@pytest.mark.parametrize("engine,case", CASES, ids=[f"{e}:{c['id']}" for e, c in CASES])
def test_vector_executes_on_server(engine, case, request):
    server = request.getfixturevalue(engine)
    dialect = get_dialect(engine)
    table = dialect.quote_path(case["object"])
    column = dialect.quote_identifier(case["property"] or "c")
    kind = "TEXT" if engine == "postgres" else "VARCHAR(200) COLLATE utf8mb4_bin"
    server.execute(f"DROP TABLE IF EXISTS {table}", f"CREATE TABLE {table} ({column} {kind})")
    try:
        for value in case.get("rows", ["a", "b", None]):
            server.execute(f"INSERT INTO {table} VALUES (%s)", parameters=[value])
        bound, problems = bind(case["sql"], dialect, case["object"], case["property"],
                               schema=case.get("schema", ()))
        assert bound is not None, problems
        session = open_session(server.reader, trust_environment=False)
        try:
            result = session.fetch_cell(bound.sql, [], 30)
        finally:
            session.close()
        assert (result.width, len(result.rows)) == (1, 1)
        assert result.rows[0][0] == case["run"]
    finally:
        server.execute(f"DROP TABLE IF EXISTS {table}")


def test_every_denied_vector_says_how_the_server_shows_it_is_real():
    ways = {"postgres": {"explain", "rollback", "none"}, "mysql": {"prepare", "none"}}
    for engine, case in DENIED:
        assert case["on_server"] in ways[engine], case["id"]
        assert case["on_server"] != "none" or case["why"], case["id"]
        assert "{" not in case["sql"], "denied vectors run as written, without placeholders"
    assert len(RESOLVED) >= 0.8 * len(DENIED)


def resolve_on_server(server, how: str, sql: str) -> None:
    """Raises the provider's error when the server does not know the call or statement."""
    if how == "explain":
        server.execute(f"EXPLAIN {sql}")
    elif how == "rollback":
        server.execute("BEGIN", sql, "ROLLBACK")
    else:
        server.execute("PREPARE packata_vector FROM %s", parameters=[sql])


@pytest.mark.parametrize("engine,case", RESOLVED, ids=[f"{e}:{c['id']}" for e, c in RESOLVED])
def test_denied_vector_names_what_the_server_runs(engine, case, request):
    server = request.getfixturevalue(engine)
    extension = case.get("extension")
    installed = extension is None or bool(server.execute(
        "SELECT 1 FROM pg_extension WHERE extname = %s", parameters=[extension]))
    if not installed:
        server.execute(f"CREATE EXTENSION {extension}")
    try:
        server.execute(*case.get("setup", []))
        resolve_on_server(server, case["on_server"], case["sql"])
    finally:
        server.execute(*case.get("teardown", []))
        if not installed:
            server.execute(f"DROP EXTENSION {extension}")


@pytest.mark.parametrize("engine,how", [("postgres", "explain"), ("mysql", "prepare")])
def test_resolving_an_unknown_function_fails(engine, how, request):
    """The check above can fail: a name the server does not know is refused."""
    server = request.getfixturevalue(engine)
    with pytest.raises(Exception, match=r"(?i)packata_no_such_function"):
        resolve_on_server(server, how, "SELECT packata_no_such_function(1)")
