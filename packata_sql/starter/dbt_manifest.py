"""`import dbt`: the models of a dbt `manifest.json` (plain JSON, no dbt import) as ODCS
objects: columns with their descriptions and `data_type`s, model constraints, and the generic
dbt tests ODCS can state. `unique` and `not_null` become `unique`/`required`,
`accepted_values` an `invalidValues` rule (NULLs pass, as in dbt), `relationships` a SQL rule counting
orphans; every other test, and any test with a `where`, is listed as not imported."""

from __future__ import annotations

import fnmatch
import re
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from packata_sql import engines
from packata_sql.contracts import json_source
from packata_sql.dialects import Dialect, get_dialect
from packata_sql.dialects.facts import ColumnFact, declared_family
from packata_sql.errors import UsageError
from packata_sql.spelling import closest_hint
from packata_sql.starter.document import (
    StarterObject,
    StarterProperty,
    column_property,
    reference_rule,
    values_rule,
)

_COLUMN = re.compile(r'[A-Za-z_][\w$]*|"[^"]+"|`[^`]+`')
_CONSTRAINTS = {"not_null": "required", "unique": "unique", "primary_key": "primaryKey"}


def import_manifest(path: Path, patterns: Sequence[str]
                    ) -> tuple[list[StarterObject], str, str | None]:
    """The objects, the project's name (the contract's id) and the schema most of them are
    built in (the server's schema when the URL names none)."""
    document = _read(path)
    metadata = _mapping(document.get("metadata"))
    nodes = document.get("nodes")
    if not isinstance(nodes, dict):
        raise UsageError(f"{path}: no 'nodes' object; it is not a dbt manifest.json")
    named = metadata.get("project_name")
    project = str(named or path.parent.parent.name or "dbt")
    adapter = engines.named(str(metadata.get("adapter_type") or ""))
    dialect = get_dialect(adapter.name) if adapter is not None else None
    models = [n for n in nodes.values() if isinstance(n, dict)
              and n.get("resource_type") == "model"
              and (named is None or n.get("package_name") == named)]
    chosen = _chosen(models, patterns, path)
    tests = [n for n in nodes.values() if isinstance(n, dict) and n.get("resource_type") == "test"]
    schemas = Counter(str(m.get("schema")) for m in chosen)
    home = schemas.most_common(1)[0][0] if schemas else None
    objects = [_model(model, tests, nodes, dialect, home) for model in chosen]
    if dialect is None:
        objects[0].notes.append(f"adapter '{metadata.get('adapter_type')}' is no dialect "
                                "packata-sql knows: data types are written as physicalType "
                                "only")
    return objects, project, home


def _mapping(value: object) -> dict[str, Any]:
    """A manifest member that should be an object; anything else reads as empty."""
    return value if isinstance(value, dict) else {}


def _read(path: Path) -> dict[str, Any]:
    try:
        document = json_source.loads(path.read_text(encoding="utf-8"), max_depth=None)
    except FileNotFoundError:
        raise UsageError(f"{path} not found: run `dbt compile` (or `dbt parse`) in the project "
                         "to write target/manifest.json") from None
    except (OSError, ValueError, json_source.TooDeep) as error:
        raise UsageError(f"{path} is not readable JSON ({type(error).__name__})") from None
    if not isinstance(document, dict):
        raise UsageError(f"{path} is not a dbt manifest.json")
    return document


def _chosen(models: list[dict[str, Any]], patterns: Sequence[str], path: Path
            ) -> list[dict[str, Any]]:
    names = sorted(str(m.get("name")) for m in models)
    if not patterns:
        if not models:
            raise UsageError(f"{path}: the manifest holds no model of its project")
        return sorted(models, key=lambda m: str(m.get("name")))
    chosen: list[dict[str, Any]] = []
    for pattern in patterns:
        found = [m for m in models if fnmatch.fnmatchcase(str(m.get("name")), pattern)]
        if not found:
            raise UsageError(f"--model: {closest_hint('model', pattern, names)} in {path}")
        chosen += [m for m in sorted(found, key=lambda m: str(m.get("name"))) if m not in chosen]
    return chosen


def _model(model: dict[str, Any], tests: list[dict[str, Any]], nodes: dict[str, Any],
           dialect: Dialect | None, home: str | None) -> StarterObject:
    name = str(model.get("name"))
    obj = StarterObject(name)
    alias = str(model.get("alias") or name)
    if alias != name:
        obj.entry["physicalName"] = alias
    if model.get("description"):
        obj.entry["description"] = str(model["description"])
    config = _mapping(model.get("config"))
    if config.get("materialized") == "ephemeral":
        obj.notes.append("an ephemeral model builds no relation: nothing to check")
    if home is not None and str(model.get("schema")) != home:
        obj.notes.append(f"built in schema {model.get('schema')}, not {home} (the contract's "
                         "server schema): give it a contract of its own")
    columns = _mapping(model.get("columns"))
    untyped = []
    for position, column in enumerate(columns.values(), 1):
        if isinstance(column, dict):
            prop = _column(column, position, dialect)
            obj.properties.append(prop)
            if "physicalType" not in prop.entry:
                untyped.append(prop.entry["name"])
    if untyped:
        obj.notes.append(f"no data_type in the manifest for {', '.join(untyped)}: declare it "
                         "in the model's YAML, or run `packata-sql init` against the warehouse")
    for test in tests:
        if _attached(test, str(model.get("unique_id"))):
            _test(obj, test, nodes, dialect, str(model.get("schema")))
    return obj


