"""`check`: its arguments become a `CheckRequest`, the API runs it, the outputs are written."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING

from packata_sql import api
from packata_sql.api import Contract, Endpoint, Report
from packata_sql.errors import UsageError
from packata_sql.render import render

if TYPE_CHECKING:
    from packata_sql.cli.outputs import Output


def _print_samples(key: str, lines: tuple[str, ...]) -> None:
    """`--samples`: the terminal only (stderr), never stdout or a report file; each line one
    line (a value holding a newline or an escape cannot make more, or draw)."""
    from packata_sql.render.neutral import terminal  # row values: no escape reaches the terminal

    head, *values = lines or ("(none)",)
    print(terminal(f"packata-sql: samples of {key}: {head}"), file=sys.stderr)
    for line in values:
        print(f"  {terminal(line)}", file=sys.stderr)


def check_request(args: argparse.Namespace, endpoint: Endpoint) -> api.CheckRequest:
    """`check`'s options as the API's request (no argparse object crosses the API)."""
    return api.CheckRequest(
        select=tuple(args.select) if args.select else None,
        categories=tuple(args.category) if args.category else None,
        parameters=api.parse_parameters(args.param), timeout=args.timeout, budget=args.budget,
        trust_environment=args.trust_environment, show_sql=args.show_sql,
        accept_unexecutable=args.accept_unexecutable, samples=args.samples,
        odcs_between=args.odcs_between, schema_drift=args.schema_drift,
        baseline=args.baseline, drift=tuple(args.drift), observed_at=args.observed_at,
        on_error=_verbose_printer(endpoint) if args.verbose else None,
        on_samples=_print_samples if args.samples else None,
    )


def resolve_endpoint(contract: Contract, url: str | None, server: str | None,
                     trust_environment: bool) -> Endpoint:
    """The API's endpoint, plus the warning a password typed into a URL deserves."""
    endpoint = api.resolve_endpoint(contract, url, server, trust_environment)
    warning = api.url_password_warning(endpoint)
    if warning:
        print(f"packata-sql: warning: {warning}", file=sys.stderr)
    return endpoint



def emit(report: Report, fmt: str, output: str | None) -> None:
    from packata_sql.cli.outputs import parse_outputs

    emit_all(report, fmt, parse_outputs([output] if output else [], fmt), fail_on_warning=False)


def print_misspellings(path: str, contract: Contract, plans: api.Plans | None = None) -> bool:
    """What `check` and `compile` print first, before connecting (a misspelt metric or key, an
    invalid drift override, …: fast feedback with file:line and the right spelling); the run
    goes on, those rules skipped (docs/semantics.md 1.2). Lint reads ODCS only; False for other
    formats."""
    if dict(contract.declaration).get("format", "odcs") != "odcs":
        return False
    from packata_sql.cli.lint import first_lines
    from packata_sql.render.neutral import plain  # the lines quote the contract's keys

    for line in first_lines(path, contract, plans):
        print(plain(f"packata-sql: {line}"), file=sys.stderr)
    return True


def check_command(args: argparse.Namespace) -> int:
    from packata_sql.cli.lint import schema_notice
    from packata_sql.cli.outputs import check_writable, parse_outputs, stdout_format
    from packata_sql.cli.progress import start

    fmt = stdout_format(args.format)
    outputs = parse_outputs(args.output, fmt)
    declared = api.load_source(args.contract, declaration=args.declaration,
                               object_name=args.object, odcs_between=args.odcs_between)
    contract = declared.contract
    own = api.own_plans(contract)  # the findings printed first; the run reuses them
    if print_misspellings(args.contract, contract, own):
        notice = schema_notice(args.contract, declared)
        if notice:  # may quote the contract's values
            from packata_sql.render.neutral import plain

            print(plain(f"packata-sql: {notice}"), file=sys.stderr)
    endpoint = resolve_endpoint(contract, args.url, args.server, args.trust_environment)
    store = _history_target(args)
    if store is not None or args.history == "":
        api.history_store(store, endpoint)  # a bad address or the warehouse itself: refused now
    elif args.flag_anomalies:
        raise UsageError("--flag-anomalies needs --history: anomalies are judged from the "
                             "rule's earlier runs")
    check_writable(outputs)
    request = check_request(args, endpoint)
    observer, close = start(args.progress)
    try:
        if args.dbt_project:  # only the models dbt built in its last run
            request = replace(request, dbt_project=args.dbt_project)
        report = api.check_endpoint(contract, endpoint, replace(request, progress=observer),
                                    plans=own if own.dialect == endpoint.engine else None)
    finally:
        close()
    if args.history is not None:
        report = keep_history(report, store, endpoint, args)
    if args.verbose:
        print_inspect_queries(report)
    fail_on_warning = args.fail_on == "warning"
    emit_all(report, fmt, outputs, fail_on_warning=fail_on_warning)
    return report.exit_code(fail_on_warning=fail_on_warning)


