"""Path 1, the gate: `packata-sql dbt generate` + the post-hook, driven through real dbt on a
DuckDB file and on PostgreSQL (dbt.md §6.5 scenarios 1–13).

Every row records the invocation that built it (`mark`), so "the previous table stays live" is
checked directly. Runs that change dbt vars make dbt re-parse the project (seconds each), so
those tests come last.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from .dbt_harness import CONTRACT, Outcome, Project, projects

LIBRARY = {"orders_not_empty", "order_id_unique", "order_email_unique", "email_format", "status_known"}
COLUMNS = ["order_id", "email", "amount", "status", "mark"]
README = Path(__file__).resolve().parents[1] / "README.md"


@pytest.fixture(scope="module", params=["duckdb", "postgres"])
def project(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Project]:
    kind = str(request.param)
    server = request.getfixturevalue("postgres") if kind == "postgres" else None
    yield from projects(kind, tmp_path_factory.mktemp(f"dbt_{kind}"), server)


def live(project: Project) -> set[str]:
    """The marks of the committed table, building a good one first when there is none."""
    if not project.marks():
        outcome = project.invoke("--select", "orders")
        assert outcome.success, outcome.messages
    marks = project.marks()
    assert len(marks) == 1
    return marks


def library_passed(outcome: Outcome) -> bool:
    statuses = outcome.statuses_of()
    return {k: statuses.get(k) for k in LIBRARY} == dict.fromkeys(LIBRARY, "passed")


def test_generate_check_and_bad_contract(project: Project, capsys: pytest.CaptureFixture[str]) -> None:
    assert project.generate("--check") == 0
    contract = project.root / CONTRACT
    original = contract.read_text(encoding="utf-8")
    try:
        contract.write_text(original.replace("mustBeLessThan: 10", "mustBeLessThan: 11"),
                            encoding="utf-8")
        capsys.readouterr()
        assert project.generate("--check") == 1
        assert "stale: macros/packata_sql/orders.sql" in capsys.readouterr().err
        before = {p.name: p.read_bytes() for p in (project.root / "macros/packata_sql").iterdir()}
        contract.write_text(original.replace("schema:", "schema: [unclosed", 1), encoding="utf-8")
        assert project.generate() == 3
        after = {p.name: p.read_bytes() for p in (project.root / "macros/packata_sql").iterdir()}
        assert after == before  # a contract that does not load writes nothing
    finally:
        contract.write_text(original, encoding="utf-8")
    assert project.generate("--check") == 0


def test_good_data_passes(project: Project) -> None:
    outcome = project.invoke("--select", "orders+")
    assert outcome.success
    assert outcome.statuses == {"orders": "success", "orders_daily": "success"}
    assert library_passed(outcome)
    rules = outcome.rules()
    assert rules["status_note"] == ("skipped", None, "text-not-executable")
    assert rules["probe_is_data"] == ("skipped", None, "missing-parameter")
    assert rules["no_negative_amounts"] == ("passed", [0, 1], None)
    # PostgreSQL: a plain login in a read-only subtransaction; DuckDB: trusted by the defaults
    assert outcome.runs[0]["read_only"] == ("enforced" if project.target == "postgres" else "trusted")
    assert any("not decided: " in w and "probe_is_data skipped missing-parameter" in w
               for w in outcome.warnings)
    assert project.table("orders") == (10, COLUMNS)
    assert project.marks() == {outcome.mark}


def test_error_failure_fails_the_model_keeps_the_old_table_and_skips_downstream(project: Project) -> None:
    before = live(project)
    outcome = project.invoke("--select", "orders+", defects=("dup",))
    assert not outcome.success
    assert outcome.statuses == {"orders": "error", "orders_daily": "skipped"}
    # dbt's final message names the rule, the value measured and the expectation, then what
    # else the gate found
    message = outcome.messages["orders"]
    assert "; failed: order_id_unique (value 1 row, expected = 0)" in message
    assert "; not decided: " in message and "probe_is_data skipped missing-parameter" in message
    if project.target == "duckdb":  # the README quotes this very message
        shown = re.search(r"<!-- readme-dbt-message -->\n```text\n(.*?)```",
                          README.read_text(encoding="utf-8"), re.S)
        assert shown is not None
        assert message.startswith(shown.group(1).rstrip("\n") + "\n")
    assert outcome.rules()["order_id_unique"] == ("failed", [1, 1], None)
    assert "packata-sql orders | failed (error) | order_id_unique | value 1 row | expected = 0" \
        in outcome.infos  # the rule's own line says it in the same words
    assert project.marks() == before  # rolled back: the previous table is still live


def test_warning_logs_and_publishes(project: Project) -> None:
    outcome = project.invoke("--select", "orders", defects=("bad_email",))
    assert outcome.success and outcome.statuses == {"orders": "success"}
    assert outcome.rules()["email_format"] == ("failed", [500, 10], None)
    assert any("warning-severity failures: email_format (value 50 %, expected < 10 %)" in w
               for w in outcome.warnings)
    assert project.marks() == {outcome.mark}


def test_dropped_column_is_inconclusive(project: Project) -> None:
    outcome = project.invoke("--select", "orders", defects=("drop_status",))
    assert outcome.success
    assert outcome.rules()["status_known"] == ("inconclusive", None, "missing-column")
    assert any("status_known inconclusive missing-column" in w for w in outcome.warnings)
    assert project.table("orders")[1] == [c for c in COLUMNS if c != "status"]


def test_warn_error_makes_an_undecided_rule_fail_the_model(project: Project) -> None:
    """An inconclusive rule is a dbt warning (JinjaLogWarning): dbt's WARN count is for tests
    only (dbt-core #6721), but --warn-error-options turns the warning into the model's error."""
    before = live(project)
    outcome = project.invoke("--select", "orders", "--warn-error-options",
                             '{"error": ["JinjaLogWarning"]}', defects=("drop_status",))
    assert outcome.statuses == {"orders": "error"}
    assert "not decided: status_known inconclusive missing-column" in outcome.messages["orders"]
    assert project.marks() == before


def test_empty_table_fails_row_count_and_percent_is_zero_rows(project: Project) -> None:
    before = live(project)
    outcome = project.invoke("--select", "orders", defects=("empty",))
    assert outcome.statuses == {"orders": "error"}
    assert outcome.rules()["orders_not_empty"] == ("failed", [0, 1], None)
    assert outcome.rules()["email_format"] == ("inconclusive", None, "zero-rows")
    assert project.marks() == before


def test_sql_rule_failing_and_erroring(project: Project) -> None:
    before = live(project)
    failing = project.invoke("--select", "orders", defects=("neg",))
    assert failing.statuses == {"orders": "error"}
    assert failing.rules()["no_negative_amounts"] == ("failed", [1, 1], None)
    broken = project.invoke("--select", "orders", defects=("drop_amount",))
    assert broken.statuses == {"orders": "error"}
    assert "amount" in broken.messages["orders"]  # dbt's own database error
    assert library_passed(broken)  # the library rules were decided and logged before it
    assert project.marks() == before


def test_odd_names_give_the_same_statuses(project: Project) -> None:
    clean = project.invoke("--select", "odd_orders")
    assert clean.success, clean.messages
    assert clean.statuses_of("odd_orders") == {
        "odd_id_unique": "passed", "odd_select_known": "passed", "odd_select_rows": "passed"}
    dirty = project.invoke("--select", "odd_orders", defects=("odd_dup",))
    assert dirty.statuses == {"odd_orders": "error"}
    assert dirty.statuses_of("odd_orders") == {
        "odd_id_unique": "failed", "odd_select_known": "failed", "odd_select_rows": "failed"}
    assert project.table("OddOrders", f"{project.schema}_custom") == (2, ["Order Id", "select"])


@pytest.mark.parametrize("project", ["postgres"], indirect=True)
def test_postgres_a_writing_sql_rule_hits_the_read_only_subtransaction(project: Project) -> None:
    before = project.query(f"SELECT COUNT(*) FROM {project.schema}.packata_log")
    outcome = project.invoke("--select", "writer")
    assert outcome.statuses == {"writer": "error"}
    assert "read-only transaction" in outcome.messages["writer"]
    assert project.query(f"SELECT COUNT(*) FROM {project.schema}.packata_log") == before
    # Followed into its body: the function runs dynamic SQL, so the rule is refused unrun.
    assert outcome.rules("writer")["hides_a_notify"] == ("error", None, "denied-function")


def outside_the_transaction(project: Project, model: str) -> None:
    outcome = project.invoke("--select", model, defects=("dup",))
    assert outcome.statuses == {model: "error"}
    assert "failed: " in outcome.messages[model]
    assert project.marks(model) == {outcome.mark}  # published: the documented limit
    if project.target == "postgres":
        assert any("not inside a transaction here" in line for line in outcome.infos)


def test_after_commit_check_fails_the_run_but_cannot_keep_the_old_table(project: Project) -> None:
    outside_the_transaction(project, "late_orders")


@pytest.mark.parametrize("project", ["postgres"], indirect=True)
def test_postgres_before_begin_hook_leaves_the_check_outside_the_transaction(project: Project) -> None:
    outside_the_transaction(project, "begun_orders")


# From here on, runs change dbt vars (each makes dbt re-parse the project).

def test_fail_on_warning_blocks(project: Project) -> None:
    before = live(project)
    outcome = project.invoke("--select", "orders", defects=("bad_email",),
                             variables={"packata_sql_fail_on": "warning"})
    assert outcome.statuses == {"orders": "error"}
    assert "failed: email_format (value 50 %, expected < 10 %)" in outcome.messages["orders"]
    assert project.marks() == before


def test_incomplete_error_blocks(project: Project) -> None:
    before = live(project)
    outcome = project.invoke("--select", "orders", defects=("drop_status",),
                             variables={"packata_sql_incomplete": "error"})
    assert outcome.statuses == {"orders": "error"}
    assert "status_known inconclusive missing-column" in outcome.messages["orders"]
    assert project.marks() == before


def test_parameters_are_bound_and_an_injection_is_data(project: Project) -> None:
    outcome = project.invoke("--select", "orders", defects=("bad_email",), variables={
        "packata_sql_params": {"min_amount": 7, "probe": "x'; drop table orders; --"}})
    assert outcome.success
    rules = outcome.rules()
    assert rules["emails_outside_example_com"] == ("passed", [2, 1], None)  # ids 8 and 10 only
    assert rules["probe_is_data"] == ("passed", [0, 1], None)
    assert project.marks() == {outcome.mark}


def test_disabled_hook_lets_anything_through(project: Project) -> None:
    outcome = project.invoke("--select", "orders", defects=("dup",),
                             variables={"packata_sql_enabled": False})
    assert outcome.success and outcome.results == []
    assert project.table("orders")[0] == 11


@pytest.mark.parametrize("project", ["duckdb"], indirect=True)
def test_duckdb_refuses_sql_rules_unless_trusted(project: Project) -> None:
    outcome = project.invoke("--select", "orders", defects=("email_int",),
                             variables={"packata_sql_trust_environment": False})
    assert outcome.success  # dbt's read-write connection: SQL rules are refused, not run
    rules = outcome.rules()
    assert rules["no_negative_amounts"] == ("error", None, "read-only-not-guaranteed")
    assert outcome.runs[0]["read_only"] == "dbt-connection"
    assert any("no_negative_amounts error read-only-not-guaranteed" in w for w in outcome.warnings)
    # a pattern on a number column: decided before any statement runs, not a model error
    assert rules["email_format"] == ("inconclusive", None, "type-mismatch")


@pytest.mark.parametrize("project", ["postgres"], indirect=True)
def test_postgres_superuser_sql_rules_refused_unless_trusted(project: Project) -> None:
    try:
        refused = project.invoke("--select", "orders", defects=("email_int",), target="pg_super")
        assert refused.success
        rules = refused.rules()
        assert rules["no_negative_amounts"] == ("error", None, "read-only-not-guaranteed")
        assert rules["email_format"] == ("inconclusive", None, "type-mismatch")
        assert refused.runs[0]["read_only"] == "enforced"
        trusted = project.invoke("--select", "orders", target="pg_super",
                                 variables={"packata_sql_trust_environment": True})
        assert trusted.rules()["no_negative_amounts"] == ("passed", [0, 1], None)
        assert trusted.runs[0]["read_only"] == "trusted"
    finally:
        project.give_back("orders")


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


@pytest.mark.parametrize("project", ["duckdb"], indirect=True)
def test_an_unknown_fail_on_value_is_refused(project: Project) -> None:
    outcome = project.invoke("--select", "orders", variables={"packata_sql_fail_on": "sometimes"})
    assert outcome.statuses == {"orders": "error"}
    assert "packata_sql_fail_on is error or warning" in outcome.messages["orders"]
    assert outcome.results == []


def test_an_unknown_metric_and_key_skip_only_their_rules(project: Project,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 19 item 3, the gate: `dbt generate` plans a contract with an unknown metric and an
    unknown object key (printing both, exit 0); the hook skips the misspelt rule, measures the
    others, and the model is undecided, as `check` ends incomplete."""
    contract = project.root / CONTRACT
    original = contract.read_text(encoding="utf-8")
    try:
        contract.write_text(original.replace(
            "      - id: orders_not_empty\n",
            "      - id: orders_counted\n        metric: rowCounts\n        mustBeGreaterThan: 0\n"
            "      - id: orders_not_empty\n", 1).replace(
            "    physicalName: orders\n", "    physicalName: orders\n    descripton: x\n", 1),
            encoding="utf-8")
        capsys.readouterr()
        assert project.generate() == 0
        printed = capsys.readouterr().err
        assert "unknown-metric" in printed and "did you mean 'rowCount'?" in printed
        assert "unknown-key" in printed and "did you mean 'description'?" in printed
        outcome = project.invoke("--select", "orders")
        assert outcome.success  # undecided models warn unless packata_sql_incomplete is error
        assert outcome.rules()["orders_counted"] == ("skipped", None, "unknown-metric")
        assert library_passed(outcome)
        assert any("orders_counted skipped unknown-metric" in w and "unknown-key at schema[0]" in w
                   for w in outcome.warnings), outcome.warnings
        blocked = project.invoke("--select", "orders",
                                 variables={"packata_sql_incomplete": "error"})
        assert blocked.statuses == {"orders": "error"}
        assert "unknown-key at schema[0]" in blocked.messages["orders"]
    finally:
        contract.write_text(original, encoding="utf-8")
        assert project.generate() == 0
