"""The Spark engine's parts that need no server: URLs and servers, the authored-SQL wall,
per-engine plans, exact decimal text, and the dialect's spelling."""

from __future__ import annotations

from decimal import Decimal
from fractions import Fraction
from pathlib import Path

import duckdb
import pytest
import sqlglot
import sqlglot.expressions as exp

from packata_sql.contracts.model import Contract, Server
from packata_sql.contracts.odcs import load_odcs
from packata_sql.dialects import get_dialect
from packata_sql.plans.compiler import compile_contract
from packata_sql.plans.document import plan_document
from packata_sql.report import Status
from packata_sql.run.runner import RunOptions, run
from packata_sql.sessions.endpoint import Endpoint, EndpointError, from_server, parse_url
from packata_sql.sessions.spark import authored_problem, wrap
from packata_sql.sessions.spark_endpoint import connection_string
from packata_sql.values import format_value

MAX = "99999999999999999999.999999999999999999"


def test_spark_connect_urls_keep_the_token_out_of_sight():
    endpoint = parse_url("sc://spark.example:15010/;token=s3cret;use_ssl=true;schema=sales")
    assert (endpoint.engine, endpoint.host, endpoint.port, endpoint.schema) == (
        "spark", "spark.example", 15010, ("sales",))
    assert endpoint.password == "s3cret"
    assert "s3cret" not in endpoint.describe() and "s3cret" not in repr(endpoint)
    assert connection_string(endpoint) == "sc://spark.example:15010/;token=s3cret;use_ssl=true"
    assert parse_url("sc://localhost").port == 15002
    assert parse_url("SC://h/;catalog=main;schema=s").schema == ("main", "s")
    cluster = parse_url("sc://dbc.example:443/;use_ssl=true;x-databricks-cluster-id=0123")
    assert connection_string(cluster).endswith(";use_ssl=true;x-databricks-cluster-id=0123")


@pytest.mark.parametrize("url", ["sc://h:x/", "sc://h/;token", "sc://h/;retries=3",
                                 "sc://user@h/", "sc://h/db"])
def test_bad_spark_connect_urls_are_refused_plainly(url):
    with pytest.raises(EndpointError):
        parse_url(url)


@pytest.mark.parametrize("kind", ["spark", "databricks", "Databricks"])
def test_spark_and_databricks_servers_reach_the_spark_engine(kind, monkeypatch):
    monkeypatch.setenv("PACKATA_PROD_LAKE_PASSWORD", "t0ken")
    server = Server("prod-lake", kind, (("host", "dbc.example"), ("catalog", "main"),
                                        ("schema", "sales")))
    endpoint = from_server(Contract("c.yaml", (), servers=(server,)), None)
    databricks = kind.lower() == "databricks"
    assert (endpoint.engine, endpoint.host, endpoint.port, endpoint.schema) == (
        "spark", "dbc.example", 443 if databricks else 15002, ("main", "sales"))
    assert endpoint.password == "t0ken" and "t0ken" not in endpoint.describe()
    assert ("use_ssl=true" in connection_string(endpoint)) is databricks


@pytest.mark.parametrize(("sql", "problem"), [
    ("SELECT COUNT(*) FROM t WHERE a = ?", None),
    ("WITH x AS (SELECT 1 AS a) SELECT COUNT(*) FROM x", None),
    ("SELECT reflect('java.lang.System', 'getProperty', 'user.dir')", "function:reflect"),
    ("SELECT `java_method`('java.lang.Math', 'random')", "function:java_method"),
    ("SELECT COUNT(*) FROM t WHERE TRY_REFLECT('a', 'b') IS NULL", "function:try_reflect"),
    ("SELECT * FROM read_files('/etc')", "function:read_files"),
    ("SELECT * FROM parquet.`/data/x`", "path-relation"),
    ("SELECT * FROM t JOIN text.`/etc/hostname` ON TRUE", "path-relation"),
    ("SELECT * FROM `s3://bucket/key`", "path-relation"),
    ("SELECT TRANSFORM(a) USING 'cat /etc/passwd' AS (x) FROM t", "script-transform"),
    ("SELECT * FROM (SELECT TRANSFORM(a, b) USING 'id' FROM t) AS s", "script-transform"),
    ("SELECT COUNT(*) FROM t WHERE size(transform(xs, x -> x + 1)) > 0", None),
    ("DROP TABLE t", "not-one-select"),
    ("INSERT OVERWRITE DIRECTORY '/tmp/x' SELECT 1", "not-one-select"),
    ("SELECT 1; SELECT 2", "not-one-select"),
    ("SELECT (", "unparsable"),
])
def test_authored_sql_is_one_select_without_java_or_files(sql, problem):
    assert authored_problem(sql) == problem


