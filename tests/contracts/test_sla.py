"""docs/semantics.md 1.1: ODCS slaProperties. A latency (alias freshness) is a rule of category
sla; every other SLA property is listed as sla-descriptive; bad declarations are findings that
name the SLA entry, its line and what to write instead."""

from __future__ import annotations

from datetime import UTC, datetime
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
import yaml

from packata_sql.contracts.durations import UNITS, Duration, age_text, duration, unit_problem
from packata_sql.contracts.model import Category, Latency, Level, SlaDescriptive
from packata_sql.contracts.odcs import load_odcs


@pytest.mark.parametrize(("spelling", "unit"), [
    ("d", "d"), ("day", "d"), ("days", "d"), ("h", "h"), ("hr", "h"), ("hour", "h"),
    ("hours", "h"), ("m", "min"), ("min", "min"), ("minute", "min"), ("minutes", "min"),
    ("s", "s"), ("sec", "s"), ("y", "y"), ("year", "y"), ("years", "y"), ("mo", "mo"),
    ("month", "mo"), ("months", "mo"), ("w", "w"), ("week", "w"), ("weeks", "w"), ("D", "d"),
])
def test_units_as_odcs_writes_them(spelling, unit):
    assert unit_problem(spelling) is None
    assert duration(Fraction(1), spelling).unit == unit


def test_m_is_minutes_never_months():
    moment = datetime(2024, 3, 31, 12, 0, tzinfo=UTC)
    assert duration(Fraction(1), "m").before(moment) == datetime(2024, 3, 31, 11, 59, tzinfo=UTC)


@pytest.mark.parametrize(("limit", "moment", "expected"), [
    (Duration(Fraction(1), "mo"), datetime(2024, 3, 31, 8, tzinfo=UTC),
     datetime(2024, 2, 29, 8, tzinfo=UTC)),  # a leap February, not 30 days
    (Duration(Fraction(1), "mo"), datetime(2023, 3, 31, tzinfo=UTC), datetime(2023, 2, 28, tzinfo=UTC)),
    (Duration(Fraction(1), "y"), datetime(2024, 2, 29, tzinfo=UTC), datetime(2023, 2, 28, tzinfo=UTC)),
    (Duration(Fraction(14), "mo"), datetime(2024, 1, 15, tzinfo=UTC), datetime(2022, 11, 15, tzinfo=UTC)),
    (Duration(Fraction(3, 2), "h"), datetime(2024, 1, 1, 2, tzinfo=UTC),
     datetime(2024, 1, 1, 0, 30, tzinfo=UTC)),
    (Duration(Fraction(1), "w"), datetime(2024, 1, 8, tzinfo=UTC), datetime(2024, 1, 1, tzinfo=UTC)),
])
def test_calendar_units_stay_calendar_units(limit, moment, expected):
    assert limit.before(moment) == expected


def test_an_unknown_unit_says_the_closest_one():
    assert "did you mean 'day'?" in (unit_problem("dya") or "")
    assert unit_problem("fortnight") is not None
    assert all(unit_problem(spelling) is None for spelling in UNITS)


@pytest.mark.parametrize(("seconds", "text"), [
    (Fraction(11520), "3 h 12 min"), (Fraction(45), "45 s"), (Fraction(0), "0 s"),
    (Fraction(2 * 86400), "2 d"), (Fraction(86400 + 3600 + 61), "1 d 1 h"),
    (Fraction(59, 2), "29 s"),
])
def test_ages_read_as_durations(seconds, text):
    assert age_text(seconds) == text


def load(tmp_path: Path, sla: list[Any], *, default: str | None = "orders.updated_at",
         properties: list[dict[str, Any]] | None = None) -> Any:
    document: dict[str, Any] = {
        "apiVersion": "v3.1.0", "kind": "DataContract", "id": "s", "version": "1",
        "status": "active",
        "schema": [{"name": "orders", "physicalName": "t_orders", "properties": properties or [
            {"name": "updated_at", "physicalName": "upd", "logicalType": "timestamp"},
            {"name": "note", "logicalType": "string"}]}],
        "slaProperties": sla}
    if default:
        document["slaDefaultElement"] = default
    path = tmp_path / "c.yaml"
    path.write_text(yaml.safe_dump(document, sort_keys=False), encoding="utf-8")
    return load_odcs(str(path))


def sla_rules(contract: Any) -> list[Any]:
    return [r for r in contract.rules if r.category is Category.SLA]


def codes(contract: Any) -> list[tuple[str | None, str, Level]]:
    return [(f.rule_key, f.code, f.level) for f in contract.findings]


def test_latency_and_freshness_become_sla_rules(tmp_path):
    contract = load(tmp_path, [
        {"property": "latency", "value": 4, "unit": "d"},
        {"id": "fresh", "property": "freshness", "value": "1.5", "unit": "h",
         "element": "t_orders.upd"}])  # physical names resolve too
    first, second = sla_rules(contract)
    assert (first.key, first.source_path, first.target.physical_object,
            first.target.physical_property) == ("slaProperties[0]", "slaProperties[0]",
                                                "t_orders", "upd")
    # No zone on the property: the compiler reads the server's, the contract's or UTC.
    assert first.definition == Latency(Duration(Fraction(4), "d"), None)
    assert second.key == "fresh" and second.definition.limit == Duration(Fraction(3, 2), "h")
    assert first.line == 16 and codes(contract) == []


