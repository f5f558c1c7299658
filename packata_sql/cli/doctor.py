"""`doctor`: which login a run uses and where it came from, the read-only level a run would
get, and whether every object and column of the contract is there (`api.doctor`)."""

from __future__ import annotations

import argparse

from packata_sql import api
from packata_sql.cli.check import resolve_endpoint
from packata_sql.errors import UsageError
from packata_sql.render.neutral import plain  # hosts and names come from the contract


def doctor_command(args: argparse.Namespace) -> int:
    """What the login can do and which read-only level a run would get; no secrets printed."""
    contract = None
    if args.contract:
        contract = api.load(args.contract)
        endpoint = resolve_endpoint(contract, args.url, args.server, args.trust_environment)
    elif args.url:
        endpoint = resolve_endpoint(api.NO_CONTRACT, args.url, None, args.trust_environment)
    else:
        raise UsageError("doctor needs --url, or a contract (with --server to pick one)")
    found = api.doctor(contract, endpoint, from_url=bool(args.url),
                       trust_environment=args.trust_environment, timeout=args.timeout)
    print(f"target: {plain(found.target)}")
    print("\n".join(found.login))
    if found.connection is not None:
        print(f"connection: {plain(found.connection)}")
        return 2
    print("connection: ok")
    print(f"read-only level: {found.level}")
    print(found.library_rules)
    if found.routes:
        print("routes out of read-only mode (names only):")
        for route in found.routes:
            print(f"  - {plain(route)}")
    if found.hardening:
        print("hardening (no route; names only):")
        for line in found.hardening:
            print(f"  - {plain(line)}")
    if found.authored_sql:
        print("authored SQL rules: allowed")
    else:
        print("authored SQL rules: refused (read-only-not-guaranteed)")
        print("  use a login without these routes, or pass --trust-environment to accept "
              "the risk")
    if found.advice:
        print(f"to make it safe: {found.advice}")
    print("\n".join(plain(line) for line in found.presence))
    return 0