def test_the_wrapper_survives_a_trailing_comment_and_semicolon():
    wrapped = wrap("SELECT 1 AS n; -- a comment")
    parsed = sqlglot.parse_one(wrapped, read="spark")
    assert isinstance(parsed, exp.Select) and parsed.args["limit"] is not None


def test_numbers_render_exactly_beyond_28_digits():
    for text in (MAX, "-" + MAX, "1.00000000000000000000000000000000000001",
                 "12345678901234567890.123456789012345678"):
        assert format_value(Fraction(Decimal(text))) == text


def test_a_decimal_member_beyond_28_digits_keeps_duckdb_on_one_scan(tmp_path: Path):
    """Rounded to 100000000000000000000.0000000, the member made DuckDB raise and the whole
    object fall back to one statement per rule."""
    database = tmp_path / "d.duckdb"
    connection = duckdb.connect(str(database))
    connection.execute("CREATE TABLE amounts (amount DECIMAL(38, 18))")
    connection.execute(f"INSERT INTO amounts VALUES ({MAX}), (0.5), (NULL)")
    connection.close()
    contract = tmp_path / "c.yaml"
    contract.write_text(f"""apiVersion: v3.1.0
kind: DataContract
id: d
version: 1.0.0
status: active
schema:
  - name: amounts
    quality: [{{id: rows, metric: rowCount, mustBe: 3}}]
    properties:
      - name: amount
        logicalType: number
        quality:
          - {{id: valid, metric: invalidValues, arguments: {{validValues: [{MAX}, 0.5]}}, mustBe: 1}}
""", encoding="utf-8")
    loaded = load_odcs(str(contract))
    report = run(loaded, compile_contract(loaded, get_dialect("duckdb")),
                 Endpoint("duckdb", str(database)), RunOptions())
    assert [(r.key, r.status, r.value, r.fused) for r in report.results
            if r.key in ("rows", "valid")] == [
        ("rows", Status.PASSED, 3, True), ("valid", Status.PASSED, 1, True)]


def test_spark_plans_run_each_distinct_key_alone_from_three_keys_and_others_fuse(tmp_path: Path):
    contract = tmp_path / "c.yaml"
    contract.write_text("""apiVersion: v3.1.0
kind: DataContract
id: p
version: 1.0.0
status: active
schema:
  - name: t
    quality:
      - {id: rows, metric: rowCount, mustBe: 3}
      - {id: pair, metric: duplicateValues, arguments: {properties: [a, b]}, mustBe: 0}
    properties:
      - name: a
        logicalType: string
        quality:
          - {id: a_dups, metric: duplicateValues, mustBe: 0}
          - {id: a_dups_pct, metric: duplicateValues, unit: percent, mustBe: 0}
          - {id: a_nulls, metric: nullValues, mustBe: 0}
      - name: b
        logicalType: string
        quality: [{id: b_dups, metric: duplicateValues, mustBe: 0}]
      - name: c
        logicalType: string
        quality: [{id: c_dups, metric: duplicateValues, mustBe: 0}]
""", encoding="utf-8")
    loaded = load_odcs(str(contract))
    rules = {}
    for name in ("spark", "databricks", "duckdb", "postgres", "trino"):
        dialect = get_dialect(name)
        document = plan_document(loaded, compile_contract(loaded, dialect), dialect)
        rules[name] = [scan["rules"] for scan in document["scans"]]
    apart = [["rows", "a_nulls"], ["pair"], ["a_dups", "a_dups_pct"], ["b_dups"], ["c_dups"]]
    assert rules["spark"] == rules["databricks"] == apart
    everything = [["rows", "pair", "a_dups", "a_dups_pct", "a_nulls", "b_dups", "c_dups"]]
    assert rules["duckdb"] == rules["postgres"] == rules["trino"] == everything
    # Two single-column keys (a, b) and a composite one: one fused statement is as fast there.
    fewer = contract.read_text(encoding="utf-8").split("      - name: c\n")[0]
    contract.write_text(fewer, encoding="utf-8")
    loaded = load_odcs(str(contract))
    spark = get_dialect("spark")
    document = plan_document(loaded, compile_contract(loaded, spark), spark)
    assert [scan["rules"] for scan in document["scans"]] == [everything[0][:-1]]


