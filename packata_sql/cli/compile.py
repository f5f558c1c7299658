"""`compile`: each rule's plan for one dialect, without a database (SQL to read, or JSON)."""

from __future__ import annotations

import argparse
import sys

from packata_sql import api
from packata_sql.cli.check import print_misspellings
from packata_sql.errors import UsageError


def compile_command(args: argparse.Namespace) -> int:
    from packata_sql.cli.compile_sql import render_sql
    from packata_sql.render.json import dumps

    contract = api.load(args.contract, declaration=args.declaration, object_name=args.object,
                        odcs_between=args.odcs_between)
    print_misspellings(args.contract, contract)  # the plan lists the findings too
    name = api.dialect_name(args.dialect) if args.dialect else api.contract_dialect(contract)
    if name is None or name not in api.COMPILE_DIALECTS:
        if not args.dialect:
            raise UsageError("the contract names no server packata-sql renders for; give "
                             f"--dialect (one of: {', '.join(api.COMPILE_DIALECTS)})")
        raise UsageError(api.dialect_hint(args.dialect))
    plans = api.compile(contract, name, categories=args.category)
    fmt = args.format or ("sql" if sys.stdout.isatty() else "json")
    document = plans.document(pretty=fmt == "sql")
    if fmt == "sql":
        sys.stdout.write(render_sql(document))
    else:
        sys.stdout.write(dumps(document) + "\n")
    return 0
