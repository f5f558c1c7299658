"""The same datasets on DuckDB, SQLite, PostgreSQL, MariaDB and Spark yield identical
measurements for every library metric and unit (docs/semantics.md 3), every schema constraint kind and
every pattern case. Each object is read through a view whose name holds a space, quotes, a dot,
a backtick and mixed case, with columns named `select`, `a"b`, `a`b`; the data holds NULL keys,
`''`, `'N/A'` vs `'n/a'` vs `'N/A '`, `é`/`É`, an emoji, decimal edges and case-insensitive
columns (`NOCASE`, `citext`, `utf8mb4_general_ci`, Spark's `UTF8_LCASE`). In CI a missing
engine fails (integration/conftest.py)."""

from __future__ import annotations

import datetime
import itertools
import sqlite3
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path
from typing import Any

import duckdb
import pytest
import yaml

from integration.conftest import embedded_database
from packata_sql.contracts.model import Category
from packata_sql.contracts.odcs import load_odcs
from packata_sql.dialects import DistinctPlan, get_dialect
from packata_sql.plans.compiler import compile_contract
from packata_sql.report import Report, Status
from packata_sql.run.runner import RunOptions, run
from packata_sql.sessions.endpoint import Endpoint, parse_url

ENGINES = ["duckdb", "sqlite", "postgres", "mysql", "spark"]
#: The object every dataset is read through: a view over a plainly named base table.
VIEW = 'Dq "view".x`y it\'s'
#: Column kinds per engine. `ci` is a case-insensitive text column (Spark: the view adds
#: `COLLATE UTF8_LCASE`); SQLite has no decimals (NUMERIC keeps REAL), so its decimal edges
#: are chosen to compare the same as doubles.
KINDS = {
    "duckdb": {"text": "VARCHAR", "ci": "VARCHAR COLLATE NOCASE", "int": "BIGINT",
               "decimal": "DECIMAL(38, 18)", "money": "DECIMAL(10, 2)", "date": "DATE"},
    "sqlite": {"text": "TEXT", "ci": "TEXT COLLATE NOCASE", "int": "INTEGER",
               "decimal": "NUMERIC", "money": "NUMERIC", "date": "TEXT"},
    "postgres": {"text": "TEXT", "ci": "citext", "int": "BIGINT", "decimal": "NUMERIC(38, 18)",
                 "money": "NUMERIC(10, 2)", "date": "DATE"},
    "mysql": {"text": "VARCHAR(400) CHARACTER SET utf8mb4",
              "ci": "VARCHAR(400) CHARACTER SET utf8mb4 COLLATE utf8mb4_general_ci",
              "int": "BIGINT", "decimal": "DECIMAL(38, 18)", "money": "DECIMAL(10, 2)",
              "date": "DATE"},
    "spark": {"text": "STRING", "ci": "STRING", "int": "BIGINT", "decimal": "DECIMAL(38,18)",
              "money": "DECIMAL(10,2)", "date": "DATE"},
}
_BASES = itertools.count()


@dataclass(frozen=True)
class Dataset:
    """Rows under odd column names (name → kind), read through `VIEW`."""

    columns: dict[str, str]
    rows: Sequence[tuple[Any, ...]]


@dataclass(frozen=True)
class Built:
    endpoint: Endpoint
    name: str  # the view's name (on Spark, a global temporary view's, per test database)


