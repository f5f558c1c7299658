"""Distinct and composite keys give the same counts whatever plan the dialect picks
(`Dialect.distinct_plan`: a SELECT DISTINCT subquery on DuckDB, SQLite and PostgreSQL, inside
the aggregate on MariaDB, apart on Spark): duplicateValues,
unique and primaryKey, single and composite, against a reference computed in Python from the
rows the engine holds. The data is built to fail a padded, case- or accent-insensitive
comparison ('a', 'a ', 'A', 'á'; MariaDB's utf8mb4_general_ci also takes every emoji for one),
with NULLs in every position of mixed-type keys."""

from __future__ import annotations

import datetime
import sqlite3
from collections.abc import Callable, Sequence
from decimal import Decimal
from pathlib import Path
from typing import Any

import duckdb
import pytest

from integration.test_differential_metrics import (  # noqa: F401 (build is a fixture)
    ENGINES,
    Built,
    Dataset,
    build,
    contract_file,
)
from packata_sql.contracts.model import Category
from packata_sql.contracts.odcs import load_odcs
from packata_sql.dialects import get_dialect
from packata_sql.plans.compiler import compile_contract
from packata_sql.report import Report, Status
from packata_sql.run.runner import RunOptions, run
from packata_sql.sessions.endpoint import Endpoint

COLUMNS = {"t": "ci", "s": "text", "n": "int", "d": "money", "day": "date"}
LOGICAL = {"t": "string", "s": "string", "n": "integer", "d": "number", "day": "date"}
D1, D2, D3 = datetime.date(2024, 1, 1), datetime.date(2024, 1, 2), datetime.date(2024, 2, 29)
ROWS: list[tuple[Any, ...]] = [
    ("a", "x", 1, Decimal("1.50"), D1),
    ("a ", "x", 1, Decimal("1.50"), D1),
    ("A", "x ", 1, Decimal("1.5"), D1),
    ("á", "X", 2, None, D2),
    ("Á", None, 2, None, D2),
    ("a", "x", 1, Decimal("1.50"), D1),
    (None, None, 3, Decimal("2.00"), None),
    (None, "é", 3, Decimal("2"), None),
    (None, "e\u0301", None, None, None),
    (None, None, None, None, None),
    ("a  ", "ß", None, Decimal("0.10"), D1),
    ("a  ", "ss", None, Decimal("0.1"), D1),
    ("", "", 4, Decimal("0.00"), D3),
    ("", " ", 4, Decimal("-0.00"), D3),
    ("😀", "😀", 5, Decimal("9.99"), D3),
    ("😁", "😀", 5, Decimal("9.99"), D3),
]
DATA = Dataset(COLUMNS, ROWS)
#: Composite keys of duplicateValues; the first primaryKey is declared in the first contract,
#: the second in another (an object has one primary key).
PAIRS = {"pair_tn": ("t", "n"), "pair_nd": ("n", "d"), "pair_st": ("s", "t"),
         "pair_tday": ("t", "day"), "pair_all": ("t", "s", "n", "d", "day")}
PRIMARY_KEYS = (("t", "n"), ("s", "d", "day"))


def _keys(rows: Sequence[tuple[Any, ...]], columns: Sequence[str],
          fold: Callable[[Any], Any]) -> list[tuple[Any, ...]]:
    names = list(COLUMNS)
    return [tuple(fold(row[names.index(c)]) for c in columns) for row in rows]


def reference(rows: Sequence[tuple[Any, ...]], primary_key: Sequence[str],
              fold: Callable[[Any], Any] = lambda v: v) -> dict[str, int]:
    """The counts docs/semantics.md gives, from the rows themselves: duplicateValues is rows
    minus distinct keys with NULL one key, unique non-NULL values minus distinct ones,
    primaryKey rows minus distinct complete keys."""
    counts: dict[str, int] = {}
    for column in COLUMNS:
        keys = _keys(rows, [column], fold)
        present = [k for k in keys if k[0] is not None]
        counts[f"dups_{column}"] = len(keys) - len(set(keys))
        counts[f"unique_{column}"] = len(present) - len(set(present))
    for key, columns in PAIRS.items():
        keys = _keys(rows, columns, fold)
        counts[key] = len(keys) - len(set(keys))
    complete = {k for k in _keys(rows, primary_key, fold) if None not in k}
    counts["primaryKey"] = len(rows) - len(complete)
    return counts


def checked(endpoint: Endpoint, contract: Path, categories: list[Category]) -> Report:
    """A check keeping each rule's statement, to see which plan ran."""
    loaded = load_odcs(str(contract))
    compiled = compile_contract(loaded, get_dialect(endpoint.engine), prefix=endpoint.schema,
                                categories=categories)
    return run(loaded, compiled, endpoint, RunOptions(show_sql=True))


def fetched(engine: str, built: Built, request: pytest.FixtureRequest) -> list[tuple[Any, ...]]:
    """The rows as the engine holds them (admin connections, as the fixtures are built)."""
    dialect = get_dialect(engine)
    query = "SELECT " + ", ".join(dialect.quote_identifier(c) for c in COLUMNS) + " FROM "
    if engine == "spark":
        admin = request.getfixturevalue("spark").admin()
        try:
            frame = admin.sql(query + "global_temp." + dialect.quote_identifier(built.name))
            return [tuple(row) for row in frame.collect()]
        finally:
            admin.stop()
    query += dialect.quote_identifier(built.name)
    if engine in ("duckdb", "sqlite"):
        connection: Any = (duckdb.connect(built.endpoint.database, read_only=True)
                           if engine == "duckdb" else sqlite3.connect(built.endpoint.database))
        try:
            return [tuple(row) for row in connection.execute(query).fetchall()]
        finally:
            connection.close()
    return [tuple(row) for row in request.getfixturevalue(engine).execute(query)]


