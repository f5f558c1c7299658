"""The starter readers on their own (no server, no dbt): a manifest's tests and models as ODCS
says them or as notes, and pg_dump-style DDL (keys added by ALTER TABLE). docs/cli.md, init and
import."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from packata_sql import api
from packata_sql.errors import UsageError


def _test(name: str, column: str, model: str = "model.p.orders", **extra: Any) -> dict[str, Any]:
    kwargs = {"column_name": column, **extra.pop("kwargs", {})}
    return {"resource_type": "test", "name": f"{name}_{column}", "attached_node": model,
            "column_name": column, "depends_on": {"nodes": [model, *extra.pop("parents", [])]},
            "test_metadata": {"name": name, "namespace": extra.pop("namespace", None),
                              "kwargs": kwargs},
            "config": extra.pop("config", {})}


def _model(name: str, **extra: Any) -> dict[str, Any]:
    return {"resource_type": "model", "package_name": "p", "name": name, "alias": name,
            "unique_id": f"model.p.{name}", "schema": "analytics", **extra}


@pytest.fixture
def manifest(tmp_path: Path) -> Path:
    nodes = {
        "model.p.orders": _model(
            "orders", alias="fct_orders", description="One row per order.",
            columns={"id": {"name": "id", "data_type": "bigint", "description": "The key.",
                            "constraints": [{"type": "primary_key"}, {"type": "check"}]},
                     "status": {"name": "status", "data_type": "text"},
                     "customer_id": {"name": "customer_id", "data_type": "integer"},
                     "note": {"name": "note"}}),
        "model.p.customers": _model("customers", columns={}),
        "model.p.elsewhere": _model("elsewhere", schema="other", columns={}),
        "model.p.scratch": _model("scratch", config={"materialized": "ephemeral"}),
        "model.dep.package_model": {**_model("package_model"), "package_name": "dep"},
        "t1": _test("accepted_values", "status", kwargs={"values": ["open", "done"]},
                    config={"severity": "warn"}),
        "t2": _test("relationships", "customer_id", parents=["model.p.customers"],
                    kwargs={"to": "ref('customers')", "field": "id"}),
        "t3": _test("relationships", "customer_id", parents=["model.p.elsewhere"],
                    kwargs={"to": "ref('elsewhere')", "field": "id"}),
        "t4": _test("not_null", "status", config={"where": "status <> ''"}),
        "t5": _test("unique_combination_of_columns", "id", namespace="dbt_utils"),
        "t6": _test("not_null", "lower(note)"),
        "t7": _test("unique", "note", config={"severity": "warn"}),
        "t8": {"resource_type": "test", "name": "assert_no_refunds",
               "depends_on": {"nodes": ["model.p.orders"]}},
    }
    path = tmp_path / "manifest.json"
    path.write_text(json.dumps({"metadata": {"project_name": "p", "adapter_type": "postgres"},
                                "nodes": nodes}), encoding="utf-8")
    return path


def test_a_manifest_says_in_odcs_what_odcs_can_say(manifest: Path) -> None:
    starter = api.import_dbt(manifest, models=["orders"], url="postgresql://h/db")
    document = yaml.safe_load(starter.text)
    assert document["servers"][0]["schema"] == "analytics"  # where the models are built
    [orders] = document["schema"]
    assert (orders["name"], orders["physicalName"], orders["description"]) == \
        ("orders", "fct_orders", "One row per order.")
    props = {p["name"]: p for p in orders["properties"]}
    assert props["id"] == {"name": "id", "logicalType": "integer", "physicalType": "bigint",
                           "description": "The key.", "primaryKey": True,
                           "primaryKeyPosition": 1}
    [values] = props["status"]["quality"]
    assert values["severity"] == "warning"  # dbt's severity: warn
    assert values["arguments"]["validValues"] == ["open", "done", None]
    assert "required" not in props["status"]  # the not_null had a `where`
    [reference] = props["customer_id"]["quality"]  # the parent in another schema: not imported
    assert '"customers" AS parent WHERE parent."id"' in reference["query"]
    assert "severity" not in reference
    assert props["note"] == {"name": "note", "unique": True}
    notes = "\n".join(starter.not_imported)
    for expected in ("dbt constraint 'check': not imported",
                     "the parent is in schema other, not analytics",
                     "its `where` filter has no ODCS equivalent",
                     "dbt test dbt_utils.unique_combination_of_columns",
                     "on an expression, not a column",
                     "has severity warn; a schema constraint is always an error",
                     "dbt test assert_no_refunds: a singular test",
                     "no data_type in the manifest for note"):
        assert expected in notes, expected


def test_the_project_s_own_models_by_name_and_their_notes(manifest: Path) -> None:
    starter = api.import_dbt(manifest)
    assert starter.objects == ("customers", "elsewhere", "orders", "scratch")  # not packages'
    notes = "\n".join(starter.not_imported)
    assert "scratch: an ephemeral model builds no relation" in notes
    assert "elsewhere: built in schema other, not analytics" in notes
    with pytest.raises(UsageError, match="did you mean 'orders'"):
        api.import_dbt(manifest, models=["ordrs"])


def test_pg_dump_keys_added_by_alter_table(tmp_path: Path) -> None:
    dump = tmp_path / "dump.sql"
    dump.write_text(
        "SET statement_timeout = 0;\n"
        "CREATE TABLE public.orders (id integer NOT NULL, line integer NOT NULL, "
        "code text, customer integer);\n"
        "CREATE TABLE public.customers (id integer NOT NULL);\n"
        "ALTER TABLE ONLY public.orders ADD CONSTRAINT orders_pkey PRIMARY KEY (line, id);\n"
        "ALTER TABLE ONLY public.orders ADD CONSTRAINT orders_code_key UNIQUE (code);\n"
        "ALTER TABLE ONLY public.orders ADD CONSTRAINT orders_fk FOREIGN KEY (customer) "
        "REFERENCES public.customers(id);\n"
        "DROP TABLE public.gone;\n", encoding="utf-8")
    starter = api.import_sql([dump], "postgres")
    orders, _ = yaml.safe_load(starter.text)["schema"]
    props = {p["name"]: p for p in orders["properties"]}
    assert (props["line"]["primaryKeyPosition"], props["id"]["primaryKeyPosition"]) == (1, 2)
    assert props["code"]["unique"] is True
    assert props["customer"]["quality"][0]["type"] == "sql"
    [dropped] = starter.not_imported
    assert dropped.startswith("customers: ") and dropped.endswith(
        "dump.sql:7: a DROP statement is not read")  # SET and ALTER … ADD are read silently
