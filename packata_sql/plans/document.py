"""The plan document (`compile --format json`, `Plans.document()`): each rule's plan (key, SQL,
parameters), each object's fused scans, and the findings."""

from __future__ import annotations

from typing import Any

from packata_sql.contracts.model import Contract, Finding
from packata_sql.dialects import Dialect
from packata_sql.plans.compiler import Compiled
from packata_sql.plans.planner import (
    build_scan,
    declared_families,
    declared_native_types,
    group_by_object,
    plan_scans,
)
from packata_sql.report import finding_document

FORMAT = "packata-sql/plan@1"


def plan_document(contract: Contract, compiled: Compiled, dialect: Dialect, *,
                  pretty: bool = False) -> dict[str, Any]:
    """`pretty` lays each generated statement out for reading (`compile --format sql`); the
    JSON for tools keeps the one-line SQL that runs. Each rule's SQL is its own statement,
    built from its own plan (a fresh small tree: cheaper than copying its part of the fused
    statement) and rendered once."""
    families = declared_families(compiled.plans, dialect)
    natives = declared_native_types(compiled.plans, dialect)
    notes: list[Finding] = []

    rules: dict[str, dict[str, Any]] = {}
    scans = []
    for segments, plans in group_by_object(compiled.plans):
        for fused in plan_scans(segments, plans, dialect, families, natives, pretty=pretty):
            notes += fused.findings()
            scans.append({"object": list(segments), "sql": fused.sql,
                          "rules": [p.rule.key for p in fused.plans],
                          **({"parameters": list(fused.parameters)} if fused.parameters else {})})
        for plan in plans:
            alone = build_scan(segments, [plan], dialect, families, natives, pretty=pretty)
            rules[plan.rule.key] = {
                "key": plan.rule.key,
                "source_path": plan.rule.source_path,
                "status": "planned" if alone.plans else "type-mismatch",
                "metric": plan.measure,
                "unit": plan.rule.unit,
                "sql": alone.sql if alone.plans else None,
                "parameters": list(alone.parameters),
            }
    for sql_plan in compiled.sql_plans:
        rules[sql_plan.rule.key] = {
            "key": sql_plan.rule.key,
            "source_path": sql_plan.rule.source_path,
            "status": "planned",
            "metric": None,
            "unit": sql_plan.rule.unit,
            "sql": sql_plan.sql,
            "parameters": list(sql_plan.parameters),
        }
    for observation in compiled.observation_plans:
        rules[observation.rule.key] = {
            "key": observation.rule.key,
            "source_path": observation.rule.source_path,
            "status": "planned",
            "metric": "expressif:observation",
            "unit": None,
            "sql": observation.sql,  # over the value the caller supplies, bound by the driver
            "parameters": list(observation.parameters),
        }
    for catalog_plan in compiled.catalog_plans:
        if catalog_plan.rows is not None and catalog_plan.rows_listed:
            continue  # its row measurement is listed above, with its SQL
        rules[catalog_plan.rule.key] = {
            "key": catalog_plan.rule.key,
            "source_path": catalog_plan.rule.source_path,
            "status": "planned",
            "metric": catalog_plan.constraint.kind,
            "unit": None,
            "sql": None,  # answered from the engine's catalog: reads no rows
            "parameters": [],
        }
    for key, finding in compiled.blocked.items():
        rule = next(r for r in contract.rules if r.key == key)
        rules[key] = {"key": key, "source_path": rule.source_path, "status": "skipped",
                      "finding": finding.code, "sql": None, "parameters": []}
    ordered = [rules[r.key] for r in contract.rules if r.key in rules]
    return {
        "format": FORMAT,
        "contract": contract.path,
        "dialect": dialect.name,
        "scans": scans,
        "rules": ordered,
        "findings": [finding_document(f)
                     for f in [*compiled.findings, *dict.fromkeys(notes)]],
    }