def measured(built: Built, tmp_path: Path, primary_key: Sequence[str], *,
             library: bool) -> tuple[dict[str, int], dict[str, str]]:
    """The counts a check reports, and the statement each rule ran in."""
    properties = []
    for column, logical in LOGICAL.items():
        entry: dict[str, Any] = {"name": column, "logicalType": logical}
        if column in primary_key:
            entry |= {"primaryKey": True, "primaryKeyPosition": primary_key.index(column) + 1}
        if library:  # the second contract only declares its primary key
            entry["unique"] = True
            entry["quality"] = [{"id": f"dups_{column}", "metric": "duplicateValues",
                                 "mustBe": 0}]
        properties.append(entry)
    quality = [{"id": key, "metric": "duplicateValues", "arguments": {"properties": list(cols)},
                "mustBe": 0} for key, cols in PAIRS.items()] if library else []
    contract = contract_file(tmp_path / f"keys_{'_'.join(primary_key)}.yaml", built.name,
                             properties, quality)
    report = checked(built.endpoint, contract, [Category.QUALITY, Category.CONSTRAINT])
    counts: dict[str, int] = {}
    statements: dict[str, str] = {}
    for result in report.results:
        name = result.key.rsplit(".", 1)[-1]
        if name not in ("unique", "primaryKey") and not (name.startswith(("dups_", "pair_"))):
            continue
        assert result.status in (Status.PASSED, Status.FAILED), (result.key, result.diagnostic)
        column = result.key.split("[")[-1].split("]")[0] if name == "unique" else ""
        label = f"unique_{column}" if name == "unique" else name
        counts[label] = int(result.value)  # type: ignore[arg-type]
        statements[label] = result.sql or ""
    return counts, statements


def _measure_all(built: Built, tmp_path: Path) -> tuple[dict[str, int], dict[str, int],
                                                        dict[str, str]]:
    first, statements = measured(built, tmp_path, PRIMARY_KEYS[0], library=True)
    second, _ = measured(built, tmp_path, PRIMARY_KEYS[1], library=False)
    return first, second, statements


def _folded(value: Any) -> Any:
    return value.rstrip().casefold() if isinstance(value, str) else value


@pytest.mark.parametrize("engine", ENGINES)
def test_distinct_keys_count_exactly_on_every_engine(engine, request, tmp_path):
    built = request.getfixturevalue("build")(engine, DATA)
    rows = fetched(engine, built, request)
    first, second, statements = _measure_all(built, tmp_path)
    expected = reference(rows, PRIMARY_KEYS[0])
    assert first == expected
    assert second["primaryKey"] == reference(rows, PRIMARY_KEYS[1])["primaryKey"]
    # The data can catch a padded or case-insensitive comparison: folded, the counts differ.
    folded = reference(rows, PRIMARY_KEYS[0], _folded)
    assert [k for k in expected if folded[k] != expected[k]] != []
    assert folded["pair_tn"] != expected["pair_tn"]
    assert folded["dups_s"] != expected["dups_s"]
    if engine == "mysql":  # in the aggregate, but for the keys holding a date (no stand-in
        # for its NULLs): pair_tday and pair_all, a subquery each
        statement = statements["pair_tn"]
        assert "COUNT(DISTINCT CASE WHEN `t` IS NULL THEN 1 ELSE 0 END + CASE WHEN `n` IS NULL" \
            in statement
        assert "COUNT(DISTINCT CAST(`t` AS BINARY), `n`)" in statement
        assert statement.count("packata_keys") == 2


def test_mysql_keys_in_other_character_sets(mysql, tmp_path):
    """Keys in latin1 and utf8mb3 columns (where COLLATE utf8mb4_… is refused) keep every
    value apart too."""
    values = [("a", "a", 1), ("a ", "a ", 1), ("A", "A", 1), ("é", "é", 1), ("É", "É", 1),
              ("a", "a", 1), (None, None, 1), (None, None, 1)]
    mysql.execute("DROP TABLE IF EXISTS charset_keys",
                  "CREATE TABLE charset_keys (l VARCHAR(8) CHARACTER SET latin1,"
                  " m VARCHAR(8) CHARACTER SET utf8mb3, n BIGINT)")
    connection = mysql.connect()
    try:
        connection.cursor().executemany("INSERT INTO charset_keys VALUES (%s, %s, %s)", values)
        properties = [{"name": c, "logicalType": t, "quality": [
            {"id": f"dups_{c}", "metric": "duplicateValues", "mustBe": 0}]}
            for c, t in (("l", "string"), ("m", "string"), ("n", "integer"))]
        quality = [{"id": "pair_ln", "metric": "duplicateValues",
                    "arguments": {"properties": ["l", "n"]}, "mustBe": 0},
                   {"id": "pair_lm", "metric": "duplicateValues",
                    "arguments": {"properties": ["l", "m"]}, "mustBe": 0}]
        report = checked(mysql.reader, contract_file(tmp_path / "charsets.yaml", "charset_keys",
                                                     properties, quality), [Category.QUALITY])
        # 8 rows, 6 distinct values (NULL one of them): 'a' twice, NULL twice.
        assert {r.key.rsplit(".", 1)[-1]: r.value for r in report.results} == {
            "dups_l": 2, "dups_m": 2, "dups_n": 7, "pair_ln": 2, "pair_lm": 2}
    finally:
        connection.close()
        mysql.execute("DROP TABLE IF EXISTS charset_keys")
