"""`compile --format sql`: readable, runnable SQL per object (the fused scan) and per rule."""

from __future__ import annotations

from typing import Any


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
