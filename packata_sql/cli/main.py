"""`packata-sql check | compile | demo`. Imports stay inside commands so `--help` is fast."""

from __future__ import annotations

import argparse
import gc
import os
import re
import sys
from collections.abc import Sequence
from datetime import datetime
from typing import Any, NoReturn

from packata_sql import __version__, engines
from packata_sql.errors import EXIT_CLOSED_PIPE, EXIT_INTERNAL, EXIT_USAGE, UsageError

#: From the registry, which imports no dialect, so `--help` stays fast.
DIALECT_NAMES = engines.names_and_aliases()
STDOUT_FORMATS = ("table", "json", "junit", "markdown", "github")
#: Report kinds written only as `--output KIND=FILE` (kept in step with cli/outputs.py).
_FILE_ONLY_KINDS = ("html",)

EPILOG = """\
examples:
  packata-sql demo
  packata-sql lint contract.yaml
  packata-sql check contract.yaml --url duckdb:///warehouse.duckdb
  packata-sql check contract.yaml --server prod --output junit=junit.xml --output markdown=summary.md
  packata-sql compile contract.yaml --dialect postgres
  packata-sql doctor contract.yaml --server prod
  packata-sql init --url duckdb:///warehouse.duckdb --object orders -o orders.yaml
  packata-sql diff old/orders.yaml orders.yaml --format markdown
  packata-sql check contract.yaml --url duckdb:///warehouse.duckdb --history
  packata-sql history --last 10
  packata-sql import sql schema.sql --dialect postgres -o contract.yaml

exit codes:
  0    pass, or warn (failures of severity warning only)
  1    fail: a rule of severity error failed (or a warning, with --fail-on warning)
  2    incomplete: some rule ended error, inconclusive or skipped, or nothing was executable
  3    usage error: bad arguments, a file that cannot be read or parsed
  4    internal error in packata-sql (set PACKATA_SQL_DEBUG=1 for the traceback)
  130  interrupted (Ctrl-C)
  141  closed pipe: the reader of stdout went away (`| head`), quietly
"""


_NOT_SHOWN = "(not shown: it may hold a password)"
#: A value shown when it is no choice: a lowercase word (`html`, `xml`) is a typo, not a secret.
_WORD = re.compile(r"[a-z]{2,16}(?:[_-][a-z]{2,16}){0,2}")
# Shown in messages: option names as options are spelled (not `-pSECRET`, the mysql habit).
_OPTION_NAME = re.compile(r"-[A-Za-z]|--[a-z][a-z0-9-]*")
# `scheme://`, a scheme missing a slash (`postgresql:/`), or `user:password@` without one;
# not a Windows drive (`C:/`) nor a path with an '@' in a folder name.
_URL_LIKE = re.compile(r"://|^[A-Za-z][A-Za-z0-9+.-]+:/|^[^/@\s]*:[^/@\s]*@")


