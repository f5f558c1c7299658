"""Schema drift: how an object's columns changed against a baseline, each change classified
`compatible`, `warning` or `breaking` (defaults of the quality-policy design, each overridable
per change key). The baseline is a declared schema or a saved snapshot; any declaration format
(ODCS today, a JSON `schema_policy` later) builds `Field`s and calls `classify`."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from enum import Enum
from typing import Any

from packata_sql.contracts import json_source
from packata_sql.contracts.model import Category, Constraint, Rule, SchemaObject, Severity, Target
from packata_sql.dialects import Dialect, Family
from packata_sql.dialects.facts import ColumnFact, integer_rank, logical_compatible, physical_matches

SNAPSHOT_FORMAT = "packata-sql/schema@1"
MAX_CHANGES = 200  # the report stays bounded whatever the table


class Classification(Enum):
    COMPATIBLE = "compatible"
    WARNING = "warning"
    BREAKING = "breaking"


_ORDER = (Classification.COMPATIBLE, Classification.WARNING, Classification.BREAKING)
#: Change keys and their default classification.
DEFAULTS: dict[str, Classification] = {
    "field-added-nullable": Classification.COMPATIBLE,
    "field-added-required": Classification.WARNING,
    "field-removed": Classification.BREAKING,
    "type-widened": Classification.COMPATIBLE,  # integer to a wider integer or to a number
    "type-resolved": Classification.COMPATIBLE,  # the baseline did not know the type
    "type-changed": Classification.BREAKING,
    "nullability-relaxed": Classification.BREAKING,
    "nullability-tightened": Classification.COMPATIBLE,
    "order-changed": Classification.WARNING,
}


@dataclass(frozen=True)
class Field:
    """A column as a baseline knows it; None where the baseline does not say."""

    name: str
    native_type: str | None = None
    logical_type: str | None = None
    nullable: bool | None = None


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


class OverrideError(ValueError):
    """An override names an unknown change key or classification."""


def parse_overrides(pairs: Iterable[str]) -> dict[str, Classification]:
    """`KEY=compatible|warning|breaking` items, as `--drift` takes them."""
    overrides: dict[str, Classification] = {}
    for pair in pairs:
        key, _, value = pair.partition("=")
        if key.strip() not in DEFAULTS:
            raise OverrideError(f"unknown drift change '{key.strip()}' (one of: "
                                f"{', '.join(DEFAULTS)})")
        try:
            overrides[key.strip()] = Classification(value.strip())
        except ValueError:
            raise OverrideError(f"drift classification for '{key.strip()}' must be compatible, "
                                "warning or breaking") from None
    return overrides


def drift_rule(key: str, source_path: str, object_name: str, physical: str,
               fields: Sequence[Field], overrides: Mapping[str, Classification] | None = None,
               *, exact: bool = True, line: int | None = None) -> Rule:
    """A constraint rule that classifies the live object's drift from `fields`; `exact`: the
    physical name is the engine's own (a snapshot's, or a declared physicalName)."""
    arguments = (("baseline", tuple(fields)),
                 ("overrides", tuple(sorted((k, v.value) for k, v in (overrides or {}).items()))))
    return Rule(key, source_path, Category.CONSTRAINT,
                Target(object_name, physical, exact_object=exact),
                Constraint("drift", (), arguments), severity=Severity.ERROR, line=line)


def contract_drift_rules(objects: Sequence[SchemaObject], taken: set[str],
                         overrides: Mapping[str, Classification] | None = None) -> list[Rule]:
    """`--schema-drift`: one rule per declared object, its declared schema as the baseline."""
    rules = []
    for obj in objects:
        key = f"schema[{obj.name}].drift"
        if key not in taken and obj.physical:
            taken.add(key)
            rules.append(drift_rule(key, f"{obj.source_path}.drift", obj.name, obj.physical,
                                    fields_from_schema(obj), overrides, exact=obj.exact,
                                    line=obj.line))
    return rules


def snapshot_drift_rules(objects: Sequence[tuple[str, tuple[Field, ...]]], source: str,
                         taken: set[str], overrides: Mapping[str, Classification] | None = None
                         ) -> list[Rule]:
    """`--baseline`: one rule per object of a saved snapshot."""
    rules = []
    for index, (name, fields) in enumerate(objects):
        key = f"baseline[{name}].drift"
        if key not in taken:
            taken.add(key)
            rules.append(drift_rule(key, f"{source}#objects[{index}]", name, name, fields,
                                    overrides))
    return rules


def baseline_of(constraint: Constraint) -> tuple[tuple[Field, ...], dict[str, Classification]]:
    fields = constraint.argument("baseline")
    overrides = constraint.argument("overrides")
    assert isinstance(fields, tuple) and isinstance(overrides, tuple)
    return fields, {str(k): Classification(v) for k, v in overrides}


def fields_from_schema(obj: SchemaObject) -> tuple[Field, ...]:
    """A declared schema as a baseline: nullable unless required or part of the key."""
    return tuple(Field(p.physical, p.physical_type, p.logical_type,
                       not (p.required or p.primary_key)) for p in obj.properties)


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


class SnapshotError(ValueError):
    """The file is not a packata-sql schema snapshot."""


def load_snapshot(text: str) -> list[tuple[str, tuple[Field, ...]]]:
    """The objects of a snapshot and their fields, in file order."""
    try:
        document = json_source.loads(text)
    except json_source.TooDeep as deep:
        raise SnapshotError(f"{deep}" + (f" (line {deep.line})" if deep.line else "")) from None
    except json.JSONDecodeError as error:
        raise SnapshotError(f"not JSON (line {error.lineno})") from None
    if not isinstance(document, dict) or document.get("format") != SNAPSHOT_FORMAT:
        raise SnapshotError(f"not a {SNAPSHOT_FORMAT} snapshot")
    _check_structure(document)
    objects = []
    for entry in document.get("objects") or []:
        try:
            fields = tuple(Field(str(f["name"]), _native_type(entry["object"], f), None,
                                 f.get("nullable") if isinstance(f.get("nullable"), bool) else None)
                           for f in entry["fields"])
            objects.append((str(entry["object"]), fields))
        except (KeyError, TypeError):
            raise SnapshotError("an object needs 'object' and 'fields' with 'name' and "
                                "'native_type'") from None
    return objects


def _check_structure(document: dict[str, Any]) -> None:
    """`objects` is a list of objects whose `fields` are lists of objects, or SnapshotError
    naming the first place that is not (a hand-edited baseline, say `"objects": 5`)."""
    objects = document.get("objects")
    if objects is None:
        return
    if not isinstance(objects, list):
        raise SnapshotError("'objects' must be a list of objects, as `schema snapshot` writes it")
    for index, entry in enumerate(objects):
        if not isinstance(entry, dict):
            raise SnapshotError(f"objects[{index}] must be an object with 'object' and 'fields'")
        fields = entry.get("fields")
        if not isinstance(fields, list) or not all(isinstance(f, dict) for f in fields):
            raise SnapshotError(f"objects[{index}].fields must be a list of objects with "
                                "'name' and 'native_type'")


def _native_type(obj: object, field: Mapping[str, Any]) -> str | None:
    """A field's `native_type`: null (or "") is a type the baseline did not know, never the
    type named 'None'; anything but text or null is not a snapshot."""
    value = field["native_type"]
    if value is None or isinstance(value, str):
        return value or None
    raise SnapshotError(f"object '{obj}' field '{field['name']}': 'native_type' must be a "
                        "type name (text) or null")
