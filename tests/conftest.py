"""Shared fixtures: real DuckDB and SQLite databases built from small tables."""

from __future__ import annotations

import json
import sqlite3
import textwrap
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import duckdb
import pytest

from packata_sql.contracts.formats import load_declaration
from packata_sql.contracts.model import Category
from packata_sql.dialects import get_dialect
from packata_sql.plans.compiler import compile_contract
from packata_sql.report import Report
from packata_sql.run.runner import RunOptions, run
from packata_sql.sessions.endpoint import FILE_ENGINES, Endpoint

#: The in-process engines, from the registry (a new one needs its column types below).
ENGINES = FILE_ENGINES
# Column kinds → the type each engine declares.
_TYPES = {
    "duckdb": {"text": "VARCHAR", "int": "BIGINT", "decimal": "DECIMAL(18, 4)",
               "double": "DOUBLE", "bool": "BOOLEAN", "nocase": "VARCHAR COLLATE NOCASE",
               "date": "DATE", "any": "VARCHAR"},
    "sqlite": {"text": "TEXT", "int": "INTEGER", "decimal": "NUMERIC", "double": "REAL",
               "bool": "INTEGER", "nocase": "TEXT COLLATE NOCASE", "date": "TEXT", "any": ""},
}

Table = tuple[str, Sequence[tuple[str, str]], Sequence[Sequence[Any]]]


def _quote(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def build_database(engine: str, path: Path, tables: Sequence[Table]) -> Path:
    """Writes the tables with an ordinary read-write connection (test set-up, not a check)."""
    if engine == "duckdb":
        connection: Any = duckdb.connect(str(path))
    else:
        connection = sqlite3.connect(str(path))
    for name, columns, rows in tables:
        declared = ", ".join(f"{_quote(c)} {_TYPES[engine][kind]}".strip() for c, kind in columns)
        connection.execute(f"CREATE TABLE {_quote(name)} ({declared})")
        if rows:
            marks = ", ".join("?" for _ in columns)
            connection.executemany(f"INSERT INTO {_quote(name)} VALUES ({marks})", [tuple(r) for r in rows])
    if engine == "sqlite":
        connection.commit()
    connection.close()
    return path


@pytest.fixture(params=ENGINES)
def engine(request: pytest.FixtureRequest) -> str:
    return str(request.param)


Checker = Callable[..., Report]


@pytest.fixture
def check(tmp_path: Path) -> Checker:
    """check(engine, contract_yaml, tables, **options) → Report, executed on the real engine."""
    counter = iter(range(10_000))

    def run_check(engine: str, contract: str, tables: Sequence[Table], *,
                  inclusive_between: bool = False, select: Sequence[str] | None = None,
                  categories: Sequence[Category] | None = (Category.QUALITY,),
                  **options: Any) -> Report:
        """`categories` defaults to quality: the schema's constraint rules are tested apart.
        The contract may be any declaration format (a policy or pipeline file, too)."""
        number = next(counter)
        database = build_database(engine, tmp_path / f"db{number}.{engine}", tables)
        contract_path = tmp_path / f"contract{number}.yaml"
        contract_path.write_text(textwrap.dedent(contract), encoding="utf-8")
        loaded = load_declaration(str(contract_path), inclusive_between=inclusive_between)
        parameters = options.pop("parameters", {})
        compiled = compile_contract(loaded, get_dialect(engine), select=select,
                                    parameters=parameters, categories=categories)
        return run(loaded, compiled, Endpoint(engine, str(database)),
                   RunOptions(parameters=parameters, **options))

    return run_check


@pytest.fixture(name="contract_for")
def contract_for_fixture() -> Callable[..., str]:
    return contract_for


def contract_for(column_rules: str, *, column: str = "c", logical_type: str = "string",
                 table: str = "t", object_rules: str = "") -> str:
    """A one-object, one-property contract; rules are YAML list items indented by 0."""
    prop_rules = textwrap.indent(textwrap.dedent(column_rules).strip(), " " * 10)
    obj_rules = textwrap.indent(textwrap.dedent(object_rules).strip(), " " * 6)
    table, column = json.dumps(table), json.dumps(column)
    text = f"""\
apiVersion: v3.1.0
kind: DataContract
id: test
version: 1.0.0
status: active
schema:
  - name: {table}
"""
    if object_rules.strip():
        text += f"    quality:\n{obj_rules}\n"
    text += f"    properties:\n      - name: {column}\n        logicalType: {logical_type}\n"
    if column_rules.strip():
        text += f"        quality:\n{prop_rules}\n"
    return text
