"""Rules on nested properties run on real structured columns (issue 23 item 4): DuckDB and
Spark STRUCT, PostgreSQL jsonb and composite types, MariaDB JSON, SQLite JSON1. The public
contracts are datacontract-cli's pydantic and Excel examples (tests/contracts/public/); the
odd-names contract puts quotes, a dot, a space and a CJK character in the field names. Expected
counts are worked by hand from the rows (docs/semantics.md 3, docs/formats.md "Nested
properties")."""

from __future__ import annotations

import json
import sqlite3
import textwrap
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import duckdb
import pytest

from packata_sql.contracts.formats import load_declaration
from packata_sql.dialects import get_dialect
from packata_sql.plans.compiler import compile_contract
from packata_sql.report import Report, Status
from packata_sql.run.runner import RunOptions, run
from packata_sql.sessions.endpoint import Endpoint, parse_url

PUBLIC = Path(__file__).parent.parent / "tests" / "contracts" / "public"
ENGINES = ["duckdb", "sqlite", "postgres", "mysql", "spark"]
#: A field spec: each name → "text", "int" or a nested spec.
Spec = Mapping[str, Any]
ADDRESS: Spec = {"street": "text", "city": "text", "country": "text", "postal_code": "text"}
#: Failing rows: a NULL and an absent street, a missing city and country, and a row without
#: an address (which its own `required` counts, not its fields').
ADDRESSES: list[dict[str, Any] | None] = [
    {"street": "Marienplatz 1", "city": "Munich", "country": "DE", "postal_code": "80331"},
    {"street": None, "city": "Bern", "country": "CH"},
    {"city": "Zug", "country": "CH"},
    None,
    {"street": "Main St 5", "city": None, "country": None},
]
ODD_COLUMN = "cust info"
ODD: Spec = {"a b's `x`": {"city.名": "text", "zip": "int"}}
ODD_ROWS: list[dict[str, Any] | None] = [
    {"a b's `x`": {"city.名": "Bern", "zip": 3000}},
    {"a b's `x`": {"city.名": "Bern", "zip": 999}},
    {"a b's `x`": {"city.名": None, "zip": None}},
    {"a b's `x`": None},
    None,
    {"a b's `x`": {"city.名": "Lausanne", "zip": 1000}},
]
ODD_CONTRACT = textwrap.dedent("""\
    apiVersion: v3.1.0
    kind: DataContract
    id: odd-fields
    version: 1.0.0
    status: active
    schema:
      - name: people
        physicalName: nf_people
        properties:
          - name: customer
            physicalName: "cust info"
            logicalType: object
            properties:
              - name: address
                physicalName: "a b's `x`"
                logicalType: object
                required: true
                properties:
                  - name: city
                    physicalName: "city.名"
                    logicalType: string
                    required: true
                    unique: true
                    logicalTypeOptions: {maxLength: 6}
                    quality:
                      - id: known-cities
                        metric: invalidValues
                        arguments: {validValues: [Bern, Zug, "O'Hare"]}
                        mustBe: 0
                  - name: zip
                    logicalType: integer
                    logicalTypeOptions: {minimum: 1000}
                    quality:
                      - id: zip-nulls
                        metric: nullValues
                        mustBe: 0
    """)
A = "schema[people].properties[customer].properties[address]"
ODD_EXPECTED = {
    f"{A}.required": (Status.FAILED, 1),  # row 4: the customer has no address
    f"{A}.properties[city].required": (Status.FAILED, 1),  # row 3
    f"{A}.properties[city].unique": (Status.FAILED, 1),  # Bern twice
    f"{A}.properties[city].logicalTypeOptions.maxLength": (Status.FAILED, 1),  # Lausanne
    "known-cities": (Status.FAILED, 4),  # Lausanne and three NULLs (semantics 3.1)
    f"{A}.properties[zip].logicalTypeOptions.minimum": (Status.FAILED, 1),  # 999
    "zip-nulls": (Status.FAILED, 3),  # rows 3, 4, 5
}


@dataclass(frozen=True)
class Column:
    name: str
    spec: Spec
    rows: Sequence[dict[str, Any] | None]


def _sql_type(engine: str, spec: Spec) -> str:
    dialect = get_dialect(engine)
    scalar = {"duckdb": {"text": "VARCHAR", "int": "INTEGER"},
              "spark": {"text": "STRING", "int": "INT"}}[engine]
    parts = []
    for name, kind in spec.items():
        inner = _sql_type(engine, kind) if isinstance(kind, Mapping) else scalar[kind]
        parts.append(f"{dialect.quote_identifier(name)}{':' if engine == 'spark' else ''} {inner}")
    return f"STRUCT<{', '.join(parts)}>" if engine == "spark" else f"STRUCT({', '.join(parts)})"


