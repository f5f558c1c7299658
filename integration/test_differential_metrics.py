"""The same dataset on DuckDB, SQLite, PostgreSQL and MariaDB yields identical measurements for
every library metric and unit (SEMANTICS 3), names and values with quotes, backslashes, `%`,
`_`, unicode, case, trailing spaces, empty strings and NULLs included."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import duckdb
import pytest
import yaml

from integration.conftest import embedded_database, load_rows
from packata_sql.compiler import compile_contract
from packata_sql.contracts.model import Category
from packata_sql.contracts.odcs import load_odcs
from packata_sql.dialects import get_dialect
from packata_sql.endpoint import Endpoint
from packata_sql.report import Status
from packata_sql.runner import RunOptions, run

TEXT_A = 'a"b'
TEXT_B = "a`b"
NUMBER = "select"
MIXED = "Mixed Case"
NAIVE = "naïve"
TABLE = "dq table"
ROWS: list[tuple[Any, ...]] = [
    ("x", "it's", 1, "A", 1),
    ("it's", "it's", 1, "a", 2),
    ("back\\slash", "50%", 2, "a ", 2),
    ("50%", "a_b", None, "é", None),
    ("a_b", "", 3, "e", 3),
    ("naïve ☃", None, 3, "", 3),
    ("", None, 1, None, 4),
    (None, "1", 1, "1", 5),
    ("X", "x" * 300, 2, "a ", 6),
    ("x ", "x", 2, "a", 7),
]
RULES: dict[str, tuple[str, dict[str, Any]]] = {
    "nulls_a": (TEXT_A, {"metric": "nullValues", "mustBe": 0}),
    "nulls_b_pct": (TEXT_B, {"metric": "nullValues", "unit": "percent", "mustBeLessThan": 10}),
    "missing_a": (TEXT_A, {"metric": "missingValues", "arguments": {"missingValues": ["", None]},
                           "mustBe": 0}),
    "missing_b_pct": (TEXT_B, {"metric": "missingValues",
                               "arguments": {"missingValues": ["", "x ", "50%"]},
                               "unit": "percent", "mustBe": 0}),
    "valid_a": (TEXT_A, {"metric": "invalidValues",
                         "arguments": {"validValues": ["x", "it's", "50%", "back\\slash", None]},
                         "mustBe": 0}),
    "pattern_a": (TEXT_A, {"metric": "invalidValues", "arguments": {"pattern": "^[a-z]"},
                           "mustBe": 0}),
    "pattern_underscore": (TEXT_B, {"metric": "invalidValues", "arguments": {"pattern": "_|%"},
                                    "unit": "percent", "mustBe": 0}),
    "valid_number": (NUMBER, {"metric": "invalidValues", "arguments": {"validValues": [1, 2.0]},
                              "mustBe": 0}),
    "dups_a": (TEXT_A, {"metric": "duplicateValues", "mustBe": 0}),
    "dups_mixed": (MIXED, {"metric": "duplicateValues", "mustBe": 0}),
    "dups_number_pct": (NUMBER, {"metric": "duplicateValues", "unit": "percent", "mustBe": 0}),
    "dups_naive": (NAIVE, {"metric": "duplicateValues", "mustBe": 0}),
    "valid_mixed": (MIXED, {"metric": "invalidValues", "arguments": {"validValues": ["a", "A"]},
                            "unit": "percent", "mustBe": 0}),
}
OBJECT_RULES = {
    "rows": {"metric": "rowCount", "mustBe": 10},
    "dups_pair": {"metric": "duplicateValues", "arguments": {"properties": [NUMBER, MIXED]},
                  "mustBe": 0},
}
# Worked by hand from ROWS and SEMANTICS 3.
EXPECTED = {
    "nulls_a": 1, "nulls_b_pct": 20, "missing_a": 2, "missing_b_pct": 20, "valid_a": 5,
    "pattern_a": 4, "pattern_underscore": 80, "valid_number": 3, "dups_a": 0, "dups_mixed": 2,
    "dups_number_pct": 60, "dups_naive": 2, "valid_mixed": 70, "rows": 10, "dups_pair": 1,
}
LOGICAL = {TEXT_A: "string", TEXT_B: "string", NUMBER: "integer", MIXED: "string", NAIVE: "integer"}
KINDS = {
    "duckdb": {"text": "VARCHAR", "int": "BIGINT"},
    "sqlite": {"text": "TEXT", "int": "INTEGER"},
    "postgres": {"text": "TEXT", "int": "BIGINT"},
    "mysql": {"text": "VARCHAR(400)", "int": "BIGINT"},
}


def contract(path: Path) -> Path:
    properties = []
    for column, logical in LOGICAL.items():
        quality = [{"id": key, **rule} for key, (target, rule) in RULES.items() if target == column]
        properties.append({"name": column, "logicalType": logical, "quality": quality})
    document = {
        "apiVersion": "v3.1.0", "kind": "DataContract", "id": "diff", "version": "1.0.0",
        "status": "active",
        "schema": [{"name": TABLE, "properties": properties,
                    "quality": [{"id": key, **rule} for key, rule in OBJECT_RULES.items()]}],
    }
    path.write_text(yaml.safe_dump(document, allow_unicode=True), encoding="utf-8")
    return path


def create_statements(engine: str) -> list[str]:
    dialect = get_dialect(engine)
    kinds = KINDS[engine]
    columns = ", ".join(
        f"{dialect.quote_identifier(c)} {kinds['int'] if LOGICAL[c] == 'integer' else kinds['text']}"
        for c in LOGICAL
    )
    table = dialect.quote_identifier(TABLE)
    return [f"DROP TABLE IF EXISTS {table}", f"CREATE TABLE {table} ({columns})"]


def insert_sql(engine: str, marker: str) -> str:
    dialect = get_dialect(engine)
    return f"INSERT INTO {dialect.quote_identifier(TABLE)} VALUES ({', '.join([marker] * 5)})"


def measure(engine: str, endpoint: Endpoint, path: Path) -> dict[str, Any]:
    loaded = load_odcs(str(contract(path / "contract.yaml")))
    compiled = compile_contract(loaded, get_dialect(engine), prefix=endpoint.schema,
                                categories=[Category.QUALITY])
    report = run(loaded, compiled, endpoint, RunOptions())
    assert all(r.status in (Status.PASSED, Status.FAILED) for r in report.results), [
        (r.key, r.status, r.diagnostic) for r in report.results
    ]
    return {r.key: r.value for r in report.results}


def embedded(engine: str, tmp_path: Path) -> Endpoint:
    return embedded_database(engine, tmp_path / f"diff.{engine}", create_statements(engine),
                             insert_sql(engine, "?"), ROWS)


def load_server(server: Any) -> None:
    load_rows(server, create_statements(server.engine), insert_sql(server.engine, "%s"), ROWS)


@pytest.mark.parametrize("engine", ["duckdb", "sqlite", "postgres", "mysql"])
def test_every_engine_measures_the_same(engine, tmp_path, request):
    if engine in ("duckdb", "sqlite"):
        assert measure(engine, embedded(engine, tmp_path), tmp_path) == EXPECTED
        return
    server = request.getfixturevalue(engine)
    load_server(server)
    try:
        assert measure(engine, server.reader, tmp_path) == EXPECTED
    finally:
        server.execute(create_statements(engine)[0])


# Settings a DBA may give the server, the database or the login, under which '…' and NOT read
# differently: the sessions must measure exactly as under the defaults.
_FOREIGN_MODES = "NO_BACKSLASH_ESCAPES,ANSI_QUOTES,HIGH_NOT_PRECEDENCE,PIPES_AS_CONCAT"


def test_server_text_modes_do_not_change_measurements(server, tmp_path):
    load_server(server)
    reader = server.reader.user
    if server.engine == "postgres":
        configure = [f"ALTER ROLE {reader} SET standard_conforming_strings = off"]
        restore = [f"ALTER ROLE {reader} RESET standard_conforming_strings"]
    else:
        previous = server.execute("SELECT @@GLOBAL.sql_mode")[0][0]
        mariadb = "mariadb" in server.execute("SELECT VERSION()")[0][0].lower()
        modes = _FOREIGN_MODES + (",EMPTY_STRING_IS_NULL" if mariadb else "")
        configure = [f"SET GLOBAL sql_mode = '{modes}'"]
        restore = ["SET GLOBAL sql_mode = %s"]
    try:
        server.execute(*configure)
        assert measure(server.engine, server.reader, tmp_path) == EXPECTED
    finally:
        if server.engine == "postgres":
            server.execute(*restore)
        else:
            server.execute(*restore, parameters=[previous])
        server.execute(create_statements(server.engine)[0])


def measured(server, tmp_path: Path, table: str, rules: dict[str, list[dict]], *,
             setup: list[str], cleanup: list[str]) -> dict:
    """Builds `table` with `setup`, runs `rules` (column → quality list) on it through the
    server's reader login, and runs `cleanup` whatever happened."""
    server.execute(*setup)
    try:
        return measured_on(server.reader, tmp_path, table, rules)
    finally:
        server.execute(*cleanup)


