"""Schema drift, the judgement: how an object's live columns changed against a baseline
(`contracts/drift.py` reads it), each change classified `compatible`, `warning` or `breaking`;
and the snapshot `schema snapshot` writes."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from packata_sql.contracts.drift import _ORDER, DEFAULTS, SNAPSHOT_FORMAT, Classification, Field
from packata_sql.dialects import Dialect, Family
from packata_sql.dialects.facts import ColumnFact, integer_rank, logical_compatible, physical_matches

__all__ = ["MAX_CHANGES", "Change", "Classification", "Drift", "Field", "classify",
           "dumps_snapshot", "fields_from_facts", "snapshot_document"]

MAX_CHANGES = 200  # the report stays bounded whatever the table


@dataclass(frozen=True)
class Change:
    field: str
    change: str
    classification: Classification
    before: str | None = None
    after: str | None = None

    def document(self) -> dict[str, str | None]:
        return {"field": self.field, "change": self.change,
                "classification": self.classification.value,
                "before": self.before, "after": self.after}


@dataclass(frozen=True)
class Drift:
    """The changes (the first MAX_CHANGES) and the classification of all of them."""

    changes: tuple[Change, ...]
    classification: Classification = Classification.COMPATIBLE
    omitted: int = 0  # changes beyond MAX_CHANGES, counted in the classification


def fields_from_facts(facts: Sequence[ColumnFact]) -> tuple[Field, ...]:
    return tuple(Field(f.name, f.native_type, None, f.nullable) for f in facts)


def classify(before: Sequence[Field], after: Sequence[ColumnFact], dialect: Dialect,
             overrides: Mapping[str, Classification] | None = None) -> Drift:
    """Every change from `before` to the live columns `after`, in a fixed order: removed and
    changed fields in baseline order, then added fields in live order, then order changes."""
    levels = {**DEFAULTS, **(overrides or {})}
    changes: list[Change] = []

    def add(field: str, change: str, old: str | None = None, new: str | None = None) -> None:
        changes.append(Change(field, change, levels[change], old, new))

    matched: list[tuple[Field, ColumnFact]] = []
    for old in before:
        live = next((f for f in after if dialect.same_name(f.name, old.name)), None)
        if live is None:
            add(old.name, "field-removed", _describe(old), None)
            continue
        matched.append((old, live))
        type_change = _type_change(old, live, dialect)
        if type_change is not None:
            add(old.name, type_change, old.native_type or old.logical_type, live.native_type)
        if old.nullable is not None and live.nullable is not None and old.nullable != live.nullable:
            add(old.name, "nullability-relaxed" if live.nullable else "nullability-tightened",
                _nullability(old.nullable), _nullability(live.nullable))
    for live in after:
        if not any(dialect.same_name(live.name, old.name) for old in before):
            add(live.name, "field-added-required" if live.nullable is False
                else "field-added-nullable", None, live.native_type)
    baseline_order = [old.name for old, _ in matched]
    live_order = [old.name for old, _ in sorted(matched, key=lambda pair: pair[1].position)]
    for index, name in enumerate(baseline_order):
        if live_order[index] != name:
            add(name, "order-changed", str(index + 1), str(live_order.index(name) + 1))
    worst = max((c.classification for c in changes), key=_ORDER.index,
                default=Classification.COMPATIBLE)
    return Drift(tuple(changes[:MAX_CHANGES]), worst, max(len(changes) - MAX_CHANGES, 0))


def _type_change(old: Field, live: ColumnFact, dialect: Dialect) -> str | None:
    if not old.native_type and not old.logical_type:
        return "type-resolved" if live.native_type else None
    if old.native_type:
        if physical_matches(old.native_type, live, dialect):
            return None
        was = integer_rank(old.native_type, dialect)
    else:
        assert old.logical_type is not None
        if logical_compatible(old.logical_type, live, dialect):
            return None
        was = 0 if old.logical_type.strip().lower() == "integer" else None
    if was is not None:
        now = integer_rank(live.native_type, dialect)
        if (now is not None and now >= was) or (now is None and live.family is Family.NUMBER):
            return "type-widened"
    return "type-changed"


def _nullability(nullable: bool) -> str:
    return "nullable" if nullable else "not null"


def _describe(field: Field) -> str | None:
    return field.native_type or field.logical_type


def snapshot_document(engine: str, objects: Sequence[tuple[str, Sequence[ColumnFact]]]
                      ) -> dict[str, Any]:
    """A deterministic snapshot: names, order, native type, family, nullability; no data."""
    return {"format": SNAPSHOT_FORMAT, "engine": engine, "objects": [
        {"object": name, "fields": [
            {"name": f.name, "position": f.position, "native_type": f.native_type,
             "family": f.family.value, "nullable": f.nullable} for f in facts]}
        for name, facts in objects]}


def dumps_snapshot(document: Mapping[str, Any]) -> str:
    return json.dumps(document, indent=2, ensure_ascii=False, sort_keys=True) + "\n"

