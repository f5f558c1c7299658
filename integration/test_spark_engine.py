"""Spark 4 through Spark Connect (issue 15), on the run's local server (`.ci/spark.sh`).

Counts are worked by hand from ADVERSARIAL and SEMANTICS 3; each comment says what the
unpatched Databricks SQL gave on Spark (research/spark, section 3), which is what the guard
under test prevents.
"""

from __future__ import annotations

import datetime
import time
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
import yaml

from integration.test_differential_metrics import (
    EXPECTED,
    LOGICAL,
    OBJECT_RULES,
    PATTERN_INVALID,
    PATTERN_VALUES,
    ROWS,
    RULES,
    measured_on,
)
from packata_sql.compiler import compile_contract
from packata_sql.contracts.model import Category
from packata_sql.contracts.odcs import load_odcs
from packata_sql.dialects import get_dialect
from packata_sql.endpoint import Endpoint
from packata_sql.report import Report, Status
from packata_sql.runner import RunOptions, run
from packata_sql.session import ProviderError, open_session

MAX = Decimal("99999999999999999999.999999999999999999")
ADVERSARIAL_SCHEMA = ("id INT, `select` STRING, status STRING, email STRING, txt STRING, "
                      "amount DECIMAL(38,18), day DATE")
ADVERSARIAL: list[tuple[Any, ...]] = [
    (1, "a", "N/A", "x@y.com\n", "a\rb", Decimal(0), datetime.date(2024, 1, 1)),
    (1, "A", "n/a", "a@b.cd", "a\u2028b", Decimal("0.1"), datetime.date(2024, 1, 2)),
    (None, "a", "N/A ", None, "a\nb", MAX, None),
    (None, "", "", "é@b.cd", "xé", MAX.copy_negate(), datetime.date(2024, 1, 1)),
    (2, "é", None, "A@B.CD", "x", Decimal("0.000000000000000001"), datetime.date(2024, 3, 1)),
    (3, "É", "ok", "😀@b.cd", "a😀b", Decimal("0.100000000000000000"), datetime.date(2024, 1, 2)),
    (3, None, "OK", "ab@cd.ef", "x\n", None, datetime.date(2024, 1, 1)),
]
EMAIL = r"^[a-z]+@[a-z]+\.[a-z]{2,}$"
PROPERTY_RULES: dict[str, list[dict[str, Any]]] = {
    "id": [{"id": "id_dups", "metric": "duplicateValues", "mustBe": 3}],
    "select": [
        {"id": "select_dups", "metric": "duplicateValues", "mustBe": 1},  # LCASE: 3
        {"id": "select_valid", "metric": "invalidValues",
         "arguments": {"validValues": ["a", "é"]}, "mustBe": 4},
    ],
    # Declared with another case: Spark resolves names case-insensitively.
    "Status": [
        {"id": "status_missing", "metric": "missingValues",
         "arguments": {"missingValues": ["", "N/A", None]}, "mustBe": 3},  # LCASE: 4
        {"id": "status_dups", "metric": "duplicateValues", "mustBe": 0},  # LCASE: 2
        {"id": "status_valid", "metric": "invalidValues",
         "arguments": {"validValues": ["ok", "N/A"]}, "mustBe": 5},  # LCASE: 3
        # RLIKE obeys a UTF8_LCASE column's collation: 'n/a' would match too (LCASE: 5).
        {"id": "status_pattern", "metric": "invalidValues", "arguments": {"pattern": "^N/A$"},
         "mustBe": 6},
    ],
    "email": [
        # Java's $ matches before a final \n: unpatched 4.
        {"id": "email_pattern", "metric": "invalidValues", "arguments": {"pattern": EMAIL},
         "mustBe": 5},
        {"id": "email_fold", "metric": "invalidValues", "arguments": {"pattern": "(?i)" + EMAIL},
         "mustBe": 4},
    ],
    "txt": [
        # Java's . excludes \r and U+2028: unpatched 6.
        {"id": "txt_dot", "metric": "invalidValues", "arguments": {"pattern": "^a.b$"},
         "mustBe": 4},
        # Java 17's \b treats é as a word character: unpatched 5.
        {"id": "txt_boundary", "metric": "invalidValues", "arguments": {"pattern": r"x\b"},
         "mustBe": 4},
        {"id": "txt_end", "metric": "invalidValues", "arguments": {"pattern": "x$"},
         "mustBe": 6},
    ],
    "amount": [
        # 1e-19 cannot be held by DECIMAL(38,18): Spark would round it to 0 and count row 1
        # valid; MAX was rendered rounded to 21 integer digits (the 28-digit bug).
        {"id": "amount_valid", "metric": "invalidValues",
         "arguments": {"validValues": [Decimal("0.1"), MAX, Decimal("0.0000000000000000001")]},
         "mustBe": 4},
        {"id": "amount_dups", "metric": "duplicateValues", "mustBe": 1},
    ],
    # '2024-02-30' is no date: under ANSI mode Spark raised CAST_INVALID_INPUT for it.
    "day": [{"id": "day_valid", "metric": "invalidValues",
             "arguments": {"validValues": ["2024-01-01", "2024-01-02", "2024-02-30"]},
             "mustBe": 2}],
}
TABLE_RULES = [
    {"id": "rows", "metric": "rowCount", "mustBe": 7},
    {"id": "pair_dups", "metric": "duplicateValues", "arguments": {"properties": ["id", "select"]},
     "mustBe": 0},  # LCASE: 1
]
LOGICAL_TYPES = {"id": "integer", "select": "string", "Status": "string", "email": "string",
                 "txt": "string", "amount": "number", "day": "date"}
