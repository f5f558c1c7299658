"""`schema snapshot`: each object's live columns as deterministic JSON (no data), the baseline
that `check --baseline` compares with."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

from packata_sql import api
from packata_sql.cli.check import resolve_endpoint
from packata_sql.errors import UsageError

if TYPE_CHECKING:
    from packata_sql.sessions.base import Session
    from packata_sql.sessions.endpoint import Endpoint


def snapshot_command(args: argparse.Namespace) -> int:
    """`schema snapshot`: each object's columns from the catalog, as deterministic JSON."""
    from packata_sql.run.drift import dumps_snapshot, snapshot_document
    from packata_sql.sessions.base import ProviderError, open_session

    endpoint = resolve_endpoint(api.NO_CONTRACT, args.url, None, args.trust_environment)
    try:
        session = open_session(endpoint, trust_environment=args.trust_environment)
    except ProviderError as error:
        raise UsageError(f"cannot connect to {endpoint.describe()}: {error}") from None
    try:
        objects = []
        for name in args.object:
            try:
                objects.append((name, session.column_facts((*endpoint.schema, name))))
            except ProviderError as error:
                hint = ""
                if error.category == "missing-object":
                    hint = "; " + _object_hint(session, endpoint, name)
                raise UsageError(f"cannot read the columns of {name}: {error}{hint}") from None
    finally:
        session.close()
    sys.stdout.write(dumps_snapshot(snapshot_document(endpoint.engine, objects)))
    return 0


def _object_hint(session: Session, endpoint: Endpoint, name: str) -> str:
    """`no object 'ordres'; did you mean 'orders'?`, from the objects the session can see."""
    from packata_sql.sessions.base import Interrupted, ProviderError
    from packata_sql.spelling import closest_hint

    try:
        visible = session.objects(endpoint.declared_schema)
    except (ProviderError, Interrupted):
        visible = []
    return closest_hint("object", name, visible)