class _Parser(argparse.ArgumentParser):
    """argparse, except that no error message repeats an argument the user typed (a value may
    be a password, or a URL holding one) unless it is one of the parser's own words or a
    value given for a closed set of choices that is close to one (`--category constrain`) or a
    lowercase word (`--format html`), shown with every choice; a URL is never shown."""

    _typed: Sequence[str] = ()
    _shown: frozenset[str] = frozenset()

    def parse_known_args(self, args: Any = None, namespace: Any = None) -> Any:
        self._typed = list(sys.argv[1:] if args is None else args)
        return super().parse_known_args(args, namespace)

    def _check_value(self, action: argparse.Action, value: Any) -> None:
        choices = action.choices
        if choices is None or value in choices or not isinstance(value, str) \
                or _URL_LIKE.search(value):
            super()._check_value(action, value)
            return
        from packata_sql.spelling import closest

        names = [str(choice) for choice in choices]
        every = f"(one of: {', '.join(names)})"
        close = closest(value, names)
        if close is None and not _WORD.fullmatch(value):  # not a typo of a choice: a secret?
            raise argparse.ArgumentError(action, "invalid choice (the value is not shown: it "
                                                 f"may hold a password) {every}")
        self._shown = self._shown | {value}  # a word: shown, as a typo deserves
        message = f"invalid choice '{value}'" + (f", did you mean '{close}'? " if close else " ")
        if "--format" in action.option_strings and value in _FILE_ONLY_KINDS:
            every += f"; {value} is written as a file: --output {value}=FILE"
        raise argparse.ArgumentError(action, message + every)

    def error(self, message: str) -> NoReturn:
        self.print_usage(sys.stderr)
        self.exit(EXIT_USAGE, f"{self.prog}: error: {self._redacted(message)}\n")

    def _redacted(self, message: str) -> str:
        own = _vocabulary(self) | self._shown
        hidden = {value for token in self._typed for value in _values(token)} - own
        url_hidden = False
        for value in sorted(hidden, key=len, reverse=True):
            before = message
            message = message.replace(repr(value), _NOT_SHOWN)
            message = re.sub(rf"(?<!\S){re.escape(value)}(?!\S)", lambda _: _NOT_SHOWN, message)
            url_hidden = url_hidden or (message != before and bool(_URL_LIKE.search(value)))
        if "--url" not in message and url_hidden:  # only about a value the message held
            message += " (a database URL goes after --url)"
        return message


def _values(token: str) -> list[str]:
    """What an argument may hide: all of it, except an option's name."""
    if _OPTION_NAME.fullmatch(token):
        return []
    name, equals, value = token.partition("=")
    if token.startswith("--") and equals and _OPTION_NAME.fullmatch(name):
        return [token, value] if value else [token]
    return [token]


def _vocabulary(parser: argparse.ArgumentParser) -> set[str]:
    """The option names, choices and command names a parser and its sub-parsers define."""
    words: set[str] = set()
    for action in parser._actions:
        words.update(action.option_strings)
        if isinstance(action.choices, dict):
            words.update(str(name) for name in action.choices)
            for sub in action.choices.values():
                if isinstance(sub, argparse.ArgumentParser):
                    words |= _vocabulary(sub)
        elif action.choices is not None:
            words.update(str(choice) for choice in action.choices)
    return words


def _not_a_url(text: str) -> str:
    """For arguments that are paths or names: a URL there is a misplaced --url."""
    if _URL_LIKE.search(text):
        raise argparse.ArgumentTypeError(
            "this looks like a database URL: pass it with --url (the value is not shown: it may "
            "hold a password)"
        )
    return text


def _history_target(text: str) -> str:
    """`--history` takes an optional value, so `check --history contract.yaml` would read the
    contract as the store: a declaration's name there is refused with the fix."""
    if "://" not in text and text.lower().endswith((".yaml", ".yml", ".json")):
        raise argparse.ArgumentTypeError(
            "this looks like a contract, not a history store: put --history after the "
            "contract, or give the store as --history=FILE.sqlite")
    return text


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


def _observed_at(text: str) -> datetime:
    """`--observed-at`: an ISO 8601 instant with its zone (`Z` or `+02:00`)."""
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        raise argparse.ArgumentTypeError("must be an ISO 8601 time with its zone, e.g. "
                                         "2026-12-01T08:00:00Z") from None
    if moment.tzinfo is None:
        raise argparse.ArgumentTypeError("needs a zone (Z or +HH:MM): a time without one names "
                                         "no single instant")
    return moment


def _runs(text: str) -> int:
    if not text.isdigit() or not 1 <= int(text) <= 10000:
        raise argparse.ArgumentTypeError("must be a whole number of runs from 1 to 10000")
    return int(text)


def _days(text: str) -> int:
    if not text.isdigit() or int(text) > 100000:
        raise argparse.ArgumentTypeError("must be a whole number of days, 0 or more")
    return int(text)


