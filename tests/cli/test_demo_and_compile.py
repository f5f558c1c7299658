"""`packata-sql demo` and `packata-sql compile`, as a user runs them."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from packata_sql.demo import contract_path


def run(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "packata_sql", *args], capture_output=True,
                          text=True, timeout=300, env=env)


def test_demo_builds_a_warehouse_and_reports_passes_failures_and_a_warning(tmp_path):
    env = {**os.environ, "PACKATA_SQL_CACHE": str(tmp_path)}
    done = run("demo", "--format", "json", env=env)
    assert done.returncode == 1, done.stderr
    assert list(tmp_path.glob("demo-v*.duckdb"))
    report = json.loads(done.stdout)
    statuses = {r["key"]: (r["status"], r["severity"]) for r in report["rules"]}
    assert statuses["email_well_formed"] == ("failed", "error")
    assert statuses["order_id_unique"] == ("failed", "error")
    assert statuses["country_known"] == ("failed", "warning")
    assert statuses["customers_row_count"] == ("passed", "error")
    assert statuses["orders_description"][0] == "skipped"
    assert report["read_only"] == "enforced"
    assert sum(1 for status, _ in statuses.values() if status == "passed") >= 5
    table = run("demo", env=env)
    assert "failed (warning)" in table.stdout and "expected = 0" in table.stdout


def test_compile_prints_plans_and_findings_without_a_database(tmp_path):
    done = run("compile", str(contract_path()), "--dialect", "duckdb")
    assert done.returncode == 0, done.stderr
    plan = json.loads(done.stdout)
    assert plan["format"] == "packata-sql/plan@1"
    assert [scan["object"] for scan in plan["scans"]] == [["customers"], ["orders"]]
    rules = {r["key"]: r for r in plan["rules"]}
    assert rules["email_well_formed"]["sql"].startswith("SELECT")
    assert "regexp_matches" in rules["email_well_formed"]["sql"].lower()
    assert rules["orders_description"]["status"] == "skipped"
    assert rules["orders_description"]["finding"] == "text-not-executable"
    assert all(r["parameters"] == [] for r in plan["rules"])
    assert not Path("demo.duckdb").exists()
