"""SLA durations: `value` `unit` as ODCS writes them (docs/semantics.md 1.1). `m` is minutes,
never months (datacontract-cli reads it both ways); calendar units stay calendar units, so
"1 month before" an instant is computed on the calendar, not as 30 days."""

from __future__ import annotations

import calendar
from dataclasses import dataclass
from datetime import datetime, timedelta
from fractions import Fraction

#: Every spelling read, and the canonical unit it means (the table in docs/semantics.md 1.1).
UNITS: dict[str, str] = {
    **dict.fromkeys(("s", "sec", "secs", "second", "seconds"), "s"),
    **dict.fromkeys(("m", "min", "mins", "minute", "minutes"), "min"),
    **dict.fromkeys(("h", "hr", "hrs", "hour", "hours"), "h"),
    **dict.fromkeys(("d", "day", "days"), "d"),
    **dict.fromkeys(("w", "wk", "week", "weeks"), "w"),
    **dict.fromkeys(("mo", "mon", "month", "months"), "mo"),
    **dict.fromkeys(("y", "yr", "yrs", "year", "years"), "y"),
}
#: Fixed-length units in seconds; months and years are calendar units.
_SECONDS = {"s": 1, "min": 60, "h": 3600, "d": 86400, "w": 604800}
_CALENDAR_MONTHS = {"mo": 1, "y": 12}


@dataclass(frozen=True)
class Duration:
    """An amount of one canonical unit (a key of _SECONDS or _CALENDAR_MONTHS)."""

    amount: Fraction
    unit: str

    def text(self) -> str:
        """`1 d`, `90 min`, `1.5 h`: the limit as reports show it."""
        return f"{_number(self.amount)} {self.unit}"

    @property
    def micros(self) -> int | None:
        """A fixed unit's length in microseconds (None for months and years)."""
        if self.unit not in _SECONDS:
            return None
        return int(self.amount * _SECONDS[self.unit] * 1_000_000)

    @property
    def months(self) -> int | None:
        """A calendar unit's whole number of months (None for fixed units)."""
        if self.unit not in _CALENDAR_MONTHS:
            return None
        return int(self.amount * _CALENDAR_MONTHS[self.unit])

    def before(self, instant: datetime) -> datetime:
        """The instant this duration before `instant`: exact for fixed units (microseconds),
        on the calendar for months and years (31 March − 1 mo = 28/29 February)."""
        if self.micros is not None:
            return instant - timedelta(microseconds=self.micros)
        assert self.months is not None
        return _months_before(instant, self.months)


def unit_problem(unit: object) -> str | None:
    """Why `unit` is not a duration unit (with the closest spelling), or None."""
    from packata_sql.spelling import closest

    if isinstance(unit, str) and unit.strip().lower() in UNITS:
        return None
    match = closest(str(unit), UNITS) if isinstance(unit, str) else None
    hint = f"; did you mean '{match}'?" if match else ""
    return (f"unknown duration unit '{unit}'{hint} (units: s, min, h, d, w, mo, y and their "
            "spellings in docs/semantics.md 1.1)")


def duration(amount: Fraction, unit: str) -> Duration:
    """The Duration of a unit that `unit_problem` accepted."""
    return Duration(amount, UNITS[unit.strip().lower()])


def _months_before(instant: datetime, months: int) -> datetime:
    index = instant.year * 12 + instant.month - 1 - months
    year, month = divmod(index, 12)
    day = min(instant.day, calendar.monthrange(year, month + 1)[1])
    return instant.replace(year=year, month=month + 1, day=day)


def age_text(seconds: Fraction) -> str:
    """`3 h 12 min`, `2 d 4 h`, `45 s`: the two largest parts of an age, truncated."""
    whole = int(abs(seconds))
    parts: list[str] = []
    for name, size in (("d", 86400), ("h", 3600), ("min", 60), ("s", 1)):
        count, whole = divmod(whole, size)
        if count or (name == "s" and not parts):
            parts.append(f"{count} {name}")
        if len(parts) == 2:
            break
    return " ".join(parts)


def _number(amount: Fraction) -> str:
    if amount.denominator == 1:
        return str(amount.numerator)
    from packata_sql.values import format_value

    return format_value(amount)
