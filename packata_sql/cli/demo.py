"""`demo`: build (once) the demo DuckDB warehouse, check its contract through the API, print
the report and the next commands to try."""

from __future__ import annotations

import argparse
import shlex
from urllib.parse import quote

from packata_sql import api
from packata_sql.cli.check import emit
from packata_sql.demo import program, user_contract, warehouse


def demo_command(args: argparse.Namespace) -> int:
    database = warehouse(rebuild=args.rebuild)
    copy = user_contract(database)
    report = api.check(api.load(copy), f"duckdb:///{quote(str(database))}")
    emit(report, args.format, None)
    if args.format == "table":
        print(
            "\nThe demo has deliberate defects: invalid e-mails and duplicate order ids fail "
            "(severity error),\nunknown country codes fail as a warning, and the text rule is "
            "skipped because text rules are not executable.\n"
            "That is why packata-sql exits 1 here: failures of severity error.\n\n"
            f"Next, check the same contract yourself:\n  {program()} check {shlex.quote(str(copy))}\n"
            f"or see its SQL:\n  {program()} compile {shlex.quote(str(copy))} --format sql",
        )
    return report.exit_code()