def _statements(engine: str, base: str, view_name: str, data: Dataset
                ) -> tuple[list[str], str, list[str]]:
    """The base table's DDL, its INSERT (driver markers), and the view over it."""
    dialect = get_dialect(engine)
    kinds = KINDS[engine]
    table = dialect.quote_identifier(base)
    plain = [f"c{i}" for i in range(len(data.columns))]
    create = [f"DROP TABLE IF EXISTS {table}", f"CREATE TABLE {table} (" + ", ".join(
        f"{name} {kinds[kind]}" for name, kind in zip(plain, data.columns.values(), strict=True)
    ) + ")"]
    marker = "?" if engine in ("duckdb", "sqlite") else "%s"
    insert = f"INSERT INTO {table} VALUES ({', '.join([marker] * len(plain))})"
    selected = ", ".join(
        f"{name}{' COLLATE UTF8_LCASE' if engine == 'spark' and kind == 'ci' else ''} AS "
        f"{dialect.quote_identifier(odd)}"
        for name, (odd, kind) in zip(plain, data.columns.items(), strict=True))
    view = dialect.quote_identifier(view_name)
    if engine == "spark":  # the session catalog takes only [A-Za-z0-9_] relation names
        return create, insert, [
            f"CREATE OR REPLACE GLOBAL TEMPORARY VIEW {view} AS SELECT {selected} FROM {base}"]
    security = "SQL SECURITY INVOKER " if engine == "mysql" else ""  # no definer route
    return create, insert, [f"DROP VIEW IF EXISTS {view}",
                            f"CREATE {security}VIEW {view} AS SELECT {selected} FROM {table}"]


def _cell(engine: str, value: Any) -> Any:
    """sqlite3 binds neither decimals nor dates (NUMERIC/TEXT affinity reads the text), and
    DuckDB's driver rounds a decimal to 28 digits: both get the exact text."""
    if (engine == "sqlite" and isinstance(value, Decimal | datetime.date)) or (
            engine == "duckdb" and isinstance(value, Decimal)):
        return str(value)
    return value


@pytest.fixture
def build(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Any]:
    """`build(engine, dataset)` → where the dataset is read through its odd-named view;
    dropped after the test."""
    cleanups: list[Any] = []

    def make(engine: str, data: Dataset) -> Built:
        base = f"diff_base_{next(_BASES)}"  # fresh: Spark caches a table's file listing
        if engine in ("duckdb", "sqlite"):
            create, insert, view = _statements(engine, base, VIEW, data)
            rows = [tuple(_cell(engine, v) for v in row) for row in data.rows]
            path = tmp_path / f"{base}.{engine}"
            endpoint = embedded_database(engine, path, create, insert, rows)
            connection: Any = (duckdb.connect if engine == "duckdb" else sqlite3.connect)(str(path))
            for statement in view:
                connection.execute(statement)
            if engine == "sqlite":
                connection.commit()
            connection.close()
            return Built(endpoint, VIEW)
        if engine == "spark":
            return _spark(request.getfixturevalue("spark"), base, data, cleanups)
        server = request.getfixturevalue(engine)
        create, insert, view = _statements(engine, base, VIEW, data)
        setup = ["CREATE EXTENSION IF NOT EXISTS citext"] if engine == "postgres" else []
        server.execute(*setup, *create)
        connection = server.connect()
        try:
            connection.cursor().executemany(insert, list(data.rows))
        finally:
            connection.close()
        server.execute(*view)
        cleanups.append(lambda: server.execute(view[0], create[0]))
        return Built(server.reader, VIEW)

    yield make
    for cleanup in cleanups:
        cleanup()


def _spark(spark: Any, base: str, data: Dataset, cleanups: list[Any]) -> Built:
    name = f"{VIEW} {spark.database}"  # global temporary views are server-wide
    _, _, view = _statements("spark", base, name, data)
    admin = spark.admin()
    try:
        schema = ", ".join(f"c{i} {KINDS['spark'][kind]}"
                           for i, kind in enumerate(data.columns.values()))
        admin.createDataFrame(list(data.rows), schema=schema).write.mode("overwrite") \
            .format("parquet").saveAsTable(f"{spark.database}.{base}")
        admin.sql(f"USE {spark.database}")
        admin.sql(view[0])
    finally:
        admin.stop()

    def drop() -> None:
        session = spark.admin()
        try:
            session.sql(f"DROP VIEW IF EXISTS global_temp.{get_dialect('spark').quote_identifier(name)}")
        finally:
            session.stop()

    cleanups.append(drop)
    return Built(parse_url(f"{spark.url};schema=global_temp"), name)


