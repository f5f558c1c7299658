"""The Python API (packata_sql.api, re-exported at the package top): load, compile, check.

Runs on DuckDB and SQLite files (real engines, in-process); the five-engine and threaded cases
are in integration/test_api_on_engines.py."""

from __future__ import annotations

import json
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

import duckdb
import pytest

import packata_sql
from packata_sql import api
from packata_sql.errors import DeclarationError, PackataError, UsageError
from packata_sql.render.json import dumps  # the JSON text of a document, numbers exact

CONTRACT = """\
apiVersion: v3.1.0
kind: DataContract
id: api-orders
version: 1.0.0
status: active
schema:
  - name: orders
    properties:
      - name: id
        logicalType: integer
        quality:
          - {metric: nullValues, mustBe: 0}
      - name: placed_at
        logicalType: timestamp
    quality:
      - {metric: rowCount, mustBeGreaterThan: 0}
      - id: placed_by_then
        type: sql
        query: SELECT COUNT(*) FROM {object} WHERE placed_at <= {observation_time}
        mustBe: 2
"""


@pytest.fixture
def shop(tmp_path: Path) -> tuple[Path, str]:
    path = tmp_path / "shop.duckdb"
    connection = duckdb.connect(str(path))
    connection.execute("CREATE TABLE orders (id INTEGER, placed_at TIMESTAMP)")
    connection.execute("INSERT INTO orders VALUES (1, TIMESTAMP '2026-01-10 08:00:00'), "
                       "(2, TIMESTAMP '2026-03-10 08:00:00'), (3, TIMESTAMP '2026-09-10 08:00:00')")
    connection.close()
    contract = tmp_path / "orders.odcs.yaml"
    contract.write_text(CONTRACT, encoding="utf-8")
    return contract, f"duckdb:///{path}"


JUNE = datetime(2026, 6, 1, tzinfo=UTC)


def test_load_compile_check_at_the_package_top(shop):
    contract_path, url = shop
    contract = packata_sql.load(contract_path)
    plans = packata_sql.compile(contract, "duckdb")
    assert plans.dialect == "duckdb" and plans.findings == ()
    report = packata_sql.check(plans, url, observed_at=JUNE)
    assert isinstance(report, packata_sql.Report)
    assert report.outcome is packata_sql.Outcome.PASS
    assert {r.key: r.status for r in report.rules}["placed_by_then"] is packata_sql.Status.PASSED
    assert report.observed_at == "2026-06-01T00:00:00+00:00"


def test_the_observation_time_decides_a_rule_that_reads_now(shop):
    """docs/semantics.md 1.5: `{observation_time}` is the run's instant, bound as a typed parameter."""
    contract_path, url = shop
    plans = packata_sql.compile(packata_sql.load(contract_path), "duckdb")
    early = packata_sql.check(plans, url, observed_at=datetime(2026, 2, 1, tzinfo=UTC))
    late = packata_sql.check(plans, url, observed_at=datetime(2026, 12, 1, 9, tzinfo=UTC))
    values = [{r.key: r.value for r in report.rules}["placed_by_then"] for report in (early, late)]
    assert values == [1, 3]
    assert early.outcome is late.outcome is packata_sql.Outcome.FAIL


def test_an_offset_observation_time_is_the_same_instant(shop):
    contract_path, url = shop
    contract = packata_sql.load(contract_path)
    offset = datetime.fromisoformat("2026-06-01T02:00:00+02:00")
    assert packata_sql.check(contract, url, observed_at=offset).observed_at == \
        "2026-06-01T00:00:00+00:00"