def _history_arguments(command: argparse.ArgumentParser, dest: str = "history") -> None:
    command.add_argument("--history", metavar="TARGET", dest=dest,
                         help="the store: a SQLite path or sqlite:///FILE, postgresql://…, "
                              "duckdb:///FILE (default: .packata/history.sqlite)")


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
    check.add_argument("contract", type=_not_a_url, help="ODCS v3 contract (YAML), JSON quality "
                                                         "policy or pipeline contract (data_quality)")
    _declaration_arguments(check)
    where = check.add_mutually_exclusive_group()
    where.add_argument("--url", help="database URL, e.g. duckdb:///warehouse.duckdb; its "
                                     "password is better given as PACKATA_PASSWORD")
    where.add_argument("--server", type=_not_a_url, help="name of a contract `servers` entry")
    check.add_argument("--format", choices=STDOUT_FORMATS,
                       help="report on stdout: table (default), json, junit, markdown, or "
                            "github (annotations; the default when GITHUB_ACTIONS=true)")
    check.add_argument("--output", action="append", default=[], metavar="[KIND=]FILE",
                       type=_not_a_url,
                       help="also write a report file; KIND is json, junit, markdown or html "
                            "(repeat for several; a bare FILE takes --format)")
    check.add_argument("--select", action="append", metavar="KEY",
                       help="run only this rule key (repeat for several)")
    check.add_argument("--progress", choices=("auto", "plain", "none"), default="auto",
                       help="progress on stderr: live on a terminal, plain lines otherwise")
    check.add_argument("--samples", type=_count, default=0, metavar="N",
                       help="print up to N offending values of each failed rule on stderr, "
                            "typed, counted and with their rows' primary key; values of "
                            "properties classified pii/restricted/confidential are withheld "
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
    check.add_argument("--category", action="append", choices=("constraint", "quality", "sla"),
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
    check.add_argument("--observed-at", type=_observed_at, metavar="TIME",
                       help="the run's observation time, ISO 8601 with its zone (default: the "
                            "run's start, UTC); {observation_time} in SQL rules binds it")
    check.add_argument("--dbt-project", metavar="DIR",
                       help="check the models this dbt project built in its last run "
                            "(reads DIR/target/manifest.json and run_results.json)")
    check.add_argument("--history", nargs="?", const="", metavar="TARGET", type=_history_target,
                       help="keep the run in a history store and show each rule's trend: a "
                            "SQLite path or sqlite:///FILE, postgresql://…, duckdb:///FILE "
                            "(bare --history: .packata/history.sqlite)")
    check.add_argument("--history-last", type=_runs, default=20, metavar="N",
                       help="how many runs the report's history shows (default 20)")
    check.add_argument("--flag-anomalies", action="store_true",
                       help="with --history: note a value outside median ± 3·MAD of the "
                            "rule's earlier values (7 at least); never changes a verdict")

    compile_ = commands.add_parser("compile", help="print each rule's plan without a database")
    compile_.add_argument("contract", type=_not_a_url)
    _declaration_arguments(compile_)
    compile_.add_argument("--dialect", type=_not_a_url, help="one of: " + ", ".join(DIALECT_NAMES)
                          + " (default: the engine of the contract's first server)")
    compile_.add_argument("--format", choices=("sql", "json"),
                          help="sql (readable, the default on a terminal) or json")
    compile_.add_argument("--category", action="append", choices=("constraint", "quality", "sla"),
                          help="plan only rules of this category (repeatable; default: all)")
    compile_.add_argument("--odcs-between", choices=("exclusive", "inclusive"),
                          default="exclusive")

    doctor = commands.add_parser("doctor", help="show what a login can do and the read-only level")
    doctor.add_argument("contract", nargs="?", type=_not_a_url,
                        help="a contract whose server to inspect")
    where = doctor.add_mutually_exclusive_group()
    where.add_argument("--url")
    where.add_argument("--server", type=_not_a_url)
    doctor.add_argument("--trust-environment", action="store_true")
    doctor.add_argument("--timeout", type=_positive, default=10.0, metavar="S",
                        help="time limit to open the connection in seconds (default 10)")

    dbt = commands.add_parser("dbt", help="run the rules inside dbt, as a post-hook gate")
    dbt_commands = dbt.add_subparsers(dest="dbt_command", required=True, parser_class=_Parser)
    generate = dbt_commands.add_parser(
        "generate", help="write the post-hook runtime and one plan per model into DIR/macros/packata_sql/")
    generate.add_argument("contract", nargs="+", help="ODCS v3 contracts (YAML), JSON quality "
                                                      "policies or pipeline contracts")
    generate.add_argument("--project-dir", required=True, metavar="DIR", help="the dbt project")
    generate.add_argument("--dialect", action="append", metavar="D",
                          help="a dbt adapter type to compile for (default: duckdb and postgres)")
    generate.add_argument("--object", action="append", default=[], metavar="ODCS_NAME=MODEL",
                          help="the dbt model of a contract object whose name differs")
    generate.add_argument("--odcs-between", choices=("exclusive", "inclusive"), default="exclusive")
    generate.add_argument("--check", action="store_true",
                          help="write nothing; exit 1 when a generated file is stale or missing")

    lint = commands.add_parser("lint", help="validate a contract without a database")
    lint.add_argument("contract", type=_not_a_url, nargs="?")
    lint.add_argument("--expressif", action="store_true",
                      help="list the Expressif operations each engine runs, and exit")
    lint.add_argument("--odcs-between", choices=("exclusive", "inclusive"), default="exclusive")

    init = commands.add_parser("init", help="write a starter contract from tables' columns")
    init.add_argument("--url", required=True, help="database URL (the password is not written)")
    init.add_argument("--object", action="append", default=[], metavar="TABLE",
                      help="a table or view, or a glob such as 'orders*' (repeatable)")
    init.add_argument("--schema", metavar="NAME",
                      help="the schema to read; alone: every table and view in it")
    init.add_argument("--output", "-o", metavar="FILE", help="write here (default: stdout)")

    imports = commands.add_parser("import", help="write a starter contract from DDL or dbt")
    importers = imports.add_subparsers(dest="import_command", required=True,
                                       parser_class=_Parser)
    ddl = importers.add_parser("sql", help="from SQL DDL files (CREATE TABLE / VIEW)")
    ddl.add_argument("files", nargs="+", metavar="FILE")
    ddl.add_argument("--dialect", required=True, metavar="D",
                     help=f"the DDL's dialect, one of: {', '.join(DIALECT_NAMES)}")
    manifest = importers.add_parser("dbt", help="from a dbt manifest.json")
    manifest.add_argument("manifest", metavar="MANIFEST")
    manifest.add_argument("--model", action="append", default=[], metavar="NAME",
                          help="a model to import, or a glob (repeatable; default: every model)")
    for importer in (ddl, manifest):
        importer.add_argument("--url", help="the server the contract declares (nothing is "
                              "connected to; the password is not written)")
        importer.add_argument("--output", "-o", metavar="FILE",
                              help="write here (default: stdout)")

    schema = commands.add_parser("schema", help="save an object's live schema (no data)")
    snapshot = schema.add_subparsers(dest="schema_command", required=True,
                                     parser_class=_Parser).add_parser(
        "snapshot", help="print a deterministic JSON snapshot of objects' columns")
    snapshot.add_argument("--url", required=True)
    snapshot.add_argument("--object", action="append", required=True, metavar="NAME",
                          help="physical object name (repeatable)")
    snapshot.add_argument("--trust-environment", action="store_true")

    diff = commands.add_parser("diff", help="classify what changed between two versions of a "
                                            "contract (exit 1 on a breaking change)")
    diff.add_argument("old", type=_not_a_url, help="the earlier contract")
    diff.add_argument("new", type=_not_a_url, help="the later contract")
    diff.add_argument("--format", choices=("text", "markdown", "json"), default="text",
                      help="text (default), markdown (a pull-request comment) or json")
    diff.add_argument("--drift", action="append", default=[], metavar="CHANGE=LEVEL",
                      help="override a classification, e.g. rule-added=compatible")
    diff.add_argument("--fail-on", choices=("warning",),
                      help="exit 1 on warning changes too")

    history = commands.add_parser("history", help="each rule's trend from the run history "
                                                  "(check --history keeps it)")
    _history_arguments(history)
    history.add_argument("--contract", metavar="ID", help="only this contract (its id, else "
                                                          "its path as check was given it)")
    history.add_argument("--rule", metavar="KEY", help="only this rule key")
    history.add_argument("--last", type=_runs, default=20, metavar="N",
                         help="how many runs per contract (default 20)")
    history.add_argument("--format", choices=("table", "json"), default="table")
    prune = history.add_subparsers(dest="history_command", parser_class=_Parser).add_parser(
        "prune", help="delete old runs from the store, in one transaction")
    _history_arguments(prune, "prune_store")  # its own dest: `history --history X prune`
    keep = prune.add_mutually_exclusive_group(required=True)
    keep.add_argument("--keep-days", type=_days, metavar="D",
                      help="delete runs observed more than D days ago")
    keep.add_argument("--keep-runs", type=_runs, metavar="N",
                      help="keep each contract's newest N runs")

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


def run() -> NoReturn:
    """The console entry point (`packata-sql`, `python -m packata_sql`): `main`, then an exit
    that spares the interpreter's last garbage collections, which trace every object left
    (≈ 0.1 s after a 1,000-rule check): all are frozen, and shutdown frees them without the
    trace. Nothing waits for a collection by then: every writer and session closes its own
    file or connection. Tests call `main` itself."""
    code = main()
    gc.freeze()
    raise SystemExit(code)


def _closed_pipe() -> int:
    """The reader went away (`| head`): stop quietly, as `cat` does."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    return EXIT_CLOSED_PIPE


def _dispatch(args: argparse.Namespace) -> int:
    try:
        if args.command == "check":
            from packata_sql.cli.check import check_command

            return check_command(args)
        if args.command == "compile":
            from packata_sql.cli.compile import compile_command

            return compile_command(args)
        if args.command == "lint":
            from packata_sql.cli.lint import lint_command

            return lint_command(args)
        if args.command == "init":
            from packata_sql.cli.init_contract import init_command

            return init_command(args)
        if args.command == "import":
            from packata_sql.cli.init_contract import import_command

            return import_command(args)
        if args.command == "schema":
            from packata_sql.cli.snapshot import snapshot_command

            return snapshot_command(args)
        if args.command == "dbt":
            from packata_sql.dbt.generate import generate

            return generate(args.contract, args.project_dir, args.dialect, args.object,
                            args.odcs_between, args.check)
        if args.command == "diff":
            from packata_sql.cli.diff import diff_command

            return diff_command(args)
        if args.command == "history":
            from packata_sql.cli.history import history_command

            return history_command(args)
        if args.command == "doctor":
            from packata_sql.cli.doctor import doctor_command

            return doctor_command(args)
        from packata_sql.cli.demo import demo_command

        return demo_command(args)
    except UsageError as error:
        from packata_sql.render.neutral import terminal  # names from the file: no escapes

        print(f"packata-sql: error: {terminal(error, lines=True)}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:  # before the run started (loading, compiling): nothing to report
        from packata_sql.report import EXIT_INTERRUPTED

        print("packata-sql: interrupted before a report was written", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        raise
    except Exception as error:  # a bug: say so without the message, which may hold data
        if os.environ.get("PACKATA_SQL_DEBUG") == "1":
            raise
        print(f"packata-sql: internal error ({type(error).__name__}); nothing was reported as "
              "passed. Set PACKATA_SQL_DEBUG=1 to see the traceback.", file=sys.stderr)
        return EXIT_INTERNAL