def contract_file(path: Path, name: str, properties: list[dict[str, Any]],
                  quality: Sequence[dict[str, Any]] = ()) -> Path:
    document = {"apiVersion": "v3.1.0", "kind": "DataContract", "id": "diff", "version": "1.0.0",
                "status": "active",
                "schema": [{"name": name, "properties": properties, "quality": list(quality)}]}
    path.write_text(yaml.dump(document, Dumper=_Dumper, allow_unicode=True), encoding="utf-8")
    return path


class _Dumper(yaml.SafeDumper):
    """Writes Decimals as plain numbers: the loader reads them back exactly."""


_Dumper.add_representer(Decimal, lambda dumper, value: dumper.represent_scalar(
    "tag:yaml.org,2002:float", format(value, "f")))


def checked(endpoint: Endpoint, contract: Path, categories: list[Category] | None) -> Report:
    loaded = load_odcs(str(contract))
    compiled = compile_contract(loaded, get_dialect(endpoint.engine), prefix=endpoint.schema,
                                categories=categories)
    return run(loaded, compiled, endpoint, RunOptions())


# --- Library metrics on names and values with quotes, backslashes, %, _, unicode, case,
# trailing spaces, empty strings and NULLs.
TEXT_A = 'a"b'
TEXT_B = "a`b"
NUMBER = "select"
MIXED = "Mixed Case"
NAIVE = "naïve"
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
# Worked by hand from ROWS and docs/semantics.md 3.
EXPECTED = {
    "nulls_a": 1, "nulls_b_pct": 20, "missing_a": 2, "missing_b_pct": 20, "valid_a": 5,
    "pattern_a": 4, "pattern_underscore": 80, "valid_number": 3, "dups_a": 0, "dups_mixed": 2,
    "dups_number_pct": 60, "dups_naive": 2, "valid_mixed": 70, "rows": 10, "dups_pair": 1,
}
LOGICAL = {TEXT_A: "string", TEXT_B: "string", NUMBER: "integer", MIXED: "string", NAIVE: "integer"}
METRICS = Dataset({TEXT_A: "text", TEXT_B: "text", NUMBER: "int", MIXED: "text", NAIVE: "int"},
                  ROWS)


def measure_metrics(built: Built, tmp_path: Path) -> dict[str, Any]:
    properties = [{"name": column, "logicalType": logical, "quality": [
        {"id": key, **rule} for key, (target, rule) in RULES.items() if target == column]}
        for column, logical in LOGICAL.items()]
    contract = contract_file(tmp_path / "metrics.yaml", built.name, properties,
                             [{"id": key, **rule} for key, rule in OBJECT_RULES.items()])
    report = checked(built.endpoint, contract, [Category.QUALITY])
    assert all(r.status in (Status.PASSED, Status.FAILED) for r in report.results), [
        (r.key, r.status, r.diagnostic) for r in report.results]
    return {r.key: r.value for r in report.results}


@pytest.mark.parametrize("engine", ENGINES)
def test_every_engine_measures_the_same(engine, build, tmp_path):
    assert measure_metrics(build(engine, METRICS), tmp_path) == EXPECTED


# --- The adversarial dataset of issue 15 (research/spark section 3): what unpatched SQL
# miscounted on Spark, on every engine. Case-insensitive columns: `select` and `Status`.
MAX = Decimal("99999999999999999999.999999999999999999")
ADVERSARIAL = Dataset(
    {"id": "int", "select": "ci", "Status": "ci", "email": "text", "txt": "text",
     "amount": "decimal", "day": "date", "When": "date"},
    [(1, "a", "N/A", "x@y.com\n", "a\rb", Decimal(0), datetime.date(2024, 1, 1),
      datetime.date(2024, 1, 1)),
     (1, "A", "n/a", "a@b.cd", "a\u2028b", Decimal("0.1"), datetime.date(2024, 1, 2),
      datetime.date(2024, 1, 2)),
     (None, "a", "N/A ", None, "a\nb", MAX, None, None),
     (None, "", "", "é@b.cd", "xé", MAX.copy_negate(), datetime.date(2024, 1, 1), datetime.date(2024, 1, 1)),
     (2, "é", None, "A@B.CD", "x", Decimal("0.000000000000000001"), datetime.date(2024, 3, 1),
      datetime.date(2024, 3, 1)),
     (3, "É", "ok", "😀@b.cd", "a😀b", Decimal("0.100000000000000000"), datetime.date(2024, 1, 2),
      datetime.date(2024, 1, 2)),
     (3, None, "OK", "ab@cd.ef", "x\n", None, datetime.date(2024, 1, 1),
      datetime.date(2024, 1, 1))])
