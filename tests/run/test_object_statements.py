"""What an object costs on DuckDB (issue 26.2): its column facts come from the run's one read
ahead, so each object runs one statement, its scan. Counted from DuckDB's own query log (a
count, not a time), which the session's connection writes to standard output."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import duckdb
import pytest
import yaml

from packata_sql.contracts.odcs import load_odcs
from packata_sql.dialects import get_dialect
from packata_sql.plans.compiler import compile_contract
from packata_sql.report import Status
from packata_sql.run.runner import RunOptions, run
from packata_sql.sessions.endpoint import Endpoint

#: The target: one statement per object, the scan (docs/engines.md).
PER_OBJECT = 1


def _database(path: Path, names: list[str]) -> None:
    connection = duckdb.connect(str(path))
    for name in names:
        connection.execute(f"CREATE TABLE {name} (id INTEGER PRIMARY KEY, status VARCHAR)")
        connection.execute(f"INSERT INTO {name} VALUES (1, 'active'), (2, 'inactive')")
    connection.close()


def _contract(path: Path, names: list[str]) -> Path:
    schema = [{"name": name, "quality": [{"metric": "rowCount", "mustBe": 2}], "properties": [
        {"name": "id", "logicalType": "integer", "primaryKey": True,
         "quality": [{"metric": "duplicateValues", "mustBe": 0}]},
        {"name": "status", "logicalType": "string", "quality": [
            {"metric": "nullValues", "mustBe": 0},
            {"metric": "invalidValues", "arguments": {"validValues": ["active", "inactive"]},
             "mustBe": 0}]}]} for name in names]
    path.write_text(yaml.safe_dump({"apiVersion": "v3.1.0", "kind": "DataContract", "id": "c",
                                    "version": "1", "status": "active", "schema": schema}),
                    encoding="utf-8")
    return path


def _statements(tmp_path: Path, names: list[str], monkeypatch: pytest.MonkeyPatch,
                capfd: pytest.CaptureFixture[str]) -> int:
    """The statements the run's DuckDB connections executed, every result passed."""
    database = tmp_path / f"w{len(names)}.duckdb"
    _database(database, names)
    connect = duckdb.connect

    def logged(*args: Any, **kwargs: Any) -> Any:
        connection = connect(*args, **kwargs)
        connection.execute("CALL enable_logging('QueryLog', storage='stdout')")
        return connection

    monkeypatch.setattr(duckdb, "connect", logged)
    contract = load_odcs(str(_contract(tmp_path / f"c{len(names)}.yaml", names)))
    capfd.readouterr()
    report = run(contract, compile_contract(contract, get_dialect("duckdb")),
                 Endpoint("duckdb", str(database)), RunOptions())
    log = capfd.readouterr().out
    monkeypatch.setattr(duckdb, "connect", connect)
    assert {r.status for r in report.results} == {Status.PASSED}, report.results
    assert len(report.results) == len(names) * 7  # four quality rules, three catalog checks
    return sum(1 for line in log.splitlines() if "QueryLog" in line)


def test_an_object_costs_one_statement(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                       capfd: pytest.CaptureFixture[str]):
    few = _statements(tmp_path, [f"t_{i}" for i in range(5)], monkeypatch, capfd)
    many = _statements(tmp_path, [f"t_{i}" for i in range(15)], monkeypatch, capfd)
    assert (many - few) / 10 <= PER_OBJECT, (few, many)