def _filled(spec: Spec, value: dict[str, Any] | None) -> dict[str, Any] | None:
    """A struct value with every field (an absent JSON key is a NULL struct field)."""
    if value is None:
        return None
    return {name: _filled(kind, value.get(name)) if isinstance(kind, Mapping)
            else value.get(name) for name, kind in spec.items()}


def _as_tuple(spec: Spec, value: dict[str, Any] | None) -> tuple[Any, ...] | None:
    if value is None:
        return None
    return tuple(_as_tuple(kind, value.get(name)) if isinstance(kind, Mapping)
                 else value.get(name) for name, kind in spec.items())


@pytest.fixture
def warehouse(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Any]:
    """build(table, column) → the endpoint of a fresh table (id, column) on the engine under
    test: STRUCT on DuckDB and Spark, jsonb on PostgreSQL, JSON on MariaDB and SQLite, and a
    DuckDB JSON and a PostgreSQL json (not jsonb) column for `duckdb-json`, `postgres-json`."""
    engine, json_column = str(request.param).removesuffix("-json"), \
        str(request.param).endswith("-json")
    cleanups: list[Any] = []

    def build(table: str, column: Column) -> Endpoint:
        dialect = get_dialect(engine)
        quoted_table, quoted_column = dialect.quote_identifier(table), \
            dialect.quote_identifier(column.name)
        ids = range(1, len(column.rows) + 1)
        if engine in ("duckdb", "sqlite"):
            path = tmp_path / f"{table}.{engine}"
            kind = "JSON" if json_column else \
                _sql_type(engine, column.spec) if engine == "duckdb" else "TEXT"
            connection: Any = duckdb.connect(str(path)) if engine == "duckdb" \
                else sqlite3.connect(str(path))
            connection.execute(f"CREATE TABLE {quoted_table} (id INTEGER, {quoted_column} {kind})")
            values = [_filled(column.spec, v) if kind.startswith("STRUCT")
                      # SQLite matches a key as the text writes it: UTF-8, not \u escapes
                      else (None if v is None else json.dumps(v, ensure_ascii=False))
                      for v in column.rows]
            connection.executemany(f"INSERT INTO {quoted_table} VALUES (?, ?)",
                                   list(zip(ids, values, strict=True)))
            if engine == "sqlite":
                connection.commit()
            connection.close()
            return Endpoint(engine, str(path))
        if engine == "spark":
            spark = request.getfixturevalue("spark")
            admin = spark.admin()
            try:
                schema = f"id INT, {quoted_column} {_sql_type('spark', column.spec)}"
                rows = [(i, _as_tuple(column.spec, v)) for i, v in zip(ids, column.rows,
                                                                      strict=True)]
                admin.createDataFrame(rows, schema=schema).write.mode("overwrite") \
                    .format("parquet").saveAsTable(f"{spark.database}.{table}")
            finally:
                admin.stop()
            return parse_url(f"{spark.url};schema={spark.database}")
        server = request.getfixturevalue(engine)
        kind, marker = ("JSON", "%s") if engine != "postgres" else \
            ("JSON", "%s::json") if json_column else ("JSONB", "%s::jsonb")
        server.execute(f"DROP TABLE IF EXISTS {quoted_table}",
                       f"CREATE TABLE {quoted_table} (id INTEGER, {quoted_column} {kind})")
        cleanups.append(lambda: server.execute(f"DROP TABLE IF EXISTS {quoted_table}"))
        connection = server.connect()
        try:
            connection.cursor().executemany(
                f"INSERT INTO {quoted_table} VALUES (%s, {marker})",
                [(i, None if v is None else json.dumps(v)) for i, v in zip(ids, column.rows,
                                                                           strict=True)])
        finally:
            connection.close()
        return server.reader

    yield build
    for cleanup in cleanups:
        cleanup()


def check(endpoint: Endpoint, path: Path) -> Report:
    contract = load_declaration(str(path))
    compiled = compile_contract(contract, get_dialect(endpoint.engine), prefix=endpoint.schema)
    return run(contract, compiled, endpoint, RunOptions())


def measured(report: Report, keys: Sequence[str]) -> dict[str, tuple[Status, object]]:
    by_key = {r.key: r for r in report.results}
    return {key: (by_key[key].status, by_key[key].value) for key in keys}


def _addresses(rows: Sequence[dict[str, Any] | None]) -> Column:
    return Column("shipping_address", ADDRESS, rows)


PYDANTIC = "schema[Orders].properties[shipping_address]"


