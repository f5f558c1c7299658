"""`--format github` annotates the findings no rule annotation carries: a member a column
cannot hold passes its rule silently weaker, so CI must show it at its line."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import duckdb

CONTRACT = """\
apiVersion: v3.1.0
kind: DataContract
id: g
version: "1"
status: active
schema:
  - name: amounts
    properties:
      - name: amount
        logicalType: number
        logicalTypeOptions:
          validValues: [1.5, 1.005]
"""


def test_a_member_no_cell_can_hold_is_a_github_warning_at_its_line(tmp_path: Path):
    database = tmp_path / "w.duckdb"
    connection = duckdb.connect(str(database))
    connection.execute("CREATE TABLE amounts (amount DECIMAL(10, 2))")
    connection.execute("INSERT INTO amounts VALUES (1.5)")
    connection.close()
    contract = tmp_path / "c.yaml"
    contract.write_text(CONTRACT, encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "packata_sql", "check", str(contract), "--url",
         f"duckdb:///{database}", "--format", "github", "--progress", "none"],
        capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr  # the rule passes: 1.5 is held
    warnings = [line for line in done.stdout.splitlines() if line.startswith("::warning ")]
    assert len(warnings) == 1
    assert warnings[0].startswith(
        f"::warning file={contract},line=12,title=member-not-representable::")  # its rule's line
    assert "'1.005'" in warnings[0] and "matches no cell" in warnings[0]