EMAIL = r"^[a-z]+@[a-z]+\.[a-z]{2,}$"
# Property → (logicalType, what it declares, its quality rules); counts worked by hand, each
# comment saying what a case-insensitive comparison or unpatched Spark SQL gave.
ADVERSARIAL_PROPERTIES: dict[str, tuple[str | None, dict[str, Any], list[dict[str, Any]]]] = {
    "id": ("integer", {}, [{"id": "id_dups", "metric": "duplicateValues", "mustBe": 3}]),
    "select": ("string", {}, [
        {"id": "select_dups", "metric": "duplicateValues", "mustBe": 1},  # folded: 3
        {"id": "select_valid", "metric": "invalidValues",
         "arguments": {"validValues": ["a", "é"]}, "mustBe": 4}]),
    "Status": ("string", {}, [
        {"id": "status_missing", "metric": "missingValues",
         "arguments": {"missingValues": ["", "N/A", None]}, "mustBe": 3},  # folded: 4
        {"id": "status_dups", "metric": "duplicateValues", "mustBe": 0},  # folded: 2
        {"id": "status_valid", "metric": "invalidValues",
         "arguments": {"validValues": ["ok", "N/A"]}, "mustBe": 5},  # folded: 3
        # A regex on a case-insensitive column matched 'n/a' too (Spark UTF8_LCASE: 5).
        {"id": "status_pattern", "metric": "invalidValues", "arguments": {"pattern": "^N/A$"},
         "mustBe": 6}]),
    "email": ("string", {}, [
        # Java's $ matches before a final \n: unpatched 4.
        {"id": "email_pattern", "metric": "invalidValues", "arguments": {"pattern": EMAIL},
         "mustBe": 5},
        {"id": "email_fold", "metric": "invalidValues", "arguments": {"pattern": "(?i)" + EMAIL},
         "mustBe": 4}]),
    "txt": ("string", {}, [
        # Java's . excludes \r and U+2028: unpatched 6.
        {"id": "txt_dot", "metric": "invalidValues", "arguments": {"pattern": "^a.b$"},
         "mustBe": 4},
        # Java 17's \b treats é as a word character: unpatched 5.
        {"id": "txt_boundary", "metric": "invalidValues", "arguments": {"pattern": r"x\b"},
         "mustBe": 4},
        {"id": "txt_end", "metric": "invalidValues", "arguments": {"pattern": "x$"},
         "mustBe": 6}]),
    # 1e-19 cannot be held by DECIMAL(38,18): Spark rounded it to 0 and counted row 1 valid;
    # MAX was rendered rounded to 21 integer digits (the 28-digit bug) and failed the scan.
    "amount": ("number", {"logicalTypeOptions": {
        "minimum": Decimal("0.0000000000000000001"),  # 0 and -MAX below it (Spark rounded: 1)
        "maximum": MAX, "exclusiveMaximum": True}}, [  # MAX itself
        {"id": "amount_valid", "metric": "invalidValues",
         "arguments": {"validValues": [Decimal("0.1"), MAX, Decimal("0.0000000000000000001")]},
         "mustBe": 4},
        {"id": "amount_dups", "metric": "duplicateValues", "mustBe": 1}]),
    # '2024-02-30' is no date: a compile-time finding, and it matches nothing.
    "day": ("date", {}, [{"id": "day_valid", "metric": "invalidValues",
                          "arguments": {"validValues": ["2024-01-01", "2024-01-02", "2024-02-30"]},
                          "mustBe": 2}]),
    # No logicalType: the date column's own type decides at run time. A time of day on a date
    # column matched the day's rows (DuckDB, PostgreSQL, Spark) and '10:00' failed the scan.
    "When": (None, {}, [{"id": "when_valid", "metric": "invalidValues", "arguments": {
        "validValues": ["2024-01-01", "2024-01-02 10:00:00", "10:00"]}, "mustBe": 4}]),
}
ADVERSARIAL_TABLE_RULES = [
    {"id": "rows", "metric": "rowCount", "mustBe": 7},
    {"id": "pair_dups", "metric": "duplicateValues", "arguments": {"properties": ["id", "select"]},
     "mustBe": 0},  # folded: 1
]
_AMOUNT = "schema[{view}].properties[amount].logicalTypeOptions.{option}"


