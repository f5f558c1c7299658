"""Nested properties in a DuckDB run (docs/formats.md "Nested properties"): a field the struct
lacks is a missing column, a column that holds no fields is a type mismatch, array items are
never flattened, and engines without structured columns say so before connecting."""

from __future__ import annotations

from pathlib import Path

import duckdb
import yaml

from packata_sql.contracts.odcs import load_odcs
from packata_sql.dialects import get_dialect
from packata_sql.plans.compiler import compile_contract
from packata_sql.report import Report, RuleResult, Status
from packata_sql.run.runner import RunOptions, run
from packata_sql.sessions.endpoint import Endpoint

PROPERTIES = [
    {"name": "customer", "logicalType": "object", "properties": [
        {"name": "city", "logicalType": "string", "required": True},
        {"name": "citi", "logicalType": "string", "quality": [
            {"id": "typo", "metric": "nullValues", "mustBe": 0}]},
    ]},
    {"name": "note", "logicalType": "object", "properties": [
        {"name": "text", "quality": [{"id": "in-text", "metric": "nullValues", "mustBe": 0}]},
    ]},
    {"name": "lines", "logicalType": "array", "items": {"logicalType": "object", "properties": [
        {"name": "sku", "quality": [{"id": "sku", "metric": "nullValues", "mustBe": 0}]},
    ]}},
]


def _contract(tmp_path: Path) -> Path:
    path = tmp_path / "c.yaml"
    path.write_text(yaml.safe_dump({
        "apiVersion": "v3.1.0", "kind": "DataContract", "id": "c", "version": "1",
        "status": "active", "schema": [{"name": "orders", "properties": PROPERTIES}]}))
    return path


def _checked(tmp_path: Path) -> Report:
    database = tmp_path / "w.duckdb"
    connection = duckdb.connect(str(database))
    connection.execute("CREATE TABLE orders (customer STRUCT(city VARCHAR), note VARCHAR, "
                       "lines STRUCT(sku VARCHAR)[])")
    connection.execute("INSERT INTO orders VALUES ({'city': 'Bern'}, 'n', []), "
                       "({'city': NULL}, NULL, NULL), (NULL, NULL, NULL)")
    connection.close()
    contract = load_odcs(str(_contract(tmp_path)))
    compiled = compile_contract(contract, get_dialect("duckdb"))
    return run(contract, compiled, Endpoint("duckdb", str(database)), RunOptions())


def test_a_field_the_struct_lacks_is_a_missing_column_and_the_others_still_run(tmp_path):
    by_key = {r.key: r for r in _checked(tmp_path).results}
    typo = by_key["typo"]
    assert (typo.status, typo.diagnostic.code) == (Status.INCONCLUSIVE, "missing-column")
    assert typo.diagnostic.message.endswith("no field 'citi'; did you mean 'city'?")
    required = by_key["schema[orders].properties[customer].properties[city].required"]
    assert (required.status, required.value) == (Status.FAILED, 1)  # {city: NULL}; not row 3
    listed = duckdb.connect(str(tmp_path / "w.duckdb"), read_only=True).execute(
        required.inspect_sql).fetchall()
    assert listed == [(None,)]  # the one row whose customer has no city


def test_a_column_without_fields_is_a_type_mismatch(tmp_path):
    in_text = {r.key: r for r in _checked(tmp_path).results}["in-text"]
    assert (in_text.status, in_text.diagnostic.code) == (Status.INCONCLUSIVE, "type-mismatch")


def test_array_items_are_never_flattened(tmp_path):
    sku = {r.key: r for r in _checked(tmp_path).results}["sku"]
    assert (sku.status, sku.diagnostic.code) == (Status.SKIPPED, "array-items-not-flattened")


def test_engines_without_structured_columns_say_so_at_compile_time(tmp_path):
    contract = load_odcs(str(_contract(tmp_path)))
    compiled = compile_contract(contract, get_dialect("sqlserver"))
    assert compiled.blocked["schema[orders].properties[customer].properties[city].required"] \
        .code == "nested-property-not-supported"
    assert compiled.blocked["sku"].code == "array-items-not-flattened"


TYPED = [{"name": "doc", "logicalType": "object", "properties": [
    {"name": "s", "logicalType": "string"},
    {"name": "n", "logicalType": "integer"},
    {"name": "x", "logicalType": "number", "physicalType": "DOUBLE"},
    {"name": "b", "logicalType": "boolean"},
    {"name": "d", "logicalType": "date"},
    {"name": "gone"},
    {"name": "o", "logicalType": "object", "properties": [{"name": "k", "logicalType": "string"}]},
]}]
T = "schema[docs].properties[doc].properties"


def _typed(tmp_path: Path, column: str, rows: list[str]) -> dict[str, RuleResult]:
    path = tmp_path / "t.yaml"
    path.write_text(yaml.safe_dump({
        "apiVersion": "v3.1.0", "kind": "DataContract", "id": "t", "version": "1",
        "status": "active", "schema": [{"name": "docs", "properties": TYPED}]}))
    database = tmp_path / "t.duckdb"
    connection = duckdb.connect(str(database))
    connection.execute(f"CREATE TABLE docs (doc {column})")
    for row in rows:
        connection.execute(f"INSERT INTO docs VALUES ({row})")
    connection.close()
    contract = load_odcs(str(path))
    assert not [f for f in contract.findings if f.code == "nested-type-not-checked"]
    report = run(contract, compile_contract(contract, get_dialect("duckdb")),
                 Endpoint("duckdb", str(database)), RunOptions(show_sql=True))
    return {r.key: r for r in report.results}


