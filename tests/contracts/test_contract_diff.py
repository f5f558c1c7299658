"""Two versions of a contract compared (issue 24.8): each worked example changes one thing in
a base contract and names the change key and class the drift table gives (docs/cli.md,
`diff`)."""

from __future__ import annotations

import copy
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml

from packata_sql import api
from packata_sql.contracts.diff import ContractChange
from packata_sql.errors import UsageError

BASE: dict[str, Any] = {
    "apiVersion": "v3.1.0", "kind": "DataContract", "id": "shop", "version": "1.0.0",
    "status": "active",
    "schema": [{
        "name": "orders",
        "quality": [{"id": "rows", "metric": "rowCount", "mustBeBetween": [10, 100]}],
        "properties": [
            {"name": "id", "physicalType": "INTEGER", "required": True, "quality": [
                {"id": "id_unique", "metric": "duplicateValues", "mustBe": 0}]},
            {"name": "status", "logicalType": "string", "quality": [
                {"id": "status_nulls", "metric": "nullValues", "mustBeLessThan": 10,
                 "severity": "warning"}]},
            {"name": "amount", "logicalType": "integer"},
        ],
    }],
}


def _orders(document: dict[str, Any]) -> dict[str, Any]:
    orders: dict[str, Any] = document["schema"][0]
    return orders


def _field(document: dict[str, Any], name: str) -> dict[str, Any]:
    found: dict[str, Any] = next(p for p in _orders(document)["properties"] if p["name"] == name)
    return found


def _changes(tmp_path: Path, edit: Callable[[dict[str, Any]], None],
             drift: tuple[str, ...] = ()) -> list[ContractChange]:
    new = copy.deepcopy(BASE)
    edit(new)
    old_path, new_path = tmp_path / "old.yaml", tmp_path / "new.yaml"
    old_path.write_text(yaml.safe_dump(BASE), encoding="utf-8")
    new_path.write_text(yaml.safe_dump(new), encoding="utf-8")
    return list(api.diff(old_path, new_path, drift=drift).changes)


def _summary(changes: list[ContractChange]) -> list[tuple[str, str, str]]:
    return [(c.subject, c.change, c.classification.value) for c in changes]


def test_the_same_contract_has_no_change(tmp_path):
    assert _changes(tmp_path, lambda d: None) == []


