"""The Spark Connect session itself (issue 15): connection failures, Ctrl-C, the pinned
settings, and the binder's Spark vectors executed on the run's server."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest
import yaml

from integration.test_spark_engine import write_contract
from packata_sql.dialects import get_dialect
from packata_sql.sessions.base import Interrupted, ProviderError, open_session
from packata_sql.sessions.spark import SETTINGS


def test_settings_that_change_how_sql_reads_are_pinned_per_session(spark):
    session = open_session(spark.reader, trust_environment=False)
    try:
        pinned = {key: session._spark.conf.get(key) for key in SETTINGS}  # type: ignore[attr-defined]
    finally:
        session.close()
    assert pinned == SETTINGS


def test_connection_problems_are_categories_without_secrets(spark):
    wrong = spark.url.split(";token=")[0] + ";token=wrong-token"
    endpoint_text = ""
    with pytest.raises(ProviderError) as refused:
        from packata_sql.sessions.endpoint import parse_url

        endpoint = parse_url(wrong)
        endpoint_text = endpoint.describe() + repr(endpoint)
        open_session(endpoint, trust_environment=False)
    assert refused.value.category in ("authentication-failed", "connection-failed")
    assert "wrong-token" not in endpoint_text and "wrong-token" not in str(refused.value)

def test_binder_vectors_execute_on_spark(spark):
    """dialects/spark.yaml: every case with `run` binds and returns its cell on Spark, through
    the trusted session's single-SELECT wall, with its `values` bound by name (tables are built
    once per distinct fixture and named `vector_<n>`: Spark table names are [A-Za-z0-9_])."""
    from packata_sql.authored.template import bind

    vectors = Path(__file__).resolve().parents[1] / "dialects" / "spark.yaml"
    cases = [c for c in yaml.safe_load(vectors.read_text(encoding="utf-8"))["cases"] if "run" in c]
    assert len(cases) >= 30
    dialect = get_dialect("spark")
    groups: dict[tuple[Any, ...], list[dict[str, Any]]] = {}
    for case in cases:
        rows = tuple(case.get("rows", ["a", "b", None]))
        groups.setdefault((tuple(case["object"]), case["property"] or "c", rows), []).append(case)
    session = open_session(spark.reader, trust_environment=True)
    admin = spark.admin()
    try:
        for index, ((_, column, rows), group) in enumerate(groups.items()):
            # A fresh name per fixture: the reader session caches a table's file listing.
            segments = (f"vector_{index}",)
            name = f"{spark.database}.{dialect.quote_path(segments)}"
            admin.sql(f"DROP TABLE IF EXISTS {name}")
            frame = admin.createDataFrame([(v,) for v in rows],
                                          schema=f"{dialect.quote_identifier(column)} STRING")
            frame.write.format("parquet").saveAsTable(name)
            for case in group:
                bound, problems = bind(case["sql"], dialect, segments, case["property"])
                assert bound is not None, (case["id"], problems)
                try:
                    # Named values (`:name`) where the case has any, bound server-side.
                    values = case.get("values")
                    result = session.fetch_cell(bound.sql, values if values else [], 60)
                except ProviderError as error:
                    pytest.fail(f"{case['id']}: {error.category} {error.code}")
                assert (case["id"], result.rows) == (case["id"], [(case["run"],)])
    finally:
        admin.stop()
        session.close()

def test_an_unreachable_server_fails_within_seconds(spark):
    from packata_sql.sessions.endpoint import parse_url

    started = time.monotonic()
    with pytest.raises(ProviderError) as refused:
        open_session(parse_url("sc://localhost:1/;token=t"), trust_environment=False)
    assert refused.value.category == "connection-failed"
    assert time.monotonic() - started < 20  # the client's own policy retries for 10 minutes

def test_ctrl_c_interrupts_the_spark_statement_and_exits_130(spark, tmp_path):
    import json
    import os
    import signal
    import subprocess
    import sys

    admin = spark.admin()
    try:
        admin.sql(f"CREATE OR REPLACE VIEW {spark.database}.slow_c AS "
                  "SELECT id AS n FROM range(0, 100000000000)")
    finally:
        admin.stop()
    contract = write_contract(
        tmp_path / "slow.yaml", "slow_c",
        {"n": [{"id": "slow_dups", "metric": "duplicateValues", "mustBe": 0}]}, [],
        {"n": "integer"})
    url = f"{spark.url};schema={spark.database}"
    process = subprocess.Popen(
        [sys.executable, "-m", "packata_sql", "check", str(contract), "--url", url,
         "--format", "json", "--category", "quality"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env={**os.environ})
    time.sleep(8.0)  # connected and measuring (a signal while connecting ends the same way)
    process.send_signal(signal.SIGINT)
    out, err = process.communicate(timeout=60)
    assert process.returncode == 130, err
    (rule,) = json.loads(out)["rules"]
    assert (rule["status"], rule["diagnostic"]["code"]) == ("skipped", "cancelled")
    assert "Traceback" not in err and url.split("token=")[1] not in out + err


# Both cores of the run's server (local[2]) for minutes, unless the cancellation ends it.
SLOW = "SELECT COUNT(*) FROM range(0, 1000000000000, 1, 2) WHERE id % 7 = 3"


def test_a_timed_out_statement_is_cancelled_on_the_server(spark, tmp_path, monkeypatch):
    """A short --timeout cancels the statement by its operation tag; the server's own answer
    shows it gone: interrupting the tag again finds nothing, and a two-partition query gets
    both cores at once instead of queueing behind the slow one's tasks."""
    import json
    import subprocess
    import sys

    admin = spark.admin()
    try:
        admin.sql(f"CREATE OR REPLACE VIEW {spark.database}.slow_t AS "
                  "SELECT id AS n FROM range(0, 1000000000000, 1, 2)")
    finally:
        admin.stop()
    contract = write_contract(
        tmp_path / "slow.yaml", "slow_t",
        {"n": [{"id": "slow_nulls", "metric": "nullValues", "mustBe": 0}]}, [], {"n": "integer"})
    done = subprocess.run(
        [sys.executable, "-m", "packata_sql", "check", str(contract), "--url",
         f"{spark.url};schema={spark.database}", "--format", "json", "--category", "quality",
         "--timeout", "2"], capture_output=True, text=True, timeout=120, check=False)
    (rule,) = json.loads(done.stdout)["rules"]
    assert (rule["status"], rule["diagnostic"]["code"]) == ("inconclusive", "timeout"), done.stderr
    assert "did not confirm" not in rule["diagnostic"]["message"]

    from packata_sql.sessions import spark as spark_session

    terminated: list[object] = []  # interruptAll, the fallback: the tag must have sufficed
    monkeypatch.setattr(spark_session.SparkConnectSession, "_terminate", terminated.append)
    session = open_session(spark.reader, trust_environment=False)
    try:
        with pytest.raises(Interrupted) as stopped:
            session.fetch_row(SLOW, 1.0)
        assert stopped.value.detail is None  # the server named the operation it interrupted
        assert terminated == []
        assert session._spark.interruptTag(session._tag) == []  # nothing of ours still runs
        started = time.monotonic()
        assert session.fetch_row("SELECT COUNT(*) FROM range(0, 1000, 1, 2)", 60.0) == (1000,)
        assert time.monotonic() - started < 30  # minutes if the slow tasks held the cores
    finally:
        session.close()