def measured_on(endpoint: Endpoint, tmp_path: Path, table: str, rules: dict[str, list[dict]]
                ) -> dict:
    document = {"apiVersion": "v3.1.0", "kind": "DataContract", "id": "c", "version": "1.0.0",
                "status": "active", "schema": [{"name": table, "properties": [
                    {"name": column, "logicalType": "string", "quality": quality}
                    for column, quality in rules.items()]}]}
    path = tmp_path / f"{table}.yaml"
    path.write_text(yaml.safe_dump(document, allow_unicode=True), encoding="utf-8")
    loaded = load_odcs(str(path))
    report = run(loaded, compile_contract(loaded, get_dialect(endpoint.engine),
                                          categories=[Category.QUALITY]), endpoint,
                 RunOptions())
    return {r.key: (r.status, r.value) for r in report.results}


def test_mysql_columns_in_other_character_sets(mysql, tmp_path):
    """Exact text comparison and patterns work on latin1 and case-insensitive utf8mb4 columns."""
    setup = [
        "DROP TABLE IF EXISTS charsets",
        "CREATE TABLE charsets (l VARCHAR(20) CHARACTER SET latin1,"
        " u VARCHAR(20) CHARACTER SET utf8mb4 COLLATE utf8mb4_general_ci)",
        "INSERT INTO charsets VALUES ('é', 'é'), ('E', 'E'), ('e ', 'e '), ('É', 'É')",
    ]
    rules = {
        "l": [{"id": "l_valid", "metric": "invalidValues",
               "arguments": {"validValues": ["é", "e"]}, "mustBe": 3},
              {"id": "l_pattern", "metric": "invalidValues", "arguments": {"pattern": "^e"},
               "mustBe": 3}],
        "u": [{"id": "u_missing", "metric": "missingValues",
               "arguments": {"missingValues": ["É"]}, "mustBe": 1},
              {"id": "u_dups", "metric": "duplicateValues", "mustBe": 0}],
    }
    assert measured(mysql, tmp_path, "charsets", rules, setup=setup,
                    cleanup=["DROP TABLE IF EXISTS charsets"]) == {
        "l_valid": (Status.PASSED, 3), "l_pattern": (Status.PASSED, 3),
        "u_missing": (Status.PASSED, 1), "u_dups": (Status.PASSED, 0),
    }