def adversarial_contract(path: Path, name: str) -> Path:
    properties = [{"name": column, **({"logicalType": logical} if logical else {}), **declared,
                   "quality": rules}
                  for column, (logical, declared, rules) in ADVERSARIAL_PROPERTIES.items()]
    return contract_file(path, name, properties, ADVERSARIAL_TABLE_RULES)


def adversarial_expected(name: str) -> dict[str, tuple[Status, Any]]:
    """Every quality rule at its `mustBe` count, and the amount's bounds."""
    expected = {r["id"]: (Status.PASSED, r["mustBe"]) for _, _, rules in
                ADVERSARIAL_PROPERTIES.values() for r in rules}
    expected |= {r["id"]: (Status.PASSED, r["mustBe"]) for r in ADVERSARIAL_TABLE_RULES}
    return expected | {_AMOUNT.format(view=name, option="minimum"): (Status.FAILED, 2),
                       _AMOUNT.format(view=name, option="maximum"): (Status.FAILED, 1)}


@pytest.mark.parametrize("engine", ENGINES)
def test_adversarial_counts_are_exact_on_every_engine(engine, build, tmp_path):
    built = build(engine, ADVERSARIAL)
    contract = adversarial_contract(tmp_path / "adversarial.yaml", built.name)
    report = checked(built.endpoint, contract, [Category.QUALITY, Category.CONSTRAINT])
    found = {r.key: (r.status, r.value) for r in report.results
             if not r.key.endswith((".logicalType", ".present"))}  # catalog checks: elsewhere
    expected = adversarial_expected(built.name)
    assert found == expected, [(r.key, r.diagnostic) for r in report.results if r.diagnostic]
    notes = sorted((f.rule_key, f.message.split(" cannot")[0].split(" is not")[0])
                   for f in report.findings if f.code == "member-not-representable")
    typed = [("amount_valid", "the member '0.0000000000000000001'"),
             ("when_valid", "the member '10:00'"),
             ("when_valid", "the member '2024-01-02 10:00:00'")]
    # SQLite cells ignore the declared type: only the compile-time finding on '2024-02-30'.
    assert notes == sorted([("day_valid", "'invalidValues.validValues[2]'"),
                            *(typed if engine != "sqlite" else [])]), notes


