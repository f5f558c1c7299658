"""Path 1, the gate: `packata-sql dbt generate` + the post-hook, driven through real dbt on a
DuckDB file and on PostgreSQL (dbt.md §6.5 scenarios 1–13)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from .dbt_harness import CONTRACT, Project, projects

LIBRARY = {"orders_not_empty", "order_id_unique", "email_format", "status_known"}
PARAMS = {"min_amount": 0}


@pytest.fixture(scope="module", params=["duckdb", "postgres"])
def project(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Project]:
    kind = str(request.param)
    server = request.getfixturevalue("postgres") if kind == "postgres" else None
    yield from projects(kind, tmp_path_factory.mktemp(f"dbt_{kind}"), server)


def sql_allowed(project: Project) -> dict[str, Any]:
    """Variables under which SQL rules run: DuckDB needs trust; PostgreSQL's login is plain."""
    return {"packata_sql_trust_environment": True} if project.target == "duckdb" else {}


def good(project: Project) -> None:
    outcome = project.invoke("--select", "orders", variables={"packata_sql_params": PARAMS})
    assert outcome.success, outcome.messages
    assert project.table("orders")[0] == 10


def test_generate_check_and_bad_contract(project: Project, tmp_path: Path,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    assert project.generate("--check") == 0
    contract = project.root / CONTRACT
    original = contract.read_text(encoding="utf-8")
    try:
        contract.write_text(original.replace("mustBeLessThan: 10", "mustBeLessThan: 11"),
                            encoding="utf-8")
        capsys.readouterr()
        assert project.generate("--check") == 1
        assert "macros/packata_sql/orders.sql" in capsys.readouterr().err
    finally:
        contract.write_text(original, encoding="utf-8")
    assert project.generate("--check") == 0
    before = {p.name: p.read_bytes() for p in (project.root / "macros/packata_sql").iterdir()}
    contract.write_text(original.replace("schema:", "schema: [unclosed", 1), encoding="utf-8")
    try:
        assert project.generate() == 3
    finally:
        contract.write_text(original, encoding="utf-8")
    after = {p.name: p.read_bytes() for p in (project.root / "macros/packata_sql").iterdir()}
    assert after == before


def test_good_data_passes_and_refuses_unguaranteed_sql(project: Project) -> None:
    outcome = project.invoke("--select", "orders+", variables={"packata_sql_params": PARAMS})
    assert outcome.success
    assert outcome.statuses == {"orders": "success", "orders_daily": "success"}
    statuses = outcome.statuses_of()
    assert {k: statuses[k] for k in LIBRARY} == dict.fromkeys(LIBRARY, "passed")
    assert statuses["status_note"] == "skipped"
    assert outcome.rules()["probe_is_data"] == ("skipped", None, "missing-parameter")
    if project.target == "duckdb":  # dbt's read-write connection: SQL rules are refused
        assert outcome.rules()["no_negative_amounts"] == ("error", None, "read-only-not-guaranteed")
        assert outcome.runs[0]["read_only"] == "dbt-connection"
    else:  # a plain login in a read-only subtransaction
        assert statuses["no_negative_amounts"] == "passed"
        assert outcome.runs[0]["read_only"] == "enforced"
    assert any("not decided: " in w and "probe_is_data skipped missing-parameter" in w
               for w in outcome.warnings)
    assert project.table("orders") == (10, ["order_id", "email", "amount", "status"])


def test_error_failure_fails_the_model_keeps_the_old_table_and_skips_downstream(project: Project) -> None:
    good(project)
    outcome = project.invoke("--select", "orders+", variables={"dup": True})
    assert not outcome.success
    assert outcome.statuses == {"orders": "error", "orders_daily": "skipped"}
    assert "failed: order_id_unique" in outcome.messages["orders"]
    assert outcome.rules()["order_id_unique"] == ("failed", [1, 1], None)
    assert project.table("orders")[0] == 10  # rolled back: the previous table is still live


def test_warning_logs_and_fail_on_warning_blocks(project: Project) -> None:
    good(project)
    bad = "SELECT COUNT(*) FROM {} WHERE email = 'not-an-email'".format(project.relation("orders"))
    blocked = project.invoke("--select", "orders",
                             variables={"bad_email": True, "packata_sql_fail_on": "warning"})
    assert blocked.statuses == {"orders": "error"}
    assert "failed: email_format" in blocked.messages["orders"]
    assert project.query(bad)[0][0] == 0  # unchanged
    warned = project.invoke("--select", "orders", variables={"bad_email": True})
    assert warned.success and warned.statuses == {"orders": "success"}
    assert warned.rules()["email_format"] == ("failed", [500, 10], None)
    assert any("warning-severity failures: email_format" in w for w in warned.warnings)
    assert project.query(bad)[0][0] == 5  # replaced


def test_dropped_column_is_inconclusive_and_incomplete_error_blocks(project: Project) -> None:
    good(project)
    blocked = project.invoke("--select", "orders",
                             variables={"drop_status": True, "packata_sql_incomplete": "error"})
    assert blocked.statuses == {"orders": "error"}
    assert "status_known inconclusive missing-column" in blocked.messages["orders"]
    assert "status" in project.table("orders")[1]
    warned = project.invoke("--select", "orders", variables={"drop_status": True})
    assert warned.success
    assert warned.rules()["status_known"] == ("inconclusive", None, "missing-column")
    assert any("status_known inconclusive missing-column" in w for w in warned.warnings)
    assert "status" not in project.table("orders")[1]


def test_empty_table_fails_row_count_and_percent_is_zero_rows(project: Project) -> None:
    outcome = project.invoke("--select", "orders", variables={"empty": True})
    assert outcome.statuses == {"orders": "error"}
    assert outcome.rules()["orders_not_empty"] == ("failed", [0, 1], None)
    assert outcome.rules()["email_format"] == ("inconclusive", None, "zero-rows")


def test_type_mismatch_is_a_status_not_a_model_error(project: Project) -> None:
    outcome = project.invoke("--select", "orders", variables={"email_int": True})
    assert outcome.success
    assert outcome.rules()["email_format"] == ("inconclusive", None, "type-mismatch")


def test_sql_rule_failing_and_erroring(project: Project) -> None:
    good(project)
    failing = project.invoke("--select", "orders", variables={"neg": True, **sql_allowed(project)})
    assert failing.statuses == {"orders": "error"}
    assert failing.rules()["no_negative_amounts"] == ("failed", [1, 1], None)
    broken = project.invoke("--select", "orders",
                            variables={"drop_amount": True, **sql_allowed(project)})
    assert broken.statuses == {"orders": "error"}
    assert "amount" in broken.messages["orders"]  # dbt's own database error
    logged = broken.statuses_of()
    assert {k: logged[k] for k in LIBRARY} == dict.fromkeys(LIBRARY, "passed")  # logged before it
    assert project.table("orders") == (10, ["order_id", "email", "amount", "status"])


def test_parameters_are_bound_and_an_injection_is_data(project: Project) -> None:
    outcome = project.invoke("--select", "orders", variables={
        "bad_email": True, **sql_allowed(project),
        "packata_sql_params": {"min_amount": 7, "probe": "x'; drop table orders; --"}})
    assert outcome.success
    rules = outcome.rules()
    assert rules["emails_outside_example_com"] == ("passed", [2, 1], None)  # ids 8 and 10 only
    assert rules["probe_is_data"] == ("passed", [0, 1], None)
    assert project.table("orders")[0] == 10


def test_odd_names_give_the_same_statuses(project: Project) -> None:
    clean = project.invoke("--select", "odd_orders", variables=sql_allowed(project))
    assert clean.success, clean.messages
    assert clean.statuses_of("odd_orders") == {
        "odd_id_unique": "passed", "odd_select_known": "passed", "odd_select_rows": "passed"}
    dirty = project.invoke("--select", "odd_orders", variables={"odd_dup": True, **sql_allowed(project)})
    assert dirty.statuses == {"odd_orders": "error"}
    assert dirty.statuses_of("odd_orders") == {
        "odd_id_unique": "failed", "odd_select_known": "failed", "odd_select_rows": "failed"}
    assert project.table("OddOrders", f"{project.schema}_custom") == (2, ["Order Id", "select"])


def test_disabled_hook_lets_anything_through(project: Project) -> None:
    outcome = project.invoke("--select", "orders", variables={"dup": True, "packata_sql_enabled": False})
    assert outcome.success and outcome.results == []
    assert project.table("orders")[0] == 11


@pytest.mark.parametrize("project", ["duckdb"], indirect=True)
def test_duckdb_runs_sql_rules_only_when_trusted(project: Project) -> None:
    outcome = project.invoke("--select", "orders", variables={
        "packata_sql_trust_environment": True, "packata_sql_params": PARAMS})
    assert outcome.rules()["no_negative_amounts"] == ("passed", [0, 1], None)
    assert outcome.runs[0]["read_only"] == "trusted"


@pytest.mark.parametrize("project", ["postgres"], indirect=True)
def test_postgres_superuser_sql_rules_refused_unless_trusted(project: Project) -> None:
    try:
        refused = project.invoke("--select", "orders", target="pg_super")
        assert refused.success
        assert refused.rules()["no_negative_amounts"] == ("error", None, "read-only-not-guaranteed")
        assert refused.runs[0]["read_only"] == "enforced"
        trusted = project.invoke("--select", "orders", target="pg_super",
                                 variables={"packata_sql_trust_environment": True})
        assert trusted.rules()["no_negative_amounts"] == ("passed", [0, 1], None)
        assert trusted.runs[0]["read_only"] == "trusted"
    finally:
        project.give_back("orders")


@pytest.mark.parametrize("project", ["postgres"], indirect=True)
def test_postgres_a_writing_sql_rule_hits_the_read_only_subtransaction(project: Project) -> None:
    before = project.query(f"SELECT last_value, is_called FROM {project.schema}.packata_seq")
    outcome = project.invoke("--select", "writer")
    assert outcome.statuses == {"writer": "error"}
    assert "read-only transaction" in outcome.messages["writer"]
    assert project.query(f"SELECT last_value, is_called FROM {project.schema}.packata_seq") == before


@pytest.mark.parametrize("project", ["postgres"], indirect=True)
def test_postgres_plan_for_another_dialect_skips_every_rule(project: Project) -> None:
    try:
        assert project.generate("--dialect", "duckdb") == 0
        outcome = project.invoke("--select", "orders")
        assert outcome.success
        assert set(outcome.rules().values()) == {("skipped", None, "dialect-not-generated")}
        assert any("dialect-not-generated" in w for w in outcome.warnings)
    finally:
        assert project.generate() == 0
