"""`packata-sql check | compile | demo`. Imports stay inside commands so `--help` is fast."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from typing import NoReturn

from packata_sql import __version__

#: Kept here (not imported from dialects) so `--help` stays fast; a test pins them equal.
DIALECT_NAMES = ("duckdb", "sqlite", "postgres", "postgresql", "mysql", "mariadb", "sqlserver",
                 "snowflake", "bigquery", "trino", "databricks")
STDOUT_FORMATS = ("table", "json", "junit", "markdown", "github")

EXIT_USAGE = 3
EXIT_CLOSED_PIPE = 141  # as a shell reports a command stopped by SIGPIPE
EXIT_INTERNAL = 4  # a bug in packata-sql, distinct from 2 (a run that is not complete)

EPILOG = """\
examples:
  packata-sql demo
  packata-sql lint contract.yaml
  packata-sql check contract.yaml --url duckdb:///warehouse.duckdb
  packata-sql check contract.yaml --server prod --output junit=junit.xml --output markdown=summary.md
  packata-sql compile contract.yaml --dialect postgres
  packata-sql doctor contract.yaml --server prod
  packata-sql init --url duckdb:///warehouse.duckdb --object orders -o orders.yaml

exit codes:
  0    pass, or warn (failures of severity warning only)
  1    fail: a rule of severity error failed (or a warning, with --fail-on warning)
  2    incomplete: some rule ended error, inconclusive or skipped, or nothing was executable
  3    usage error: bad arguments, an unreadable or invalid contract
  4    internal error in packata-sql (set PACKATA_SQL_DEBUG=1 for the traceback)
  130  interrupted (Ctrl-C)
"""


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


def _count(text: str) -> int:
    if not text.isdigit() or not 0 <= int(text) <= 1000:
        raise argparse.ArgumentTypeError("must be a whole number from 0 to 1000")
    return int(text)


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="packata-sql", description=(
        "Check data contracts against a warehouse with generated SQL, read-only."
    ), epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--version", action="version", version=f"packata-sql {__version__}")
    commands = parser.add_subparsers(dest="command", parser_class=_Parser)

    check = commands.add_parser("check", help="run a contract's rules and report", epilog=EPILOG,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    check.add_argument("contract", help="ODCS v3 contract (YAML)")
    where = check.add_mutually_exclusive_group()
    where.add_argument("--url", help="database URL, e.g. duckdb:///warehouse.duckdb")
    where.add_argument("--server", help="name of a contract `servers` entry")
    check.add_argument("--format", choices=STDOUT_FORMATS,
                       help="report on stdout: table (default), json, junit, markdown, or "
                            "github (annotations; the default when GITHUB_ACTIONS=true)")
    check.add_argument("--output", action="append", default=[], metavar="[KIND=]FILE",
                       help="also write a report file; KIND is json, junit, markdown or html "
                            "(repeat for several; a bare FILE takes --format)")
    check.add_argument("--select", action="append", metavar="KEY",
                       help="run only this rule key (repeat for several)")
    check.add_argument("--progress", choices=("auto", "plain", "none"), default="auto",
                       help="progress on stderr: live on a terminal, plain lines otherwise")
    check.add_argument("--samples", type=_count, default=0, metavar="N",
                       help="print up to N offending values of each failed rule on stderr "
                            "(never into reports or --output files)")
    check.add_argument("-v", "--verbose", action="store_true",
                       help="print the engine's message and the SQL of each errored rule "
                            "to stderr")
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
    check.add_argument("--accept-unexecutable", action="store_true",
                       help="report text rules and custom rules for other tools as skipped "
                            "without keeping the run incomplete")
    check.add_argument("--param", action="append", default=[], metavar="NAME[:TYPE]=VALUE",
                       help="a value for {param:NAME} in SQL rules (types: int, decimal, "
                            "string, bool, date; inferred when omitted)")

    compile_ = commands.add_parser("compile", help="print each rule's plan without a database")
    compile_.add_argument("contract")
    compile_.add_argument("--dialect", help="one of: " + ", ".join(DIALECT_NAMES)
                          + " (default: the engine of the contract's first server)")
    compile_.add_argument("--format", choices=("sql", "json"),
                          help="sql (readable, the default on a terminal) or json")
    compile_.add_argument("--odcs-between", choices=("exclusive", "inclusive"),
                          default="exclusive")

    doctor = commands.add_parser("doctor", help="show what a login can do and the read-only level")
    doctor.add_argument("contract", nargs="?", help="a contract whose server to inspect")
    where = doctor.add_mutually_exclusive_group()
    where.add_argument("--url")
    where.add_argument("--server")
    doctor.add_argument("--trust-environment", action="store_true")

    lint = commands.add_parser("lint", help="validate a contract without a database")
    lint.add_argument("contract")
    lint.add_argument("--odcs-between", choices=("exclusive", "inclusive"), default="exclusive")

    init = commands.add_parser("init", help="write a starter contract from a table's columns")
    init.add_argument("--url", required=True, help="database URL (the password is not written)")
    init.add_argument("--object", required=True, metavar="TABLE", help="the table or view")
    init.add_argument("--output", "-o", metavar="FILE", help="write here (default: stdout)")

    demo = commands.add_parser("demo", help="build a demo DuckDB warehouse and check it")
    demo.add_argument("--format", choices=STDOUT_FORMATS, default="table")
    demo.add_argument("--rebuild", action="store_true", help="rebuild the demo warehouse")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help()
        return 0
    try:
        return _dispatch(args)
    except BrokenPipeError:
        return _closed_pipe()


def _closed_pipe() -> int:
    """The reader went away (`| head`): stop quietly, as `cat` does."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    return EXIT_CLOSED_PIPE


def _dispatch(args: argparse.Namespace) -> int:
    try:
        if args.command == "check":
            from packata_sql.commands import check

            return check(args)
        if args.command == "compile":
            from packata_sql.commands import compile_plans

            return compile_plans(args)
        if args.command == "lint":
            from packata_sql.lint import lint_command

            return lint_command(args)
        if args.command == "init":
            from packata_sql.init_contract import init_command

            return init_command(args)
        if args.command == "doctor":
            from packata_sql.commands import doctor

            return doctor(args)
        from packata_sql.demo import run_demo

        return run_demo(args)
    except UsageError as error:
        print(f"packata-sql: error: {error}", file=sys.stderr)
        return EXIT_USAGE
    except BrokenPipeError:
        raise
    except Exception as error:  # a bug: say so without the message, which may hold data
        if os.environ.get("PACKATA_SQL_DEBUG") == "1":
            raise
        print(f"packata-sql: internal error ({type(error).__name__}); nothing was reported as "
              "passed. Set PACKATA_SQL_DEBUG=1 to see the traceback.", file=sys.stderr)
        return EXIT_INTERNAL