def test_struct_field_types_and_presence_are_judged_from_the_catalog(tmp_path):
    """The struct's catalog type lists each field and its type: judged as a column's are,
    without reading a row."""
    found = _typed(tmp_path, "STRUCT(s VARCHAR, n BIGINT, x INTEGER, b VARCHAR, d DATE, "
                   "o STRUCT(k INTEGER))", ["NULL"])
    assert {k.removeprefix(T): (r.status, r.value) for k, r in found.items()
            if k.startswith(T)} == {
        "[s].logicalType": (Status.PASSED, True),
        "[n].logicalType": (Status.PASSED, True),
        "[x].logicalType": (Status.PASSED, True),
        "[x].physicalType": (Status.FAILED, False),  # INTEGER, not DOUBLE
        "[b].logicalType": (Status.FAILED, False),  # VARCHAR holds no boolean
        "[d].logicalType": (Status.PASSED, True),
        "[gone].present": (Status.FAILED, False),
        "[o].logicalType": (Status.PASSED, True),
        "[o].properties[k].logicalType": (Status.FAILED, False),
    }
    assert found[f"{T}[gone].present"].failed == ("the field doc.gone to exist",)
    assert all(r.sql is None for r in found.values())  # no scan: the catalog answered


def test_json_field_types_and_presence_are_counted_in_the_documents(tmp_path):
    """A JSON document has no catalog of its keys: documents whose enclosing object lacks the
    key, or holds a JSON type the logicalType does not allow, are counted in the one scan (a
    JSON null is required's business; integer is a number without a fraction)."""
    found = _typed(tmp_path, "JSON", [
        """'{"s":"a","n":1,"x":1.5,"b":true,"d":"2024-01-01","o":{"k":"z"}}'""",
        """'{"s":1,"n":1.5,"x":"1","b":"true","d":5,"o":{"k":null}}'""",
        """'{"n":2.0,"o":{}}'""", "NULL", """'{"s":null,"n":null}'"""])
    assert {k.removeprefix(T): (r.status, r.value) for k, r in found.items()
            if k.startswith(T)} == {
        "[s].logicalType": (Status.FAILED, 2),  # 1 and absent
        "[n].logicalType": (Status.FAILED, 1),  # 1.5
        "[x].logicalType": (Status.FAILED, 3),  # "1" and absent twice
        "[x].physicalType": (Status.INCONCLUSIVE, None),
        "[b].logicalType": (Status.FAILED, 3),  # "true" and absent twice
        "[d].logicalType": (Status.FAILED, 3),  # 5 and absent twice
        "[gone].present": (Status.FAILED, 4),  # every document with an object
        "[o].logicalType": (Status.FAILED, 1),  # absent in the last
        "[o].properties[k].logicalType": (Status.FAILED, 1),  # absent from {}
    }
    assert found[f"{T}[x].physicalType"].diagnostic.code == "nested-physical-type-in-json"
    sql = {r.sql for k, r in found.items() if k.startswith(T) and r.sql}
    assert len(sql) == 1  # one fused scan


def test_json_fields_of_the_declared_types_pass_and_a_date_is_not_passed(tmp_path):
    found = _typed(tmp_path, "JSON", [
        """'{"s":"a","n":1,"b":false,"d":"2024-01-01","gone":null,"o":{"k":"z"}}'"""])
    statuses = {k.removeprefix(T): r.status for k, r in found.items()
                if k.startswith(T) and "physicalType" not in k}
    assert statuses.pop("[x].logicalType") is Status.FAILED  # absent
    # A date in a JSON document is a string: no violation found is still not a pass.
    assert statuses.pop("[d].logicalType") is Status.INCONCLUSIVE
    assert found[f"{T}[d].logicalType"].diagnostic.code == "json-temporal-not-exact"
    assert set(statuses.values()) == {Status.PASSED}, statuses


def test_a_sql_rule_on_a_nested_field_is_told_property_names_a_column(tmp_path):
    path = tmp_path / "s.yaml"
    path.write_text(yaml.safe_dump({
        "apiVersion": "v3.1.0", "kind": "DataContract", "id": "s", "version": "1",
        "status": "active", "schema": [{"name": "orders", "properties": [
            {"name": "customer", "logicalType": "object", "properties": [
                {"name": "city", "quality": [{"id": "q", "type": "sql", "mustBe": 0, "query":
                 "SELECT COUNT(*) FROM {object} WHERE {property} IS NULL"}]}]}]}]}))
    blocked = compile_contract(load_odcs(str(path)), get_dialect("duckdb")).blocked["q"]
    assert blocked.code == "property-placeholder-without-property"
    assert "this rule is on a nested field" in blocked.message