DISTINCT_RULES = {"id_dups", "select_dups", "status_dups", "amount_dups", "pair_dups"}


def write_contract(path: Path, table: str, quality: dict[str, list[dict[str, Any]]],
                   table_rules: list[dict[str, Any]], logical: dict[str, str]) -> Path:
    document = {
        "apiVersion": "v3.1.0", "kind": "DataContract", "id": "spark", "version": "1.0.0",
        "status": "active",
        "schema": [{"name": table, "quality": table_rules, "properties": [
            {"name": name, "logicalType": logical[name], "quality": rules}
            for name, rules in quality.items()]}],
    }
    path.write_text(yaml.dump(document, Dumper=_Dumper, allow_unicode=True), encoding="utf-8")
    return path


class _Dumper(yaml.SafeDumper):
    """Writes Decimals as plain numbers: the loader reads them back exactly."""


_Dumper.add_representer(
    Decimal, lambda dumper, value: dumper.represent_scalar("tag:yaml.org,2002:float", format(value, "f")))


def check(endpoint: Endpoint, contract: Path, *, schema_checks: bool = False,
          **options: Any) -> Report:
    """The contract's quality rules (and with `schema_checks`, the schema's own) on Spark."""
    loaded = load_odcs(str(contract))
    compiled = compile_contract(loaded, get_dialect("spark"), prefix=endpoint.schema,
                                parameters=frozenset(options.get("parameters", {})),
                                categories=None if schema_checks else [Category.QUALITY])
    return run(loaded, compiled, endpoint, RunOptions(**options))


@pytest.fixture(scope="module")
def adversarial(spark: Any) -> Any:
    admin = spark.admin()
    try:
        frame = admin.createDataFrame(ADVERSARIAL, schema=ADVERSARIAL_SCHEMA)
        frame.write.mode("overwrite").format("parquet").saveAsTable(f"{spark.database}.adv")
        admin.sql(f"CREATE OR REPLACE VIEW {spark.database}.adv_lcase AS SELECT id, "
                  "`select` COLLATE UTF8_LCASE AS `select`, status COLLATE UTF8_LCASE AS status,"
                  " email, txt, amount, day FROM " + f"{spark.database}.adv")
    finally:
        admin.stop()
    return spark


def expected_counts() -> dict[str, int]:
    rules = [r for rules in PROPERTY_RULES.values() for r in rules] + TABLE_RULES
    return {r["id"]: r["mustBe"] for r in rules}


@pytest.mark.parametrize("table", ["adv", "adv_lcase"])
def test_adversarial_counts_are_exact_on_binary_and_lcase_columns(adversarial, tmp_path, table):
    contract = write_contract(tmp_path / "c.yaml", table, PROPERTY_RULES, TABLE_RULES,
                              LOGICAL_TYPES)
    report = check(adversarial.reader, contract, schema_checks=True)
    # The schema's own checks (logicalType against Spark's catalog types) pass, without rows.
    schema_checks = [r for r in report.results if r.key.startswith("schema[")]
    assert len(schema_checks) == len(LOGICAL_TYPES)
    assert all(r.status is Status.PASSED for r in schema_checks)
    found = {r.key: (r.status, r.value) for r in report.results if r not in schema_checks}
    assert found == {key: (Status.PASSED, count) for key, count in expected_counts().items()}
    assert report.read_only == "library-only"
    # '2024-02-30' is no date (compile time) and 1e-19 no DECIMAL(38,18) value (once the column
    # is probed): each matches nothing, and the report says so.
    notes = sorted(f.rule_key for f in report.findings if f.code == "member-not-representable")
    assert notes == ["amount_valid", "day_valid"]
    # Plans per engine: the distinct keys each ran alone, everything else in one scan.
    assert {r.key for r in report.results if not r.fused and r not in schema_checks} == \
        DISTINCT_RULES


