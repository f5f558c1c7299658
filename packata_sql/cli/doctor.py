"""`doctor`: which login a run uses and where it came from, the read-only level a run would
get, and whether every object and column of the contract is there."""

from __future__ import annotations

import argparse
import os
from dataclasses import replace

from packata_sql import api, engines
from packata_sql.cli.check import resolve_endpoint
from packata_sql.contracts.model import Contract
from packata_sql.errors import UsageError
from packata_sql.render.neutral import plain  # hosts and names come from the contract
from packata_sql.run.names import find_column
from packata_sql.sessions.base import Interrupted, ProviderError, Session
from packata_sql.sessions.endpoint import FILE_ENGINES, Endpoint, credential_variables
from packata_sql.spelling import closest_hint

#: Engines whose drivers would use the user's ambient login for a contract-named host, which
#: sessions/drivers.py withholds.
_NO_AMBIENT = tuple(spec.name for spec in engines.connectable()
                    if spec.kind == engines.NETWORK and spec.url_reader is None)


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


def doctor_command(args: argparse.Namespace) -> int:
    """What the login can do and which read-only level a run would get; no secrets printed."""
    from packata_sql.sessions.base import ProviderError, open_session

    if args.contract:
        contract = api.load(args.contract)
        endpoint = resolve_endpoint(contract, args.url, args.server, args.trust_environment)
    elif args.url:
        endpoint = resolve_endpoint(api.NO_CONTRACT, args.url, None, args.trust_environment)
    else:
        raise UsageError("doctor needs --url, or a contract (with --server to pick one)")
    print(f"target: {plain(endpoint.describe())}")
    print("\n".join(login_lines(endpoint, from_url=bool(args.url))))
    endpoint = replace(endpoint, connect_timeout_s=min(endpoint.connect_timeout_s, args.timeout))
    try:
        session = open_session(endpoint, trust_environment=args.trust_environment)
    except ProviderError as error:
        print(f"connection: failed ({error.category}): {plain(error)}")
        return 2
    try:
        decision = session.decision  # the same decision a run would report
        print("connection: ok")
        print(f"read-only level: {decision.level}")
        print(getattr(session, "library_rules", None)
              or "library rules: run inside the engine's read-only mode")
        if decision.routes:
            print("routes out of read-only mode (names only):")
            for route in decision.routes:
                print(f"  - {plain(route)}")
        if decision.hardening:
            print("hardening (no route; names only):")
            for line in decision.hardening:
                print(f"  - {plain(line)}")
        if decision.authored_sql:
            print("authored SQL rules: allowed")
        else:
            print("authored SQL rules: refused (read-only-not-guaranteed)")
            print("  use a login without these routes, or pass --trust-environment to accept "
                  "the risk")
        if advice := getattr(session, "advice", None):  # engines without a read-only mode
            print(f"to make it safe: {advice}")
        if args.contract:
            print("\n".join(plain(line) for line in
                            presence_lines(session, contract, endpoint.schema)))
    finally:
        session.close()
    return 0
