"""ODCS `slaProperties` → rules of category `sla` (docs/semantics.md 1.1): a `latency` (alias
`freshness`) naming `object.column` in `element` (or the contract's `slaDefaultElement`) is
measured; every other property is listed as `sla-descriptive`, so nothing a contract declares
vanishes from the report."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from decimal import Decimal
from fractions import Fraction
from typing import Any

from packata_sql.contracts.durations import Duration, duration, unit_problem
from packata_sql.contracts.model import (
    Category,
    Finding,
    Latency,
    Level,
    Rule,
    SchemaObject,
    SchemaProperty,
    Site,
    SlaDescriptive,
    Target,
)
from packata_sql.contracts.zones import property_zone
from packata_sql.spelling import closest

#: The SLA properties a query observes, by every spelling read.
OBSERVED = frozenset({"latency", "freshness"})
#: The ODCS "periodic table" of SLA properties: none of them is observable by a query.
DESCRIPTIVE = frozenset({
    "retention", "frequency", "availability", "timeOfAvailability", "generalAvailability",
    "endOfSupport", "endOfLife", "throughput", "errorRate", "timeToDetect", "timeToNotify",
    "timeToRepair", "support",
})
_TEMPORAL_TYPES = frozenset({"date", "timestamp"})

Line = Callable[[tuple[str | int, ...]], int | None]


def sla_rules(document: dict[str, Any], objects: Sequence[SchemaObject], taken: set[str],
              line: Line) -> tuple[list[Rule], list[Finding]]:
    """One rule per SLA property (per element when a latency names several). `taken`: the
    contract's rule keys so far (new keys are added)."""
    raw = document.get("slaProperties")
    if raw is None:
        return [], []
    if not isinstance(raw, list):
        return [], [Finding("invalid-sla", "'slaProperties' must be a list", "slaProperties",
                            line=line(("slaProperties",)))]
    default = document.get("slaDefaultElement")
    rules: list[Rule] = []
    findings: list[Finding] = []
    for index, entry in enumerate(raw):
        where = f"slaProperties[{index}]"
        site_line = line(("slaProperties", index))
        if not isinstance(entry, dict) or not isinstance(entry.get("property"), str):
            findings.append(Finding("invalid-sla", "an SLA property needs a mapping with a "
                                    "'property' name", where, line=site_line))
            continue
        name = entry["property"].strip()
        key = _key(entry, where, taken)
        if name.lower() not in OBSERVED:
            rules.append(_descriptive(entry, name, key, where, site_line))
            match = closest(name, OBSERVED)
            if name not in DESCRIPTIVE and match:
                findings.append(Finding(
                    "unknown-sla-property", f"SLA property '{name}' is not one ODCS names; "
                    f"did you mean '{match}'? (listed as sla-descriptive, not measured)", where,
                    Level.WARNING, key, site_line))
            continue
        element = entry.get("element", default)
        elements = [e.strip() for e in element.split(",")] if isinstance(element, str) else [""]
        for position, one in enumerate(elements):
            one_key = key if len(elements) == 1 else _allocate(f"{key}.element[{position}]",
                                                              taken)
            rule, problems = _latency(entry, one, objects, one_key, where, site_line)
            rules.append(rule)
            findings += problems
    return rules, findings


def _key(entry: dict[str, Any], where: str, taken: set[str]) -> str:
    wanted = entry.get("id")
    return _allocate(wanted if isinstance(wanted, str) and wanted.strip() else where, taken)


def _allocate(wanted: str, taken: set[str]) -> str:
    key = wanted
    while key in taken:
        key = f"{wanted}#{len(taken)}"
    taken.add(key)
    return key


def _descriptive(entry: dict[str, Any], name: str, key: str, where: str,
                 line: int | None) -> Rule:
    value, unit = entry.get("value"), entry.get("unit")
    said = " ".join(str(part) for part in (value, unit) if part is not None and
                    not isinstance(part, dict | list))
    return Rule(key, where, Category.SLA, Target("", ""), SlaDescriptive(name), unit="",
                line=line, name=f"SLA {name}" + (f" {said}" if said else ""))


def _latency(entry: dict[str, Any], element: str, objects: Sequence[SchemaObject], key: str,
             where: str, site_line: int | None) -> tuple[Rule, list[Finding]]:
    site = Site(where, key, site_line)
    obj, prop, problem = _resolve(element, objects)
    target = Target(obj.name, obj.physical, (prop.name,), prop.physical, prop.logical_type,
                    exact_object=obj.exact, exact_property=prop.exact) \
        if obj is not None and prop is not None else Target("", "")
    findings = [site.finding("invalid-sla-element", problem)] if problem else []
    limit, limit_problem = _limit(entry)
    if limit_problem:
        findings.append(site.finding("invalid-sla-value", limit_problem))
    zone = None
    if prop is not None:
        zone, zone_problem = property_zone(prop)
        if zone_problem:
            findings.append(site.finding("unknown-time-zone", zone_problem))
        logical = (prop.logical_type or "").lower()
        if logical and logical not in _TEMPORAL_TYPES:
            findings.append(site.finding(
                "latency-not-temporal", f"'{element}' is declared logicalType '{logical}': a "
                "latency needs a date or timestamp property"))
    return Rule(key, where, Category.SLA, target, Latency(limit, zone), unit="s",
                line=site_line, name=None if prop is not None else f"latency {element}"), findings


def _resolve(element: str, objects: Sequence[SchemaObject]
             ) -> tuple[SchemaObject | None, SchemaProperty | None, str | None]:
    """`object.column` by logical or physical names; the problem, with a did-you-mean."""
    head, dot, tail = element.rpartition(".")
    if not element:
        return None, None, ("a latency needs an 'element' naming object.column (or the "
                            "contract's 'slaDefaultElement')")
    if not dot or not head or not tail:
        return None, None, f"element '{element}' must name object.column"
    obj = next((o for o in objects if head in (o.name, o.physical)), None)
    if obj is None:
        match = closest(head, [o.name for o in objects])
        hint = f"; did you mean '{match}'?" if match else ""
        return None, None, f"element '{element}' names no schema object '{head}'{hint}"
    prop = next((p for p in obj.properties if tail in (p.name, p.physical)), None)
    if prop is None:
        match = closest(tail, [p.name for p in obj.properties])
        hint = f"; did you mean '{match}'?" if match else ""
        return obj, None, f"element '{element}': '{head}' declares no property '{tail}'{hint}"
    return obj, prop, None


def _limit(entry: dict[str, Any]) -> tuple[Duration | None, str | None]:
    value = entry.get("value")
    if isinstance(value, bool) or not isinstance(value, int | Decimal | str):
        return None, "a latency's 'value' must be a positive number"
    try:
        amount = Fraction(str(value).strip())
    except ValueError:
        return None, "a latency's 'value' must be a positive number"
    if amount <= 0:
        return None, "a latency's 'value' must be a positive number"
    unit = entry.get("unit")
    if unit is None:
        return None, "a latency needs a 'unit' (e.g. 'd', 'h', 'min')"
    problem = unit_problem(unit)
    if problem:
        return None, problem
    limit = duration(amount, str(unit))
    if limit.unit in ("mo", "y") and (amount * (12 if limit.unit == "y" else 1)).denominator != 1:
        return None, "a calendar latency (months, years) needs a whole number of months"
    return limit, None
