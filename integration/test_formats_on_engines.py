"""The worked examples of the JSON quality policy and the pipeline `data_quality` rules measure
the same on DuckDB, SQLite, PostgreSQL and MariaDB (issue 12). Expected values are worked by
hand from ROWS; text is compared exactly whatever the collation ('New', 'new ')."""

from __future__ import annotations

import json
import sqlite3
import textwrap
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import duckdb
import pytest

from packata_sql.contracts.formats import load_declaration
from packata_sql.dialects import get_dialect
from packata_sql.plans.compiler import compile_contract
from packata_sql.report import Outcome, Report, Status
from packata_sql.run.runner import RunOptions, run
from packata_sql.sessions.endpoint import Endpoint

ENGINES = ["duckdb", "sqlite", "postgres", "mysql"]
TABLE = "fm_orders"
# (id, status, amount)
ROWS: list[tuple[Any, ...]] = [
    (1, "new", "10.00"),
    (2, "closed", "0.00"),
    (2, "new", "-0.01"),
    (None, "closed", None),
    (3, "New", "5.50"),
    (4, "new ", "1000.00"),
    (None, None, "2.00"),
    (None, None, "3.00"),
]
TYPES = {
    "duckdb": ("INTEGER", "VARCHAR", "DECIMAL(10, 2)"),
    "sqlite": ("INTEGER", "TEXT", "NUMERIC"),
    "postgres": ("INTEGER", "TEXT", "NUMERIC(10, 2)"),
    "mysql": ("INT", "VARCHAR(20) CHARACTER SET utf8mb4 COLLATE utf8mb4_general_ci",
              "DECIMAL(10, 2)"),
}
# The example policy, aimed at the test table.
POLICY = {
    "version": "monthly-import-v1",
    "object": TABLE,
    "rules": [
        {"id": "non-empty", "type": "row_count", "minimum": 1},
        {"id": "columns", "type": "required_fields", "fields": ["id", "status"]},
        {"id": "id-shape", "type": "field", "field": "id", "data_type": "integer",
         "nullable": False},
        {"id": "id-present", "type": "not_null", "fields": ["id"]},
        {"id": "id-unique", "type": "unique", "fields": ["id"]},
        {"id": "amount-range", "type": "range", "field": "amount", "minimum": 0},
        {"id": "known-status", "type": "referential", "field": "status",
         "allowed_values": ["new", "closed"]},
    ],
    "schema_policy": {"field_added_required": "warning", "field_removed": "breaking"},
}
POLICY_EXPECTED = {
    "non-empty": (Status.PASSED, 8),
    "columns": (Status.PASSED, True),
    "id-shape": (Status.FAILED, 3),  # an integer column, with NULLs in rows 4, 7, 8
    "id-present": (Status.FAILED, 3),
    "id-unique": (Status.FAILED, 3),  # 8 rows, keys {1, 2, 3, 4, NULL}
    "amount-range": (Status.FAILED, 1),  # -0.01; NULL allowed by default
    "known-status": (Status.FAILED, 2),  # 'New', 'new '; NULL allowed by default
}
MORE_POLICY = {
    "object": TABLE,
    "rules": [
        {"id": "at-most-7", "type": "row_count", "minimum": 1, "maximum": 7},
        {"id": "ids-ignoring-nulls", "type": "unique", "field": "id", "ignore_nulls": True},
        {"id": "pair", "type": "unique", "fields": ["id", "status"]},
        {"id": "pair-ignoring-nulls", "type": "unique", "fields": ["id", "status"],
         "ignore_nulls": True},
        {"id": "both-present", "type": "not_null", "fields": ["id", "status"]},
        {"id": "amount-bounded", "type": "range", "field": "amount", "minimum": 0,
         "maximum": 1000, "allow_null": False},
        {"id": "status-strict", "type": "referential", "field": "status",
         "allowed_values": ["new", "closed", "New"], "allow_null": False, "severity": "warning"},
        {"id": "ghost-type", "type": "field", "field": "ghost", "data_type": "string"},
        {"id": "has-ghost", "type": "required_fields", "fields": ["id", "ghost"]},
        {"id": "status-int", "type": "field", "field": "status", "data_type": "integer",
         "nullable": False},
        {"id": "amount-set", "type": "field", "field": "amount", "nullable": False},
        {"id": "ghost-set", "type": "field", "field": "ghost", "nullable": False},
        {"id": "status-text", "type": "field", "field": "status", "data_type": "string"},
        {"id": "largest-set", "type": "referential", "field": "status",  # the cap: 1000
         "allowed_values": ["new", "closed", "new "] + [f"v{i}" for i in range(997)]},
    ],
}
MORE_EXPECTED = {
    "at-most-7": (Status.FAILED, 8),
    "ids-ignoring-nulls": (Status.FAILED, 1),  # ids 1, 2, 2, 3, 4
    "pair": (Status.FAILED, 1),  # (NULL, NULL) twice
    "pair-ignoring-nulls": (Status.PASSED, 0),
    "both-present": (Status.FAILED, 3),  # rows 4, 7, 8
    "amount-bounded": (Status.FAILED, 2),  # -0.01 and row 4's NULL; 1000 is inside
    "status-strict": (Status.FAILED, 3),  # 'new ' and two NULLs
    "ghost-type": (Status.FAILED, False),
    "has-ghost": (Status.FAILED, False),
    "status-int": (Status.FAILED, False),  # the type fails first; its NULLs are not counted
    "amount-set": (Status.FAILED, 1),  # row 4
    "ghost-set": (Status.FAILED, False),
    "status-text": (Status.PASSED, True),
    "largest-set": (Status.FAILED, 1),  # 'New'
}
BOUNDED = textwrap.dedent(f"""\
    table: {TABLE}
    data_quality:
      rules:
        - name: bounded_volume
          rule: row_count
          mustBeGreaterThan: 0
          mustBeLessThan: 1000
          severity: error
""")
PIPELINE = BOUNDED + """\
    - name: ids_and_status
      rule: not_null
      columns: [id, status]
    - name: some_nulls_expected
      rule: not_null
      column: id
      mustNotBe: 0
    - name: unique_ids
      rule: unique
      column: id
    - name: known_status
      rule: accepted_values
      column: status
      values: [new, closed]
    - name: lower_case
      rule: regex
      column: status
      pattern: "^[a-z]+$"
      must_be_less_or_equal_to: 2
    - name: sane_amount
      rule: range
      column: amount
      minimum: 0
      maximum: 100
      severity: warning
    - name: positive_with_id
      rule: expression
      expression: amount >= 0 AND id IS NOT NULL -- a comment stays out of the scan
    - name: scored_by_python
      rule: custom
      callable: checks.score
"""
PIPELINE_EXPECTED = {
    "bounded_volume": (Status.PASSED, 8),
    "ids_and_status": (Status.FAILED, 3),
    "some_nulls_expected": (Status.PASSED, 3),
    "unique_ids": (Status.FAILED, 3),
    "known_status": (Status.FAILED, 2),
    "lower_case": (Status.PASSED, 2),  # 'New', 'new '
    "sane_amount": (Status.FAILED, 2),  # -0.01, 1000.00
    "positive_with_id": (Status.FAILED, 4),  # rows 3, 4, 7, 8 (NULL id is not true)
    "scored_by_python": (Status.SKIPPED, None),
}