# --- Every schema constraint kind, with NULL and duplicate traps under case-insensitive and
# PAD SPACE collations ('a' vs 'A' vs 'a '), NULL keys, trailing spaces and non-ASCII text.
UUID = "123e4567-e89b-12d3-a456-426614174000"
# (k1, k2, name, amount, score, email, uid, ip)
CONSTRAINT_ROWS: list[tuple[Any, ...]] = [
    (1, "x", "a", Decimal("0"), 1, "a@b.co", UUID, "1.2.3.4"),
    (1, "X", "A", Decimal("10"), 0, "bad", "not-a-uuid", "256.1.1.1"),
    (1, "x", "a ", Decimal("-1"), 100, "x@y.z", None, "01.2.3.4"),
    (None, "x", "a", Decimal("5.5"), 50, None, UUID.upper(), "255.255.255.255"),
    (2, None, None, None, None, "a b@c.d", "g" + UUID[1:], None),
    (2, "y", "abcd", Decimal("9.99"), 99, "é@x.org", "", "1.2.3"),
    (3, "z", "é", Decimal("10.5"), -5, "@x.org", UUID.replace("-", ""), "1.2.3.4 "),
    (3, "z ", "ab", Decimal("0.01"), 101, "a@b.c ", UUID + " ", "10.0.0.1"),
]
# Property → (column kind, logicalType, what the property declares besides its type).
CONSTRAINT_COLUMNS: dict[str, tuple[str, str, dict[str, Any]]] = {
    "k1": ("int", "integer", {"primaryKey": True, "primaryKeyPosition": 1}),
    "k2": ("ci", "string", {"primaryKey": True, "primaryKeyPosition": 2}),
    "name": ("ci", "string", {"required": True, "unique": True, "logicalTypeOptions": {
        "minLength": 2, "maxLength": 3, "pattern": "^[a-z]", "validValues": ["a", "a ", "ab"]}}),
    "amount": ("money", "number", {"logicalTypeOptions": {
        "minimum": 0, "maximum": 10, "exclusiveMaximum": True}}),
    "score": ("int", "integer", {"logicalTypeOptions": {
        "exclusiveMinimum": 0, "exclusiveMaximum": 100}}),
    "email": ("text", "string", {"logicalTypeOptions": {"format": "email"}}),
    "uid": ("ci", "string", {"logicalTypeOptions": {"format": "uuid"}}),
    "ip": ("text", "string", {"logicalTypeOptions": {"format": "ipv4"}}),
}
# Column names with quotes, a backtick and a space (the keys use the property names).
PHYSICAL = {"email": "e'mail \"x\" `y`", "k2": "K 2"}
P = "schema[cons].properties"
# Worked by hand from CONSTRAINT_ROWS (docs/formats.md "Constraints").
CONSTRAINT_EXPECTED: dict[str, tuple[Status, object]] = {
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
    **{f"{P}[{c}].logicalType": (Status.PASSED, True) for c in CONSTRAINT_COLUMNS},
    f"{P}[ghost].logicalType": (Status.FAILED, False),
}
CONSTRAINTS = Dataset({PHYSICAL.get(name, name): kind
                       for name, (kind, _, _) in CONSTRAINT_COLUMNS.items()}, CONSTRAINT_ROWS)


@pytest.mark.parametrize("engine", ENGINES)
def test_every_constraint_kind_measures_the_same_on_every_engine(engine, build, tmp_path):
    built = build(engine, CONSTRAINTS)
    properties = [{"name": name, "physicalName": PHYSICAL.get(name, name), "logicalType": logical,
                   **declared} for name, (_, logical, declared) in CONSTRAINT_COLUMNS.items()]
    properties.append({"name": "ghost", "logicalType": "string"})
    path = tmp_path / "cons.yaml"
    document = {"apiVersion": "v3.1.0", "kind": "DataContract", "id": "cons", "version": "1",
                "status": "active",
                "schema": [{"name": "cons", "physicalName": built.name, "properties": properties}]}
    path.write_text(yaml.safe_dump(document, allow_unicode=True), encoding="utf-8")
    report = checked(built.endpoint, path, [Category.CONSTRAINT])
    assert {r.key: (r.status, r.value) for r in report.results} == CONSTRAINT_EXPECTED, [
        (r.key, r.status, r.diagnostic) for r in report.results if r.diagnostic]
    row_reading = [r for r in report.results if not r.key.endswith(".logicalType")]
    assert row_reading and all(r.fused for r in row_reading)  # one scan for the object
    assert all(r.category is Category.CONSTRAINT for r in report.results)


