"""The dbt gate for every format the compiler reads (issue 20.8), through real dbt on DuckDB:
`dbt generate` on a pipeline file or a JSON policy writes the model's plan (it once wrote only
the runtime and exited 0, a gate that checked nothing), and the post-hook measures its rules.
A pipeline `expression` is authored SQL (issue 20.1): on dbt's read-write DuckDB connection it
is refused like a SQL rule, and runs only with packata_sql_trust_environment.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from .dbt_harness import Project, build_project

PIPELINE = """\
table: orders
data_quality:
  rules:
    - {name: volume, rule: row_count, mustBe: 10}
    - {name: ids, rule: not_null, column: order_id}
    - {name: statuses, rule: accepted_values, column: status, values: [placed, shipped]}
    - {name: positive, rule: expression, expression: amount > 0 AND order_id IS NOT NULL}
"""
POLICY = {"object": "orders", "version": "1", "rules": [
    {"id": "volume", "type": "row_count", "minimum": 1, "maximum": 10},
    {"id": "ids", "type": "unique", "field": "order_id"},
    {"id": "amounts", "type": "range", "field": "amount", "minimum": 0, "maximum": 5},
    {"id": "known", "type": "referential", "field": "status", "allowed_values": ["placed"]},
]}


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Project]:
    yield build_project(tmp_path_factory.mktemp("dbt_formats"), "duckdb")


def _generate(project: Project, name: str, text: str) -> tuple[int, str]:
    from packata_sql.cli.main import main

    path = project.root / name
    path.write_text(text, encoding="utf-8")
    code = main(["dbt", "generate", str(path), "--project-dir", str(project.root)])
    plan = project.root / "macros" / "packata_sql" / "orders.sql"
    return code, plan.read_text(encoding="utf-8") if plan.is_file() else ""


def _plans(project: Project) -> dict[str, bytes]:
    folder = project.root / "macros" / "packata_sql"
    return {p.name: p.read_bytes() for p in folder.iterdir()} if folder.is_dir() else {}


def test_a_pipeline_file_gets_a_plan_and_its_expression_is_refused_unless_trusted(
        project: Project) -> None:
    code, plan = _generate(project, "orders.pipeline.yaml", PIPELINE)
    assert code == 0 and "packata_plan__orders" in plan
    refused = project.invoke("--select", "orders",
                             variables={"packata_sql_trust_environment": False})
    assert refused.success, refused.messages
    assert refused.rules() == {
        "volume": ("passed", [10, 1], None),
        "ids": ("passed", [0, 1], None),
        "statuses": ("passed", [0, 1], None),
        "positive": ("error", None, "read-only-not-guaranteed"),
    }
    assert refused.runs[0]["read_only"] == "dbt-connection"
    trusted = project.invoke("--select", "orders", defects=("neg",),
                             variables={"packata_sql_trust_environment": True})
    assert trusted.rules()["positive"] == ("failed", [1, 1], None)  # order 3 is -5.00
    assert trusted.statuses == {"orders": "error"}  # an error-severity failure fails the model


def test_a_policy_file_gets_a_plan_that_the_gate_measures(project: Project) -> None:
    code, plan = _generate(project, "orders.policy.json", json.dumps(POLICY))
    assert code == 0 and "packata_plan__orders" in plan
    outcome = project.invoke("--select", "orders")
    assert outcome.rules() == {
        "volume": ("passed", [10, 1], None),
        "ids": ("passed", [0, 1], None),
        "amounts": ("failed", [5, 1], None),  # amounts 6 … 10
        "known": ("failed", [3, 1], None),  # orders 3, 6 and 9 are shipped
    }
    assert outcome.statuses == {"orders": "error"}


def test_a_file_the_gate_could_not_check_is_a_usage_error(
        project: Project, capsys: pytest.CaptureFixture[str]) -> None:
    capsys.readouterr()
    before = _plans(project)
    code, _ = _generate(project, "empty.pipeline.yaml",
                        "table: orders\ndata_quality:\n  rules: []\n")
    assert code == 3
    error = capsys.readouterr().err
    assert "empty.pipeline.yaml" in error and "the gate would check nothing" in error
    assert "it declares no rules" in error
    assert _plans(project) == before  # nothing written


def test_a_policy_of_catalog_checks_only_is_a_usage_error(
        project: Project, capsys: pytest.CaptureFixture[str]) -> None:
    """The gate runs row-reading rules only: a policy of nothing but column presence and type
    checks would give a plan that checks nothing."""
    capsys.readouterr()
    before = _plans(project)
    code, _ = _generate(project, "catalog.policy.json", json.dumps({"object": "orders", "rules": [
        {"id": "present", "type": "required_fields", "fields": ["order_id"]},
        {"id": "typed", "type": "field", "field": "amount", "data_type": "number"}]}))
    assert code == 3
    error = capsys.readouterr().err
    assert "catalog.policy.json" in error and "all catalog checks" in error
    assert "--dbt-project" in error  # where they do run
    assert _plans(project) == before


def test_plans_stay_fresh_for_check(project: Project, tmp_path: Path) -> None:
    from packata_sql.cli.main import main

    path = project.root / "orders.pipeline.yaml"
    path.write_text(PIPELINE, encoding="utf-8")
    assert main(["dbt", "generate", str(path), "--project-dir", str(project.root)]) == 0
    assert main(["dbt", "generate", str(path), "--project-dir", str(project.root),
                 "--check"]) == 0


def test_postgres_a_superuser_gate_refuses_the_expression_unless_trusted(
        postgres: object, tmp_path_factory: pytest.TempPathFactory) -> None:
    """On PostgreSQL the gate runs SQL rules for a plain login and refuses them for a login
    with an escape route (a superuser): the expression goes the same way."""
    from .dbt_harness import projects

    for project in projects("postgres", tmp_path_factory.mktemp("dbt_formats_pg"), postgres):
        code, _ = _generate(project, "orders.pipeline.yaml", PIPELINE)
        assert code == 0
        plain = project.invoke("--select", "orders")
        assert plain.rules()["positive"] == ("passed", [0, 1], None)
        assert plain.runs[0]["read_only"] == "enforced"
        try:
            refused = project.invoke("--select", "orders", target="pg_super")
            assert refused.success, refused.messages
            assert refused.rules()["positive"] == ("error", None, "read-only-not-guaranteed")
            assert refused.rules()["ids"] == ("passed", [0, 1], None)
        finally:
            project.give_back("orders")


def _expressif(rule_id: str, program: str, scope: str, kind: str = "predicate",
               **more: object) -> dict[str, object]:
    return {"id": rule_id, "type": "custom", "engine": "expressif", **more, "implementation":
            json.dumps({"version": "1", "kind": kind, "scope": scope, "program": program})}


EXPRESSIF = {
    "apiVersion": "v3.1.0", "kind": "DataContract", "id": "x", "version": "1.0.0",
    "status": "active", "schema": [{"name": "orders", "quality": [
        {"id": "volume", "metric": "rowCount", "mustBe": 10},
        _expressif("row_positive", "[amount] |? positive", "row"),
        _expressif("total", "[amount] | sum", "dataset", "expression", mustBe=55),
        _expressif("every_positive", "[amount] | positive | every", "dataset", "expression"),
        _expressif("observed", "positive", "observation"),
    ], "properties": [{"name": "amount", "logicalType": "number", "quality": [
        _expressif("amount_positive", "positive", "value"),
        _expressif("above_min", "greater-than(@min)", "value", arguments={"min": 0}),
        _expressif("above_param", "greater-than(@floor)", "value"),
        _expressif("above_unbound", "greater-than(@nowhere)", "value"),
    ]}]}],
}


def test_expressif_rules_are_columns_of_the_gate_scan(project: Project) -> None:
    """Expressif value, row and dataset rules ride in the hook's one fused scan like library
    rules, their variables bound by the driver as `check` binds them (the rule's `arguments`,
    else the var packata_sql_params); the gate has no caller to supply an observation."""
    code, plan = _generate(project, "orders.expressif.odcs.yaml", json.dumps(EXPRESSIF))
    assert code == 0 and "packata_plan__orders" in plan
    good = project.invoke("--select", "orders")
    rules = good.rules()
    assert {key: rules[key][0] for key in rules} == {
        "volume": "passed", "row_positive": "passed", "total": "passed",
        "every_positive": "passed", "observed": "inconclusive", "amount_positive": "passed",
        "above_min": "passed", "above_param": "passed", "above_unbound": "skipped"}
    assert rules["amount_positive"] == ("passed", [0, 1], None)  # no violation by default
    assert rules["every_positive"] == ("passed", True, None)
    assert rules["observed"][2] == "no-observation"
    assert rules["above_unbound"][2] == "missing-parameter"
    assert '_min": 0' in plan and '"floor"' in plan  # values and names, bound; never SQL text
    bad = project.invoke("--select", "orders", defects=("neg",))  # order 3 is -5.00
    rules = bad.rules()
    assert rules["amount_positive"] == ("failed", [1, 1], None)
    assert rules["row_positive"] == ("failed", [1, 1], None)
    assert rules["above_min"] == rules["above_param"] == ("failed", [1, 1], None)
    assert rules["every_positive"] == ("failed", False, None)
    assert rules["total"][0] == "failed"  # 47, not 55
    assert bad.statuses == {"orders": "error"}
    empty = project.invoke("--select", "orders", defects=("empty",)).rules()
    assert empty["amount_positive"] == ("inconclusive", None, "empty-population")


def test_postgres_binds_expressif_variables_in_the_gate_scan(
        postgres: object, tmp_path_factory: pytest.TempPathFactory) -> None:
    """psycopg2 reads the scan's `%s` markers (and its `%%`) with the values the runtime
    binds: the rule's argument and the var packata_sql_params."""
    from .dbt_harness import projects

    for project in projects("postgres", tmp_path_factory.mktemp("dbt_expressif_pg"), postgres):
        code, plan = _generate(project, "orders.expressif.odcs.yaml", json.dumps(EXPRESSIF))
        assert code == 0 and "\\u0025s" in plan  # %s, escaped in the generated JSON
        rules = project.invoke("--select", "orders").rules()
        assert rules["above_min"] == rules["above_param"] == ("passed", [0, 1], None)
        assert rules["above_unbound"] == ("skipped", None, "missing-parameter")
        assert rules["total"][0] == "passed"


