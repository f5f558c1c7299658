"""Spark 4 through Spark Connect (issue 15), on the run's local server (`.ci/spark.sh`).

The counts on adversarial data are the five-engine differential's
(integration/test_differential_metrics.py, where each comment says what unpatched Databricks
SQL gave on Spark); here what is Spark's own: split plans, the read-only level, authored SQL
behind --trust-environment with named parameters, time limits, doctor.
"""

from __future__ import annotations

import time
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
import yaml

from integration.test_differential_metrics import (
    ADVERSARIAL,
    ADVERSARIAL_PROPERTIES,
    KINDS,
    adversarial_contract,
    adversarial_expected,
)
from packata_sql.contracts.model import Category
from packata_sql.contracts.odcs import load_odcs
from packata_sql.dialects import get_dialect
from packata_sql.plans.compiler import compile_contract
from packata_sql.report import Report, Status
from packata_sql.run.runner import RunOptions, run
from packata_sql.sessions.base import ProviderError, open_session
from packata_sql.sessions.endpoint import Endpoint

TABLE_RULES = [{"id": "rows", "metric": "rowCount", "mustBe": 7}]
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
    """integration/test_differential_metrics.py's adversarial rows as the table `adv`, and the
    view `adv_lcase` whose `select` and `Status` are UTF8_LCASE."""
    admin = spark.admin()
    try:
        names = [get_dialect("spark").quote_identifier(n) for n in ADVERSARIAL.columns]
        schema = ", ".join(f"{name} {KINDS['spark'][kind]}"
                           for name, kind in zip(names, ADVERSARIAL.columns.values(), strict=True))
        frame = admin.createDataFrame(list(ADVERSARIAL.rows), schema=schema)
        frame.write.mode("overwrite").format("parquet").saveAsTable(f"{spark.database}.adv")
        selected = ", ".join(f"{name} COLLATE UTF8_LCASE AS {name}" if kind == "ci" else name
                             for name, kind in zip(names, ADVERSARIAL.columns.values(), strict=True))
        admin.sql(f"CREATE OR REPLACE VIEW {spark.database}.adv_lcase AS SELECT {selected} "
                  f"FROM {spark.database}.adv")
    finally:
        admin.stop()
    return spark


@pytest.mark.parametrize("table", ["adv", "adv_lcase"])
def test_adversarial_plans_and_schema_checks_on_spark(adversarial, tmp_path, table):
    """The counts are the differential test's; here what is Spark's own: the schema's checks
    against Spark's catalog types, the read-only level, the notes and the split plan."""
    report = check(adversarial.reader, adversarial_contract(tmp_path / "c.yaml", table),
                   schema_checks=True)
    catalog = [r for r in report.results if r.key.endswith((".logicalType", ".present"))]
    assert len(catalog) == len(ADVERSARIAL_PROPERTIES)
    assert all(r.status is Status.PASSED for r in catalog)
    found = {r.key: (r.status, r.value) for r in report.results if r not in catalog}
    assert found == adversarial_expected(table)
    assert report.read_only == "library-only"
    notes = sorted(f.rule_key for f in report.findings if f.code == "member-not-representable")
    assert notes == ["amount_valid", "day_valid", "when_valid", "when_valid"]
    # Plans per engine: the distinct keys each ran alone, everything else in one scan.
    assert {r.key for r in report.results if not r.fused and r not in catalog} == DISTINCT_RULES


def test_compile_plans_show_distinct_keys_apart(tmp_path):
    from packata_sql.plans.document import plan_document

    loaded = load_odcs(str(adversarial_contract(tmp_path / "c.yaml", "adv")))
    scans = {}
    for engine in ("spark", "duckdb"):
        dialect = get_dialect(engine)
        scans[engine] = plan_document(loaded, compile_contract(loaded, dialect), dialect)["scans"]
    assert len(scans["duckdb"]) == 1
    assert [sorted(s["rules"]) for s in scans["spark"][1:]] == [
        ["pair_dups"], ["id_dups"], ["select_dups"], ["status_dups"], ["amount_dups"]]
    assert not DISTINCT_RULES & set(scans["spark"][0]["rules"])


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


#: One SELECT that runs an OS command on the executors (Spark's script transformation).
SCRIPT = "SELECT TRANSFORM(id) USING 'echo packata-route' AS (x) FROM adv"


def test_script_transformation_is_a_live_route_on_this_server(adversarial):
    """Why the session refuses it: the server runs the command for any SELECT-capable login."""
    admin = adversarial.admin()
    try:
        rows = admin.sql(SCRIPT.replace("FROM adv", f"FROM {adversarial.database}.adv")).collect()
        assert {row["x"] for row in rows} == {"packata-route"}
    finally:
        admin.stop()


def test_session_refuses_commands_and_java_even_when_trusted(adversarial):
    session = open_session(adversarial.reader, trust_environment=True)
    try:
        for sql, code in [("DROP TABLE adv", "not-one-select"),
                          ("SELECT 1; SELECT 2", "not-one-select"),
                          ("SELECT java_method('java.lang.Math', 'random')", "function:java_method"),
                          ("SELECT * FROM csv.`/etc/hostname`", "path-relation"),
                          (SCRIPT, "script-transform")]:
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
    from packata_sql.cli.main import main

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
