"""`packata-sql init --url URL --object T`: a starter ODCS v3 contract from the columns the
read-only session sees, with one row-count rule, ready to edit and `lint`."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

import yaml

from packata_sql import engines
from packata_sql.cli import UsageError
from packata_sql.dialects import Family
from packata_sql.endpoint import FILE_ENGINES, Endpoint, EndpointError, parse_url

_LOGICAL = {Family.TEXT: "string", Family.NUMBER: "number", Family.BOOLEAN: "boolean",
            Family.TEMPORAL: "date"}


def starter(endpoint: Endpoint, name: str, columns: dict[str, Family]) -> dict[str, Any]:
    server: dict[str, Any] = {"server": "main", "type": endpoint.engine}
    if endpoint.engine in FILE_ENGINES:
        server[engines.spec(endpoint.engine).file_setting] = endpoint.database
    else:
        server.update(host=endpoint.host, port=endpoint.port, database=endpoint.database)
    if endpoint.schema:
        server["schema"] = endpoint.schema[-1]
    properties = []
    for column, family in columns.items():
        prop: dict[str, Any] = {"name": column}
        if family in _LOGICAL:
            prop["logicalType"] = _LOGICAL[family]
        properties.append(prop)
    return {
        "apiVersion": "v3.1.0", "kind": "DataContract", "id": f"urn:packata-sql:{name}",
        "version": "0.1.0", "status": "draft", "servers": [server],
        "schema": [{"name": name, "physicalName": name, "logicalType": "object",
                    "quality": [{"metric": "rowCount", "mustBeGreaterThan": 0}],
                    "properties": properties}],
    }


def init_command(args: argparse.Namespace) -> int:
    from packata_sql.session import ProviderError, open_session

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
        columns = session.columns((*endpoint.schema, args.object))
    except ProviderError as error:
        visible = session.objects(endpoint.schema[-1] if endpoint.schema else None)
        from packata_sql.names import closest_hint

        hint = closest_hint("object", args.object, visible)
        raise UsageError(f"cannot read the columns of {args.object}: {error}; {hint}") from None
    finally:
        session.close()
    text = yaml.safe_dump(starter(endpoint, args.object, columns), sort_keys=False,
                          allow_unicode=True)
    if target is None:
        sys.stdout.write(text)
    else:
        target.write_text(text, encoding="utf-8")
        print(f"wrote {target}; next: packata-sql lint {target} && packata-sql check {target}",
              file=sys.stderr)
    return 0
