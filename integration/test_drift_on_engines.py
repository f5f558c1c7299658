"""Schema drift on DuckDB, SQLite, PostgreSQL and MariaDB: a table changed one column at a time
against a snapshot of the original, each change classified as the table of docs/formats.md says, with
overrides. Column facts come from each engine's catalog through the read-only session."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import duckdb
import pytest

from packata_sql.contracts.drift import Classification, parse_overrides
from packata_sql.dialects import Family, get_dialect
from packata_sql.run.drift import classify, fields_from_facts
from packata_sql.sessions.base import open_session
from packata_sql.sessions.endpoint import Endpoint

TYPES = {
    "duckdb": {"int": "INTEGER", "bigint": "BIGINT", "numeric": "DECIMAL(10, 2)",
               "text": "TEXT", "varchar": "VARCHAR(20)"},
    "sqlite": {"int": "INTEGER", "bigint": "BIGINT", "numeric": "NUMERIC(10, 2)",
               "text": "TEXT", "varchar": "VARCHAR(20)"},
    "postgres": {"int": "INTEGER", "bigint": "BIGINT", "numeric": "NUMERIC(10, 2)",
                 "text": "TEXT", "varchar": "VARCHAR(20)"},
    "mysql": {"int": "INT", "bigint": "BIGINT", "numeric": "DECIMAL(10, 2)", "text": "TEXT",
              "varchar": "VARCHAR(20)"},
}
BASE = [("a", "int", True), ("b", "numeric", True), ("c", "varchar", False), ("e", "int", True)]
C, W, B = Classification.COMPATIBLE, Classification.WARNING, Classification.BREAKING
# (variant of BASE, expected changes (field, change, classification))
CASES: dict[str, tuple[list[tuple[str, str, bool]], list[tuple[str, str, Classification]]]] = {
    "unchanged": (BASE, []),
    "add-nullable": ([*BASE, ("n", "int", True)], [("n", "field-added-nullable", C)]),
    "add-not-null": ([*BASE, ("n", "int", False)], [("n", "field-added-required", W)]),
    "drop": (BASE[:3], [("e", "field-removed", B)]),
    "int-to-bigint": ([("a", "bigint", True), *BASE[1:]], [("a", "type-widened", C)]),
    "int-to-numeric": ([("a", "numeric", True), *BASE[1:]], [("a", "type-widened", C)]),
    "numeric-to-text": ([BASE[0], ("b", "text", True), *BASE[2:]], [("b", "type-changed", B)]),
    "relax-not-null": ([*BASE[:2], ("c", "varchar", True), BASE[3]],
                       [("c", "nullability-relaxed", B)]),
    "tighten-not-null": ([("a", "int", False), *BASE[1:]], [("a", "nullability-tightened", C)]),
    "reorder": ([BASE[1], BASE[0], *BASE[2:]],
                [("a", "order-changed", W), ("b", "order-changed", W)]),
}


def create(engine: str, columns: list[tuple[str, str, bool]]) -> list[str]:
    dialect = get_dialect(engine)
    table = dialect.quote_identifier("drifting")
    declared = ", ".join(
        f"{dialect.quote_identifier(name)} {TYPES[engine][kind]}{'' if nullable else ' NOT NULL'}"
        for name, kind, nullable in columns)
    return [f"DROP TABLE IF EXISTS {table}", f"CREATE TABLE {table} ({declared})"]


class Target:
    """Builds the table on one engine (admin connection) and reads facts read-only."""

    def __init__(self, engine: str, tmp_path: Path, request: pytest.FixtureRequest) -> None:
        self.engine = engine
        self.server: Any = None
        if engine in ("duckdb", "sqlite"):
            self.path = tmp_path / f"drift.{engine}"
            self.endpoint = Endpoint(engine, str(self.path))
        else:
            self.server = request.getfixturevalue(engine)
            self.endpoint = self.server.reader

    def build(self, columns: list[tuple[str, str, bool]]) -> None:
        statements = create(self.engine, columns)
        if self.server is not None:
            self.server.execute(*statements)
            return
        connection: Any = (duckdb.connect(str(self.path)) if self.engine == "duckdb"
                           else sqlite3.connect(str(self.path)))
        for statement in statements:
            connection.execute(statement)
        if self.engine == "sqlite":
            connection.commit()
        connection.close()

    def facts(self) -> Any:
        session = open_session(self.endpoint, trust_environment=False)
        try:
            return session.column_facts((*self.endpoint.schema, "drifting"))
        finally:
            session.close()

    def drop(self) -> None:
        if self.server is not None:
            self.server.execute(create(self.engine, BASE)[0])


@pytest.fixture(params=["duckdb", "sqlite", "postgres", "mysql"])
def target(request: pytest.FixtureRequest, tmp_path: Path) -> Any:
    built = Target(str(request.param), tmp_path, request)
    yield built
    built.drop()


def test_each_change_is_classified_on_every_engine(target):
    target.build(BASE)
    facts = target.facts()
    baseline = fields_from_facts(facts)
    assert [(f.name, f.nullable) for f in baseline] == [(n, nullable) for n, _, nullable in BASE]
    # Column facts from each engine's catalog: order, family, a native type name.
    assert [(f.position, f.family) for f in facts] == [
        (1, Family.NUMBER), (2, Family.NUMBER), (3, Family.TEXT), (4, Family.NUMBER)]
    assert all(f.native_type for f in facts)
    dialect = get_dialect(target.engine)
    for case, (columns, expected) in CASES.items():
        target.build(columns)
        drift = classify(baseline, target.facts(), dialect)
        assert [(c.field, c.change, c.classification) for c in drift.changes] == expected, case
        worst = max((level for _, _, level in expected), key=[C, W, B].index, default=C)
        assert drift.classification is worst, case


def test_narrowing_is_breaking_and_overrides_reclassify(target):
    target.build([("a", "bigint", True), *BASE[1:]])
    baseline = fields_from_facts(target.facts())
    target.build(BASE[:3])  # a narrowed to int, e dropped
    dialect = get_dialect(target.engine)
    drift = classify(baseline, target.facts(), dialect)
    assert [(c.field, c.change, c.classification) for c in drift.changes] == [
        ("a", "type-changed", B), ("e", "field-removed", B)]
    relaxed = classify(baseline, target.facts(), dialect,
                       parse_overrides(["type-changed=warning", "field-removed=compatible"]))
    assert [c.classification for c in relaxed.changes] == [W, C]
    assert relaxed.classification is W


def test_a_baseline_type_left_null_is_resolved_on_every_engine(target):
    """A snapshot whose fields say `"native_type": null` (the type was not known) reads as
    unknown: against the live table each field's type is resolved (compatible)."""
    from packata_sql.contracts.drift import load_snapshot
    from packata_sql.run.drift import snapshot_document

    target.build(BASE)
    facts = target.facts()
    document = snapshot_document(target.engine, [("drifting", facts)])
    for field in document["objects"][0]["fields"]:
        field["native_type"] = None
    [(_, baseline)] = load_snapshot(json.dumps(document))
    assert [f.native_type for f in baseline] == [None] * len(BASE)
    drift = classify(baseline, facts, get_dialect(target.engine))
    assert [(c.field, c.change, c.classification, c.before) for c in drift.changes] == [
        (name, "type-resolved", C, None) for name, _, _ in BASE]
    assert drift.classification is C