#: Rules whose generated SQL holds a literal `%` and binds nothing: Expressif text literals
#: and a library pattern. psycopg2 reads every `%` of a statement handed a list of values (the
#: runtime always hands one, empty or not) as the start of a marker.
PERCENT = {
    "apiVersion": "v3.1.0", "kind": "DataContract", "id": "x", "version": "1.0.0",
    "status": "active", "schema": [{"name": "orders", "quality": [
        {"id": "volume", "metric": "rowCount", "mustBe": 10},
    ], "properties": [{"name": "status", "logicalType": "string", "quality": [
        _expressif("appended", "append(%) | count-substring(%)", "value", "expression",
                   mustBe=1),
        _expressif("percent_in_status", "count-substring(%)", "value", "expression", mustBe=1),
        {"id": "pattern", "metric": "invalidValues", "arguments": {"pattern": "^[a-z]+%?$"},
         "mustBe": 0},
    ]}]}],
}


def test_postgres_a_literal_percent_without_variables_reaches_the_engine_as_written(
        postgres: object, tmp_path_factory: pytest.TempPathFactory) -> None:
    """Alone, and beside a rule that binds a variable, the scan's `%` are `%%` in the plan,
    so psycopg2 hands the engine the `%` the rule wrote."""
    from .dbt_harness import projects

    alone = PERCENT
    beside = json.loads(json.dumps(PERCENT))
    beside["schema"][0]["quality"].append(
        _expressif("above_min", "[amount] |? greater-than(@min)", "row", arguments={"min": 0}))
    for project in projects("postgres", tmp_path_factory.mktemp("dbt_percent_pg"), postgres):
        for contract in (alone, beside):
            code, plan = _generate(project, "orders.percent.odcs.yaml", json.dumps(contract))
            assert code == 0 and "\\u0025\\u0025" in plan  # %%, escaped in the generated JSON
            outcome = project.invoke("--select", "orders")
            rules = outcome.rules()
            assert rules["volume"] == ("passed", [10, 1], None)
            assert rules["appended"] == ("passed", [0, 1], None)  # 'placed%' holds one '%'
            assert rules["percent_in_status"] == ("failed", [10, 1], None)  # no status holds one
            assert rules["pattern"] == ("passed", [0, 1], None)
            if contract is beside:
                assert rules["above_min"] == ("passed", [0, 1], None)
            assert outcome.statuses == {"orders": "error"}  # percent_in_status fails it


