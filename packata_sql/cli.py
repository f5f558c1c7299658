"""`packata-sql check | compile | demo`. Imports stay inside commands so `--help` is fast."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from typing import NoReturn

from packata_sql import __version__

EXIT_USAGE = 3
EXIT_INTERNAL = 2  # the run is not complete


class UsageError(Exception):
    """Bad arguments or an unreadable contract: exit 3 with one clear line, no traceback."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        self.print_usage(sys.stderr)
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message}\n")


def _positive(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError("must be a number of seconds") from None
    if not value > 0 or value == float("inf"):
        raise argparse.ArgumentTypeError("must be a positive number of seconds")
    return value


def _declaration_arguments(command: argparse.ArgumentParser) -> None:
    command.add_argument("--declaration", choices=("odcs", "policy", "pipeline"),
                         help="the file's format (default: detected from its content)")
    command.add_argument("--object", metavar="NAME",
                         help="the object a policy or pipeline file checks, when it names none")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="packata-sql", description=(
        "Check data contracts against a warehouse with generated SQL, read-only."
    ))
    parser.add_argument("--version", action="version", version=f"packata-sql {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)

    check = commands.add_parser("check", help="run a contract's rules and report")
    check.add_argument("contract", help="ODCS v3 contract (YAML), JSON quality policy or "
                                        "pipeline contract (data_quality)")
    _declaration_arguments(check)
    where = check.add_mutually_exclusive_group()
    where.add_argument("--url", help="database URL, e.g. duckdb:///warehouse.duckdb")
    where.add_argument("--server", help="name of a contract `servers` entry")
    check.add_argument("--format", choices=("table", "json", "junit"), default="table")
    check.add_argument("--output", help="write the report to this file instead of stdout")
    check.add_argument("--select", action="extend", nargs="+", metavar="KEY",
                       help="run only these rule keys")
    check.add_argument("--timeout", type=_positive, default=300.0, metavar="S",
                       help="per-statement time limit in seconds (default 300)")
    check.add_argument("--budget", type=_positive, metavar="S",
                       help="time limit for the whole run in seconds")
    check.add_argument("--odcs-between", choices=("exclusive", "inclusive"), default="exclusive",
                       help="endpoints of ODCS mustBeBetween (default exclusive, as ODCS says)")
    check.add_argument("--fail-on", choices=("warning",),
                       help="exit 1 when warning-severity rules fail")
    check.add_argument("--trust-environment", action="store_true",
                       help="allow targets whose read-only mode the engine cannot enforce")
    check.add_argument("--show-sql", action="store_true", help="add the SQL to the report")
    check.add_argument("--category", action="append", choices=("constraint", "quality"),
                       help="run only rules of this category (repeatable; default: all)")
    check.add_argument("--schema-drift", action="store_true",
                       help="classify how each object drifted from the contract's schema")
    check.add_argument("--baseline", metavar="FILE",
                       help="classify drift from a `schema snapshot` file")
    check.add_argument("--drift", action="append", default=[], metavar="CHANGE=LEVEL",
                       help="override a drift classification, e.g. field-removed=warning")
    check.add_argument("--accept-unexecutable", action="store_true",
                       help="report text rules and custom rules for other tools as skipped "
                            "without keeping the run incomplete")
    check.add_argument("--param", action="append", default=[], metavar="NAME[:TYPE]=VALUE",
                       help="a value for {param:NAME} in SQL rules (types: int, decimal, "
                            "string, bool, date; inferred when omitted)")

    compile_ = commands.add_parser("compile", help="print each rule's plan without a database")
    compile_.add_argument("contract")
    _declaration_arguments(compile_)
    compile_.add_argument("--dialect", required=True,
                          help="duckdb, sqlite, postgres, mysql or sqlserver")
    compile_.add_argument("--format", choices=("json",), default="json")
    compile_.add_argument("--category", action="append", choices=("constraint", "quality"),
                          help="plan only rules of this category (repeatable; default: all)")
    compile_.add_argument("--odcs-between", choices=("exclusive", "inclusive"),
                          default="exclusive")

    doctor = commands.add_parser("doctor", help="show what a login can do and the read-only level")
    doctor.add_argument("contract", nargs="?", help="a contract whose server to inspect")
    where = doctor.add_mutually_exclusive_group()
    where.add_argument("--url")
    where.add_argument("--server")
    doctor.add_argument("--trust-environment", action="store_true")

    schema = commands.add_parser("schema", help="save an object's live schema (no data)")
    snapshot = schema.add_subparsers(dest="schema_command", required=True,
                                     parser_class=_Parser).add_parser(
        "snapshot", help="print a deterministic JSON snapshot of objects' columns")
    snapshot.add_argument("--url", required=True)
    snapshot.add_argument("--object", action="append", required=True, metavar="NAME",
                          help="physical object name (repeatable)")
    snapshot.add_argument("--trust-environment", action="store_true")

    demo = commands.add_parser("demo", help="build a demo DuckDB warehouse and check it")
    demo.add_argument("--format", choices=("table", "json", "junit"), default="table")
    demo.add_argument("--rebuild", action="store_true", help="rebuild the demo warehouse")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        if args.command == "check":
            from packata_sql.commands import check

            return check(args)
        if args.command == "compile":
            from packata_sql.commands import compile_plans

            return compile_plans(args)
        if args.command == "schema":
            from packata_sql.commands import schema_snapshot

            return schema_snapshot(args)
        if args.command == "doctor":
            from packata_sql.commands import doctor

            return doctor(args)
        from packata_sql.demo import run_demo

        return run_demo(args)
    except UsageError as error:
        print(f"packata-sql: error: {error}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:  # before the run started (loading, compiling): nothing to report
        from packata_sql.report import EXIT_INTERRUPTED

        print("packata-sql: interrupted before a report was written", file=sys.stderr)
        return EXIT_INTERRUPTED
    except Exception as error:  # a bug: say so without the message, which may hold data
        if os.environ.get("PACKATA_SQL_DEBUG") == "1":
            raise
        print(f"packata-sql: internal error ({type(error).__name__}); nothing was reported as "
              "passed. Set PACKATA_SQL_DEBUG=1 to see the traceback.", file=sys.stderr)
        return EXIT_INTERNAL
