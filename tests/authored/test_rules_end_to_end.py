"""The binder's refusals and datacontract-cli spellings end to end on DuckDB and SQLite: a
denied call skips its rule with a finding naming the function, and `{model}`, `{field}` and
`{schema}.{model}` read the same table `{object}` does."""

from __future__ import annotations

import textwrap

import yaml

from packata_sql.contracts.model import Category, Level
from packata_sql.contracts.odcs import load_odcs
from packata_sql.dialects import get_dialect
from packata_sql.plans.compiler import compile_contract
from packata_sql.report import Status
from packata_sql.run.runner import RunOptions, run
from packata_sql.sessions.endpoint import Endpoint
from tests.conftest import build_database

TABLE = [("orders", [("amount", "int")], [(10,), (-5,), (None,)])]
DENIED = {"duckdb": ("SELECT COUNT(*) FROM read_csv('/etc/passwd')", "read_csv"),
          "sqlite": ("SELECT length(readfile('/etc/passwd'))", "readfile")}


def contract(*queries: str) -> str:
    rules = [{"id": f"r{n}", "type": "sql", "query": q, "mustBe": 1} for n, q in enumerate(queries)]
    return yaml.safe_dump({"apiVersion": "v3.1.0", "kind": "DataContract", "id": "t",
                           "version": "1.0.0", "status": "active", "schema": [
                               {"name": "orders", "properties": [
                                   {"name": "amount", "logicalType": "integer", "quality": rules}]}]})


def test_denied_call_skips_the_rule_and_names_the_function(engine, check):
    query, name = DENIED[engine]
    result = check(engine, contract(query), TABLE).results[0]
    assert (result.status, result.diagnostic.code) == (Status.SKIPPED, "denied-function")
    assert f"{name}()" in result.diagnostic.message


def test_denied_call_is_an_error_finding_that_blocks_the_rule(engine, tmp_path):
    path = tmp_path / "c.yaml"
    path.write_text(contract(DENIED[engine][0], "SELECT 1"), encoding="utf-8")
    compiled = compile_contract(load_odcs(str(path)), get_dialect(engine), parameters={})
    assert compiled.blocked["r0"].level is Level.ERROR
    assert [plan.rule.key for plan in compiled.sql_plans] == ["r1"]


def test_datacontract_placeholders_read_the_object(engine, check):
    report = check(engine, contract(
        "SELECT COUNT(*) FROM {model} WHERE {field} < 0",
        "SELECT COUNT(*) FROM ${model} WHERE ${field} < 0",
    ), TABLE)
    assert [(r.status, r.value) for r in report.results] == [(Status.PASSED, 1)] * 2


def test_schema_placeholder_reads_the_declared_schema(engine, tmp_path):
    database = build_database(engine, tmp_path / f"db.{engine}", TABLE)
    path = tmp_path / "c.yaml"
    path.write_text(textwrap.dedent(contract(
        "SELECT COUNT(*) FROM {schema}.{model} WHERE {field} < 0",
        "SELECT COUNT(*) FROM ${schema}.${model} WHERE {property} < 0",
    )), encoding="utf-8")
    loaded = load_odcs(str(path))
    compiled = compile_contract(loaded, get_dialect(engine), prefix=("main",), parameters={},
                                categories=[Category.QUALITY])
    assert [plan.sql.split(" WHERE")[0] for plan in compiled.sql_plans] == [
        'SELECT COUNT(*) FROM "main"."orders"'] * 2
    report = run(loaded, compiled, Endpoint(engine, str(database), ("main",)), RunOptions())
    assert [(r.status, r.value) for r in report.results] == [(Status.PASSED, 1)] * 2


def test_schema_placeholder_without_a_declared_schema_is_a_finding(engine, check):
    result = check(engine, contract("SELECT COUNT(*) FROM {schema}.{model}"), TABLE).results[0]
    assert (result.status, result.diagnostic.code) == (Status.SKIPPED,
                                                      "schema-placeholder-without-schema")