def test_compile_plans_show_distinct_keys_apart(tmp_path):
    from packata_sql.plan_json import plan_document

    contract = write_contract(tmp_path / "c.yaml", "adv", PROPERTY_RULES, TABLE_RULES,
                              LOGICAL_TYPES)
    loaded = load_odcs(str(contract))
    scans = {}
    for engine in ("spark", "duckdb"):
        dialect = get_dialect(engine)
        scans[engine] = plan_document(loaded, compile_contract(loaded, dialect), dialect)["scans"]
    assert len(scans["duckdb"]) == 1
    assert [sorted(s["rules"]) for s in scans["spark"][1:]] == [
        ["pair_dups"], ["id_dups"], ["select_dups"], ["status_dups"], ["amount_dups"]]
    assert not DISTINCT_RULES & set(scans["spark"][0]["rules"])


def test_the_differential_dataset_measures_as_on_the_other_engines(spark, tmp_path):
    """integration/test_differential_metrics.py's rows and hand counts, as the fifth engine
    (Spark table names are [A-Za-z0-9_]: the object is `dq_table`)."""
    admin = spark.admin()
    try:
        schema = ", ".join(f"`{c.replace('`', '``')}` {'BIGINT' if t == 'integer' else 'STRING'}"
                           for c, t in LOGICAL.items())
        frame = admin.createDataFrame(ROWS, schema=schema)
        frame.write.mode("overwrite").format("parquet").saveAsTable(f"{spark.database}.dq_table")
    finally:
        admin.stop()
    quality = {c: [{"id": k, **r} for k, (target, r) in RULES.items() if target == c] for c in LOGICAL}
    table_rules = [{"id": k, **r} for k, r in OBJECT_RULES.items()]
    contract = write_contract(tmp_path / "d.yaml", "dq_table", quality, table_rules, LOGICAL)
    report = check(spark.reader, contract)
    assert {r.key: r.value for r in report.results} == EXPECTED
    assert all(r.status in (Status.PASSED, Status.FAILED) for r in report.results)


def test_patterns_match_the_same_texts_as_on_the_other_engines(spark, tmp_path):
    admin = spark.admin()
    try:
        frame = admin.createDataFrame([(v,) for v in PATTERN_VALUES], schema="v STRING")
        frame.write.mode("overwrite").format("parquet").saveAsTable(f"{spark.database}.patterns")
    finally:
        admin.stop()
    rules = {"v": [{"id": f"p{i}", "metric": "invalidValues", "arguments": {"pattern": p},
                    "mustBe": 0} for i, p in enumerate(PATTERN_INVALID)]}
    found = {key: value for key, (_, value) in measured_on(
        spark.reader, tmp_path, "patterns", rules).items()}
    assert found == {f"p{i}": n for i, n in enumerate(PATTERN_INVALID.values())}


SQL_RULES = {
    "with_parameter": ("SELECT COUNT(*) FROM {object} WHERE status = {param:wanted}", 1),
    # Bound by name as data: a quote, backslashes, ':' and '?' in the value change nothing.
    "tricky_parameter": ("SELECT COUNT(*) FROM {object} WHERE {param:tricky} = "
                         "'it''s \\\\ :x ? ;' AND status = {param:wanted}", 1),
    # Spark literals read backslash escapes: \\ is one backslash, as the binder writes it.
    "escaped_literal": ("SELECT COUNT(*) FROM {object} WHERE txt = 'a\\nb'", 1),
    "java_call": ("SELECT COUNT(*) FROM {object} WHERE "
                  "reflect('java.lang.System', 'getProperty', 'user.dir') IS NOT NULL", None),
    "file_read": ("SELECT COUNT(*) FROM parquet.`/etc`", None),
}


def sql_contract(path: Path) -> Path:
    rules = [{"id": key, "type": "sql", "query": query, "mustBe": expected or 0}
             for key, (query, expected) in SQL_RULES.items()]
    return write_contract(path, "adv", {"status": rules}, [], {"status": "string"})


