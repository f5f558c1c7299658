"""Generated SQL for every dialect against golden files; each statement parses back with
sqlglot in its own dialect. Regenerate with PACKATA_UPDATE_GOLDEN=1 after reviewing the diff."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
import sqlglot

from packata_sql.contracts.odcs import load_odcs
from packata_sql.dialects import COMPILE_DIALECTS, get_dialect
from packata_sql.plans.compiler import compile_contract
from packata_sql.plans.planner import build_scan, declared_families, group_by_object, plan_scans

HERE = Path(__file__).parent


def rendered(dialect_name: str) -> str:
    dialect = get_dialect(dialect_name)
    contract = load_odcs(str(HERE / "contract.yaml"))
    compiled = compile_contract(contract, dialect)
    families = declared_families(compiled.plans, dialect)
    lines = [f"-- packata-sql golden SQL for {dialect_name}"]
    for segments, plans in group_by_object(compiled.plans):
        for scan in plan_scans(segments, plans, dialect, families):  # one, or split (Spark)
            lines += ["-- fused scan", scan.sql + ";"]
        for plan in plans:
            lines += [f"-- {plan.rule.key}", build_scan(segments, [plan], dialect, families).sql + ";"]
    for catalog in compiled.catalog_plans:
        lines.append(f"-- {catalog.rule.key}: from the catalog ({catalog.constraint.kind})")
    for key, finding in compiled.blocked.items():
        lines.append(f"-- {key}: skipped ({finding.code})")
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("dialect", COMPILE_DIALECTS)
def test_generated_sql_matches_golden_file(dialect):
    text = rendered(dialect)
    golden = HERE / f"{dialect}.sql"
    if os.environ.get("PACKATA_UPDATE_GOLDEN") == "1":
        golden.write_text(text, encoding="utf-8")
    assert text == golden.read_text(encoding="utf-8")


@pytest.mark.parametrize("dialect", COMPILE_DIALECTS)
def test_generated_sql_parses_back(dialect):
    read = get_dialect(dialect).sqlglot_name
    statements = [line for line in rendered(dialect).splitlines() if not line.startswith("--")]
    assert statements
    for statement in statements:
        parsed = sqlglot.parse_one(statement.rstrip(";"), read=read)
        assert parsed.find(sqlglot.exp.Select) is not None
