"""The README's contract example runs as shown, against a warehouse file beside it."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import duckdb

README = Path(__file__).resolve().parents[2] / "README.md"


def test_readme_contract_runs(tmp_path):
    example = re.search(r"## A contract\n\n```yaml\n(.*?)```", README.read_text(encoding="utf-8"),
                        re.DOTALL)
    assert example is not None
    (tmp_path / "orders.yaml").write_text(example.group(1), encoding="utf-8")
    connection = duckdb.connect(str(tmp_path / "warehouse.duckdb"))
    connection.execute(
        "CREATE TABLE orders AS SELECT i AS order_id, "
        "CASE WHEN i % 200 = 0 THEN 'broken' ELSE 'u' || i || '@x.org' END AS email, "
        "CASE WHEN i % 50 = 0 THEN '' ELSE 'open' END AS status FROM range(5000) AS t(i)"
    )
    connection.close()
    done = subprocess.run([sys.executable, "-m", "packata_sql", "check",
                           str(tmp_path / "orders.yaml"), "--format", "json"],
                          capture_output=True, text=True, timeout=120)
    report = json.loads(done.stdout)
    statuses = [(r["key"], r["status"]) for r in report["rules"]]
    assert statuses == [
        ("schema[orders].quality[0]", "passed"),
        ("schema[orders].properties[order_id].quality[0]", "passed"),
        ("email_format", "passed"),
        ("schema[orders].properties[status].quality[0]", "failed"),
        # The schema's own declarations become constraint rules (answered from the catalog).
        ("schema[orders].properties[order_id].logicalType", "passed"),
        ("schema[orders].properties[email].logicalType", "passed"),
        ("schema[orders].properties[status].logicalType", "passed"),
    ]
    assert done.returncode == 1