def _create(engine: str) -> list[str]:
    dialect = get_dialect(engine)
    table = dialect.quote_identifier(TABLE)
    columns = ", ".join(f"{dialect.quote_identifier(name)} {kind}"
                        for name, kind in zip(("id", "status", "amount"), TYPES[engine], strict=True))
    return [f"DROP TABLE IF EXISTS {table}", f"CREATE TABLE {table} ({columns})"]


def _insert(engine: str, marker: str) -> str:
    return f"INSERT INTO {get_dialect(engine).quote_identifier(TABLE)} VALUES " \
           f"({marker}, {marker}, {marker})"


@pytest.fixture
def warehouse(request: pytest.FixtureRequest, tmp_path: Path) -> Any:
    """load(rows) → the endpoint of a fresh TABLE holding `rows` on the engine under test."""
    engine = request.param
    server = request.getfixturevalue(engine) if engine in ("postgres", "mysql") else None

    def load(rows: Sequence[tuple[Any, ...]]) -> Endpoint:
        if server is None:
            path = tmp_path / f"fm-{len(rows)}.{engine}"
            connection: Any = duckdb.connect(str(path)) if engine == "duckdb" \
                else sqlite3.connect(str(path))
            for statement in _create(engine):
                connection.execute(statement)
            if rows:
                connection.executemany(_insert(engine, "?"), rows)
            if engine == "sqlite":
                connection.commit()
            connection.close()
            return Endpoint(engine, str(path))
        server.execute(*_create(engine))
        connection = server.connect()
        try:
            if rows:
                connection.cursor().executemany(_insert(engine, "%s"), rows)
        finally:
            connection.close()
        return server.reader

    yield load
    if server is not None:
        server.execute(_create(engine)[0])


