"""Schema drift, the declaration side: the change keys and their classifications (defaults of
the quality-policy design, each overridable), the drift rules a contract or a saved snapshot
declares, and the snapshot file's reader. Judging live columns against them is `run/drift.py`.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from enum import Enum
from typing import Any

from packata_sql.contracts import json_source
from packata_sql.contracts.model import Category, Constraint, Rule, SchemaObject, Severity, Target
from packata_sql.spelling import choice_hint

SNAPSHOT_FORMAT = "packata-sql/schema@1"


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


class OverrideError(ValueError):
    """An override names an unknown change key or classification."""


def parse_overrides(pairs: Iterable[str], table: Mapping[str, Classification] = DEFAULTS
                    ) -> dict[str, Classification]:
    """`KEY=compatible|warning|breaking` items, as `--drift` takes them; `table`: the keys
    that may be overridden (a contract diff adds its rule keys)."""
    overrides: dict[str, Classification] = {}
    for pair in pairs:
        key, _, value = pair.partition("=")
        if key.strip() not in table:
            raise OverrideError(choice_hint("drift change", key.strip(), list(table)))
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

