"""Temporal members are written as ISO text; one that is not a real date, timestamp or time
can never equal a cell. Engines disagree on it (Spark and DuckDB raise, which stopped the whole
fused scan; others compare text), so such a member matches nothing and is a finding."""

from __future__ import annotations

import datetime
import re

_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")
_TIMESTAMP = re.compile(r"\d{4}-\d{2}-\d{2}(?:[ T]\d{2}:\d{2}(?::\d{2}(?:\.\d{1,6})?)?)?")
_TIME = re.compile(r"\d{2}:\d{2}(?::\d{2}(?:\.\d{1,6})?)?")
_KINDS = {"date": (_DATE, datetime.date.fromisoformat),
          "timestamp": (_TIMESTAMP, datetime.datetime.fromisoformat),
          "time": (_TIME, datetime.time.fromisoformat)}


def not_temporal(member: str, kind: str | None) -> bool:
    """Whether a text member cannot be a value of the temporal logical type `kind` (`date`,
    `timestamp`, `time`; None: any of them, for a column probed as temporal)."""
    kinds = [kind.lower()] if kind and kind.lower() in _KINDS else list(_KINDS)
    for name in kinds:
        shape, parse = _KINDS[name]
        if shape.fullmatch(member):
            try:
                parse(member)
                return False
            except ValueError:
                continue
    return True