def test_postgres_citext_and_collated_columns_compare_exactly(postgres, tmp_path):
    setup = [
        "CREATE EXTENSION IF NOT EXISTS citext",
        "DROP TABLE IF EXISTS collated",
        'CREATE TABLE collated (ci citext, de text COLLATE "C")',
        "INSERT INTO collated VALUES ('A', 'A'), ('a', 'a'), ('a ', 'a ')",
        "GRANT SELECT ON collated TO packata_ro",
    ]
    rules = {"ci": [{"id": "ci_valid", "metric": "invalidValues",
                     "arguments": {"validValues": ["a"]}, "mustBe": 2},
                    {"id": "ci_dups", "metric": "duplicateValues", "mustBe": 0},
                    {"id": "ci_pattern", "metric": "invalidValues",
                     "arguments": {"pattern": "^a$"}, "mustBe": 2}],
             "de": [{"id": "de_missing", "metric": "missingValues",
                     "arguments": {"missingValues": ["a"]}, "mustBe": 1}]}
    assert measured(postgres, tmp_path, "collated", rules, setup=setup,
                    cleanup=["DROP TABLE IF EXISTS collated"]) == {
        "ci_valid": (Status.PASSED, 2), "ci_dups": (Status.PASSED, 0),
        "ci_pattern": (Status.PASSED, 2), "de_missing": (Status.PASSED, 1),
    }


