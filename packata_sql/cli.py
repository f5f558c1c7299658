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


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="packata-sql", description=(
        "Check data contracts against a warehouse with generated SQL, read-only."
    ))
    parser.add_argument("--version", action="version", version=f"packata-sql {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)

    check = commands.add_parser("check", help="run a contract's rules and report")
    check.add_argument("contract", help="ODCS v3 contract (YAML)")
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
    check.add_argument("--param", action="append", default=[], metavar="NAME[:TYPE]=VALUE",
                       help="a value for {param:NAME} in SQL rules (types: int, decimal, "
                            "string, bool, date; inferred when omitted)")
    check.add_argument("--dbt-project", metavar="DIR",
                       help="check the models this dbt project built in its last run "
                            "(reads DIR/target/manifest.json and run_results.json)")

    compile_ = commands.add_parser("compile", help="print each rule's plan without a database")
    compile_.add_argument("contract")
    compile_.add_argument("--dialect", required=True,
                          help="duckdb, sqlite, postgres, mysql or sqlserver")
    compile_.add_argument("--format", choices=("json",), default="json")
    compile_.add_argument("--odcs-between", choices=("exclusive", "inclusive"),
                          default="exclusive")

    doctor = commands.add_parser("doctor", help="show what a login can do and the read-only level")
    doctor.add_argument("contract", nargs="?", help="a contract whose server to inspect")
    where = doctor.add_mutually_exclusive_group()
    where.add_argument("--url")
    where.add_argument("--server")
    doctor.add_argument("--trust-environment", action="store_true")

    dbt = commands.add_parser("dbt", help="run the rules inside dbt, as a post-hook gate")
    dbt_commands = dbt.add_subparsers(dest="dbt_command", required=True, parser_class=_Parser)
    generate = dbt_commands.add_parser(
        "generate", help="write the post-hook runtime and one plan per model into DIR/macros/packata_sql/")
    generate.add_argument("contract", nargs="+", help="ODCS v3 contracts (YAML)")
    generate.add_argument("--project-dir", required=True, metavar="DIR", help="the dbt project")
    generate.add_argument("--dialect", action="append", metavar="D",
                          help="a dbt adapter type to compile for (default: duckdb and postgres)")
    generate.add_argument("--object", action="append", default=[], metavar="ODCS_NAME=MODEL",
                          help="the dbt model of a contract object whose name differs")
    generate.add_argument("--odcs-between", choices=("exclusive", "inclusive"), default="exclusive")
    generate.add_argument("--check", action="store_true",
                          help="write nothing; exit 1 when a generated file is stale or missing")

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
        if args.command == "dbt":
            from packata_sql.dbt.generate import generate

            return generate(args.contract, args.project_dir, args.dialect, args.object,
                            args.odcs_between, args.check)
        if args.command == "doctor":
            from packata_sql.commands import doctor

            return doctor(args)
        from packata_sql.demo import run_demo

        return run_demo(args)
    except UsageError as error:
        print(f"packata-sql: error: {error}", file=sys.stderr)
        return EXIT_USAGE
    except Exception as error:  # a bug: say so without the message, which may hold data
        if os.environ.get("PACKATA_SQL_DEBUG") == "1":
            raise
        print(f"packata-sql: internal error ({type(error).__name__}); nothing was reported as "
              "passed. Set PACKATA_SQL_DEBUG=1 to see the traceback.", file=sys.stderr)
        return EXIT_INTERNAL
