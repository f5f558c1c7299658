"""SQL rules on PostgreSQL and MariaDB through a SELECT-only login: placeholders, parameters
with literal `%`, and the single-cell rule (docs/semantics.md 4.4)."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from packata_sql.contracts.odcs import load_odcs
from packata_sql.dialects import get_dialect
from packata_sql.plans.compiler import compile_contract
from packata_sql.report import Status
from packata_sql.run.runner import RunOptions, run


def check(server, tmp_path: Path, query: str, parameters: dict | None = None,
          timeout_s: float = 30, **expect):
    document = {
        "apiVersion": "v3.1.0", "kind": "DataContract", "id": "s", "version": "1.0.0",
        "status": "active",
        "schema": [{"name": "Rule Table", "properties": [
            {"name": "it's", "quality": [{"id": "r", "type": "sql", "query": query, **expect}]}
        ]}],
    }
    path = tmp_path / "c.yaml"
    path.write_text(yaml.safe_dump(document), encoding="utf-8")
    loaded = load_odcs(str(path))
    compiled = compile_contract(loaded, get_dialect(server.engine), parameters=parameters or {})
    report = run(loaded, compiled, server.reader,
                 RunOptions(parameters=parameters or {}, timeout_s=timeout_s))
    return report.results[0]


@pytest.fixture
def rule_table(server):
    dialect = get_dialect(server.engine)
    table, column = dialect.quote_identifier("Rule Table"), dialect.quote_identifier("it's")
    server.execute(f"DROP TABLE IF EXISTS {table}", f"CREATE TABLE {table} ({column} VARCHAR(20))")
    for value in ("ab", "a%", "b", None):
        server.execute(f"INSERT INTO {table} VALUES (%s)", parameters=[value])
    yield server
    server.execute(f"DROP TABLE IF EXISTS {table}")


def test_parameters_and_literal_percent(rule_table, tmp_path):
    result = check(rule_table, tmp_path,
                   "SELECT COUNT(*) FROM {object} WHERE {property} LIKE 'a%' "
                   "AND {property} <> {param:p}",
                   {"p": "ab"}, mustBe=1)
    assert (result.status, result.value) == (Status.PASSED, 1)


def test_literal_percent_without_parameters(rule_table, tmp_path):
    result = check(rule_table, tmp_path, "SELECT COUNT(*) FROM {object} WHERE {property} LIKE '%b'",
                   mustBe=2)
    assert (result.status, result.value) == (Status.PASSED, 2)


@pytest.mark.parametrize("query,code", [
    ("SELECT {property} FROM {object}", "several-rows"),
    ("SELECT 1, 2", "several-columns"),
    ("SELECT {property} FROM {object} WHERE 1 = 0", "no-rows"),
    ("SELECT MAX({property}) FROM {object} WHERE {property} = 'zz'", "null-result"),
    ("SELECT 'text'", "not-a-number"),
])
def test_single_cell_rule_on_servers(rule_table, tmp_path, query, code):
    result = check(rule_table, tmp_path, query, mustBe=0)
    assert (result.status, result.diagnostic.code) == (Status.INCONCLUSIVE, code)


def test_timeout_on_servers(rule_table, tmp_path):
    # Slow without a sleep function (the binder refuses those): ~10^8 joined rows.
    slow = ("SELECT COUNT(*) FROM generate_series(1, 20000) a CROSS JOIN generate_series(1, 20000) b"
            if rule_table.engine == "postgres" else
            "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 600) "
            "SELECT COUNT(*) FROM r a, r b, r c")
    result = check(rule_table, tmp_path, slow, timeout_s=0.5, mustBe=0)
    assert (result.status, result.diagnostic.code) == (Status.INCONCLUSIVE, "timeout")


def test_a_table_packed_into_one_number_is_out_of_range(rule_table, tmp_path):
    """Every character of the column as three-digit code points in one NUMERIC / DECIMAL(65)
    (padded: the table is small): beyond 38 significant digits the value is
    `value-out-of-range` and is never reported."""
    if rule_table.engine == "postgres":
        packed = ("SELECT CAST('1' || string_agg(lpad(CAST(ascii(c) AS text), 3, '0'), '') "
                  "|| repeat('7', 50) AS numeric) "
                  "FROM (SELECT regexp_split_to_table(string_agg({property}, ','), '') AS c "
                  "FROM {object}) AS chars")
    else:
        packed = ("SELECT CAST(CONCAT('1', GROUP_CONCAT(LPAD(ORD({property}), 3, '0') SEPARATOR ''), "
                  "REPEAT('7', 50)) AS DECIMAL(65, 0)) FROM {object}")
    result = check(rule_table, tmp_path, packed, mustBe=0)
    assert (result.status, result.diagnostic.code) == (Status.INCONCLUSIVE, "value-out-of-range")
    assert (result.value, result.evidence) == (None, {})


def test_tiny_exponents_are_out_of_range_large_measurements_are_not(rule_table, tmp_path):
    tiny = "SELECT CAST('1e-400' AS DECIMAL(65, 30))" if rule_table.engine == "mysql" \
        else "SELECT CAST('1e-400' AS numeric)"
    if rule_table.engine == "postgres":
        result = check(rule_table, tmp_path, tiny, mustBe=0)
        assert (result.status, result.diagnostic.code) == (Status.INCONCLUSIVE, "value-out-of-range")
    big = "SELECT CAST('12345678901234567890123456789012345678' AS DECIMAL(38, 0))"
    result = check(rule_table, tmp_path, big, mustBe=12345678901234567890123456789012345678)
    assert result.status is Status.PASSED