def test_other_sla_properties_are_listed_as_descriptive(tmp_path):
    contract = load(tmp_path, [
        {"property": "retention", "value": 3, "unit": "y"},
        {"property": "timeOfAvailability", "value": "09:00-08:00", "element": "orders.updated_at"},
        {"property": "latncy", "value": 1, "unit": "d"}])
    rules = sla_rules(contract)
    assert [r.definition for r in rules] == [SlaDescriptive("retention"),
                                             SlaDescriptive("timeOfAvailability"),
                                             SlaDescriptive("latncy")]
    assert rules[0].name == "SLA retention 3 y"
    assert rules[0].target.object_name == ""  # no object is checked for it (dbt maps none)
    assert codes(contract) == [("slaProperties[2]", "unknown-sla-property", Level.WARNING)]
    assert "did you mean 'latency'?" in contract.findings[0].message


@pytest.mark.parametrize(("entry", "code", "words"), [
    ({"property": "latency", "value": 1, "unit": "dy"}, "invalid-sla-value", "did you mean 'day'?"),
    ({"property": "latency", "value": 1}, "invalid-sla-value", "needs a 'unit'"),
    ({"property": "latency", "value": -1, "unit": "d"}, "invalid-sla-value", "positive number"),
    ({"property": "latency", "value": "soon", "unit": "d"}, "invalid-sla-value", "positive number"),
    ({"property": "latency", "value": True, "unit": "d"}, "invalid-sla-value", "positive number"),
    ({"property": "latency", "value": "0.5", "unit": "mo"}, "invalid-sla-value", "whole number"),
    ({"property": "latency", "value": 1, "unit": "d", "element": "ordrs.updated_at"},
     "invalid-sla-element", "did you mean 'orders'?"),
    ({"property": "latency", "value": 1, "unit": "d", "element": "orders.updatd_at"},
     "invalid-sla-element", "did you mean 'updated_at'?"),
    ({"property": "latency", "value": 1, "unit": "d", "element": "updated_at"},
     "invalid-sla-element", "object.column"),
    ({"property": "latency", "value": 1, "unit": "d", "element": "orders.note"},
     "latency-not-temporal", "date or timestamp"),
])
def test_bad_latency_declarations_are_findings_on_the_rule(tmp_path, entry, code, words):
    contract = load(tmp_path, [entry])
    (rule,) = sla_rules(contract)
    (finding,) = contract.findings
    assert (finding.rule_key, finding.code, finding.level) == (rule.key, code, Level.ERROR)
    assert words in finding.message and finding.line == rule.line == 16


def test_a_latency_without_element_or_default_is_a_finding(tmp_path):
    contract = load(tmp_path, [{"property": "latency", "value": 1, "unit": "d"}], default=None)
    assert codes(contract) == [("slaProperties[0]", "invalid-sla-element", Level.ERROR)]
    assert "slaDefaultElement" in contract.findings[0].message


def test_the_zone_comes_from_default_timezone_and_is_no_constraint(tmp_path):
    properties = [{"name": "updated_at", "logicalType": "timestamp",
                   "logicalTypeOptions": {"defaultTimezone": "Europe/Paris", "timezone": False}}]
    contract = load(tmp_path, [{"property": "latency", "value": 1, "unit": "d"}],
                    properties=properties)
    (rule,) = sla_rules(contract)
    assert rule.definition.zone == "Europe/Paris"
    assert codes(contract) == []  # how values are read is not a check of its own
    assert not any("Timezone" in r.key or "timezone" in r.key for r in contract.rules)


def test_an_unknown_zone_is_a_finding(tmp_path):
    properties = [{"name": "updated_at", "logicalType": "timestamp",
                   "logicalTypeOptions": {"defaultTimezone": "Mars/Olympus"}}]
    contract = load(tmp_path, [{"property": "latency", "value": 1, "unit": "d"}],
                    properties=properties)
    assert codes(contract) == [("slaProperties[0]", "unknown-time-zone", Level.ERROR)]


def test_several_elements_give_one_rule_each(tmp_path):
    properties = [{"name": "a", "logicalType": "timestamp"}, {"name": "b", "logicalType": "date"}]
    contract = load(tmp_path, [{"property": "latency", "value": 1, "unit": "d",
                                "element": "orders.a, orders.b"}], properties=properties)
    assert [(r.key, r.target.physical_property) for r in sla_rules(contract)] == [
        ("slaProperties[0].element[0]", "a"), ("slaProperties[0].element[1]", "b")]


def test_sla_properties_must_be_a_list(tmp_path):
    contract = load(tmp_path, {"property": "latency"})  # type: ignore[arg-type]
    assert codes(contract) == [(None, "invalid-sla", Level.ERROR)]