def check(endpoint: Endpoint, path: Path, **options: Any) -> Report:
    contract = load_declaration(str(path))
    compiled = compile_contract(contract, get_dialect(endpoint.engine), prefix=endpoint.schema)
    return run(contract, compiled, endpoint, RunOptions(**options))


def _measured(report: Report) -> dict[str, tuple[Status, object]]:
    return {r.key: (r.status, r.value) for r in report.results}


@pytest.mark.parametrize("warehouse", ENGINES, indirect=True)
def test_the_example_policy_on_every_engine(warehouse, tmp_path):
    endpoint = warehouse(ROWS)
    (tmp_path / "policy.json").write_text(json.dumps(POLICY, indent=2), encoding="utf-8")
    (tmp_path / "more.json").write_text(json.dumps(MORE_POLICY), encoding="utf-8")
    report = check(endpoint, tmp_path / "policy.json")
    assert _measured(report) == POLICY_EXPECTED, [(r.key, r.diagnostic) for r in report.results]
    row_reading = [r for r in report.results if r.key != "columns"]
    assert all(r.fused for r in row_reading)  # one scan for the object
    more = check(endpoint, tmp_path / "more.json")
    assert _measured(more) == MORE_EXPECTED, [(r.key, r.diagnostic) for r in more.results]
    by_key = {r.key: r for r in more.results}
    assert by_key["at-most-7"].failed == ("<= 7",)
    assert by_key["has-ghost"].failed == ("the column ghost to exist",)
    assert by_key["status-int"].failed[0].startswith("a type compatible with logicalType integer")
    assert by_key["amount-set"].failed == ("= 0",) and by_key["amount-set"].fused
    assert by_key["status-strict"].severity.value == "warning"


@pytest.mark.parametrize("warehouse", ENGINES, indirect=True)
def test_the_pipeline_rules_on_every_engine(warehouse, tmp_path):
    endpoint = warehouse(ROWS)
    (tmp_path / "pipeline.yaml").write_text(PIPELINE, encoding="utf-8")
    report = check(endpoint, tmp_path / "pipeline.yaml")
    assert _measured(report) == PIPELINE_EXPECTED, [(r.key, r.diagnostic) for r in report.results]
    measured = [r for r in report.results if r.status is not Status.SKIPPED]
    # Every row-reading rule in the one scan; the expression is authored SQL (issue 20.1) and
    # runs as its own query, where authored SQL may run.
    assert all(r.fused != (r.key == "positive_with_id") for r in measured)
    by_key = {r.key: r for r in report.results}
    assert by_key["scored_by_python"].diagnostic.code == "custom-engine-not-supported"
    assert by_key["sane_amount"].failed == ("= 0",)
    assert report.outcome is Outcome.FAIL




