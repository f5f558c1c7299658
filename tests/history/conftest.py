"""A small DuckDB warehouse and its contract, and the CLI run as a real process, for the run
history tests (docs/semantics.md, run history)."""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import duckdb
import pytest

from packata_sql.cli.main import main

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


#: Root ignores file modes; without these two capabilities (util-linux's `setpriv`) a root
#: process meets them as any user does, so a chmod'ed read-only file is read-only to it.
AS_FILE_MODES = ["setpriv", "--bounding-set=-dac_override,-dac_read_search",
                 "--inh-caps=-dac_override,-dac_read_search"] if os.geteuid() == 0 else []


def cli(place: Path, *args: str, honour_modes: bool = False) -> subprocess.CompletedProcess[str]:
    """The CLI in a process of its own; `honour_modes`: one that file modes bind, as root too."""
    prefix = AS_FILE_MODES if honour_modes else []
    return subprocess.run([*prefix, sys.executable, "-m", "packata_sql", *args],
                          capture_output=True, text=True, timeout=120, cwd=place,
                          env={**os.environ, "COLUMNS": "160"})


@dataclass
class Done:
    returncode: int
    stdout: str
    stderr: str


@pytest.fixture
def run(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> Any:
    """The CLI in this process (`main(argv)`, the program's own entry), in the current
    directory: fast enough to run it a dozen times."""
    monkeypatch.setenv("COLUMNS", "160")

    def invoke(*args: str) -> Done:
        capsys.readouterr()
        try:
            code = main(list(args))
        except SystemExit as stop:  # argparse's own refusals
            code = int(stop.code or 0)
        captured = capsys.readouterr()
        return Done(code, captured.out, captured.err)
    return invoke


CHECK = ("check", "orders.yaml", "--url", "duckdb:///w.duckdb", "--progress", "none",
         "--param", "floor:int=0", "--param", f"tag:string={SECRET}")


def check(place: Path, *extra: str,
          honour_modes: bool = False) -> subprocess.CompletedProcess[str]:
    return cli(place, *CHECK, *extra, honour_modes=honour_modes)
