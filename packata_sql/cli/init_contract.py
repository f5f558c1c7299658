"""`packata-sql init --url URL --object T`: a starter ODCS v3 contract from what the read-only
session's catalog says about the table (column facts: type, NOT NULL, primary key), with one
row-count rule. It lints clean against the official schema and passes `check` against the table
it came from: every declaration is one the table already satisfies."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import yaml

from packata_sql import engines
from packata_sql.dialects import Dialect
from packata_sql.dialects.facts import ColumnFact, logical_type_of
from packata_sql.errors import UsageError
from packata_sql.sessions.endpoint import FILE_ENGINES, NETWORK_ENGINES, Endpoint, EndpointError, parse_url

if TYPE_CHECKING:
    from packata_sql.sessions.base import Session


def server_entry(endpoint: Endpoint, schema: str | None, folder: Path) -> dict[str, Any]:
    """The server in the shape the ODCS schema accepts for its type: DuckDB `database` (and an
    optional `schema`); SQLite, which ODCS has no type for, `custom` with `format: sqlite` and
    `path`; PostgreSQL `host`, `port`, `database`, `schema` (all required); MySQL `host`,
    `port`, `database` (its schema). A file's path is written relative to the contract's
    folder, which is where `check` reads it from."""
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
    server.update(host=endpoint.host, port=endpoint.port)
    if spec.schema_is_database:
        server["database"] = schema or endpoint.database
    else:
        server.update(database=endpoint.database, schema=schema)
    return server


def starter_property(fact: ColumnFact, dialect: Dialect) -> tuple[dict[str, Any], str]:
    """One column as an ODCS property, and a note when no logicalType describes it."""
    prop: dict[str, Any] = {"name": fact.name}
    logical, why = logical_type_of(fact, dialect)
    if logical is not None:
        prop["logicalType"] = logical
    if fact.native_type.strip():
        prop["physicalType"] = fact.native_type
    if fact.nullable is False:
        prop["required"] = True
    if fact.key_position is not None:
        prop["primaryKey"] = True
        prop["primaryKeyPosition"] = fact.key_position
    return prop, "" if logical is not None else f"no logicalType: {why}"


def starter_text(endpoint: Endpoint, name: str, facts: Sequence[ColumnFact], dialect: Dialect,
                 schema: str | None, folder: Path) -> str:
    """The contract as YAML; a column no logicalType describes gets a comment saying why."""
    document = {
        "apiVersion": "v3.1.0", "kind": "DataContract", "id": f"urn:packata-sql:{name}",
        "version": "0.1.0", "status": "draft",
        "servers": [server_entry(endpoint, schema, folder)],
        "schema": [{"name": name, "physicalName": name, "logicalType": "object",
                    "quality": [{"metric": "rowCount", "mustBeGreaterThan": 0}]}],
    }
    lines = [f"# Starter contract written by `packata-sql init` from {name} "
             f"({endpoint.engine}): edit it, then `packata-sql lint` and `packata-sql check`.",
             _dump(document).rstrip("\n"), "  properties:"]
    for fact in facts:
        prop, note = starter_property(fact, dialect)
        if note:
            shown = "".join(c if c.isprintable() else "?" for c in fact.name)
            lines.append(f"  # {shown}: {note}")
        lines += ["  " + line for line in _dump([prop]).splitlines()]
    return "\n".join(lines) + "\n"


def _dump(value: object) -> str:
    return yaml.safe_dump(value, sort_keys=False, allow_unicode=True, width=100)


def init_command(args: argparse.Namespace) -> int:
    from packata_sql.sessions.base import ProviderError, open_session

    try:
        endpoint = parse_url(args.url)
    except EndpointError as error:
        raise UsageError(str(error)) from None
    target = Path(args.output) if args.output else None
    if target is not None and target.exists():
        raise UsageError(f"{target} exists; init never overwrites a contract")
    try:
        session = open_session(endpoint, trust_environment=False)
    except ProviderError as error:
        print(f"packata-sql: cannot connect to {endpoint.describe()}: {error}", file=sys.stderr)
        return 2
    try:
        try:
            facts = session.column_facts((*endpoint.schema, args.object))
        except ProviderError as error:
            visible = session.objects(endpoint.schema[-1] if endpoint.schema else None)
            from packata_sql.spelling import closest_hint

            hint = closest_hint("object", args.object, visible)
            raise UsageError(f"cannot read the columns of {args.object}: {error}; {hint}") from None
        schema = _schema(endpoint, args.object, session)
    finally:
        session.close()
    from packata_sql.dialects import get_dialect

    folder = target.parent if target is not None else Path.cwd()
    text = starter_text(endpoint, args.object, facts, get_dialect(endpoint.engine), schema,
                        folder)
    if target is None:
        sys.stdout.write(text)
    else:
        target.write_text(text, encoding="utf-8")
        login = ""
        if endpoint.engine in NETWORK_ENGINES:
            login = (" (the login comes from PACKATA_MAIN_USERNAME and PACKATA_MAIN_PASSWORD, "
                     "or pass the same --url to check)")
        print(f"wrote {target}; next: packata-sql lint {target} && packata-sql check {target}"
              f"{login}", file=sys.stderr)
    return 0


def _schema(endpoint: Endpoint, table: str, session: Session) -> str | None:
    """The schema to write: the URL's; else, where ODCS requires one (a server engine whose
    database is not its schema: PostgreSQL), the session's current schema if it holds the
    table."""
    if endpoint.schema:
        return endpoint.schema[-1]
    spec = engines.spec(endpoint.engine)
    if endpoint.engine not in NETWORK_ENGINES or spec.schema_is_database:
        return None
    if session.schema and table in session.objects(session.schema):
        return str(session.schema)
    raise UsageError(f"cannot tell which schema holds {table}: give it in the URL "
                     "(`?schema=NAME`)")