EXAMPLES: dict[str, tuple[Callable[[dict[str, Any]], None], list[tuple[str, str, str]]]] = {
    "a field removed": (
        lambda d: _orders(d)["properties"].pop(2),
        [("amount", "field-removed", "breaking")]),
    "a nullable field added": (
        lambda d: _orders(d)["properties"].append({"name": "note", "logicalType": "string"}),
        [("note", "field-added-nullable", "compatible")]),
    "a required field added": (
        lambda d: _orders(d)["properties"].append({"name": "note", "required": True}),
        [("note", "field-added-required", "warning")]),
    "an integer widened to a bigint": (
        lambda d: _field(d, "id").update(physicalType="BIGINT"),
        [("id", "type-widened", "compatible")]),
    "an integer narrowed to a smallint": (
        lambda d: _field(d, "id").update(physicalType="SMALLINT"),
        [("id", "type-changed", "breaking")]),
    "an alias of the same type": (
        lambda d: _field(d, "id").update(physicalType="INT"),
        []),
    "a logical integer widened to a number": (
        lambda d: _field(d, "amount").update(logicalType="number"),
        [("amount", "type-widened", "compatible")]),
    "a logical string changed to an integer": (
        lambda d: _field(d, "status").update(logicalType="integer"),
        [("status", "type-changed", "breaking")]),
    "NOT NULL dropped": (
        lambda d: _field(d, "id").update(required=False),
        [("id", "nullability-relaxed", "breaking")]),
    "NOT NULL added": (
        lambda d: _field(d, "amount").update(required=True),
        [("amount", "nullability-tightened", "compatible")]),
    "fields reordered": (
        lambda d: _orders(d)["properties"].reverse(),
        [("id", "order-changed", "warning"), ("amount", "order-changed", "warning")]),
    "an upper bound lowered": (
        lambda d: _field(d, "status")["quality"][0].update(mustBeLessThan=5),
        [("status_nulls", "rule-tightened", "warning")]),
    "an upper bound raised": (
        lambda d: _field(d, "status")["quality"][0].update(mustBeLessThan=20),
        [("status_nulls", "rule-loosened", "breaking")]),
    "a range narrowed": (
        lambda d: _orders(d)["quality"][0].update(mustBeBetween=[20, 100]),
        [("rows", "rule-tightened", "warning")]),
    "a range widened": (
        lambda d: _orders(d)["quality"][0].update(mustBeBetween=[0, 1000]),
        [("rows", "rule-loosened", "breaking")]),
    "a range shifted": (
        lambda d: _orders(d)["quality"][0].update(mustBeBetween=[50, 500]),
        [("rows", "rule-changed", "warning")]),
    "a severity raised": (
        lambda d: _field(d, "status")["quality"][0].pop("severity"),
        [("status_nulls", "rule-tightened", "warning")]),
    "a rule added": (
        lambda d: _field(d, "amount").update(quality=[{"id": "amount_nulls", "metric":
                                                       "nullValues", "mustBe": 0}]),
        [("amount_nulls", "rule-added", "warning")]),
    "a rule removed": (
        lambda d: _field(d, "id").pop("quality"),
        [("id_unique", "rule-removed", "breaking")]),
    "a rule measuring something else": (
        lambda d: _field(d, "status")["quality"][0].update(metric="missingValues"),
        [("status_nulls", "rule-changed", "warning")]),
    "an object added": (
        lambda d: d["schema"].append({"name": "customers", "properties": [{"name": "id"}]}),
        [("", "object-added", "compatible")]),
    "an object removed": (
        lambda d: d.update(schema=[{"name": "customers", "properties": [{"name": "id"}]}]),
        [("", "object-added", "compatible"), ("", "object-removed", "breaking")]),
}


@pytest.mark.parametrize("example", sorted(EXAMPLES))
def test_each_change_has_its_key_and_class(tmp_path, example):
    edit, expected = EXAMPLES[example]
    assert _summary(_changes(tmp_path, edit)) == expected


def test_a_rule_without_id_matched_by_what_it_measures_after_an_insert(tmp_path):
    """Position-derived keys move when a rule is inserted before them: the insert is one
    rule added, not a removal and two additions."""
    base = copy.deepcopy(BASE)
    for rule in [*_orders(base)["quality"], *_field(base, "status")["quality"]]:
        rule.pop("id")
    new = copy.deepcopy(base)
    _orders(new)["quality"].insert(0, {"metric": "rowCount", "mustBeGreaterThan": 0})
    (tmp_path / "old.yaml").write_text(yaml.safe_dump(base), encoding="utf-8")
    (tmp_path / "new.yaml").write_text(yaml.safe_dump(new), encoding="utf-8")
    changes = api.diff(tmp_path / "old.yaml", tmp_path / "new.yaml").changes
    assert [(c.change, c.after) for c in changes] == [("rule-added", "rowCount on orders > 0")]


def test_overrides_reclassify_and_a_typo_is_a_usage_error(tmp_path):
    changes = _changes(tmp_path, lambda d: _orders(d)["properties"].pop(2),
                       drift=("field-removed=warning",))
    assert _summary(changes) == [("amount", "field-removed", "warning")]
    with pytest.raises(UsageError, match="did you mean 'rule-removed'"):
        _changes(tmp_path, lambda d: None, drift=("rule-remove=warning",))


def test_the_new_contracts_declared_overrides_apply(tmp_path):
    def edit(document: dict[str, Any]) -> None:
        _orders(document)["properties"].pop(2)
        document["customProperties"] = [{"property": "schemaDrift",
                                         "value": {"field-removed": "compatible"}}]
    assert _summary(_changes(tmp_path, edit)) == [("amount", "field-removed", "compatible")]
    assert _summary(_changes(tmp_path, edit, drift=("field-removed=breaking",))) == [
        ("amount", "field-removed", "breaking")]