@pytest.mark.parametrize("warehouse", ENGINES, indirect=True)
def test_the_pydantic_example_checks_its_nested_address(warehouse):
    """datacontract-cli's pydantic example: `shipping_address.street` and `.city` are
    required. A row without an address fails the address's own `required`, not its fields'."""
    report = check(warehouse("Orders", _addresses(ADDRESSES)),
                   PUBLIC / "datacontract-cli-pydantic-orders.odcs.yaml")
    assert measured(report, [f"{PYDANTIC}.required", f"{PYDANTIC}.properties[street].required",
                             f"{PYDANTIC}.properties[city].required"]) == {
        f"{PYDANTIC}.required": (Status.FAILED, 1),
        f"{PYDANTIC}.properties[street].required": (Status.FAILED, 2),
        f"{PYDANTIC}.properties[city].required": (Status.FAILED, 1),
    }
    by_key = {r.key: r for r in report.results}
    assert by_key[f"{PYDANTIC}.properties[street].required"].fused
    # Array items are never flattened: what they declare is named, not run.
    items = [f for f in report.findings if f.code == "nested-constraint-not-checked"]
    assert [f.line for f in items] == [110, 116]


@pytest.mark.parametrize("warehouse", ENGINES, indirect=True)
def test_the_pydantic_example_passes_on_complete_addresses(warehouse):
    report = check(warehouse("Orders", _addresses([ADDRESSES[0], {
        "street": "Bahnhofstrasse 1", "city": "Zürich", "country": "CH"}])),
        PUBLIC / "datacontract-cli-pydantic-orders.odcs.yaml")
    keys = [f"{PYDANTIC}.required", f"{PYDANTIC}.properties[street].required",
            f"{PYDANTIC}.properties[city].required"]
    assert measured(report, keys) == dict.fromkeys(keys, (Status.PASSED, 0))


SHIPMENTS = "schema[shipments].properties[address]"


@pytest.mark.parametrize("warehouse", [*ENGINES, "duckdb-json", "postgres-json"], indirect=True)
def test_the_excel_example_checks_its_json_address(warehouse):
    """datacontract-cli's Excel example: `address` (physicalType JSON) with required street,
    city and country, on the physical table `shipments_v1`."""
    report = check(warehouse("shipments_v1", Column("address", ADDRESS, ADDRESSES)),
                   PUBLIC / "datacontract-cli-shipments.odcs.yaml")
    assert measured(report, [f"{SHIPMENTS}.properties[{name}].required"
                             for name in ("street", "city", "country")]) == {
        f"{SHIPMENTS}.properties[street].required": (Status.FAILED, 2),
        f"{SHIPMENTS}.properties[city].required": (Status.FAILED, 1),
        f"{SHIPMENTS}.properties[country].required": (Status.FAILED, 1),
    }


@pytest.mark.parametrize("warehouse", ENGINES, indirect=True)
def test_odd_field_names_are_quoted_segment_by_segment(warehouse, tmp_path):
    """Quotes, backticks, a dot, a space and a CJK character in field names: each segment is
    its own identifier or JSON key, so every rule measures the field it names."""
    path = tmp_path / "odd.yaml"
    path.write_text(ODD_CONTRACT, encoding="utf-8")
    report = check(warehouse("nf_people", Column(ODD_COLUMN, ODD, ODD_ROWS)), path)
    assert measured(report, list(ODD_EXPECTED)) == ODD_EXPECTED, [
        (r.key, r.diagnostic) for r in report.results]


def test_postgres_composite_types_are_read_attribute_by_attribute(postgres):
    """The Excel example's address as a composite type: `(address).street`, and the same
    counts as on jsonb."""
    postgres.execute("DROP TABLE IF EXISTS shipments_v1", "DROP TYPE IF EXISTS nf_address",
                     "CREATE TYPE nf_address AS (street text, city text, country text, "
                     "postal_code text)",
                     "CREATE TABLE shipments_v1 (id integer, address nf_address)")
    try:
        connection = postgres.connect()
        try:
            connection.cursor().executemany(
                "INSERT INTO shipments_v1 VALUES (%s, ROW(%s, %s, %s, %s)::nf_address)",
                [(i, *(None if v is None else v.get(k) for k in ADDRESS))
                 for i, v in enumerate(ADDRESSES, 1) if v is not None])
            connection.cursor().execute("INSERT INTO shipments_v1 VALUES (4, NULL)")
        finally:
            connection.close()
        report = check(postgres.reader, PUBLIC / "datacontract-cli-shipments.odcs.yaml")
        assert measured(report, [f"{SHIPMENTS}.properties[{name}].required"
                                 for name in ("street", "city", "country")]) == {
            f"{SHIPMENTS}.properties[street].required": (Status.FAILED, 2),
            f"{SHIPMENTS}.properties[city].required": (Status.FAILED, 1),
            f"{SHIPMENTS}.properties[country].required": (Status.FAILED, 1),
        }
        # Triage reads the field as the scan did: the rows with an address and no street.
        street = next(r for r in report.results
                      if r.key == f"{SHIPMENTS}.properties[street].required")
        assert street.inspect_sql is not None and '("address")."street"' in street.inspect_sql
        assert postgres.execute(street.inspect_sql) == [(None,), (None,)]
    finally:
        postgres.execute("DROP TABLE IF EXISTS shipments_v1", "DROP TYPE IF EXISTS nf_address")


