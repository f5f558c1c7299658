"""docs/semantics.md 1.1: a latency adds one MAX of its column to the object's fused scan, no
statement of its own, in every dialect that renders library metrics; a retention adds nothing
(it is sla-descriptive). Regenerate with PACKATA_UPDATE_GOLDEN=1 after reviewing the diff."""

from __future__ import annotations

import os
from pathlib import Path

import sqlglot

from packata_sql.contracts.odcs import load_odcs
from packata_sql.dialects import COMPILE_DIALECTS, get_dialect
from packata_sql.plans.compiler import compile_contract
from packata_sql.plans.planner import declared_families, declared_native_types, plan_scans

HERE = Path(__file__).parent


def rendered() -> str:
    contract = load_odcs(str(HERE / "sla.yaml"))
    lines = ["-- packata-sql golden SQL: SLA latency in the fused scan"]
    for name in COMPILE_DIALECTS:
        dialect = get_dialect(name)
        compiled = compile_contract(contract, dialect)
        plans = compiled.plans
        lines.append(f"-- {name}")
        if not plans:
            lines += [f"-- {key}: skipped ({finding.code})"
                      for key, finding in compiled.blocked.items()]
            continue
        scans = plan_scans(plans[0].object_segments, plans, dialect,
                           declared_families(plans, dialect), declared_native_types(plans, dialect))
        lines += [scan.sql + ";" for scan in scans]
        lines += [f"-- {key}: skipped ({finding.code})" for key, finding in compiled.blocked.items()]
    return "\n".join(lines) + "\n"


def test_latency_is_one_max_in_the_fused_scan():
    text = rendered()
    golden = HERE / "sla.sql"
    if os.environ.get("PACKATA_UPDATE_GOLDEN") == "1":
        golden.write_text(text, encoding="utf-8")
    assert text == golden.read_text(encoding="utf-8")


def test_each_engine_scans_once_with_one_max_per_latency():
    contract = load_odcs(str(HERE / "sla.yaml"))
    for name in ("duckdb", "sqlite", "postgres", "mysql", "spark"):
        dialect = get_dialect(name)
        plans = compile_contract(contract, dialect).plans
        scans = plan_scans(plans[0].object_segments, plans, dialect,
                           declared_families(plans, dialect), declared_native_types(plans, dialect))
        assert len(scans) == 1, name
        parsed = sqlglot.parse_one(scans[0].sql, read=dialect.sqlglot_name)
        assert len(list(parsed.find_all(sqlglot.exp.Max))) == 2, name
        assert "now" not in scans[0].sql.lower() and "current_" not in scans[0].sql.lower()
