"""The official ODCS JSON schemas (bitol-io/open-data-contract-standard, Apache-2.0), bundled:
v3.0.2 and v3.1.0 as tagged, v3.2.0 from the standard's dev-v3.2.0 branch. The loader takes
the keys it knows from them, so a key the standard defines never draws an "unknown key"
warning and a typo still does."""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

SCHEMA_VERSIONS = ("3.0.2", "3.1.0", "3.2.0")
#: The ODCS releases a contract's apiVersion may name (with or without the leading `v`);
#: another is a `catalog-version-mismatch` finding.
ODCS_VERSIONS = ("3.0.0", "3.0.1", "3.0.2", "3.1.0", "3.2.0")


@dataclass(frozen=True)
class KnownKeys:
    """Every key the bundled versions define, per kind of node."""

    top: frozenset[str]
    object: frozenset[str]
    property: frozenset[str]
    quality: frozenset[str]
    server: frozenset[str]
    #: `logicalTypeOptions` keys, whatever the logicalType.
    options: frozenset[str] = frozenset()


@cache
def official_schema(version: str) -> dict[str, Any]:
    """The bundled JSON schema of one ODCS version (one of SCHEMA_VERSIONS), read once per
    process (the loader's known keys and lint share it); callers must not change it."""
    name = f"odcs-json-schema-v{version}.json"
    text = resources.files("packata_sql.contracts").joinpath("schemas", name).read_text("utf-8")
    document: dict[str, Any] = json.loads(text)
    return document


@cache
def server_types() -> tuple[str, ...]:
    """Every server `type` the bundled versions define, in the newest schema's order."""
    found: list[str] = []
    for version in reversed(SCHEMA_VERSIONS):
        schema = official_schema(version)
        definitions = schema.get("$defs") or schema.get("definitions") or {}
        enum = definitions["Server"]["properties"]["type"].get("enum", [])
        found.extend(str(name) for name in enum if str(name) not in found)
    return tuple(found)


@cache
def known_keys() -> KnownKeys:
    """Read once per process: the schemas are package data and never change."""
    found: dict[str, set[str]] = {kind: set() for kind in ("top", "object", "property",
                                                           "quality", "server", "options")}
    for version in SCHEMA_VERSIONS:
        schema = official_schema(version)
        definitions = schema.get("$defs") or schema.get("definitions") or {}
        found["top"] |= set(schema["properties"])
        found["options"] |= _option_keys(definitions)
        for kind, names in (("object", ("SchemaObject",)),
                            ("property", ("SchemaProperty", "SchemaItemProperty")),
                            ("quality", ("DataQuality",)), ("server", ("Server",))):
            for name in names:
                found[kind] |= _keys(schema, definitions[name], set())
    return KnownKeys(**{kind: frozenset(keys) for kind, keys in found.items()})


def _keys(schema: dict[str, Any], node: object, seen: set[str]) -> set[str]:
    """The property names a node allows, through `$ref`, `allOf`/`anyOf`/`oneOf` and
    `if`/`then`/`else` (server types and logical types add keys that way)."""
    if not isinstance(node, dict):
        return set()
    keys = set(node.get("properties", {}))
    reference = node.get("$ref")
    if isinstance(reference, str) and reference.startswith("#/") and reference not in seen:
        seen.add(reference)
        target: Any = schema
        for part in reference[2:].split("/"):
            target = target[part]
        keys |= _keys(schema, target, seen)
    for combinator in ("allOf", "anyOf", "oneOf"):
        for branch in node.get(combinator, []):
            keys |= _keys(schema, branch, seen)
    for branch in ("if", "then", "else"):
        keys |= _keys(schema, node.get(branch), seen)
    return keys


def _option_keys(node: object) -> set[str]:
    """Every key a `logicalTypeOptions` object allows, in any logicalType's branch."""
    keys: set[str] = set()
    if isinstance(node, dict):
        options = node.get("properties", {}).get("logicalTypeOptions") \
            if isinstance(node.get("properties"), dict) else None
        if isinstance(options, dict):
            keys |= set(options.get("properties", {}))
        for value in node.values():
            keys |= _option_keys(value)
    elif isinstance(node, list):
        for item in node:
            keys |= _option_keys(item)
    return keys
