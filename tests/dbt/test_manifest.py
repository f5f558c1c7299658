"""Path 2's mapping from dbt artifacts (plain JSON) to contract objects, without dbt."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from packata_sql.contracts.dbt_manifest import Model, load_models, match
from packata_sql.errors import UsageError


def node(name: str, alias: str | None = None, meta: dict[str, Any] | None = None) -> dict[str, Any]:
    return {"resource_type": "model", "name": name, "alias": alias or name, "schema": "s",
            "config": {"meta": meta or {}}}


def write(tmp_path: Path, nodes: dict[str, Any], results: list[dict[str, str]] | None,
          version: int = 12) -> str:
    target = tmp_path / "target"
    target.mkdir()
    (target / "manifest.json").write_text(json.dumps({
        "metadata": {"dbt_schema_version": f"https://schemas.getdbt.com/dbt/manifest/v{version}.json"},
        "nodes": {**nodes, "test.p.t": {"resource_type": "test", "name": "t"}}}))
    if results is not None:
        (target / "run_results.json").write_text(json.dumps({"results": results}))
    return str(tmp_path)


def test_models_carry_their_status_in_the_last_run(tmp_path: Path) -> None:
    project = write(tmp_path, {"model.p.a": node("a"), "model.p.b": node("b", "B")},
                    [{"unique_id": "model.p.a", "status": "success"}])
    models = {m.name: m for m in load_models(project)}
    assert set(models) == {"a", "b"}
    assert models["a"].status == "success"
    assert models["b"].status is None
    assert models["b"].alias == "B"


def test_without_run_results_nothing_counts_as_built(tmp_path: Path) -> None:
    project = write(tmp_path, {"model.p.a": node("a")}, None)
    assert [m.status for m in load_models(project)] == [None]


@pytest.mark.parametrize("version", [8, 1])
def test_old_manifests_are_refused(tmp_path: Path, version: int) -> None:
    with pytest.raises(UsageError, match="older than manifest v9"):
        load_models(write(tmp_path, {}, [], version))


def test_a_missing_manifest_says_to_run_dbt(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="run dbt in the project first"):
        load_models(str(tmp_path))


def test_match_order_meta_then_alias_then_name() -> None:
    by_meta = Model("model.p.x", "x", "x", "s", "orders", "success")
    by_alias = Model("model.p.y", "y", "fct_orders", "s", None, "success")
    by_name = Model("model.p.orders", "orders", "orders_v2", "s", None, "success")
    models = [by_name, by_alias, by_meta]
    assert match("orders", "fct_orders", models) == [by_meta]
    assert match("orders", "fct_orders", [by_name, by_alias]) == [by_alias]
    assert match("orders", "other", [by_name, by_alias]) == [by_name]
    assert match("orders", "other", [by_alias]) == []
    twins = [by_alias, Model("model.q.y", "y2", "fct_orders", "s2", None, "success")]
    assert len(match("orders", "fct_orders", twins)) == 2


def test_a_pipeline_file_is_mapped_to_its_model(tmp_path: Path) -> None:
    """Path 2 maps every format the compiler reads (issue 20.8): a pipeline file declares no
    schema, and its object (the one its rules name) still finds its model; it compiled to
    nothing before, a report of no rules."""
    from packata_sql.contracts.dbt_manifest import relations
    from packata_sql.contracts.formats import load_declaration
    from packata_sql.dialects import get_dialect
    from packata_sql.plans.relations import compile_on_relations

    project = write(tmp_path, {"model.p.orders": node("orders", "fct_orders",
                                                      {"packata_sql": {"object": "orders"}})},
                    [{"unique_id": "model.p.orders", "status": "success"}])
    pipeline = tmp_path / "pipeline.yaml"
    pipeline.write_text("table: orders\ndata_quality:\n  rules:\n"
                        "    - {name: volume, rule: row_count, mustBeGreaterThan: 0}\n"
                        "    - {name: positive, rule: expression, expression: amount > 0}\n",
                        encoding="utf-8")
    contract = load_declaration(str(pipeline))
    compiled = compile_on_relations(contract, get_dialect("duckdb"),
                                    relations(contract, project), parameters=())
    assert {p.rule.key for p in compiled.ordered} == {"volume", "positive"}
    assert {p.rule.target.physical_object for p in compiled.ordered} == {"fct_orders"}
    assert not compiled.blocked
