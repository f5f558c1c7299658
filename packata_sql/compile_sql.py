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


def pretty(sql: str, sqlglot_name: str) -> str:
    """Generated SQL laid out one clause per line, only when sqlglot reads it back and writes
    exactly the same text on one line: then the layout changes whitespace only. Otherwise (a
    construct sqlglot would respell, e.g. MySQL's REGEXP as REGEXP_LIKE, which MariaDB lacks)
    the SQL is printed as it runs."""
    import sqlglot
    from sqlglot.errors import SqlglotError

    try:
        expressions = sqlglot.parse(sql, read=sqlglot_name)
        if len(expressions) != 1 or expressions[0] is None:
            return sql
        if expressions[0].sql(dialect=sqlglot_name) != sql:
            return sql
        return expressions[0].sql(dialect=sqlglot_name, pretty=True)
    except SqlglotError:
        return sql


def render_sql(document: dict[str, Any], sqlglot_name: str) -> str:
    """The plan document (plan_json) as commented SQL: scans first, then each rule."""
    lines = [f"-- packata-sql compile · {document['contract']} · dialect {document['dialect']}"]
    for scan in document["scans"]:
        lines += ["", f"-- object {'.'.join(scan['object'])}: one fused scan for "
                      f"{len(scan['rules'])} rule(s): {', '.join(scan['rules'])}",
                  pretty(scan["sql"], sqlglot_name) + ";"]
    for rule in document["rules"]:
        lines += ["", f"-- rule {rule['key']} ({rule['source_path']})"]
        if rule.get("sql") is None:
            lines.append(f"-- not compiled: {rule.get('finding') or rule['status']}")
            continue
        authored = rule.get("metric") is None
        lines.append((rule["sql"] if authored else pretty(rule["sql"], sqlglot_name)) + ";")
    for finding in document["findings"]:
        where = f" (line {finding['line']})" if finding.get("line") else ""
        lines.append(f"-- {finding['level']} {finding['code']} at {finding['source_path']}"
                     f"{where}: {finding['message']}")
    return "\n".join(lines) + "\n"
