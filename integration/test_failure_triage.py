"""Issue 14.5 on the live engines: a failed library or constraint rule's inspect_sql lists the
offending keys when run by hand (exactly those its count counts), and `--samples` folds a few
values, counted and deduplicated, into one row read through the read-only session."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from collections.abc import Callable
from decimal import Decimal
from pathlib import Path
from typing import Any

import duckdb
import pytest
import re2
import yaml

from integration.conftest import embedded_database, load_rows
from integration.test_differential_metrics import (  # noqa: F401 (build is a fixture)
    CONSTRAINT_COLUMNS,
    CONSTRAINTS,
    PHYSICAL,
    UUID,
    P,
    build,
)
from packata_sql.contracts.odcs import load_odcs
from packata_sql.dialects import get_dialect
from packata_sql.plans.compiler import compile_contract
from packata_sql.report import Status
from packata_sql.run.runner import RunOptions, run

TABLE = "triage_people"


def test_inspect_sql_and_samples_on_the_server(server, tables, tmp_path: Path) -> None:
    tables.append(TABLE)
    server.execute(f"DROP TABLE IF EXISTS {TABLE}",
                   f"CREATE TABLE {TABLE} (name VARCHAR(20), email VARCHAR(40))",
                   f"INSERT INTO {TABLE} VALUES ('ann', 'a@x'), ('bob', NULL), ('bob', 'odd''s')")
    document = {"apiVersion": "v3.1.0", "kind": "DataContract", "id": "t", "version": "1",
                "status": "active", "schema": [{"name": TABLE, "properties": [
                    {"name": "name", "quality": [{"metric": "duplicateValues", "mustBe": 0}]},
                    {"name": "email", "logicalType": "string", "quality": [
                        {"metric": "invalidValues", "arguments": {"validValues": ["a@x"]},
                         "mustBe": 0}]}]}]}
    path = tmp_path / "c.yaml"
    path.write_text(yaml.safe_dump(document), encoding="utf-8")
    endpoint = server.reader
    contract = load_odcs(str(path))
    compiled = compile_contract(contract, get_dialect(endpoint.engine), prefix=endpoint.schema)
    samples: dict[str, tuple[str, ...]] = {}
    report = run(contract, compiled, endpoint, RunOptions(
        samples=5, on_samples=lambda key, values: samples.__setitem__(key, values)))
    by_key = {r.key: r for r in report.results}
    duplicate = by_key[f"schema[{TABLE}].properties[name].quality[0]"]
    invalid = by_key[f"schema[{TABLE}].properties[email].quality[0]"]
    assert duplicate.status is Status.FAILED and invalid.status is Status.FAILED
    assert duplicate.inspect_sql is not None and invalid.inspect_sql is not None
    found = (sorted(server.execute(duplicate.inspect_sql)),
             sorted(server.execute(invalid.inspect_sql), key=str))
    assert found == ([("bob", 2)], [("odd's",), (None,)])
    # Typed, counted and deduplicated (issue 24.2); a quote is written as SQL writes it.
    assert samples[duplicate.key] == ("1 repeated value in 2 rows", "name 'bob' × 2")
    head, *values = samples[invalid.key]
    assert head == "2 offending rows, 1 of them NULL"
    assert sorted(values) == ["email 'odd''s' × 1", "email NULL × 1"]


# --- constraint rules: the traps of the differential test's constraint data --------------------

#: What each failed constraint rule's inspect query lists, worked by hand from the
#: CONSTRAINT_ROWS of test_differential_metrics: the offending cells, or the offending keys with their
#: occurrences. 'a', 'A' and 'a ' are three values in case-insensitive and PAD SPACE columns.
OFFENDING: dict[str, list[tuple[Any, ...]]] = {
    f"{P}[name].required": [(None,)],
    f"{P}[name].unique": [("a", 2)],  # NULL is required's business
    f"{P}[name].logicalTypeOptions.minLength": [("A",), ("a",), ("a",), ("é",)],
    f"{P}[name].logicalTypeOptions.maxLength": [("abcd",)],
    f"{P}[name].logicalTypeOptions.pattern": [("A",), ("é",)],
    f"{P}[name].logicalTypeOptions.validValues": [("A",), ("abcd",), ("é",)],
    f"{P}[amount].logicalTypeOptions.minimum": [(-1,)],
    f"{P}[amount].logicalTypeOptions.maximum": [(10,), (Decimal("10.5"),)],
    f"{P}[score].logicalTypeOptions.exclusiveMinimum": [(-5,), (0,)],
    f"{P}[score].logicalTypeOptions.exclusiveMaximum": [(100,), (101,)],
    f"{P}[email].logicalTypeOptions.format": [("@x.org",), ("a b@c.d",), ("a@b.c ",), ("bad",)],
    f"{P}[uid].logicalTypeOptions.format": [
        ("",), ("123e4567e89b12d3a456426614174000",), (UUID + " ",),
        ("g" + UUID[1:],), ("not-a-uuid",)],
    f"{P}[ip].logicalTypeOptions.format": [("01.2.3.4",), ("1.2.3",), ("1.2.3.4 ",),
                                           ("256.1.1.1",)],
    # NULL in either key column, and (1, 'x') twice; (1, 'X') and (3, 'z ') are other keys.
    "schema[cons].primaryKey": [(1, "x", 2), (2, None, 1), (None, "x", 1)],
    # A library rule on the same case-insensitive column keeps 'a', 'A', 'a ' apart too.
    f"{P}[name].quality[0]": [("a", 2)],
}


def _sort_key(row: tuple[Any, ...]) -> tuple[Any, ...]:
    return tuple((value is None, str(value) if isinstance(value, str) else
                  Decimal(str(value)) if value is not None else 0) for value in row)


def _normal(rows: Any) -> list[tuple[Any, ...]]:
    """Rows as comparable tuples: engines return DECIMAL/NUMERIC as Decimal, int or float."""
    return sorted((tuple(Decimal(str(v)) if isinstance(v, float) else v for v in row)
                   for row in rows), key=_sort_key)


def _runner(engine: str, path: Path) -> Callable[[str], list[Any]]:
    """Runs a query on the embedded file with the engine's own driver (SQLite gets a
    `regexp` function, as the sqlite3 shell gets one from an extension)."""
    def run_query(sql: str) -> list[Any]:
        if engine == "duckdb":
            connection: Any = duckdb.connect(str(path), read_only=True)
        else:
            connection = sqlite3.connect(path)
            connection.create_function(
                "regexp", 2, lambda p, v: None if v is None else int(
                    isinstance(v, str) and re2.search(p, v) is not None))
        try:
            return list(connection.execute(sql).fetchall())
        finally:
            connection.close()
    return run_query


@pytest.mark.parametrize("engine", ["duckdb", "sqlite", "postgres", "mysql"])
def test_constraint_inspect_sql_lists_exactly_what_the_count_counts(engine, tmp_path, request):
    # The differential's constraint data, read through its odd-named view.
    built = request.getfixturevalue("build")(engine, CONSTRAINTS)
    endpoint = built.endpoint
    query = _runner(engine, Path(endpoint.database)) if engine in ("duckdb", "sqlite") \
        else request.getfixturevalue(engine).execute
    properties = [{"name": name, "physicalName": PHYSICAL.get(name, name), "logicalType": logical,
                   **declared} for name, (_, logical, declared) in CONSTRAINT_COLUMNS.items()]
    properties[2]["quality"] = [{"metric": "duplicateValues", "mustBe": 0}]
    document = {"apiVersion": "v3.1.0", "kind": "DataContract", "id": "cons", "version": "1",
                "status": "active",
                "schema": [{"name": "cons", "physicalName": built.name, "properties": properties}]}
    path = tmp_path / "cons.yaml"
    path.write_text(yaml.safe_dump(document, allow_unicode=True), encoding="utf-8")
    contract = load_odcs(str(path))
    compiled = compile_contract(contract, get_dialect(endpoint.engine), prefix=endpoint.schema)
    samples: dict[str, tuple[str, ...]] = {}
    report = run(contract, compiled, endpoint, RunOptions(
        samples=20, on_samples=lambda key, values: samples.__setitem__(key, values)))
    failed = {r.key: r for r in report.results if r.status is Status.FAILED
              and not r.key.endswith(".logicalType")}
    assert set(failed) == set(OFFENDING)
    for key, result in failed.items():
        assert result.inspect_sql is not None and result.inspect_sql.endswith("LIMIT 20"), key
        listed = _normal(query(result.inspect_sql))
        assert listed == _normal(OFFENDING[key]), key
        grouped = len(listed[0]) > 1 and key.endswith(("unique", "primaryKey", "quality[0]"))
        # The count's own arithmetic: excess occurrences, plus every row of a key with a NULL.
        counted = sum(row[-1] - (0 if None in row[:-1] else 1) for row in listed) if grouped \
            else len(listed)
        assert counted == result.value, key
        # One sample line per value, byte for byte as the count tells them apart.
        head, *values = samples[key]
        assert len(values) == (len(listed) if grouped else len(set(listed))), (key, values)
        assert head.startswith(f"{len(listed)} repeated" if grouped
                               else f"{len(listed)} offending"), (key, head)


SECRET_TABLE = "triage_secrets"


@pytest.mark.parametrize("engine", ["duckdb", "sqlite", "postgres", "mysql"])
def test_samples_reach_the_terminal_and_no_output_file(engine, tmp_path, request):
    """The real program: `--samples` prints offending values on stderr; stdout and every
    `--output` file (JSON, JUnit, Markdown, HTML) carry the inspect query and no value."""
    create = [f"DROP TABLE IF EXISTS {SECRET_TABLE}",
              f"CREATE TABLE {SECRET_TABLE} (code VARCHAR(20), note VARCHAR(20))"]
    rows = [("SECRET_dup", "ok"), ("SECRET_dup", "SECRET_long_note"), (None, "ok")]
    if engine in ("duckdb", "sqlite"):
        database = tmp_path / f"s.{engine}"
        embedded_database(engine, database, create[1:],
                          f"INSERT INTO {SECRET_TABLE} VALUES (?, ?)", rows)
        url = f"{engine}:///{database}"
    else:
        server = request.getfixturevalue(engine)
        load_rows(server, create, f"INSERT INTO {SECRET_TABLE} VALUES (%s, %s)", rows)
        request.addfinalizer(lambda: server.execute(create[0]))
        url = server.reader_url
    document = {"apiVersion": "v3.1.0", "kind": "DataContract", "id": "s", "version": "1",
                "status": "active", "schema": [{"name": SECRET_TABLE, "properties": [
                    {"name": "code", "logicalType": "string", "required": True, "unique": True},
                    {"name": "note", "logicalType": "string",
                     "logicalTypeOptions": {"maxLength": 5},
                     "quality": [{"metric": "invalidValues",
                                  "arguments": {"validValues": ["ok"]}, "mustBe": 0}]}]}]}
    contract = tmp_path / "s.yaml"
    contract.write_text(yaml.safe_dump(document), encoding="utf-8")
    files = {kind: tmp_path / f"report.{kind}" for kind in ("json", "junit", "markdown", "html")}
    done = subprocess.run(
        [sys.executable, "-m", "packata_sql", "check", str(contract), "--url", url,
         "--samples", "3", "--progress", "none",
         *(f"--output={kind}={file}" for kind, file in files.items())],
        capture_output=True, text=True, timeout=120)
    assert done.returncode == 1, done.stderr
    keys = [f"schema[{SECRET_TABLE}].properties[code].required",
            f"schema[{SECRET_TABLE}].properties[code].unique",
            f"schema[{SECRET_TABLE}].properties[note].logicalTypeOptions.maxLength",
            f"schema[{SECRET_TABLE}].properties[note].quality[0]"]
    for key in keys:
        assert f"samples of {key}:" in done.stderr
    assert "'SECRET_dup'" in done.stderr and "'SECRET_long_note'" in done.stderr
    for text in [done.stdout, *(file.read_text(encoding="utf-8") for file in files.values())]:
        assert "SECRET_" not in text
    rules = {rule["key"]: rule for rule in json.loads(files["json"].read_text())["rules"]}
    assert all(rules[key]["inspect_sql"].endswith("LIMIT 20") for key in keys)
    assert "inspect:" in done.stdout  # under the table rows