# Library rules on the same column and key as constraints: `required` next to nullValues,
# `unique` next to duplicateValues share their aggregates (planner._shared_aggregates).
SHARED_LIBRARY = {"name": [{"id": "name_nulls", "metric": "nullValues", "mustBe": 0},
                           {"id": "name_duplicates", "metric": "duplicateValues", "mustBe": 0}]}
SHARED_EXPECTED = {
    **{key: CONSTRAINT_EXPECTED[key] for key in (f"{P}[name].required", f"{P}[name].unique",
                                                 "schema[cons].primaryKey")},
    "name_nulls": (Status.FAILED, 1),  # row 5
    "name_duplicates": (Status.FAILED, 1),  # 'a' twice; the one NULL is one more key
}


@pytest.mark.parametrize("engine", ENGINES)
def test_library_rules_share_aggregates_with_constraints(engine, build, tmp_path):
    built = build(engine, CONSTRAINTS)
    properties = [{"name": name, "physicalName": PHYSICAL.get(name, name), "logicalType": logical,
                   **declared, "quality": SHARED_LIBRARY.get(name, [])}
                  for name, (_, logical, declared) in CONSTRAINT_COLUMNS.items()]
    path = tmp_path / "shared.yaml"
    document = {"apiVersion": "v3.1.0", "kind": "DataContract", "id": "cons", "version": "1",
                "status": "active",
                "schema": [{"name": "cons", "physicalName": built.name, "properties": properties}]}
    path.write_text(yaml.safe_dump(document, allow_unicode=True), encoding="utf-8")
    loaded = load_odcs(str(path))
    compiled = compile_contract(loaded, get_dialect(built.endpoint.engine),
                                prefix=built.endpoint.schema, select=set(SHARED_EXPECTED))
    report = run(loaded, compiled, built.endpoint, RunOptions(show_sql=True))
    assert {r.key: (r.status, r.value) for r in report.results} == SHARED_EXPECTED, [
        (r.key, r.status, r.diagnostic) for r in report.results if r.diagnostic]
    statements = {r.sql for r in report.results}
    assert len(statements) == 1 and all(r.fused for r in report.results)
    # name's distinct count once for unique and duplicateValues; the primary key (k1, K 2)
    # in a SELECT DISTINCT subquery, or where the dialect counts keys in the aggregate, one more.
    in_aggregate = get_dialect(engine).distinct_plan is DistinctPlan.IN_AGGREGATE
    assert statements.pop().upper().count("COUNT(DISTINCT") == 1 + in_aggregate


# Settings a DBA may give the server, the database or the login, under which '…' and NOT read
# differently: the sessions must measure exactly as under the defaults.
_FOREIGN_MODES = "NO_BACKSLASH_ESCAPES,ANSI_QUOTES,HIGH_NOT_PRECEDENCE,PIPES_AS_CONCAT"


def test_server_text_modes_do_not_change_measurements(server, build, tmp_path):
    built = build(server.engine, METRICS)
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
        assert measure_metrics(built, tmp_path) == EXPECTED
    finally:
        if server.engine == "postgres":
            server.execute(*restore)
        else:
            server.execute(*restore, parameters=[previous])


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


# docs/semantics.md 3.3 on every engine: a pattern means what it means in RE2 (ASCII classes, `.` is
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


@pytest.mark.parametrize("engine", ENGINES)
def test_patterns_match_the_same_texts_on_every_engine(engine, build, tmp_path):
    built = build(engine, Dataset({"v": "text"}, [(v,) for v in PATTERN_VALUES]))
    rules = [{"id": f"p{i}", "metric": "invalidValues", "arguments": {"pattern": p}, "mustBe": 0}
             for i, p in enumerate(PATTERN_INVALID)]
    contract = contract_file(tmp_path / "patterns.yaml", built.name,
                             [{"name": "v", "logicalType": "string", "quality": rules}])
    found = {r.key: r.value for r in checked(built.endpoint, contract, [Category.QUALITY]).results}
    assert found == {f"p{i}": n for i, n in enumerate(PATTERN_INVALID.values())}