def test_an_unconfirmed_cancellation_is_said_in_the_report(spark, tmp_path, monkeypatch):
    """A server that does not answer the interruption (a fault a healthy server cannot be
    made to show): the rule's diagnostic says the statement may still run there."""
    from packata_sql.contracts.model import Category
    from packata_sql.contracts.odcs import load_odcs
    from packata_sql.plans.compiler import compile_contract
    from packata_sql.run.runner import RunOptions, run
    from packata_sql.sessions import spark as spark_session

    admin = spark.admin()
    try:
        admin.sql(f"CREATE OR REPLACE VIEW {spark.database}.slow_u AS "
                  "SELECT id AS n FROM range(0, 1000000000000, 1, 2)")
    finally:
        admin.stop()
    contract = write_contract(
        tmp_path / "slow.yaml", "slow_u",
        {"n": [{"id": "slow_nulls", "metric": "nullValues", "mustBe": 0}]}, [], {"n": "integer"})
    sessions: list[Any] = []
    real_interrupt = spark_session.SparkConnectSession._interrupt

    def unanswered(self: Any) -> None:
        """The tag interruption reaches the server but its answer names no operation."""
        sessions.append(self)
        real_interrupt(self)
        self._cancel_confirmed = False

    monkeypatch.setattr(spark_session.SparkConnectSession, "_interrupt", unanswered)
    monkeypatch.setattr(spark_session.SparkConnectSession, "_terminate", lambda self: None)
    loaded = load_odcs(str(contract))
    compiled = compile_contract(loaded, get_dialect("spark"), categories=(Category.QUALITY,))
    report = run(loaded, compiled, spark.reader, RunOptions(timeout_s=1.0))
    (result,) = report.results
    assert (result.status.value, result.diagnostic.code) == ("inconclusive", "timeout")
    assert "the server did not confirm the cancellation" in result.diagnostic.message
    assert sessions


def test_polynomial_patterns_never_reach_the_spark_server(spark, tmp_path):
    """Java's matcher cannot be interrupted mid-match: the patterns of issue 20 that kept a
    core busy after the run are refused before any SQL, and real patterns still run."""
    from integration.test_spark_engine import check

    admin = spark.admin()
    try:
        admin.sql(f"CREATE OR REPLACE VIEW {spark.database}.texts AS "
                  "SELECT * FROM VALUES ('jane.doe@example.com'), ('x=') AS t(v)")
    finally:
        admin.stop()
    refused = [".*.*.*.*.*.*.*.*.*.*.*.*=", "\\w*" * 10 + "!", "a*" * 12 + "!"]
    rules = [{"id": f"p{n}", "metric": "invalidValues", "arguments": {"pattern": p}, "mustBe": 0}
             for n, p in enumerate(refused)]
    rules.append({"id": "mail", "metric": "invalidValues", "mustBe": 1,
                  "arguments": {"pattern": "^[a-zA-Z0-9._%+-]+@[a-zA-Z0-9.-]+\\.[a-zA-Z]{2,}$"}})
    report = check(spark.reader, write_contract(tmp_path / "p.yaml", "texts", {"v": rules}, [],
                                                {"v": "string"}))
    found = {r.key.rsplit(".", 1)[-1]: (r.status.value, r.diagnostic.code if r.diagnostic else None)
             for r in report.results}
    assert found == {**{f"p{n}": ("skipped", "unsafe-pattern") for n in range(3)},
                     "mail": ("passed", None)}, found
