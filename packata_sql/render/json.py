"""The `packata-sql/report@1` JSON shape. Numbers are written exactly, never through float."""

from __future__ import annotations

import json
from decimal import Decimal
from fractions import Fraction
from typing import Any

from packata_sql.catalog.identity import CATALOG, CATALOG_VERSION, PROGRAM
from packata_sql.contracts.model import Finding
from packata_sql.render.neutral import json_string
from packata_sql.report import Report, RuleResult
from packata_sql.values import to_decimal

FORMAT = "packata-sql/report@1"


def report_document(report: Report) -> dict[str, Any]:
    document: dict[str, Any] = {
        "format": FORMAT,
        "contract": report.contract,
        "contract_id": report.contract_id,
        "contract_version": report.contract_version,
        "target": report.target,
        "schema": report.schema,
        "outcome": report.outcome.value,
        "complete": report.complete,
        "selection": report.selection.document() if report.selection else None,
        "read_only": report.read_only,
        "authored_sql": report.authored_sql,
        "routes": list(report.routes),
        "catalog": {"name": CATALOG, "version": CATALOG_VERSION, "program": PROGRAM},
        "settings": report.settings,
        "summary": report.summary(),
        "summary_by_category": report.summary_by_category(),
        "started_at": report.started_at,
        "elapsed_ms": report.elapsed_ms,
        "descriptive_only": report.descriptive_only,
        "accepted_unexecuted": report.accepted_unexecuted,
        "rules": [_rule(r) for r in report.results],
        "findings": [finding_document(f) for f in report.findings],
    }
    if report.declaration:  # evidence about the declaration itself (a policy's hash)
        document["declaration"] = report.declaration
    return document


def _rule(result: RuleResult) -> dict[str, Any]:
    value: Any = result.value
    if isinstance(value, Fraction):
        value = to_decimal(value)
    document: dict[str, Any] = {
        "key": result.key,
        "name": result.name,
        "source_path": result.source_path,
        "line": result.line,
        "target": result.target,
        "metric": result.metric,
        "kind": result.kind,
        "expectation": result.expectation,
        "category": result.category.value,
        "severity": result.severity.value,
        "status": result.status.value,
        "value": value,
        "unit": result.unit,
        "evidence": result.evidence,
        "failed": list(result.failed),
        "diagnostic": None if result.diagnostic is None else {
            "code": result.diagnostic.code,
            "message": result.diagnostic.message,
            "provider_code": result.diagnostic.provider_code,
        },
        "elapsed_ms": result.elapsed_ms,
        "fused": result.fused,
        "descriptive": result.descriptive,
    }
    if result.changes:
        document["changes"] = list(result.changes)
    if result.sql is not None:
        document["sql"] = result.sql
    if result.inspect_sql is not None:
        document["inspect_sql"] = result.inspect_sql
    return document


def finding_document(finding: Finding) -> dict[str, Any]:
    return {
        "code": finding.code,
        "rule_key": finding.rule_key,
        "source_path": finding.source_path,
        "line": finding.line,
        "level": finding.level.value,
        "message": finding.message,
    }


def dumps(value: Any, indent: int = 0) -> str:
    """JSON with Decimals written as exact JSON numbers (the json module would need floats)."""
    pad = "  " * (indent + 1)
    end = "  " * indent
    if isinstance(value, dict):
        if not value:
            return "{}"
        items = [f"{pad}{json_string(str(k))}: {dumps(v, indent + 1)}" for k, v in value.items()]
        return "{\n" + ",\n".join(items) + f"\n{end}}}"
    if isinstance(value, list | tuple):
        if not value:
            return "[]"
        return "[\n" + ",\n".join(f"{pad}{dumps(v, indent + 1)}" for v in value) + f"\n{end}]"
    if isinstance(value, Decimal):
        return format(value, "f")
    if isinstance(value, str):
        return json_string(value)
    return json.dumps(value, ensure_ascii=False)


def render_json(report: Report) -> str:
    return dumps(report_document(report)) + "\n"
