"""A store that cannot take the run (read-only, locked) leaves the verdict and exit code as
they are, costs one warning line, spools the run, and the next run that reaches the store
imports it exactly once (docs/cli.md, history)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from packata_sql import api
from tests.history.conftest import SECRET, check

STORE = Path(".packata") / "history.sqlite"


def _runs(place: Path) -> list[str]:
    with sqlite3.connect(place / STORE) as connection:
        return [row[0] for row in connection.execute("SELECT run_id FROM packata_runs")]


def _verdict(table: str) -> str:
    return next(line for line in table.splitlines() if " · read-only: " in line).split()[0]


def _spooled(place: Path) -> list[Path]:
    return sorted((place / ".packata" / "spool").rglob("*.json"))


def test_a_read_only_store_keeps_the_verdict_and_spools_the_run(place: Path) -> None:
    first = check(place, "--history")
    assert first.returncode == 2, first.stderr
    (place / STORE).chmod(0o444)
    refused = check(place, "--history", honour_modes=True)
    assert refused.returncode == first.returncode
    assert _verdict(refused.stdout) == _verdict(first.stdout) == "INCOMPLETE"
    [warning] = refused.stderr.splitlines()  # one line, and only that
    assert warning.startswith("packata-sql: warning: the history store "
                              "sqlite:.packata/history.sqlite was not written: it is read-only;")
    assert "spooled in .packata/spool/" in warning and "attempt to write" not in warning
    assert len(_spooled(place)) == 1 and len(_runs(place)) == 1
    (place / STORE).chmod(0o644)
    recovered = check(place, "--history")
    assert recovered.returncode == first.returncode and recovered.stderr == ""
    assert "history: 3 runs" in recovered.stdout  # the spooled one imported
    assert _spooled(place) == []
    again = check(place, "--history")
    assert "history: 4 runs" in again.stdout
    assert len(set(_runs(place))) == len(_runs(place)) == 4  # each exactly once


def test_a_locked_store_spools_and_the_next_run_imports_once(place: Path) -> None:
    report = api.check(api.load("orders.yaml"), "duckdb:///w.duckdb",
                       parameters={"floor": 0, "tag": SECRET})
    assert api.check_with_history(report).report.history is not None
    holder = sqlite3.connect(place / STORE, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")  # another writer's open transaction: the write lock
    holder.execute("DELETE FROM packata_history_version WHERE 0 = 1")
    try:
        kept = api.check_with_history(report, timeout=0.2)
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert not kept.recorded and kept.report.history is None
    assert kept.report is report  # verdict, exit code, everything: as the run left them
    assert "it is locked by another writer" in (kept.warning or "")
    assert kept.spooled is not None and kept.spooled.exists()
    recovered = api.check_with_history(report)
    assert recovered.imported == 1 and not kept.spooled.exists()
    assert recovered.report.history is not None
    assert len(recovered.report.history.runs) == 3
    assert api.check_with_history(report).imported == 0
    assert len(set(_runs(place))) == 4
