"""The history store on SQLite through the API (docs/semantics.md, run history): what a run
keeps, exactly once; forward migrations; never a row value, SQL text, secret or engine
message."""

from __future__ import annotations

import sqlite3
from dataclasses import replace
from fractions import Fraction
from pathlib import Path

import pytest
from sqlalchemy import create_engine

from packata_sql import api
from packata_sql.errors import UsageError
from packata_sql.history.schema import VERSION, migrate, stored_version
from tests.history.conftest import BAD, ROW_VALUE, SECRET, SQL_MARKER, check, write_warehouse


def _report(place: Path) -> api.Report:
    return api.check(api.load(place / "orders.yaml"), f"duckdb:///{place / 'w.duckdb'}",
                     parameters={"floor": 0, "tag": SECRET})


def test_a_run_is_kept_with_its_evidence_and_once_per_run_id(place: Path) -> None:
    write_warehouse(place / "w.duckdb", BAD)
    report = _report(place)
    run_id = api.record_run(report, "store.sqlite", run_id="run-1")
    assert api.record_run(report, "store.sqlite", run_id="run-1") == "run-1"  # idempotent
    with sqlite3.connect(place / "store.sqlite") as connection:
        runs = connection.execute("SELECT run_id, contract_id, contract_version, contract_path, "
                                  "target, outcome, complete FROM packata_runs").fetchall()
        rules = dict(connection.execute(
            "SELECT rule_key, status || ' ' || coalesce(value, '-') || ' ' || "
            "coalesce(numerator, '-') || '/' || coalesce(denominator, '-') || ' ' || "
            "coalesce(diagnostic_code, '-') FROM packata_rule_results").fetchall())
    assert runs == [(run_id, "urn:history:orders", "1.0.0", str(place / "orders.yaml"),
                     f"duckdb:{place / 'w.duckdb'}", "fail", 0)]
    # 2 of 3 statuses invalid: 200/3 % kept exactly, with the counts behind it.
    assert rules["status_known"] == "failed 200/3 2/3 -"
    assert rules["status_present"] == "failed 1 -/- -"
    assert rules["amount_cast"] == "error - -/- provider-error"
    assert rules["schema[orders].properties[id].logicalType"] == "passed true -/- -"
    found = api.read_history("store.sqlite", rule="status_known")[0]
    assert found.contract == "urn:history:orders"
    assert [p.value for p in found.rules[0].points] == [Fraction(200, 3)]


def test_nothing_that_can_hold_a_row_value_sql_or_a_secret_reaches_the_store(place: Path) -> None:
    """A row value (a failing status, shown by --samples and in the engine's cast error under
    -v), the authored SQL's text and a --param value: absent from the store's bytes and from a
    spool file."""
    write_warehouse(place / "w.duckdb", BAD)
    done = check(place, "--history", "--samples", "5", "-v", "--format", "json")
    assert done.returncode == 1, done.stderr
    assert ROW_VALUE in done.stderr and SQL_MARKER in done.stderr  # they were there to leak
    (place / "blocked").mkdir()
    spooled = check(place, "--history", "blocked/", "--samples", "5", "-v")  # a folder: no store
    assert "spooled in" in spooled.stderr
    files = [place / ".packata" / "history.sqlite",
             *(place / ".packata" / "spool").rglob("*.json")]
    assert len(files) == 2
    for path in files:
        data = path.read_bytes()
        assert b"urn:history:orders" in data  # the run is there ...
        for planted in (ROW_VALUE, SQL_MARKER, SECRET, "SELECT", "Conversion Error"):
            assert planted.encode() not in data, (path, planted)  # ... and none of these


def test_a_duckdb_store_keeps_runs_too(place: Path) -> None:
    """`duckdb:///FILE` through duckdb-engine (SQLAlchemy's DuckDB dialect)."""
    report = _report(place)
    for _ in range(2):
        api.record_run(report, "duckdb:///h.duckdb")
    [found] = api.read_history("duckdb:///h.duckdb")
    assert found.store == "duckdb:h.duckdb" and len(found.runs) == 2
    assert api.prune_history("duckdb:///h.duckdb", keep_runs=1).runs == 1


def test_an_older_store_is_migrated_and_a_newer_one_refused(place: Path) -> None:
    engine = create_engine(f"sqlite:///{place / 'old.sqlite'}")
    with engine.begin() as connection:
        migrate(connection, "old", to=1)  # as the first release left it
        assert stored_version(connection) == 1
    report = _report(place)
    api.record_run(report, "old.sqlite")
    with engine.begin() as connection:
        assert stored_version(connection) == VERSION
        assert connection.exec_driver_sql(
            "SELECT count(*) FROM sqlite_master WHERE name = 'packata_runs_by_contract'"
        ).scalar() == 1
        connection.exec_driver_sql(f"UPDATE packata_history_version SET version = {VERSION + 1}")
    engine.dispose()
    with pytest.raises(UsageError, match=r"schema version \d+, newer than this packata-sql"):
        api.read_history("old.sqlite")
    kept = api.check_with_history(report, "old.sqlite")
    assert kept.report.history is None and kept.spooled is not None
    assert "upgrade packata-sql" in (kept.warning or "")


def test_prune_deletes_old_runs_and_their_rules_in_one_go(place: Path) -> None:
    report = _report(place)
    for day in ("2026-01-01", "2026-06-01", "2026-11-01"):
        api.record_run(replace(report, observed_at=f"{day}T08:00:00+00:00"), "s.sqlite")
    pruned = api.prune_history("s.sqlite", keep_runs=2)
    assert (pruned.runs, pruned.rules, pruned.kept) == (1, len(report.results), 2)
    assert [r.observed_at[:10] for r in api.read_history("s.sqlite")[0].runs] == \
        ["2026-06-01", "2026-11-01"]
    assert api.prune_history("s.sqlite", keep_days=0).kept == 0
    with pytest.raises(UsageError, match="one of keep_days or keep_runs"):
        api.prune_history("s.sqlite")


def test_the_store_is_never_the_checked_target(place: Path) -> None:
    contract = api.load(place / "orders.yaml")
    endpoint = api.resolve_endpoint(contract, "duckdb:///w.duckdb", None, False)
    for store in ("w.duckdb", "duckdb:///w.duckdb", f"sqlite:///{place / 'w.duckdb'}"):
        with pytest.raises(UsageError, match="is the checked target itself"):
            api.history_store(store, endpoint)
    for bad, words in (("mysql://u:pw@h/db", "the store must be"),
                       ("sqlite://", "needs a file"), ("postgresql://h", "needs a database")):
        with pytest.raises(UsageError, match=words) as refused:
            api.history_store(bad)
        assert "pw" not in str(refused.value)
