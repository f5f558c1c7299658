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
from packata_sql.report import Report, Status
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


def test_the_types_of_nested_fields_are_named_as_not_checked(tmp_path):
    """The catalog lists the column, not its fields: a nested logicalType draws an info
    finding at its line, and no catalog rule that would judge the column instead."""
    contract = load_odcs(str(_contract(tmp_path)))
    untyped = [(f.level.value, f.source_path) for f in contract.findings
               if f.code == "nested-type-not-checked"]
    assert untyped == [("info", "schema[0].properties[0].properties[0]"),
                       ("info", "schema[0].properties[0].properties[1]")]
    assert not [r for r in contract.rules if r.target.fields and r.key.endswith("logicalType")]


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
