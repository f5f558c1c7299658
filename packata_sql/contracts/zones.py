"""The zone a date or timestamp written without one is read in (docs/semantics.md 1.1): the
property's `logicalTypeOptions.defaultTimezone`, else the `defaultTimezone` custom property of
the server the run reads, else the contract's, else UTC. Reports say which one was used."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from packata_sql.contracts.model import Finding, Level, SchemaProperty, Server

#: The name every level declares the zone with: a property's ODCS `logicalTypeOptions` key,
#: and a `customProperties` entry of a server or of the contract.
ZONE_OPTION = "defaultTimezone"
_HINT = "is not an IANA time zone (e.g. Europe/Paris, Etc/UTC)"


@dataclass(frozen=True)
class ReadingZone:
    """A zone and who declared it: `property`, `server` (with `server` its name), `contract`,
    or `default` (UTC, nobody declared one)."""

    name: str = "UTC"
    source: str = "default"
    server: str | None = None

    def said(self) -> str:
        """Who declared it, for reports: '' for a property (the rule's own) and the default."""
        if self.source == "server":
            return f", as server '{self.server}' declares"
        if self.source == "contract":
            return ", as the contract declares"
        return ""

    def settings(self) -> dict[str, str]:
        """What a report's `settings` records of the run's zone."""
        where = f"server {self.server}" if self.source == "server" else self.source
        return {"time_zone": self.name, "time_zone_from": where}


def valid_zone(declared: object) -> bool:
    return isinstance(declared, str) and bool(declared) and _known_zone(declared)


@lru_cache(maxsize=256)
def _known_zone(name: str) -> bool:
    """Kept per name: each rule of a contract asks (a rule without a zone asked for one named
    'None'), and zoneinfo searches the disk anew for a name it does not find."""
    try:
        ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        return False
    return True


def property_zone(prop: SchemaProperty) -> tuple[str | None, str | None]:
    """The zone the property declares (None: it declares none), and why a declared one is
    unusable (then None)."""
    declared = dict(prop.options).get(ZONE_OPTION)
    if declared is None:
        return None, None
    if not valid_zone(declared):
        return None, f"logicalTypeOptions.{ZONE_OPTION} '{declared}' {_HINT}"
    return str(declared), None


def custom_zone(custom: object) -> tuple[str | None, int | None]:
    """The `defaultTimezone` entry of a `customProperties` list: its value as written (None
    when there is none) and its index."""
    for index, entry in enumerate(custom if isinstance(custom, list) else []):
        if isinstance(entry, dict) and entry.get("property") == ZONE_OPTION:
            value = entry.get("value")
            return (value if isinstance(value, str) else str(value)), index
    return None, None


def zone_findings(document: dict[str, Any],
                  line: Callable[[tuple[str | int, ...]], int | None]) -> list[Finding]:
    """`unknown-time-zone` for a contract or server `defaultTimezone` that is no IANA zone
    (then it is not used: the next level down applies)."""
    findings = []
    places: list[tuple[object, str, tuple[str | int, ...]]] = [
        (document.get("customProperties"), "customProperties", ("customProperties",))]
    raw_servers = document.get("servers")
    for index, entry in enumerate(raw_servers if isinstance(raw_servers, list) else []):
        if isinstance(entry, dict):
            places.append((entry.get("customProperties"),
                           f"servers[{index}].customProperties",
                           ("servers", index, "customProperties")))
    for custom, where, path in places:
        value, position = custom_zone(custom)
        if value is not None and not valid_zone(value):
            findings.append(Finding(
                "unknown-time-zone", f"{ZONE_OPTION} '{value}' {_HINT}; values without a zone "
                "are read in the next declared zone, else UTC", f"{where}[{position}]",
                Level.WARNING, line=line((*path, position or 0, "value"))))
    return findings


def default_zone(contract_zone: str | None, servers: Sequence[Server],
                 server: str | None) -> ReadingZone:
    """The zone for values whose property declares none: the named server's, else the
    contract's, else UTC (an unusable declaration is skipped; `zone_findings` reports it)."""
    chosen = next((s for s in servers if s.name == server), None) if server else None
    if chosen is not None:
        value, _ = custom_zone(chosen.setting("customProperties"))
        if value is not None and valid_zone(value):
            return ReadingZone(value, "server", chosen.name)
    if contract_zone is not None and valid_zone(contract_zone):
        return ReadingZone(contract_zone, "contract")
    return ReadingZone()