STAMPED = {
    "apiVersion": "v3.1.0", "kind": "DataContract", "id": "x", "version": "1.0.0",
    "status": "active", "schema": [{"name": "stamped", "properties": [
        {"name": "placed_at", "logicalType": "timestamp", "quality": [
            _expressif("placed_before_now", "before(@observationTime)", "value"),
        ]}]}],
}
#: Ten orders placed 2026-01-02T00:00Z to 2026-01-11T00:00Z, one a day.
STAMPED_MODEL = ("select i as order_id, timestamptz '2026-01-01 00:00:00+00' + i * interval 1 day"
                 " as placed_at from range(1, 11) t(i)\n")


def test_observation_time_is_the_var_the_gate_reads(project: Project) -> None:
    """`@observationTime` is the run's observation instant: the var packata_sql_observed_at
    (bound by the driver), else dbt's run_started_at."""
    from packata_sql.cli.main import main

    (project.root / "models" / "stamped.sql").write_text(STAMPED_MODEL, encoding="utf-8")
    path = project.root / "stamped.odcs.yaml"
    path.write_text(json.dumps(STAMPED), encoding="utf-8")
    try:
        assert main(["dbt", "generate", str(path), "--project-dir", str(project.root)]) == 0
        plan = (project.root / "macros" / "packata_sql" / "stamped.sql").read_text("utf-8")
        assert '"observation_time"' in plan  # a driver parameter, never an instant in SQL
        now = project.invoke("--select", "stamped")
        assert now.rules("stamped") == {"placed_before_now": ("passed", [0, 1], None)}
        replayed = project.invoke("--select", "stamped",
                                  variables={"packata_sql_observed_at": "2026-01-05T12:00:00Z"})
        # placed on the 6th to the 11th: not before the observation instant
        assert replayed.rules("stamped") == {"placed_before_now": ("failed", [6, 1], None)}
        assert replayed.statuses == {"stamped": "error"}
        edge = project.invoke("--select", "stamped",
                              variables={"packata_sql_observed_at": "2026-01-06T00:00:00Z"})
        # the order placed at that very instant is not before it: still six
        assert edge.rules("stamped") == {"placed_before_now": ("failed", [6, 1], None)}
    finally:
        (project.root / "models" / "stamped.sql").unlink()