def _column(column: dict[str, Any], position: int, dialect: Dialect | None) -> StarterProperty:
    name = str(column.get("name"))
    native = str(column.get("data_type") or "")
    constraints = [c.get("type") for c in column.get("constraints") or [] if isinstance(c, dict)]
    if dialect is not None:
        fact = ColumnFact(name, position, native, declared_family(native, dialect) if native
                          else dialect.type_family(""), None)
        prop = column_property(fact, dialect) if native else StarterProperty({"name": name})
    else:
        prop = StarterProperty({"name": name, **({"physicalType": native} if native else {})})
    if column.get("description"):
        prop.entry["description"] = str(column["description"])
    for kind in constraints:
        if kind in _CONSTRAINTS:
            prop.entry[_CONSTRAINTS[kind]] = True
        else:
            prop.notes.append(f"dbt constraint '{kind}': not imported")
    if prop.entry.get("primaryKey"):
        prop.entry["primaryKeyPosition"] = 1
    return prop


def _attached(test: dict[str, Any], model_id: str) -> bool:
    attached = test.get("attached_node")
    if attached is not None:
        return bool(attached == model_id)
    depends = (test.get("depends_on") or {}).get("nodes") or []
    return bool(depends) and depends[0] == model_id


def _test(obj: StarterObject, test: dict[str, Any], nodes: dict[str, Any],
          dialect: Dialect | None, schema: str) -> None:
    metadata = _mapping(test.get("test_metadata"))
    label = str(test.get("name") or "a test")
    if not metadata:
        obj.notes.append(f"dbt test {label}: a singular test (its own SQL); not imported")
        return
    kind = str(metadata.get("name"))
    namespace = metadata.get("namespace")
    kwargs = _mapping(metadata.get("kwargs"))
    config = _mapping(test.get("config"))
    shown = f"{namespace}.{kind}" if namespace else kind
    if namespace or kind not in ("unique", "not_null", "accepted_values", "relationships"):
        obj.notes.append(f"dbt test {shown} ({label}): no ODCS equivalent; not imported")
        return
    if config.get("where"):
        obj.notes.append(f"dbt test {shown} ({label}): its `where` filter has no ODCS "
                         "equivalent; not imported")
        return
    column = str(kwargs.get("column_name") or test.get("column_name") or "")
    if not _COLUMN.fullmatch(column):
        obj.notes.append(f"dbt test {shown} ({label}): on an expression, not a column; "
                         "not imported")
        return
    column = column.strip('"`')
    prop = obj.property(column)
    if prop is None:
        prop = StarterProperty({"name": column})
        obj.properties.append(prop)
    warn = str(config.get("severity") or "").lower() == "warn"
    if kind in ("unique", "not_null"):
        if kind == "not_null":
            prop.entry["required"] = True
        elif not prop.entry.get("primaryKey"):
            prop.entry["unique"] = True
        if warn:
            prop.notes.append(f"dbt test {label} has severity warn; a schema constraint is "
                              "always an error")
        return
    before = len(prop.entry.get("quality", []))
    if kind == "accepted_values":
        values = kwargs.get("values")
        if not isinstance(values, list) or not values:
            obj.notes.append(f"dbt test {shown} ({label}): no list of values; not imported")
            return
        prop.entry.setdefault("quality", []).append(values_rule(values, f"dbt test {label}"))
    else:
        _relationship(obj, prop, kwargs, test, nodes, dialect, schema, label)
    added = prop.entry.get("quality", [])[before:]
    for rule in added if warn else []:
        rule["severity"] = "warning"


def _relationship(obj: StarterObject, prop: StarterProperty, kwargs: dict[str, Any],
                  test: dict[str, Any], nodes: dict[str, Any], dialect: Dialect | None,
                  schema: str, label: str) -> None:
    depends = [n for n in (test.get("depends_on") or {}).get("nodes") or []
               if n != test.get("attached_node") and isinstance(nodes.get(n), dict)]
    field = kwargs.get("field")
    parent = nodes[depends[0]] if depends else None
    if parent is None or not isinstance(field, str) or dialect is None:
        obj.notes.append(f"dbt test relationships ({label}): the parent model or field is not "
                         "in the manifest; not imported")
        return
    if str(parent.get("schema")) != schema:
        obj.notes.append(f"dbt test relationships ({label}): the parent is in schema "
                         f"{parent.get('schema')}, not {schema}; not imported")
        return
    parent_name = str(parent.get("alias") or parent.get("name"))
    prop.entry.setdefault("quality", []).append(reference_rule(
        obj.name, prop.entry["name"], parent_name, field.strip('"`'), dialect,
        f"dbt test relationships to {parent.get('name')}"))