def test_spark_text_keys_and_patterns_are_binary_and_java_safe():
    dialect = get_dialect("spark")
    column = exp.Column(this=exp.Identifier(this="s", quoted=True))
    assert dialect.render(dialect.text_equals(column, "N/A")) == "(`s` COLLATE UTF8_BINARY) = 'N/A'"
    assert dialect.render(dialect.binary_key(column)) == "(`s` COLLATE UTF8_BINARY)"
    from packata_sql.dialects.regex import portable

    spelled = portable(r"^a.b\b$", dialect.regex_flavor)
    assert spelled.endswith("\\z") and "[^\\n]" in spelled and "\\b" not in spelled
    dialect.collations = False  # a Spark 3 server
    assert dialect.render(dialect.binary_key(column)) == "`s`"
    assert dialect.family("string collate UTF8_LCASE").value == "text"
    assert dialect.family("decimal(38,18)").value == "number"
    assert dialect.family("timestamp_ntz").value == "temporal"
    assert dialect.family("array<string>").value == "other"


def test_temporal_members_that_are_no_date_match_nothing_with_a_finding(tmp_path: Path):
    """DuckDB (like Spark under ANSI) raises on `day = '2024-02-30'`, which took the whole
    object off the fused scan; the member is now a finding and matches no cell."""
    database = tmp_path / "t.duckdb"
    connection = duckdb.connect(str(database))
    connection.execute("CREATE TABLE days (day DATE)")
    connection.execute("INSERT INTO days VALUES ('2024-01-01'), ('2024-02-29'), (NULL)")
    connection.close()
    contract = tmp_path / "c.yaml"
    contract.write_text("""apiVersion: v3.1.0
kind: DataContract
id: t
version: 1.0.0
status: active
schema:
  - name: days
    quality: [{id: rows, metric: rowCount, mustBe: 3}]
    properties:
      - name: day
        logicalType: date
        quality:
          - {id: valid, metric: invalidValues, mustBe: 2,
             arguments: {validValues: ['2024-01-01', '2024-02-30', 'soon', '20240229']}}
""", encoding="utf-8")
    loaded = load_odcs(str(contract))
    compiled = compile_contract(loaded, get_dialect("duckdb"))
    assert [f.code for f in compiled.findings].count("member-not-representable") == 3
    report = run(loaded, compiled, Endpoint("duckdb", str(database)), RunOptions())
    assert [(r.key, r.status, r.value, r.fused) for r in report.results
            if r.key in ("rows", "valid")] == [
        ("rows", Status.PASSED, 3, True), ("valid", Status.PASSED, 2, True)]


@pytest.mark.parametrize(("member", "kind", "bad"), [
    ("2024-02-29", "date", False), ("2023-02-29", "date", True), ("2024-1-1", "date", True),
    ("2024-01-01 10:00:00", "timestamp", False), ("2024-01-01T25:00", "timestamp", True),
    ("10:30", "time", False), ("24:00", "time", True), ("2024-01-01", None, False),
    ("soon", None, True),
])
def test_temporal_member_shapes(member, kind, bad):
    from packata_sql.catalog.temporal import not_temporal

    assert not_temporal(member, kind) is bad