TYPED_CONTRACT = textwrap.dedent("""\
    apiVersion: v3.1.0
    kind: DataContract
    id: typed-leaves
    version: 1.0.0
    status: active
    schema:
      - name: nf_docs
        properties:
          - name: doc
            logicalType: object
            properties:
              - name: n
                logicalType: integer
                logicalTypeOptions: {minimum: 6}
                quality:
                  - {id: n-nulls, metric: nullValues, mustBe: 0}
              - name: flag
                logicalType: boolean
                quality:
                  - {id: flag-true, metric: invalidValues, arguments: {validValues: [true]}, mustBe: 0}
              - name: 'q"\\k'
                logicalType: integer
                logicalTypeOptions: {minimum: 1000}
    """)
TYPED_ROWS: list[dict[str, Any] | None] = [
    {"n": 5, "flag": True, 'q"\\k': 1500},
    {"n": "7", "flag": "true", 'q"\\k': 999},
    {"n": None, "flag": False},
    {},
]


@pytest.mark.parametrize("warehouse", ["postgres", "mysql", "duckdb-json"], indirect=True)
def test_json_leaves_are_read_as_their_declared_type(warehouse, tmp_path):
    """A JSON leaf of an integer or boolean property is read only where the document holds a
    JSON number or boolean; a string "7" or "true" reads as NULL, never cast. A key with a
    double quote and a backslash is escaped in MariaDB's and DuckDB's paths, a literal of its
    own in PostgreSQL's."""
    path = tmp_path / "typed.yaml"
    path.write_text(TYPED_CONTRACT, encoding="utf-8")
    report = check(warehouse("nf_docs", Column("doc", {}, TYPED_ROWS)), path)
    doc = "schema[nf_docs].properties[doc]"
    assert measured(report, ["n-nulls", f"{doc}.properties[n].logicalTypeOptions.minimum",
                             "flag-true", f'{doc}.properties[q"\\k].logicalTypeOptions.minimum'
                             ]) == {
        "n-nulls": (Status.FAILED, 3),  # "7", null and the absent key
        f"{doc}.properties[n].logicalTypeOptions.minimum": (Status.FAILED, 1),  # 5
        "flag-true": (Status.FAILED, 3),  # "true", false and the absent key
        f'{doc}.properties[q"\\k].logicalTypeOptions.minimum': (Status.FAILED, 1),  # 999
    }


MISSING_CONTRACT = textwrap.dedent("""\
    apiVersion: v3.1.0
    kind: DataContract
    id: missing-field
    version: 1.0.0
    status: active
    schema:
      - name: Orders
        properties:
          - name: shipping_address
            logicalType: object
            properties:
              - name: cty
                quality:
                  - {id: cty-nulls, metric: nullValues, mustBe: 0}
              - name: city
                quality:
                  - {id: city-nulls, metric: nullValues, mustBe: 0}
    """)


@pytest.mark.parametrize("warehouse", ["duckdb", "spark", "postgres"], indirect=True)
def test_a_missing_field_is_a_missing_column_in_a_struct_and_null_in_json(warehouse, tmp_path):
    """A struct's catalog type lists its fields: a field it lacks is `inconclusive` with the
    closest one named, and the other rules of the scan still run. A JSON document has no such
    list: the absent key is NULL in every row."""
    path = tmp_path / "missing.yaml"
    path.write_text(MISSING_CONTRACT, encoding="utf-8")
    endpoint = warehouse("Orders", _addresses(ADDRESSES))
    by_key = {r.key: r for r in check(endpoint, path).results}
    assert (by_key["city-nulls"].status, by_key["city-nulls"].value) == (Status.FAILED, 2)
    typo = by_key["cty-nulls"]
    if endpoint.engine == "postgres":
        assert (typo.status, typo.value) == (Status.FAILED, 5)
    else:
        assert (typo.status, typo.diagnostic.code) == (Status.INCONCLUSIVE, "missing-column")
        assert typo.diagnostic.message.endswith("no field 'cty'; did you mean 'city'?")