def test_authored_sql_is_refused_without_trust(adversarial, tmp_path):
    report = check(adversarial.reader, sql_contract(tmp_path / "s.yaml"),
                   parameters={"wanted": "it's", "tricky": "?"})
    assert {r.status for r in report.results} == {Status.ERROR, Status.SKIPPED}
    assert all(r.diagnostic is not None and r.diagnostic.code in (
        "read-only-not-guaranteed", "denied-function") for r in report.results)


def test_authored_sql_with_trust_runs_one_select_and_no_java_or_files(adversarial, tmp_path):
    report = check(adversarial.reader, sql_contract(tmp_path / "s.yaml"),
                   parameters={"wanted": "N/A", "tricky": "it's \\ :x ? ;"},
                   trust_environment=True)
    found = {r.key: r for r in report.results}
    assert found["with_parameter"].status is Status.PASSED
    assert (found["tricky_parameter"].status, found["tricky_parameter"].value) == (Status.PASSED, 1)
    assert found["escaped_literal"].status is Status.PASSED
    assert report.read_only == "trusted"
    # reflect is refused by the binder's deny-list, the path relation by the session's parse.
    assert found["java_call"].status is Status.SKIPPED
    assert found["file_read"].status is Status.ERROR
    assert found["file_read"].diagnostic.code == "permission-denied"
    assert found["file_read"].diagnostic.provider_code == "path-relation"


def test_session_refuses_commands_and_java_even_when_trusted(adversarial):
    session = open_session(adversarial.reader, trust_environment=True)
    try:
        for sql, code in [("DROP TABLE adv", "not-one-select"),
                          ("SELECT 1; SELECT 2", "not-one-select"),
                          ("SELECT java_method('java.lang.Math', 'random')", "function:java_method"),
                          ("SELECT * FROM csv.`/etc/hostname`", "path-relation")]:
            with pytest.raises(ProviderError) as refused:
                session.fetch_cell(sql, [], 30)
            assert refused.value.code == code
        assert session.fetch_cell("SELECT COUNT(*) FROM adv", [], 60).rows == [(7,)]
        # At most two rows come back.
        result = session.fetch_cell("SELECT id FROM adv", [], 60)
        assert (result.width, len(result.rows)) == (1, 2)
    finally:
        session.close()


def test_a_statement_past_its_limit_is_interrupted_and_the_session_goes_on(adversarial, tmp_path):
    admin = adversarial.admin()
    try:
        admin.sql(f"CREATE OR REPLACE VIEW {adversarial.database}.slow AS "
                  "SELECT id AS n FROM range(0, 100000000000)")
    finally:
        admin.stop()
    contract = write_contract(
        tmp_path / "slow.yaml", "slow",
        {"n": [{"id": "slow_dups", "metric": "duplicateValues", "mustBe": 0}]}, [],
        {"n": "integer"})
    document = yaml.safe_load(contract.read_text(encoding="utf-8"))
    document["schema"].append({"name": "adv", "quality": [TABLE_RULES[0]]})
    contract.write_text(yaml.safe_dump(document), encoding="utf-8")
    started = time.monotonic()
    report = check(adversarial.reader, contract, timeout_s=3.0)
    assert time.monotonic() - started < 60
    slow, after = report.results
    assert slow.status is Status.INCONCLUSIVE and slow.diagnostic is not None
    assert slow.diagnostic.code == "timeout"
    assert (after.key, after.status, after.value) == ("rows", Status.PASSED, 7)



def test_doctor_says_the_engine_enforces_nothing_and_what_would(adversarial, capsys):
    from packata_sql.cli import main

    url = f"{adversarial.url};schema={adversarial.database}"
    assert main(["doctor", "--url", url]) == 0
    out = capsys.readouterr().out
    assert "read-only level: library-only" in out and "spark-java-calls" in out
    assert "the engine does not enforce read-only" in out
    assert "USE CATALOG, USE SCHEMA and SELECT" in out
    assert url.split("token=")[1].split(";")[0] not in out



def test_a_missing_object_is_an_error_with_a_hint(adversarial, tmp_path):
    contract = write_contract(tmp_path / "m.yaml", "advv", {}, [TABLE_RULES[0]], {})
    (result,) = check(adversarial.reader, contract).results
    assert result.status is Status.ERROR and result.diagnostic is not None
    assert result.diagnostic.code == "missing-object"
    assert "adv" in result.diagnostic.message
