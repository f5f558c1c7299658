"""A small DuckDB warehouse and its contract, and the CLI run as a real process, for the run
history tests (docs/semantics.md, run history)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import duckdb
import pytest

#: Planted where a report's evidence must never carry them into the store.
ROW_VALUE = "rowvalue-7f3a9e"
SQL_MARKER = "authored_sql_marker_51c2"
SECRET = "planted-secret-0d8b41"

CONTRACT = f"""\
apiVersion: v3.1.0
kind: DataContract
id: urn:history:orders
version: 1.0.0
status: active
schema:
  - name: orders
    properties:
      - name: id
        logicalType: integer
      - name: status
        logicalType: string
        quality:
          - id: status_present
            metric: nullValues
            mustBe: 0
          - id: status_known
            metric: invalidValues
            arguments:
              validValues: [open, done]
            mustBeLessThan: 34
            unit: percent
      - name: amount
        quality:
          - id: no_negative
            type: sql
            query: |
              SELECT COUNT(*) FROM {{object}} WHERE {{property}} < {{param:floor}}
              AND '{SQL_MARKER}' <> {{param:tag}}
            mustBe: 0
          - id: amount_cast
            type: sql
            query: SELECT CAST(status AS INTEGER) FROM {{object}} WHERE '{SQL_MARKER}' <> ''

            mustBe: 0
"""


def write_warehouse(path: Path, rows: list[tuple[Any, ...]]) -> None:
    connection = duckdb.connect(str(path))
    connection.execute("CREATE OR REPLACE TABLE orders (id INTEGER, status VARCHAR, "
                       "amount INTEGER)")
    connection.executemany("INSERT INTO orders VALUES (?, ?, ?)", rows)
    connection.close()


GOOD = [(1, "open", 5), (2, "done", 7), (3, "open", 1)]
#: Then a NULL status and a negative amount: `status_present` and `no_negative` fail.
BAD = [(1, "open", 5), (2, None, -7), (3, ROW_VALUE, 1)]


@pytest.fixture
def place(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A working directory with the contract and a good warehouse; the default store lands in
    its `.packata/`."""
    (tmp_path / "orders.yaml").write_text(CONTRACT, encoding="utf-8")
    write_warehouse(tmp_path / "w.duckdb", GOOD)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def cli(place: Path, *args: str, user: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "packata_sql", *args], capture_output=True,
                          text=True, timeout=120, cwd=place, user=user,
                          env={**os.environ, "COLUMNS": "160"})


def check(place: Path, *extra: str, user: str | None = None) -> subprocess.CompletedProcess[str]:
    return cli(place, "check", "orders.yaml", "--url", "duckdb:///w.duckdb", "--progress",
               "none", "--param", "floor:int=0", "--param", f"tag:string={SECRET}", *extra, user=user)
