"""The `packata-sql/report@1` JSON text (the document is `Report.to_dict`). Numbers are
written exactly, never through float."""

from __future__ import annotations

import json
from decimal import Decimal
from typing import Any

from packata_sql.render.neutral import json_string
from packata_sql.report import FORMAT, Report, finding_document, report_document

__all__ = ["FORMAT", "dumps", "finding_document", "render_json", "report_document"]


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
    if value is None or isinstance(value, bool):
        return _KEYWORDS[value]
    if type(value) is int:
        return str(value)
    return json.dumps(value, ensure_ascii=False)


_KEYWORDS = {None: "null", True: "true", False: "false"}


def render_json(report: Report) -> str:
    return dumps(report.to_dict()) + "\n"
