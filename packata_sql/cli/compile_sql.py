"""`compile --format sql`: readable, runnable SQL per object (the fused scan) and per rule,
and the dialect a contract's own server implies when `--dialect` is omitted."""

from __future__ import annotations

from typing import Any

from packata_sql import engines
from packata_sql.contracts.model import Contract


def dialect_name(name: str) -> str | None:
    """The dialect a `--dialect` value names (a name or an alias, any case)."""
    spec = engines.named(name)
    return spec.name if spec else None


def contract_dialect(contract: Contract) -> str | None:
    """The dialect of the contract's first server whose type packata-sql renders."""
    for server in contract.servers:
        spec = engines.dialect_for_server_type(server.type)
        if spec is not None:
            return spec.name
        if server.type.lower() == "custom":
            for key in ("format", "engine", "driver"):
                value = server.setting(key)
                if isinstance(value, str) and dialect_name(value):
                    return dialect_name(value)
    return None


def render_sql(document: dict[str, Any]) -> str:
    """The plan document (plan_json, built with `pretty=True`) as commented SQL: each object's
    scan first, with the rule each aggregate measures, then each rule on its own."""
    lines = [f"-- packata-sql compile · {document['contract']} · dialect {document['dialect']}"]
    for scan in document["scans"]:
        lines += ["", f"-- object {'.'.join(scan['object'])}: one fused scan for "
                      f"{len(scan['rules'])} rule(s)"]
        lines += [f"--   m{index}: {key}" for index, key in enumerate(scan["rules"], 1)]
        lines.append(scan["sql"] + ";")
    for rule in document["rules"]:
        lines += ["", f"-- rule {rule['key']} ({rule['source_path']})"]
        if rule.get("sql") is not None:
            lines.append(rule["sql"] + ";")  # authored SQL as written, generated SQL laid out
        elif rule.get("finding"):
            lines.append(f"-- not compiled: {rule['finding']} (see the findings below)")
        elif rule["status"] == "planned":
            lines.append("-- answered from the catalog (no SQL): reads no rows")
        else:
            lines.append(f"-- not compiled: {rule['status']}")
    for finding in document["findings"]:
        where = f" (line {finding['line']})" if finding.get("line") else ""
        lines.append(f"-- {finding['level']} {finding['code']} at {finding['source_path']}"
                     f"{where}: {finding['message']}")
    return "\n".join(lines) + "\n"