@pytest.mark.parametrize("warehouse", ENGINES, indirect=True)
@pytest.mark.parametrize(("rows", "status", "failed"), [
    (0, Status.FAILED, ("> 0",)),
    (1, Status.PASSED, ()),
    (999, Status.PASSED, ()),
    (1000, Status.FAILED, ("< 1000",)),
])
def test_bounded_volume(warehouse, tmp_path, rows, status, failed):
    endpoint = warehouse([(i, "new", "1.00") for i in range(rows)])
    (tmp_path / "bounded.yaml").write_text(BOUNDED, encoding="utf-8")
    [result] = check(endpoint, tmp_path / "bounded.yaml").results
    assert (result.status, result.value, result.failed) == (status, rows, failed)


# Seven failed assertions declared in shuffled order, camelCase and snake_case mixed.
SHUFFLED = textwrap.dedent(f"""\
    table: {TABLE}
    data_quality:
      rules:
        - name: all_wrong
          rule: row_count
          mustNotBe: 8
          must_be_less_or_equal_to: 5
          mustBeBetween: [10, 20]
          mustBeGreaterThan: 8
          must_be: 3
          mustBeLessThan: 2
          must_be_greater_or_equal_to: 9
""")


@pytest.mark.parametrize("warehouse", ENGINES, indirect=True)
def test_failure_guidance_follows_the_fixed_order(warehouse, tmp_path):
    endpoint = warehouse(ROWS)
    (tmp_path / "shuffled.yaml").write_text(SHUFFLED, encoding="utf-8")
    [result] = check(endpoint, tmp_path / "shuffled.yaml").results
    assert result.status is Status.FAILED and result.value == 8
    assert result.failed == ("= 3", "> 8", ">= 9", "< 2", "<= 5", "in [10, 20]", "!= 8")


@pytest.mark.parametrize("warehouse", ENGINES, indirect=True)
def test_an_expression_runs_as_an_authored_query_with_its_percent_signs(warehouse, tmp_path):
    """An expression is authored SQL (issue 20.1), run as its own query: a `%` in its literals
    reaches the engine as written on every driver (psycopg and PyMySQL read `%` markers)."""
    endpoint = warehouse(ROWS)
    (tmp_path / "pipeline.yaml").write_text(
        f"table: {TABLE}\ndata_quality:\n  rules:\n"
        "    - {name: percent, rule: expression, expression: \"status LIKE '%e%' AND "
        "'50%' <> status AND LENGTH('%') = 1\"}\n", encoding="utf-8")
    report = check(endpoint, tmp_path / "pipeline.yaml")
    (result,) = report.results
    assert (result.status, result.value, result.fused) == (Status.FAILED, 2, False)  # 2 NULLs
    assert report.authored_sql == "allowed" and result.kind == "expression"


@pytest.mark.parametrize("warehouse", ["postgres"], indirect=True)
def test_an_expression_on_an_unquoted_reading_of_its_table(warehouse, tmp_path):
    """`table: FM_ORDERS` names no table on PostgreSQL, which reads the unquoted name as
    fm_orders: the expression's query is bound again to that reading, as a SQL rule's is."""
    endpoint = warehouse(ROWS)
    (tmp_path / "pipeline.yaml").write_text(
        f"table: {TABLE.upper()}\ndata_quality:\n  rules:\n"
        "    - {name: positive, rule: expression, expression: amount >= 0}\n", encoding="utf-8")
    report = check(endpoint, tmp_path / "pipeline.yaml")
    (result,) = report.results
    assert (result.status, result.value) == (Status.FAILED, 2), result.diagnostic  # -0.01, NULL