def test_to_dict_is_the_json_report_and_replays_identically(shop):
    """Two runs at one observation time on unchanged data: the same document apart from
    durations and the wall-clock start; and it is what `check --format json` writes."""
    contract_path, url = shop

    def untimed(document: dict) -> dict:
        document = {k: v for k, v in document.items() if k not in ("elapsed_ms", "started_at")}
        document["rules"] = [{k: v for k, v in r.items() if k != "elapsed_ms"}
                             for r in document["rules"]]
        return document

    contract = packata_sql.load(contract_path)
    first = packata_sql.check(contract, url, observed_at=JUNE).to_dict()
    second = packata_sql.check(contract, url, observed_at=JUNE).to_dict()
    assert untimed(first) == untimed(second)
    done = subprocess.run([sys.executable, "-m", "packata_sql", "check", str(contract_path),
                           "--url", url, "--format", "json", "--observed-at",
                           "2026-06-01T00:00:00Z"], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert untimed(json.loads(done.stdout)) == untimed(json.loads(dumps(first)))


def test_plans_are_reused_when_nothing_changes_and_refused_for_another_engine(shop, tmp_path):
    contract_path, url = shop
    plans = packata_sql.compile(packata_sql.load(contract_path), "duckdb")
    assert packata_sql.check(plans, url, observed_at=JUNE).outcome is packata_sql.Outcome.PASS
    sqlite_file = tmp_path / "x.db"
    sqlite_file.write_bytes(b"")
    with pytest.raises(UsageError, match="compiled for duckdb, the endpoint is sqlite"):
        packata_sql.check(plans, f"sqlite:///{sqlite_file}")


def test_options_are_the_clis_long_options_and_checked(shop):
    contract_path, url = shop
    contract = packata_sql.load(contract_path)
    with pytest.raises(TypeError, match="unknown option"):
        packata_sql.check(contract, url, obsreved_at=JUNE)
    with pytest.raises(UsageError, match="needs a time zone"):
        packata_sql.check(contract, url, observed_at=datetime(2026, 6, 1))
    with pytest.raises(UsageError, match="reserved"):
        packata_sql.check(contract, url, parameters={"observation_time": 1})
    selected = packata_sql.check(contract, url, select=("placed_by_then",), observed_at=JUNE)
    assert [r.key for r in selected.rules] == ["placed_by_then"]
    request = packata_sql.CheckRequest(categories=("constraint",), observed_at=JUNE)
    constraints = packata_sql.check(contract, url, request=request)
    assert {r.category.value for r in constraints.rules} == {"constraint"}


def test_errors_are_typed_from_one_module(tmp_path):
    with pytest.raises(DeclarationError) as raised:
        packata_sql.load(tmp_path / "missing.yaml")
    assert isinstance(raised.value, UsageError) and isinstance(raised.value, PackataError)
    assert "missing.yaml" in str(raised.value)
    with pytest.raises(UsageError, match="unknown dialect"):
        packata_sql.compile(packata_sql.Contract("c.yaml", ()), "postgress")


def test_progress_and_error_callbacks_are_called(shop):
    contract_path, url = shop
    steps: list[str] = []
    packata_sql.check(packata_sql.load(contract_path), url, observed_at=JUNE,
                      progress=lambda event: steps.append(event.step))
    assert steps[0] == "started" and "done" in steps


def test_the_api_imports_no_driver_and_no_argparse(shop):
    """Compiling needs no connection and no driver; no argparse object crosses the API."""
    contract_path, _ = shop
    code = (
        "import sys, packata_sql\n"
        f"plans = packata_sql.compile(packata_sql.load({str(contract_path)!r}), 'postgres')\n"
        "assert plans.compiled.executable > 0\n"
        "print(sorted(m for m in ('argparse', 'duckdb', 'psycopg', 'pymysql', 'pyspark', "
        "'sqlite3', 'sqlalchemy') if m in sys.modules))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"
    assert api.compile is packata_sql.compile


def test_checking_plans_compiles_nothing_again(shop, monkeypatch):
    """Plans compiled once serve every run that asks for what they hold (here: no compile
    call at all), and a run with other compile inputs (a selection) compiles anew."""
    contract_path, url = shop
    plans = packata_sql.compile(packata_sql.load(contract_path), "duckdb")

    def no_compiling(*args, **kwargs):
        raise AssertionError("the plans were compiled again")

    monkeypatch.setattr("packata_sql.api.compile_contract", no_compiling)
    assert packata_sql.check(plans, url, observed_at=JUNE).outcome is packata_sql.Outcome.PASS
    with pytest.raises(AssertionError, match="compiled again"):
        packata_sql.check(plans, url, select=("placed_by_then",), observed_at=JUNE)
