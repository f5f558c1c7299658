"""`--param NAME=VALUE` (or `NAME:TYPE=VALUE`): typed run values for `{param:NAME}`.

Values reach the driver as parameters, never as SQL text (docs/semantics.md 4.3).
"""

from __future__ import annotations

import datetime
import re
from decimal import Decimal, InvalidOperation

from packata_sql.values import beyond_limits

_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_INT = re.compile(r"^[-+]?\d+$")
_DECIMAL = re.compile(r"^[-+]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?$")
_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
TYPES = ("int", "decimal", "string", "bool", "date")

Value = int | Decimal | str | bool | datetime.date


class ParameterError(ValueError):
    """A `--param` that cannot be read; the message names the parameter, not its value."""


def parse_parameter(text: str) -> tuple[str, Value]:
    head, separator, raw = text.partition("=")
    if not separator:
        raise ParameterError("a --param has no '=': write NAME=VALUE or NAME:TYPE=VALUE "
                             "(the argument is not shown: it may hold a secret)")
    name, _, kind = head.partition(":")
    if not _NAME.match(name):
        raise ParameterError("a --param name is not an identifier (letters, digits and '_'; "
                             "the name is not shown: it may hold a secret)")
    if kind and kind not in TYPES:
        raise ParameterError(f"--param {name}: the type must be one of {', '.join(TYPES)}")
    try:
        return name, _typed(raw, kind or _infer(raw))
    except (ValueError, InvalidOperation):
        raise ParameterError(f"--param {name}: the value is not a valid {kind}") from None


def _infer(raw: str) -> str:
    if _INT.match(raw):
        return "int"
    if _DECIMAL.match(raw):
        return "decimal"
    if raw in ("true", "false"):
        return "bool"
    if _DATE.match(raw):
        return "date"
    return "string"


def _typed(raw: str, kind: str) -> Value:
    if kind in ("int", "decimal"):
        number = int(raw) if kind == "int" else Decimal(raw)
        if beyond_limits(number):  # 1e999999999 would hang exact arithmetic and the drivers
            raise ValueError(raw)
        return number
    if kind == "bool":
        if raw not in ("true", "false"):
            raise ValueError(raw)
        return raw == "true"
    if kind == "date":
        return datetime.date.fromisoformat(raw)
    return raw