def _history_target(args: argparse.Namespace) -> str | None:
    """`--history TARGET`'s store; bare `--history` (and none) is None, the default store."""
    return args.history or None


def keep_history(report: Report, store: str | None, endpoint: Endpoint,
                 args: argparse.Namespace) -> Report:
    """The run appended to the store and the report given its history; a store that cannot
    take it costs one warning line, never the verdict or the exit code."""
    kept = api.check_with_history(report, store, endpoint=endpoint, last=args.history_last,
                                  flag_anomalies=args.flag_anomalies)
    if kept.warning:
        from packata_sql.render.neutral import plain  # the store's path comes from the user

        print(plain(f"packata-sql: warning: {kept.warning}"), file=sys.stderr)
    return kept.report


def print_inspect_queries(report: Report) -> None:
    """`--verbose`: each failed rule's whole query listing its offending keys, on stderr (the
    human reports show a one-line `inspect:` hint instead; JSON keeps `inspect_sql`)."""
    from packata_sql.render.neutral import terminal  # the query quotes the contract's values

    for result in report.results:
        if result.inspect_sql:
            print(f"packata-sql: {terminal(result.key)}: inspect: "
                  f"{terminal(result.inspect_sql, lines=True)}", file=sys.stderr)


def _verbose_printer(endpoint: Endpoint) -> Callable[[str, str, str | None], None]:
    """`--verbose`: the engine's message and the SQL of each errored rule, on stderr only,
    with the password masked should a driver echo it."""
    def show(key: str, message: str, sql: str | None) -> None:
        from packata_sql.render.neutral import terminal  # engine text may echo names, values

        lines = [terminal(line) for line in masked(message, endpoint).splitlines()
                 if line.strip()] or [""]
        print(f"packata-sql: {terminal(key or 'connection')}: engine said: {lines[0]}",
              file=sys.stderr)
        for line in lines[1:]:  # PostgreSQL adds LINE/HINT lines
            print(f"    {line}", file=sys.stderr)
        if sql:
            print(f"  SQL: {terminal(sql, lines=True)}", file=sys.stderr)
    return show


def masked(text: str, endpoint: Endpoint) -> str:
    """`text` with the endpoint's password or token (as typed and percent-encoded, as a URL
    carries it) and any password-like driver option replaced by `***`."""
    from urllib.parse import quote, quote_plus

    secrets = {endpoint.password or "", *(value for name, value in endpoint.options
                                          if "password" in name or "token" in name)}
    variants = {form for secret in secrets if secret
                for form in (secret, quote(secret, safe=""), quote_plus(secret))}
    for secret in sorted(variants, key=len, reverse=True):
        text = text.replace(secret, "***")
    return text


def emit_all(report: Report, fmt: str, outputs: list[Output], *, fail_on_warning: bool) -> None:
    """What went wrong for many rules alike once on stderr (the connection, the login, a
    missing schema or object: one line each, `-v` gave each rule's engine message), each
    --output file, then stdout."""
    from packata_sql.cli.outputs import terminal, write_outputs
    from packata_sql.render.neutral import plain  # hosts and names come from the contract
    from packata_sql.render.words import problem_lines

    lines = problem_lines(report) or ([f"cannot connect to {report.target}: "
                                       f"{report.connection_problem}"]
                                      if report.connection_problem else [])
    stdout: str | None = fmt
    if any(o.bare for o in outputs):  # `--output FILE` took --format: the table goes to stdout
        stdout = None if fmt == "table" else "table"
    if not (stdout == "table" and sys.stdout.isatty()):  # the table on screen says it above
        for line in lines:                                # its rows: not twice on one screen
            print(plain(f"packata-sql: {line}"), file=sys.stderr)
    write_outputs(report, outputs, fail_on_warning=fail_on_warning)
    if stdout is None:
        return
    colour, width = terminal() if stdout == "table" else (False, None)  # rich: the table only
    sys.stdout.write(render(report, stdout, color=colour, width=width,
                            fail_on_warning=fail_on_warning))
    sys.stdout.flush()


