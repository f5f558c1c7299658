"""Every piece of SQL a declaration supplies is authored SQL (issue 20.1). A contract of each
format puts the same marker, written as SQL code (`pkmark(1)`), in every text field it has:
names, descriptions, values, patterns, queries, expressions. Compiled for every engine with a
pinned lexer, the marker reaches code only in the plans of authored definitions (ODCS `sql`
queries, pipeline expressions), which run as authored queries and are refused where authored
SQL is; in every generated statement (scans, single-rule fallbacks, the failing-row listings
and samples of triage) it stays inside a string literal or a quoted name."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from packata_sql.authored.scanner import CODE, scan
from packata_sql.contracts.formats import load_declaration
from packata_sql.contracts.model import AUTHORED, Contract, Predicate, Sql
from packata_sql.dialects import BINDER_DIALECTS, Family, get_dialect
from packata_sql.plans.compiler import CatalogPlan, Plan, SqlPlan, compile_contract
from packata_sql.plans.document import plan_document
from packata_sql.plans.planner import inspect_query, inspect_sql, sample_sql

MARK = "pkmark(1)"
ODCS = {
    "apiVersion": "v3.1.0", "kind": "DataContract", "id": MARK, "name": MARK, "version": "1.0.0",
    "status": "active", "description": {"purpose": MARK, "usage": MARK},
    "schema": [{
        "name": f"t {MARK}", "physicalName": f"t {MARK}", "description": MARK,
        "businessName": MARK,
        "quality": [
            {"id": "rows", "metric": "rowCount", "mustBeGreaterThan": 0, "description": MARK},
            {"id": "authored", "type": "sql", "mustBe": 0,
             "query": f"SELECT COUNT(*) FROM {{object}} WHERE {MARK} = 1"},
            {"id": "words", "type": "text", "description": MARK},
            {"id": "elsewhere", "type": "custom", "engine": MARK, "implementation": MARK},
        ],
        "properties": [
            {"name": f"c {MARK}", "physicalName": f"c {MARK}", "logicalType": "string",
             "required": True, "unique": True, "description": MARK, "examples": [MARK],
             "logicalTypeOptions": {"pattern": f"^{MARK}$", "maxLength": 9, "minLength": 1},
             "quality": [
                 {"id": "nulls", "metric": "nullValues", "mustBe": 0},
                 {"id": "valid", "metric": "invalidValues", "mustBe": 0,
                  "arguments": {"validValues": [MARK, f"{MARK}'"]}},
                 {"id": "shaped", "metric": "invalidValues", "mustBe": 0,
                  "arguments": {"pattern": f"^{MARK}$"}},
                 {"id": "missing", "metric": "missingValues", "mustBe": 0,
                  "arguments": {"missingValues": [MARK]}},
                 {"id": "dups", "metric": "duplicateValues", "mustBe": 0},
             ]},
            {"name": "n", "logicalType": "integer", "physicalType": MARK,
             "logicalTypeOptions": {"minimum": 0, "maximum": 10}},
        ],
    }],
}
POLICY = {
    "object": f"t {MARK}", "version": MARK, "description": MARK, "name": MARK,
    "schema_policy": {"field_removed": "breaking"},
    "rules": [
        {"id": "rows", "type": "row_count", "minimum": 1, "description": MARK},
        {"id": "present", "type": "required_fields", "fields": [MARK]},
        {"id": "typed", "type": "field", "field": MARK, "data_type": "string", "nullable": False},
        {"id": "nn", "type": "not_null", "fields": [MARK, "n"]},
        {"id": "uq", "type": "unique", "fields": [MARK]},
        {"id": "rng", "type": "range", "field": "n", "minimum": 0},
        {"id": "ref", "type": "referential", "field": MARK, "allowed_values": [MARK]},
    ],
}
PIPELINE = {
    "table": f"t {MARK}",
    "data_quality": {"rules": [
        {"name": "rows", "rule": "row_count", "mustBeGreaterThan": 0, "description": MARK},
        {"name": "nn", "rule": "not_null", "columns": [MARK, "n"]},
        {"name": "uq", "rule": "unique", "column": MARK},
        {"name": "vals", "rule": "accepted_values", "column": MARK, "values": [MARK]},
        {"name": "rx", "rule": "regex", "column": MARK, "pattern": f"^{MARK}$"},
        {"name": "rng", "rule": "range", "column": "n", "minimum": 0},
        {"name": "expr", "rule": "expression", "expression": f"{MARK} = 1"},
        {"name": "py", "rule": "custom", "callable": MARK},
    ]},
}


def _load(tmp_path: Path, name: str, document: object) -> Contract:
    path = tmp_path / name
    path.write_text(json.dumps(document), encoding="utf-8")  # JSON is YAML too
    return load_declaration(str(path))


@pytest.mark.parametrize("dialect_name", BINDER_DIALECTS)
@pytest.mark.parametrize(("name", "document", "authored"), [
    ("contract.odcs.yaml", ODCS, {"authored": Sql}),
    ("policy.json", POLICY, {}),
    ("pipeline.yaml", PIPELINE, {"expr": Predicate}),
])
def test_declaration_text_reaches_code_only_through_authored_definitions(
        tmp_path: Path, name: str, document: object, authored: dict[str, type],
        dialect_name: str) -> None:
    contract = _load(tmp_path, name, document)
    dialect = get_dialect(dialect_name)
    # The server's schema is declaration text too (ODCS `servers`, `?schema=`).
    compiled = compile_contract(contract, dialect, prefix=(MARK,), parameters=())
    assert {r.key: type(r.definition) for r in contract.rules
            if isinstance(r.definition, AUTHORED)} == authored
    assert {p.rule.key for p in compiled.sql_plans} <= set(authored)
    for plan in compiled.ordered:  # what each authored definition became
        assert isinstance(plan, SqlPlan) == isinstance(plan.rule.definition, AUTHORED)
        assert isinstance(plan, SqlPlan | Plan | CatalogPlan)
    planned = plan_document(contract, compiled, dialect)
    generated = [scan_["sql"] for scan_ in planned["scans"]] + [
        rule["sql"] for rule in planned["rules"]
        if rule.get("sql") and rule["key"] not in authored]
    for plan in compiled.plans:  # what triage runs for a failed rule, and --samples
        families = {column: Family.TEXT for column in plan.columns}
        query = inspect_query(plan.object_segments, plan, dialect, families)
        if query is not None:
            generated.append(inspect_sql(query, dialect))
            sampled = sample_sql(query.copy(), dialect, 3)
            generated.append(sampled[0] if sampled else "")
    assert generated, "nothing generated: the test would prove nothing"
    assert any(MARK in sql for sql in generated)  # the text is there, as data
    for sql in generated:
        code = "".join(sql[r.start:r.end] for r in scan(sql, dialect.lexical) if r.kind == CODE)
        assert "pkmark" not in code, (dialect_name, sql)


@pytest.mark.parametrize("dialect_name", BINDER_DIALECTS)
def test_every_denied_function_is_refused_in_an_expression(tmp_path: Path,
                                                           dialect_name: str) -> None:
    """The deny-list of SQL rules holds for expressions on every engine, entry by entry."""
    dialect = get_dialect(dialect_name)
    names = sorted(f.rstrip("*") + ("x" if f.endswith("*") else "")
                   for f in dialect.deny.functions)
    assert names, f"{dialect_name} has no deny-list to check"
    rules = [{"name": f"r{i}", "rule": "expression", "expression": f"{name}(1) IS NOT NULL"}
             for i, name in enumerate(names)]
    contract = _load(tmp_path, "pipeline.yaml",
                     {"table": "t", "data_quality": {"rules": rules}})
    compiled = compile_contract(contract, dialect, parameters=())
    assert not compiled.ordered
    assert {finding.code for finding in compiled.blocked.values()} <= {"denied-function",
                                                                   "denied-statement"}
    assert len(compiled.blocked) == len(names)
