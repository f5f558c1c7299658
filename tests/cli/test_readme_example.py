"""The README's contract example runs as shown, against a warehouse file beside it."""

from __future__ import annotations

import json
import os
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
    ]
    assert done.returncode == 1


def test_readme_shows_the_real_table(tmp_path):
    """The table in the README is what the program prints for the README's contract (the
    duration normalised, trailing spaces dropped)."""
    text = README.read_text(encoding="utf-8")
    shown = re.search(r"<!-- readme-table -->\n```\n(.*?)```", text, re.DOTALL)
    assert shown is not None
    example = re.search(r"## A contract\n\n```yaml\n(.*?)```", text, re.DOTALL)
    assert example is not None
    (tmp_path / "orders.yaml").write_text(example.group(1), encoding="utf-8")
    connection = duckdb.connect(str(tmp_path / "warehouse.duckdb"))
    connection.execute(
        "CREATE TABLE orders AS SELECT i AS order_id, "
        "CASE WHEN i % 200 = 0 THEN 'broken' ELSE 'u' || i || '@x.org' END AS email, "
        "CASE WHEN i % 50 = 0 THEN '' ELSE 'open' END AS status FROM range(5000) AS t(i)"
    )
    connection.close()
    done = subprocess.run([sys.executable, "-m", "packata_sql", "check", "orders.yaml", "--url",
                           "duckdb:///warehouse.duckdb"],
                          capture_output=True, text=True, timeout=120, cwd=tmp_path,
                          env={**os.environ, "COLUMNS": "100"})
    printed = re.sub(r"· \d+\.\d\d s$", "· 0.05 s", done.stdout, flags=re.M)
    assert [line.rstrip() for line in printed.splitlines()] == shown.group(1).splitlines()


def test_readme_has_an_install_line_and_no_outside_links():
    text = README.read_text(encoding="utf-8")
    assert re.search(r"^pipx install \.", text, re.M)
    assert not re.search(r"\]\((?!#)[^)]*\)", text)  # only in-page links
    assert "https://" not in text and "http://" not in text