TYPES_CONTRACT = textwrap.dedent("""\
    apiVersion: v3.1.0
    kind: DataContract
    id: nested-types
    version: 1.0.0
    status: active
    schema:
      - name: nf_types
        properties:
          - name: doc
            logicalType: object
            properties:
              - {name: name, logicalType: string}
              - {name: qty, logicalType: integer}
              - {name: tag, logicalType: integer}
              - {name: gone}
    """)
TYPES = "schema[nf_types].properties[doc].properties"
TYPES_SPEC: Spec = {"name": "text", "qty": "int", "tag": "text"}


def _types(warehouse: Any, tmp_path: Path, rows: list[dict[str, Any] | None]
           ) -> tuple[str, dict[str, tuple[Status, object]], Report]:
    path = tmp_path / "types.yaml"
    path.write_text(TYPES_CONTRACT, encoding="utf-8")
    endpoint = warehouse("nf_types", Column("doc", TYPES_SPEC, rows))
    report = check(endpoint, path)
    keys = [f"{TYPES}[{name}].{kind}" for name, kind in (
        ("name", "logicalType"), ("qty", "logicalType"), ("tag", "logicalType"),
        ("gone", "present"))]
    return endpoint.engine, measured(report, keys), report


@pytest.mark.parametrize("warehouse", [*ENGINES, "duckdb-json", "postgres-json"], indirect=True)
def test_nested_types_and_presence_pass_and_fail(warehouse, tmp_path, request):
    """A struct's field types come from its catalog type (a boolean per rule, no scan); a JSON
    document's are counted in its rows, fused into the one scan (issue 23.4)."""
    _, found, report = _types(warehouse, tmp_path, [
        {"name": "a", "qty": 1, "tag": "x"}, {"name": "b", "qty": 2, "tag": "y"}, None])
    if request.node.callspec.params["warehouse"] in ("duckdb", "spark"):
        assert found == {f"{TYPES}[name].logicalType": (Status.PASSED, True),
                         f"{TYPES}[qty].logicalType": (Status.PASSED, True),
                         f"{TYPES}[tag].logicalType": (Status.FAILED, False),  # text
                         f"{TYPES}[gone].present": (Status.FAILED, False)}
    else:
        assert found == {f"{TYPES}[name].logicalType": (Status.PASSED, 0),
                         f"{TYPES}[qty].logicalType": (Status.PASSED, 0),
                         f"{TYPES}[tag].logicalType": (Status.FAILED, 2),  # "x", "y"
                         f"{TYPES}[gone].present": (Status.FAILED, 2)}  # not the NULL row
        by_key = {r.key: r for r in report.results}
        assert by_key[f"{TYPES}[tag].logicalType"].fused


@pytest.mark.parametrize("warehouse", ["postgres", "postgres-json", "mysql", "duckdb-json",
                                       "sqlite"], indirect=True)
def test_json_values_of_another_type_are_counted(warehouse, tmp_path):
    """A JSON string where a number belongs, a fraction in an integer, an absent key: each
    document counted once; a JSON null is a value of no type (required's business)."""
    _, found, _ = _types(warehouse, tmp_path, [
        {"name": "a", "qty": 1, "tag": 3, "gone": None}, {"name": 5, "qty": 1.5, "tag": "3"},
        {"qty": 2.0, "tag": None}, {}])
    assert found == {f"{TYPES}[name].logicalType": (Status.FAILED, 3),  # 5 and absent twice
                     f"{TYPES}[qty].logicalType": (Status.FAILED, 2),  # 1.5 and absent
                     f"{TYPES}[tag].logicalType": (Status.FAILED, 2),  # "3" and absent
                     f"{TYPES}[gone].present": (Status.FAILED, 3)}


def test_a_json_leaf_has_no_physical_type(postgres, tmp_path):
    path = tmp_path / "p.yaml"
    path.write_text(TYPES_CONTRACT.replace("{name: gone}", "{name: gone, physicalType: text}"),
                    encoding="utf-8")
    postgres.execute("DROP TABLE IF EXISTS nf_types",
                     "CREATE TABLE nf_types (id integer, doc jsonb)")
    try:
        result = next(r for r in check(postgres.reader, path).results
                      if r.key == f"{TYPES}[gone].physicalType")
    finally:
        postgres.execute("DROP TABLE IF EXISTS nf_types")
    assert (result.status, result.diagnostic.code) == (Status.INCONCLUSIVE,
                                                       "nested-physical-type-in-json")
