"""Temporal members are written as ISO text; one that is not a real date, timestamp or time
can never equal a cell. Engines disagree on it (Spark and DuckDB raise, which stopped the whole
fused scan; others compare text), so such a member matches nothing and is a finding."""

from __future__ import annotations

import datetime
import re
from dataclasses import dataclass
from zoneinfo import ZoneInfo

_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")
_TIMESTAMP = re.compile(r"\d{4}-\d{2}-\d{2}(?:[ T]\d{2}:\d{2}(?::\d{2}(?:\.\d{1,6})?)?"
                        r"(?:Z|[+-]\d{2}:\d{2})?)?")
_OFFSET = re.compile(r"\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}(?::\d{2}(?:\.\d{1,6})?)?(?:Z|[+-]\d{2}:\d{2})")
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


def offset_instant(member: str) -> datetime.datetime | None:
    """The instant (aware, UTC) of a timestamp member written with an offset
    (`2024-01-01T00:00:00Z`, `…+02:00`); None for any other text (docs/semantics.md 3.2)."""
    if not _OFFSET.fullmatch(member):
        return None
    try:
        return datetime.datetime.fromisoformat(member.replace("Z", "+00:00")).astimezone(
            datetime.UTC)
    except ValueError:
        return None


@dataclass(frozen=True)
class TemporalBound:
    """A bound written as a date or timestamp (docs/semantics.md 3.2), in the forms a column
    compares with: the instant (aware, UTC), the wall clock in the column's zone, and the
    date where the bound is one (a date, or a zone-less midnight)."""

    instant: datetime.datetime
    wall: datetime.datetime
    date: datetime.date | None
    #: Written with a `Z` or `±HH:MM` offset.
    offset: bool


def temporal_bound(value: object, zone: str) -> TemporalBound | None:
    """The bound `value` means when values without a zone are read in `zone`; None for
    anything but ISO date or timestamp text. A zone-less time the zone skips reads with the
    offset before the gap, an ambiguous one its first reading (as an SLA latency does)."""
    if not isinstance(value, str) or not_temporal(value, "timestamp"):
        return None
    local = ZoneInfo(zone)
    instant = offset_instant(value)
    if instant is not None:
        return TemporalBound(instant, instant.astimezone(local).replace(tzinfo=None), None, True)
    if _DATE.fullmatch(value):
        wall = datetime.datetime.combine(datetime.date.fromisoformat(value), datetime.time())
    else:
        wall = datetime.datetime.fromisoformat(value)
    day = wall.date() if wall.time() == datetime.time() else None
    return TemporalBound(wall.replace(tzinfo=local).astimezone(datetime.UTC), wall, day, False)
