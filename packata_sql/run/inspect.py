"""A session opened to look, not to check: what `doctor` reports (the login and where it came
from, the read-only level, whether each declared object and column is there) and what
`schema snapshot` records (each object's live columns). No secret is ever part of either."""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, replace

from packata_sql import engines
from packata_sql.contracts.model import Contract
from packata_sql.errors import UsageError
from packata_sql.run.drift import dumps_snapshot, snapshot_document
from packata_sql.run.names import find_column, object_hint
from packata_sql.sessions.base import Interrupted, ProviderError, Session, open_session
from packata_sql.sessions.endpoint import FILE_ENGINES, Endpoint, credential_variables
from packata_sql.spelling import closest_hint

#: Engines whose drivers would use the user's ambient login for a contract-named host, which
#: sessions/drivers.py withholds.
_NO_AMBIENT = tuple(spec.name for spec in engines.connectable()
                    if spec.kind == engines.NETWORK and spec.url_reader is None)


@dataclass(frozen=True)
class Diagnosis:
    """What `doctor` found. `connection` is None when the session opened; otherwise the
    reason (category and the engine's message; it carries no secret). Names and hosts come
    from the contract: a terminal shows them neutralised."""

    target: str
    login: tuple[str, ...]
    connection: str | None = None
    level: str | None = None
    library_rules: str | None = None
    routes: tuple[str, ...] = ()
    hardening: tuple[str, ...] = ()
    authored_sql: bool = False
    advice: str | None = None
    presence: tuple[str, ...] = ()


def diagnose(endpoint: Endpoint, contract: Contract | None, *, from_url: bool,
             trust_environment: bool, timeout_s: float) -> Diagnosis:
    """Opens one session (connecting within `timeout_s`), reads the read-only decision a run
    would get and, with a contract, looks up every object and column it declares."""
    found = Diagnosis(endpoint.describe(), tuple(login_lines(endpoint, from_url)))
    endpoint = replace(endpoint, connect_timeout_s=min(endpoint.connect_timeout_s, timeout_s))
    try:
        session = open_session(endpoint, trust_environment=trust_environment)
    except ProviderError as error:
        return replace(found, connection=f"failed ({error.category}): {error}")
    try:
        decision = session.decision  # the same decision a run would report
        return replace(
            found, level=decision.level,
            library_rules=getattr(session, "library_rules", None)
            or "library rules: run inside the engine's read-only mode",
            routes=tuple(decision.routes), hardening=tuple(decision.hardening),
            authored_sql=decision.authored_sql,
            advice=getattr(session, "advice", None),  # engines without a read-only mode
            presence=tuple(presence_lines(session, contract, endpoint.schema)) if contract else (),
        )
    finally:
        session.close()


def _driver_default(engine: str) -> str:
    spec = engines.engine(engine)
    return spec.login_origin if spec else "the driver's default"


def login_lines(endpoint: Endpoint, from_url: bool) -> list[str]:
    """The login and where it came from (URL, PACKATA_<SERVER>_* variable or the driver's
    default); the password only as 'set' or 'not set', never its value."""
    if endpoint.engine in FILE_ENGINES:
        return ["login: none (a database file, opened read-only)"]
    user_variable, password_variable = credential_variables(endpoint.server or "")
    if from_url:
        origin = "the --url" if endpoint.user else _driver_default(endpoint.engine)
    elif os.environ.get(user_variable):
        origin = f"the environment variable {user_variable}"
    elif endpoint.engine in _NO_AMBIENT:
        origin = (f"nowhere: {user_variable} is not set, and a server the contract names gets "
                  "no default login (PGUSER, the operating-system user, ~/.my.cnf)")
    else:
        origin = f"{_driver_default(endpoint.engine)} ({user_variable} is not set)"
    source = endpoint.password_source
    if source == "url":
        password = "from the --url"
    elif source:
        password = f"from {source}"
    else:
        password = ("none given; the driver may find one (PGPASSWORD, ~/.pgpass, ~/.my.cnf)"
                    if from_url else f"none ({password_variable} is not set; PGPASSWORD, "
                    "~/.pgpass and ~/.my.cnf serve only a host named with --url)")
    who = endpoint.user or "(driver default)"
    return [f"login: {who}, from {origin}", f"password: {password}"]


def presence_lines(session: Session, contract: Contract, prefix: tuple[str, ...]) -> list[str]:
    """Every object and column the contract declares, looked up through the session."""
    lines = []
    session.read_ahead([(*prefix, obj.physical) for obj in contract.objects])
    for obj in contract.objects:
        segments = (*prefix, obj.physical)
        try:
            columns = session.columns(segments)
        except (ProviderError, Interrupted) as error:
            if isinstance(error, ProviderError) and error.category != "missing-object":
                lines.append(f"object {obj.name}: cannot be read ({error.category})")
                continue
            try:
                visible = session.objects(prefix[-1] if prefix else None)
            except (ProviderError, Interrupted):
                visible = []
            lines.append(f"object {obj.name}: missing ({closest_hint('object', obj.physical, visible)})")
            continue
        missing = []
        for prop in obj.properties:
            if find_column(session.dialect, columns, prop.physical, exact=False) is None:
                missing.append(closest_hint("column", prop.physical, columns))
        found = len(obj.properties) - len(missing)
        lines.append(f"object {obj.name}: present, {found} of {len(obj.properties)} declared "
                     "columns found")
        lines += [f"  missing: {hint}" for hint in missing]
    return lines


def read_snapshot(endpoint: Endpoint, names: Sequence[str], *, trust_environment: bool) -> str:
    """Each named object's columns from the catalog, as the deterministic JSON `check
    --baseline` compares with (no data is read). Raises `UsageError` naming what failed."""
    try:
        session = open_session(endpoint, trust_environment=trust_environment)
    except ProviderError as error:
        raise UsageError(f"cannot connect to {endpoint.describe()}: {error}") from None
    try:
        objects = []
        session.read_ahead([(*endpoint.schema, name) for name in names])
        for name in names:
            try:
                objects.append((name, session.column_facts((*endpoint.schema, name))))
            except ProviderError as error:
                hint = ""
                if error.category == "missing-object":
                    schema = endpoint.declared_schema
                    hint = "; " + object_hint(session, (schema, name) if schema else (name,))
                raise UsageError(f"cannot read the columns of {name}: {error}{hint}") from None
    finally:
        session.close()
    return dumps_snapshot(snapshot_document(endpoint.engine, objects))
