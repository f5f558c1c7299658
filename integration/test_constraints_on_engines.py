"""Every schema constraint kind measures the same on DuckDB, SQLite, PostgreSQL and MariaDB,
with NULL and duplicate traps under case-insensitive and PAD SPACE collations ('a' vs 'A' vs
'a '), NULL keys, trailing spaces and non-ASCII text. Expected counts are worked by hand."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from integration.conftest import embedded_database, load_rows
from packata_sql.compiler import compile_contract
from packata_sql.contracts.model import Category
from packata_sql.contracts.odcs import load_odcs
from packata_sql.dialects import get_dialect
from packata_sql.endpoint import Endpoint
from packata_sql.report import Report, Status
from packata_sql.runner import RunOptions, run

TABLE = "it's \"cons\" `tbl`"  # the physical name; the contract's name is `cons`
UUID = "123e4567-e89b-12d3-a456-426614174000"
# (k1, k2, name, amount, score, email, uid, ip)
ROWS: list[tuple[Any, ...]] = [
    (1, "x", "a", "0", 1, "a@b.co", UUID, "1.2.3.4"),
    (1, "X", "A", "10", 0, "bad", "not-a-uuid", "256.1.1.1"),
    (1, "x", "a ", "-1", 100, "x@y.z", None, "01.2.3.4"),
    (None, "x", "a", "5.5", 50, None, UUID.upper(), "255.255.255.255"),
    (2, None, None, None, None, "a b@c.d", "g" + UUID[1:], None),
    (2, "y", "abcd", "9.99", 99, "é@x.org", "", "1.2.3"),
    (3, "z", "é", "10.5", -5, "@x.org", UUID.replace("-", ""), "1.2.3.4 "),
    (3, "z ", "ab", "0.01", 101, "a@b.c ", UUID + " ", "10.0.0.1"),
]
# Column → (kind, logicalType, what the property declares besides its type).
COLUMNS: dict[str, tuple[str, str, dict[str, Any]]] = {
    "k1": ("int", "integer", {"primaryKey": True, "primaryKeyPosition": 1}),
    "k2": ("ci", "string", {"primaryKey": True, "primaryKeyPosition": 2}),
    "name": ("ci", "string", {"required": True, "unique": True, "logicalTypeOptions": {
        "minLength": 2, "maxLength": 3, "pattern": "^[a-z]", "validValues": ["a", "a ", "ab"]}}),
    "amount": ("decimal", "number", {"logicalTypeOptions": {
        "minimum": 0, "maximum": 10, "exclusiveMaximum": True}}),
    "score": ("int", "integer", {"logicalTypeOptions": {
        "exclusiveMinimum": 0, "exclusiveMaximum": 100}}),
    "email": ("text", "string", {"logicalTypeOptions": {"format": "email"}}),
    "uid": ("ci", "string", {"logicalTypeOptions": {"format": "uuid"}}),
    "ip": ("text", "string", {"logicalTypeOptions": {"format": "ipv4"}}),
}
P = "schema[cons].properties"
# Worked by hand from ROWS (README "Constraints").
EXPECTED: dict[str, tuple[Status, object]] = {
    f"{P}[name].required": (Status.FAILED, 1),  # row 5
    f"{P}[name].unique": (Status.FAILED, 1),  # 'a' twice; 'A' and 'a ' are other values
    f"{P}[name].logicalTypeOptions.minLength": (Status.FAILED, 4),  # a, A, a, é
    f"{P}[name].logicalTypeOptions.maxLength": (Status.FAILED, 1),  # abcd
    f"{P}[name].logicalTypeOptions.pattern": (Status.FAILED, 2),  # A, é
    f"{P}[name].logicalTypeOptions.validValues": (Status.FAILED, 3),  # A, abcd, é
    f"{P}[amount].logicalTypeOptions.minimum": (Status.FAILED, 1),  # -1
    f"{P}[amount].logicalTypeOptions.maximum": (Status.FAILED, 2),  # 10 (exclusive), 10.5
    f"{P}[score].logicalTypeOptions.exclusiveMinimum": (Status.FAILED, 2),  # 0, -5
    f"{P}[score].logicalTypeOptions.exclusiveMaximum": (Status.FAILED, 2),  # 100, 101
    f"{P}[email].logicalTypeOptions.format": (Status.FAILED, 4),  # bad, 'a b@c.d', '@x.org', 'a@b.c '
    f"{P}[uid].logicalTypeOptions.format": (Status.FAILED, 5),
    f"{P}[ip].logicalTypeOptions.format": (Status.FAILED, 4),  # 256…, 01…, 1.2.3, trailing space
    # NULL keys (rows 4, 5) and one excess (1, 'x'); (1, 'X') and (3, 'z ') are other keys.
    "schema[cons].primaryKey": (Status.FAILED, 3),
    **{f"{P}[{c}].logicalType": (Status.PASSED, True) for c in COLUMNS},
    f"{P}[ghost].logicalType": (Status.FAILED, False),
}
KINDS = {
    "duckdb": {"int": "INTEGER", "ci": "VARCHAR COLLATE NOCASE", "decimal": "DECIMAL(10, 2)",
               "text": "VARCHAR"},
    "sqlite": {"int": "INTEGER", "ci": "TEXT COLLATE NOCASE", "decimal": "NUMERIC",
               "text": "TEXT"},
    "postgres": {"int": "INTEGER", "ci": "citext", "decimal": "NUMERIC(10, 2)", "text": "TEXT"},
    "mysql": {"int": "INT",
              "ci": "VARCHAR(60) CHARACTER SET utf8mb4 COLLATE utf8mb4_general_ci",
              "decimal": "DECIMAL(10, 2)", "text": "VARCHAR(60)"},
}


# Physical column names with quotes, a backtick and a space (the keys use the property names).
PHYSICAL = {"email": "e'mail \"x\" `y`", "k2": "K 2"}


def contract(path: Path) -> Path:
    properties = [{"name": name, "physicalName": PHYSICAL.get(name, name), "logicalType": logical,
                   **declared} for name, (_, logical, declared) in COLUMNS.items()]
    properties.append({"name": "ghost", "logicalType": "string"})
    document = {"apiVersion": "v3.1.0", "kind": "DataContract", "id": "cons", "version": "1",
                "status": "active",
                "schema": [{"name": "cons", "physicalName": TABLE, "properties": properties}]}
    path.write_text(yaml.safe_dump(document, allow_unicode=True), encoding="utf-8")
    return path


def create_statements(engine: str) -> list[str]:
    dialect = get_dialect(engine)
    columns = ", ".join(f"{dialect.quote_identifier(PHYSICAL.get(name, name))} {KINDS[engine][kind]}"
                        for name, (kind, _, _) in COLUMNS.items())
    table = dialect.quote_identifier(TABLE)
    return [f"DROP TABLE IF EXISTS {table}", f"CREATE TABLE {table} ({columns})"]


def insert_sql(engine: str, marker: str) -> str:
    table = get_dialect(engine).quote_identifier(TABLE)
    return f"INSERT INTO {table} VALUES ({', '.join([marker] * len(COLUMNS))})"


def checked(endpoint: Endpoint, tmp_path: Path) -> Report:
    loaded = load_odcs(str(contract(tmp_path / "cons.yaml")))
    compiled = compile_contract(loaded, get_dialect(endpoint.engine), prefix=endpoint.schema,
                                categories=[Category.CONSTRAINT])
    return run(loaded, compiled, endpoint, RunOptions())


@pytest.mark.parametrize("engine", ["duckdb", "sqlite", "postgres", "mysql"])
def test_every_constraint_kind_measures_the_same_on_every_engine(engine, tmp_path, request):
    if engine in ("duckdb", "sqlite"):
        report = checked(embedded_database(engine, tmp_path / f"cons.{engine}",
                                           create_statements(engine), insert_sql(engine, "?"),
                                           ROWS), tmp_path)
    else:
        server = request.getfixturevalue(engine)
        setup = ["CREATE EXTENSION IF NOT EXISTS citext"] if engine == "postgres" else []
        load_rows(server, [*setup, *create_statements(engine)], insert_sql(engine, "%s"), ROWS)
        try:
            report = checked(server.reader, tmp_path)
        finally:
            server.execute(create_statements(engine)[0])
    assert {r.key: (r.status, r.value) for r in report.results} == EXPECTED, [
        (r.key, r.status, r.diagnostic) for r in report.results if r.diagnostic]
    row_reading = [r for r in report.results if not r.key.endswith(".logicalType")]
    assert row_reading and all(r.fused for r in row_reading)  # one scan for the object
    assert all(r.category is Category.CONSTRAINT for r in report.results)


# Library rules on the same column and key as constraints: `required` next to nullValues,
# `unique` next to duplicateValues share their aggregates (planner._shared_aggregates).
LIBRARY = {"name": [{"id": "name_nulls", "metric": "nullValues", "mustBe": 0},
                    {"id": "name_duplicates", "metric": "duplicateValues", "mustBe": 0}]}
SHARED_EXPECTED = {
    **{key: EXPECTED[key] for key in (f"{P}[name].required", f"{P}[name].unique",
                                      "schema[cons].primaryKey")},
    "name_nulls": (Status.FAILED, 1),  # row 5
    "name_duplicates": (Status.FAILED, 1),  # 'a' twice; the one NULL is one more key
}


@pytest.mark.parametrize("engine", ["duckdb", "sqlite", "postgres", "mysql"])
def test_library_rules_share_aggregates_with_constraints(engine, tmp_path, request):
    path = contract(tmp_path / "cons.yaml")
    document = yaml.safe_load(path.read_text(encoding="utf-8"))
    for prop in document["schema"][0]["properties"]:
        prop["quality"] = LIBRARY.get(prop["name"], [])
    path.write_text(yaml.safe_dump(document, allow_unicode=True), encoding="utf-8")
    if engine in ("duckdb", "sqlite"):
        endpoint = embedded_database(engine, tmp_path / f"shared.{engine}",
                                     create_statements(engine), insert_sql(engine, "?"), ROWS)
    else:
        server = request.getfixturevalue(engine)
        setup = ["CREATE EXTENSION IF NOT EXISTS citext"] if engine == "postgres" else []
        load_rows(server, [*setup, *create_statements(engine)], insert_sql(engine, "%s"), ROWS)
        endpoint = server.reader
    loaded = load_odcs(str(path))
    keys = set(SHARED_EXPECTED)
    compiled = compile_contract(loaded, get_dialect(endpoint.engine), prefix=endpoint.schema,
                                select=keys)
    try:
        report = run(loaded, compiled, endpoint, RunOptions(show_sql=True))
    finally:
        if engine not in ("duckdb", "sqlite"):
            server.execute(create_statements(engine)[0])
    assert {r.key: (r.status, r.value) for r in report.results} == SHARED_EXPECTED, [
        (r.key, r.status, r.diagnostic) for r in report.results if r.diagnostic]
    statements = {r.sql for r in report.results}
    assert len(statements) == 1 and all(r.fused for r in report.results)
    # name's distinct count once for unique and duplicateValues; k1's and K 2's none.
    assert statements.pop().upper().count("COUNT(DISTINCT") == 1