def test_postgres_enum_columns_compare_as_text(postgres, tmp_path):
    setup = [
        "DROP TABLE IF EXISTS moods", "DROP TYPE IF EXISTS mood",
        "CREATE TYPE mood AS ENUM ('ok', 'OK', 'sad')", "CREATE TABLE moods (m mood)",
        "INSERT INTO moods VALUES ('ok'), ('OK'), ('sad'), (NULL), ('ok')",
        "GRANT SELECT ON moods TO packata_ro",
    ]
    rules = {"m": [{"id": "valid", "metric": "invalidValues",
                    "arguments": {"validValues": ["ok"]}, "mustBe": 3},
                   {"id": "pattern", "metric": "invalidValues", "arguments": {"pattern": "^o"},
                    "mustBe": 3},
                   {"id": "dups", "metric": "duplicateValues", "mustBe": 1}]}
    assert measured(postgres, tmp_path, "moods", rules, setup=setup,
                    cleanup=["DROP TABLE IF EXISTS moods", "DROP TYPE IF EXISTS mood"]) == {
        "valid": (Status.PASSED, 3), "pattern": (Status.PASSED, 3), "dups": (Status.PASSED, 1)
    }


# SEMANTICS 3.3 on every engine: a pattern means what it means in RE2 (ASCII classes, `.` is
# anything but a newline, `$` only at the very end), with (?i) folding ASCII letters only,
# whatever the engine's own regex library.
PATTERN_VALUES = ["abc\n", "naïve", "a\nb", "٣", "x y", "\u00a0", "ABC", "a.b", "tab\t", "é",
                  "\v", "a_b"]
# Invalid rows (no match) among PATTERN_VALUES, worked by hand.
PATTERN_INVALID = {
    "^abc$": 12, r"^\w+$": 10, "a.b": 10, r"\d": 12, r"\s": 8, "[[:alpha:]]": 4, r"\bx\b": 11,
    "^.$": 8, r"\W": 2, "(?i)^abc": 10, "b$": 9, "^[^a]": 4, r"\Bb": 9, r"[\w.]{3}": 7,
    "(?i)É": 12, "(?i)^A": 7,  # (?i) folds ASCII letters only
}


def test_patterns_match_the_same_texts_on_every_engine(tmp_path, request):
    rules = {"v": [{"id": f"p{i}", "metric": "invalidValues", "arguments": {"pattern": p},
                    "mustBe": 0} for i, p in enumerate(PATTERN_INVALID)]}
    expected = {f"p{i}": n for i, n in enumerate(PATTERN_INVALID.values())}
    path = tmp_path / "patterns.duckdb"
    connection: Any = duckdb.connect(str(path))
    connection.execute("CREATE TABLE patterns (v VARCHAR)")
    connection.executemany("INSERT INTO patterns VALUES (?)", [[v] for v in PATTERN_VALUES])
    connection.close()
    lite = sqlite3.connect(str(tmp_path / "patterns.sqlite"))
    lite.execute("CREATE TABLE patterns (v TEXT)")
    lite.executemany("INSERT INTO patterns VALUES (?)", [[v] for v in PATTERN_VALUES])
    lite.commit()
    lite.close()
    targets: list[Any] = [Endpoint("duckdb", str(path)),
                          Endpoint("sqlite", str(tmp_path / "patterns.sqlite"))]
    servers = [request.getfixturevalue(engine) for engine in ("postgres", "mysql")]
    for server in servers:
        text = "text" if server.engine == "postgres" else "VARCHAR(20) CHARACTER SET utf8mb4"
        server.execute("DROP TABLE IF EXISTS patterns", f"CREATE TABLE patterns (v {text})")
        admin = server.connect()
        try:
            admin.cursor().executemany("INSERT INTO patterns VALUES (%s)",
                                       [[v] for v in PATTERN_VALUES])
        finally:
            admin.close()
        targets.append(server)
    try:
        for target in targets:
            endpoint = target if isinstance(target, Endpoint) else target.reader
            found = {key: value for key, (_, value) in measured_on(
                endpoint, tmp_path, "patterns", rules).items()}
            assert found == expected, endpoint.engine
    finally:
        for server in servers:
            server.execute("DROP TABLE IF EXISTS patterns")
