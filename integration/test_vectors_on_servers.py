"""The binder's conformance vectors executed on PostgreSQL and MariaDB: each bound query runs
through the read-only session of a SELECT-only login and returns the expected cell."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from packata_sql.dialects import get_dialect
from packata_sql.session import open_session
from packata_sql.template import bind

VECTORS = Path(__file__).resolve().parents[1] / "dialects"


def runnable(dialect: str) -> list[dict[str, Any]]:
    document = yaml.safe_load((VECTORS / f"{dialect}.yaml").read_text(encoding="utf-8"))
    return [case for case in document["cases"] if "run" in case]


CASES = [(engine, case) for engine in ("postgres", "mysql") for case in runnable(engine)]


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
        bound, problems = bind(case["sql"], dialect, case["object"], case["property"])
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
