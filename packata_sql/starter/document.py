"""The starter document: objects and properties as ODCS v3 mappings, written as YAML with a
comment wherever something was not declared and why, and the server entry for an endpoint."""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from packata_sql import engines
from packata_sql.dialects import Dialect
from packata_sql.dialects.facts import ColumnFact, logical_type_of
from packata_sql.sessions.endpoint import FILE_ENGINES, Endpoint

#: The ODCS release written: v3.2.0's published schema refuses a property without a
#: logicalType (its `map` condition holds vacuously), which a starter contract may hold.
API_VERSION = "v3.1.0"


@dataclass
class StarterProperty:
    """One column: its ODCS mapping and the notes written above it as comments."""

    entry: dict[str, Any]
    notes: list[str] = field(default_factory=list)


@dataclass
class StarterObject:
    """One table or view: object-level ODCS keys, its properties and notes."""

    name: str
    properties: list[StarterProperty] = field(default_factory=list)
    entry: dict[str, Any] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)

    def property(self, name: str) -> StarterProperty | None:
        return next((p for p in self.properties if p.entry["name"] == name), None)

    def not_imported(self) -> list[str]:
        """Every note, prefixed with where it sits, for the summary on stderr."""
        return [f"{self.name}: {note}" for note in self.notes] + [
            f"{self.name}.{p.entry['name']}: {note}" for p in self.properties for note in p.notes]


def column_property(fact: ColumnFact, dialect: Dialect) -> StarterProperty:
    """A column as an ODCS property: logicalType where one describes it (else a note saying
    why), the native type as physicalType, NOT NULL as `required`, the primary key position."""
    entry: dict[str, Any] = {"name": fact.name}
    logical, why = logical_type_of(fact, dialect)
    if logical is not None:
        entry["logicalType"] = logical
    if fact.native_type.strip():
        entry["physicalType"] = fact.native_type
    if fact.nullable is False:
        entry["required"] = True
    if fact.key_position is not None:
        entry["primaryKey"] = True
        entry["primaryKeyPosition"] = fact.key_position
    return StarterProperty(entry, [] if logical is not None else [f"no logicalType: {why}"])


def server_entry(endpoint: Endpoint, schema: str | None, folder: Path) -> dict[str, Any]:
    """The server in the shape the ODCS schema accepts for its type: DuckDB `database` (and an
    optional `schema`); SQLite and Spark, which ODCS has no type for, `custom` with `format`
    (SQLite's `path`; Spark's `host`, `port`, `schema`); PostgreSQL `host`, `port`, `database`,
    `schema` (all required); MySQL `host`, `port`, `database` (its schema). A file's path is
    written relative to the contract's folder, which is where `check` reads it from."""
    spec = engines.spec(endpoint.engine)
    server: dict[str, Any] = {"server": "main", "type": spec.server_types[0]}
    if endpoint.engine in FILE_ENGINES:
        path = endpoint.database
        if not os.path.isabs(path):
            path = os.path.relpath(os.path.abspath(path), folder.resolve())
        if spec.custom_server:
            server.update(type="custom", format=spec.name)
        server[spec.file_setting] = path
        if schema and spec.url_schema:
            server["schema"] = schema
        return server
    if spec.custom_server:
        server.update(type="custom", format=spec.name)
    server.update(host=endpoint.host, port=endpoint.port)
    if spec.schema_is_database:
        server["database"] = schema or endpoint.database
    else:
        server.update(database=endpoint.database, schema=schema)
    return {key: value for key, value in server.items() if value not in ("", None)}


def contract_text(objects: Sequence[StarterObject], *, contract_id: str, source: str,
                  servers: Sequence[dict[str, Any]] = ()) -> str:
    """The contract as YAML: a header naming the source and the next steps, then each object
    with its notes as comments where they apply."""
    document: dict[str, Any] = {
        "apiVersion": API_VERSION, "kind": "DataContract", "id": contract_id,
        "version": "0.1.0", "status": "draft",
    }
    if servers:
        document["servers"] = list(servers)
    lines = [f"# Starter contract written by packata-sql from {_printable(source)}: edit it, "
             "then `packata-sql lint` and `packata-sql check`.", _dump(document).rstrip("\n"),
             "schema:"]
    for obj in objects:
        lines += [f"# {_printable(note)}" for note in obj.notes]
        head = {"name": obj.name, "physicalName": obj.name, "logicalType": "object",
                **obj.entry}
        lines += _dump([head]).rstrip("\n").splitlines()
        if obj.properties:
            lines.append("  properties:")
        for prop in obj.properties:
            lines += [f"  # {_printable(prop.entry['name'])}: {_printable(note)}"
                      for note in prop.notes]
            lines += ["  " + line for line in _dump([prop.entry]).splitlines()]
    return "\n".join(lines) + "\n"


def _printable(text: str) -> str:
    """A comment stays one line whatever a name or a message holds."""
    return "".join(c if c.isprintable() else "?" for c in text)


def _dump(value: object) -> str:
    return yaml.safe_dump(value, sort_keys=False, allow_unicode=True, width=100)


def values_rule(values: Sequence[object], origin: str) -> dict[str, Any]:
    """An IN list (a CHECK, a dbt `accepted_values` test) as the library rule `invalidValues`:
    the cells outside the list, expected 0. NULL is listed, since neither SQL's CHECK nor dbt
    counts a NULL (docs/semantics.md: NULL is valid only when `validValues` holds it)."""
    listed = [*values] + ([] if None in values else [None])
    return {"metric": "invalidValues", "arguments": {"validValues": listed}, "mustBe": 0,
            "description": f"the values {origin} allows (NULL passes, as there)"}


def reference_rule(child: str, column: str, parent: str, parent_column: str, dialect: Dialect,
                   origin: str) -> dict[str, Any]:
    """A reference (a foreign key, a dbt `relationships` test) as an ODCS SQL rule: the rows
    whose non-NULL value has no row in the parent, expected 0. NULLs pass, as in SQL and dbt;
    the parent is read unqualified, in the contract's declared schema."""
    ident = dialect.quote_identifier
    query = (f"SELECT COUNT(*) FROM {{object}} AS child WHERE child.{{property}} IS NOT NULL "
             f"AND NOT EXISTS (SELECT 1 FROM {ident(parent)} AS parent "
             f"WHERE parent.{ident(parent_column)} = child.{{property}})")
    return {"type": "sql", "name": f"{child}_{column}_references_{parent}",
            "description": f"every non-NULL {column} is found in {parent}.{parent_column} "
                           f"({origin})",
            "query": query, "mustBe": 0}
