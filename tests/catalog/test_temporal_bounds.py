"""docs/semantics.md 3.2: what a date or timestamp bound means before any SQL exists: its
instant, its wall clock in the declared zone and its date (catalog/temporal.py), and the
findings for a bound its property cannot hold."""

from __future__ import annotations

import datetime
from pathlib import Path

import yaml

from packata_sql.catalog.temporal import temporal_bound
from packata_sql.contracts.odcs import load_odcs
from packata_sql.dialects import get_dialect
from packata_sql.plans.compiler import compile_contract

UTC = datetime.UTC


def test_a_bound_with_an_offset_is_its_instant_in_any_zone():
    bound = temporal_bound("2024-06-01T02:00:00+02:00", "Europe/Paris")
    assert bound is not None
    assert bound.instant == datetime.datetime(2024, 6, 1, tzinfo=UTC)
    assert bound.wall == datetime.datetime(2024, 6, 1, 2)  # Paris in summer is UTC+2
    assert (bound.date, bound.offset) == (None, True)


def test_a_zone_less_bound_is_read_in_the_declared_zone():
    bound = temporal_bound("2024-01-01", "Europe/Paris")
    assert bound is not None
    assert bound.instant == datetime.datetime(2023, 12, 31, 23, tzinfo=UTC)
    assert bound.date == datetime.date(2024, 1, 1)
    noon = temporal_bound("2024-01-01T12:00:00", "UTC")
    assert noon is not None and noon.date is None


def test_a_skipped_wall_clock_takes_the_offset_before_the_gap():
    # 02:30 does not exist in Paris on 31 March 2024; before the gap the offset is +01:00.
    bound = temporal_bound("2024-03-31T02:30:00", "Europe/Paris")
    assert bound is not None and bound.instant == datetime.datetime(2024, 3, 31, 1, 30,
                                                                     tzinfo=UTC)


def test_text_that_is_no_date_is_no_temporal_bound():
    assert temporal_bound("2024-02-30", "UTC") is None
    assert temporal_bound("soon", "UTC") is None
    assert temporal_bound(3, "UTC") is None


def test_bounds_a_property_cannot_hold_are_findings(tmp_path: Path):
    def prop(name: str, logical: str, **options: object) -> dict[str, object]:
        return {"name": name, "logicalType": logical, "logicalTypeOptions": options}

    document = {"apiVersion": "v3.1.0", "kind": "DataContract", "id": "b", "version": "1",
                "status": "active", "schema": [{"name": "t", "properties": [
                    prop("day", "date", minimum="2024-01-01T10:00:00",
                         maximum="2024-01-01T00:00:00Z", exclusiveMaximum="2024-06-01"),
                    prop("label", "string", minimum="2024-01-01"),
                    prop("amount", "number", minimum="2024-01-01"),
                    prop("at", "timestamp", minimum=3),
                ]}]}
    path = tmp_path / "b.yaml"
    path.write_text(yaml.safe_dump(document), encoding="utf-8")
    compiled = compile_contract(load_odcs(str(path)), get_dialect("postgres"))
    found = {f.rule_key.rsplit("].", 1)[0].rsplit("[", 1)[1] + "." + f.rule_key.rsplit(".", 1)[1]
             for f in compiled.findings if f.code == "bound-type-mismatch" and f.rule_key}
    assert found == {"day.minimum", "day.maximum", "label.minimum", "amount.minimum",
                     "at.minimum"}
    planned = {plan.rule.key for plan in compiled.plans}
    assert "schema[t].properties[day].logicalTypeOptions.exclusiveMaximum" in planned