def test_a_keyword_cell_leaves_the_gate_rule_inconclusive(project: Project) -> None:
    """The gate reads the NULL count of an Expressif value rule over a text cell the
    language reads as a keyword (`(null)`) as `check` does: inconclusive, and why."""
    from packata_sql.cli.main import main

    contract = {
        "apiVersion": "v3.1.0", "kind": "DataContract", "id": "x", "version": "1.0.0",
        "status": "active", "schema": [{"name": "keyworded", "properties": [
            {"name": "note", "logicalType": "string", "quality": [
                _expressif("note_es", "count-substring(e)", "value", "expression",
                           mustBeLessThan=2)]},
            {"name": "n", "logicalType": "integer", "quality": [
                _expressif("n_positive", "positive", "value")]}]}],
    }
    model = project.root / "models" / "keyworded.sql"
    model.write_text("select 'new' as note, 1 as n union all select ' (NULL) ', 2\n",
                     encoding="utf-8")
    path = project.root / "keyworded.odcs.yaml"
    path.write_text(json.dumps(contract), encoding="utf-8")
    try:
        assert main(["dbt", "generate", str(path), "--project-dir", str(project.root)]) == 0
        outcome = project.invoke("--select", "keyworded")
        assert outcome.rules("keyworded") == {
            "note_es": ("inconclusive", None, "expressif-in-band-value"),
            "n_positive": ("passed", [0, 1], None)}
    finally:
        model.unlink()
