"""What `check` and `compile` do, between the argument parser and the pipeline."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from packata_sql import engines
from packata_sql.cli import UsageError
from packata_sql.compiler import Compiled, compile_contract
from packata_sql.contracts.formats import Declared, read_declaration
from packata_sql.contracts.model import Category, Contract
from packata_sql.contracts.yaml_source import SourceError
from packata_sql.dialects import COMPILE_DIALECTS, get_dialect
from packata_sql.endpoint import Endpoint, EndpointError, from_server, parse_url
from packata_sql.parameters import ParameterError, parse_parameter
from packata_sql.render import render
from packata_sql.report import Report, Selection
from packata_sql.runner import RunOptions, run

if TYPE_CHECKING:
    from packata_sql.outputs import Output
    from packata_sql.session import Session


def load_contract(path: str, odcs_between: str, declaration: str | None = None,
                  object_name: str | None = None) -> Contract:
    """Any declaration format (detected from the content unless `declaration` names it)."""
    return load_source(path, odcs_between, declaration, object_name).contract


def load_source(path: str, odcs_between: str, declaration: str | None = None,
                object_name: str | None = None) -> Declared:
    """The contract and its parsed document, for commands that lint it too (one parse)."""
    try:
        return read_declaration(path, declaration=declaration, object_name=object_name,
                                inclusive_between=odcs_between == "inclusive")
    except SourceError as error:
        raise UsageError(str(error)) from None


def resolve_endpoint(contract: Contract, url: str | None, server: str | None,
                     trust_environment: bool) -> Endpoint:
    try:
        endpoint = parse_url(url) if url else from_server(contract, server)
    except EndpointError as error:
        raise UsageError(str(error)) from None
    if url and not endpoint.schema:
        endpoint = _server_schema(contract, endpoint)
    if endpoint.password_source == "url" and endpoint.password:
        print("packata-sql: warning: the database URL holds a password, which shell history "
              "and the process list keep; set PACKATA_PASSWORD, or use ~/.pgpass or ~/.my.cnf "
              "(the password is not shown)", file=sys.stderr)
    spec = engines.spec(endpoint.engine)
    if endpoint.in_memory and not spec.memory_read_only and not trust_environment:
        raise UsageError(
            f"an in-memory {spec.title} database cannot be opened read-only; point --url at a "
            "database file, or pass --trust-environment to accept an unenforced session"
        )
    return endpoint


def _server_schema(contract: Contract, endpoint: Endpoint) -> Endpoint:
    """A --url without a schema keeps the schema of the contract's server for the same
    engine, so pointing at another host does not silently change which tables are read."""
    for candidate in contract.servers:
        try:
            declared = from_server(contract, candidate.name)
        except EndpointError:
            continue
        if declared.engine == endpoint.engine and declared.schema:
            return replace(endpoint, schema=declared.schema)
    return endpoint


def check_report(args: argparse.Namespace, contract: Contract, endpoint: Endpoint,
                 compiler: Callable[..., Compiled] = compile_contract) -> Report:
    contract = _with_drift_rules(args, contract)
    selected = args.select
    if selected:
        known = {rule.key for rule in contract.rules}
        unknown = [key for key in selected if key not in known]
        if unknown:
            raise UsageError(f"--select names no rule of the contract: {', '.join(unknown)}")
    parameters = dict(_parameters(getattr(args, "param", [])))
    compiled = compiler(contract, get_dialect(endpoint.engine), prefix=endpoint.schema,
                        select=selected, parameters=parameters, categories=_categories(args))
    settings = {"odcs_between": args.odcs_between}
    options = RunOptions(
        timeout_s=args.timeout, budget_s=args.budget, trust_environment=args.trust_environment,
        show_sql=args.show_sql, settings=settings, parameters=parameters,
        accept_unexecutable=getattr(args, "accept_unexecutable", False),
        progress=getattr(args, "progress_observer", None),
        on_error=getattr(args, "error_observer", None),
        samples=getattr(args, "samples", 0),
        on_samples=_print_samples if getattr(args, "samples", 0) else None,
    )
    report = run(contract, compiled, endpoint, options)
    selection = _selection(contract, selected, _categories(args))
    return replace(report, selection=selection,
                   declaration=_declaration_record(contract, selection))


def _selection(contract: Contract, keys: list[str] | None,
               categories: list[Category] | None) -> Selection | None:
    """What `--select`/`--category` kept of the declaration's rules (None when neither is given),
    counted from the same filter the compiler applies."""
    if not keys and not categories:
        return None
    wanted = set(keys) if keys else None
    kinds = set(categories) if categories else None
    selected = sum(1 for r in contract.rules if (wanted is None or r.key in wanted)
                   and (kinds is None or r.category in kinds))
    return Selection(tuple(keys or ()), tuple(c.value for c in categories or ()), selected,
                     len(contract.rules))


def _declaration_record(contract: Contract, selection: Selection | None) -> dict[str, str | None]:
    """The declaration's evidence (a policy's SHA-256) with its `scope`: `selection` when the
    run left rules out, so a partial run's record can never pass for a full validation of
    that hash; `full` otherwise. `complete` and the outcome stay about the selected rules
    (SEMANTICS 1.3)."""
    record = dict(contract.declaration)
    if record:
        record["scope"] = "selection" if selection and selection.partial else "full"
    return record


def _print_samples(key: str, values: str) -> None:
    """`--samples`: the terminal only (stderr), never stdout or a report file."""
    from packata_sql.render.neutral import terminal  # row values: no escape reaches the terminal

    print(terminal(f"packata-sql: samples of {key}: {values or '(none)'}"), file=sys.stderr)


def _categories(args: argparse.Namespace) -> list[Category] | None:
    """`--category` (repeatable); None keeps every category."""
    chosen = getattr(args, "category", None)
    return [Category(c) for c in chosen] if chosen else None


def _with_drift_rules(args: argparse.Namespace, contract: Contract) -> Contract:
    """`--schema-drift` / `--baseline`: drift rules join the contract's rules."""
    from packata_sql.drift import (
        OverrideError,
        SnapshotError,
        contract_drift_rules,
        load_snapshot,
        parse_overrides,
        snapshot_drift_rules,
    )

    baseline = getattr(args, "baseline", None)
    declared = getattr(args, "schema_drift", False) or contract.schema_drift is not None
    if not (declared or baseline):
        return contract
    try:
        overrides = parse_overrides(f"{k}={v}" for k, v in
                                    contract.schema_drift or contract.drift_overrides)
    except OverrideError as error:
        raise UsageError(f"{contract.path}: customProperties schemaDrift: {error}") from None
    try:
        overrides.update(parse_overrides(getattr(args, "drift", [])))
    except OverrideError as error:
        raise UsageError(f"--drift: {error}") from None
    taken = {rule.key for rule in contract.rules}
    rules = contract_drift_rules(contract.objects, taken, overrides) if declared else []
    if baseline:
        try:
            objects = load_snapshot(Path(baseline).read_text(encoding="utf-8"))
        except OSError as error:
            raise UsageError(f"cannot read {baseline} ({error.strerror})") from None
        except SnapshotError as error:
            raise UsageError(f"{baseline}: {error}") from None
        rules += snapshot_drift_rules(objects, baseline, taken, overrides)
    return replace(contract, rules=(*contract.rules, *rules))


def schema_snapshot(args: argparse.Namespace) -> int:
    """`schema snapshot`: each object's columns from the catalog, as deterministic JSON."""
    from packata_sql.drift import dumps_snapshot, snapshot_document
    from packata_sql.session import ProviderError, open_session

    endpoint = resolve_endpoint(_NO_CONTRACT, args.url, None, args.trust_environment)
    try:
        session = open_session(endpoint, trust_environment=args.trust_environment)
    except ProviderError as error:
        raise UsageError(f"cannot connect to {endpoint.describe()}: {error}") from None
    try:
        objects = []
        for name in args.object:
            try:
                objects.append((name, session.column_facts((*endpoint.schema, name))))
            except ProviderError as error:
                hint = ""
                if error.category == "missing-object":
                    hint = "; " + _object_hint(session, endpoint, name)
                raise UsageError(f"cannot read the columns of {name}: {error}{hint}") from None
    finally:
        session.close()
    sys.stdout.write(dumps_snapshot(snapshot_document(endpoint.engine, objects)))
    return 0


def _object_hint(session: Session, endpoint: Endpoint, name: str) -> str:
    """`no object 'ordres'; did you mean 'orders'?`, from the objects the session can see."""
    from packata_sql.names import closest_hint
    from packata_sql.session import Interrupted, ProviderError

    try:
        visible = session.objects(endpoint.declared_schema)
    except (ProviderError, Interrupted):
        visible = []
    return closest_hint("object", name, visible)


def _parameters(raw: list[str]) -> list[tuple[str, object]]:
    try:
        return [parse_parameter(text) for text in raw]
    except ParameterError as error:
        raise UsageError(str(error)) from None


def emit(report: Report, fmt: str, output: str | None) -> None:
    from packata_sql.outputs import parse_outputs

    emit_all(report, fmt, parse_outputs([output] if output else [], fmt), fail_on_warning=False)


def _stop_on_misspellings(path: str, contract: Contract) -> bool:
    """What stops `check` and `compile` before connecting (a misspelt metric or constraint key,
    an invalid drift override: exit 3). Lint reads ODCS only; False for other formats."""
    if dict(contract.declaration).get("format", "odcs") != "odcs":
        return False
    from packata_sql.lint import lint_problems

    lint_problems(path, contract, fail_hard=True)
    return True


def check(args: argparse.Namespace) -> int:
    from packata_sql.lint import schema_notice
    from packata_sql.outputs import check_writable, parse_outputs, stdout_format
    from packata_sql.progress import start

    fmt = stdout_format(args.format)
    outputs = parse_outputs(args.output, fmt)
    declared = load_source(args.contract, args.odcs_between, args.declaration, args.object)
    contract = declared.contract
    if _stop_on_misspellings(args.contract, contract):
        notice = schema_notice(args.contract, declared.loaded)
        if notice:  # may quote the contract's values
            from packata_sql.render.neutral import plain

            print(plain(f"packata-sql: {notice}"), file=sys.stderr)
    endpoint = resolve_endpoint(contract, args.url, args.server, args.trust_environment)
    check_writable(outputs)
    observer, close = start(args.progress)
    args.progress_observer = observer
    if args.verbose:
        args.error_observer = _verbose_printer(endpoint)
    try:
        if getattr(args, "dbt_project", None):  # only the models dbt built in its last run
            from packata_sql.dbt.manifest import dbt_compiler

            report = check_report(args, contract, endpoint,
                                  dbt_compiler(args.dbt_project, endpoint))
        else:
            report = check_report(args, contract, endpoint)
    finally:
        close()
    fail_on_warning = args.fail_on == "warning"
    emit_all(report, fmt, outputs, fail_on_warning=fail_on_warning)
    return report.exit_code(fail_on_warning=fail_on_warning)


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
    """The connection problem once on stderr, each --output file, then stdout."""
    from packata_sql.outputs import terminal, write_outputs

    if report.connection_problem:
        from packata_sql.render.neutral import plain  # the host comes from the contract

        print(plain(f"packata-sql: cannot connect to {report.target}: "
                    f"{report.connection_problem}"), file=sys.stderr)
    write_outputs(report, outputs, fail_on_warning=fail_on_warning)
    stdout: str | None = fmt
    if any(o.bare for o in outputs):  # `--output FILE` took --format: the table goes to stdout
        stdout = None if fmt == "table" else "table"
    if stdout is None:
        return
    colour, width = terminal() if stdout == "table" else (False, None)  # rich: the table only
    sys.stdout.write(render(report, stdout, color=colour, width=width,
                            fail_on_warning=fail_on_warning))
    sys.stdout.flush()


def compile_plans(args: argparse.Namespace) -> int:
    from packata_sql.compile_sql import contract_dialect, dialect_name, render_sql
    from packata_sql.plan_json import plan_document
    from packata_sql.render.json import dumps

    contract = load_contract(args.contract, args.odcs_between, args.declaration, args.object)
    _stop_on_misspellings(args.contract, contract)  # a plan of a contract check refuses is none
    name = dialect_name(args.dialect) if args.dialect else contract_dialect(contract)
    if name is None or name not in COMPILE_DIALECTS:
        if not args.dialect:
            raise UsageError("the contract names no server packata-sql renders for; give "
                             f"--dialect (one of: {', '.join(COMPILE_DIALECTS)})")
        raise UsageError(f"unknown dialect '{args.dialect}' (one of: {', '.join(COMPILE_DIALECTS)})")
    dialect = get_dialect(name)
    compiled = compile_contract(contract, dialect, categories=_categories(args))
    fmt = args.format or ("sql" if sys.stdout.isatty() else "json")
    document = plan_document(contract, compiled, dialect, pretty=fmt == "sql")
    if fmt == "sql":
        sys.stdout.write(render_sql(document))
    else:
        sys.stdout.write(dumps(document) + "\n")
    return 0


def doctor(args: argparse.Namespace) -> int:
    """What the login can do and which read-only level a run would get; no secrets printed."""
    from packata_sql.session import ProviderError, open_session

    if args.contract:
        contract = load_contract(args.contract, "exclusive")
        endpoint = resolve_endpoint(contract, args.url, args.server, args.trust_environment)
    elif args.url:
        endpoint = resolve_endpoint(_NO_CONTRACT, args.url, None, args.trust_environment)
    else:
        raise UsageError("doctor needs --url, or a contract (with --server to pick one)")
    from packata_sql.doctor import login_lines, presence_lines
    from packata_sql.render.neutral import plain  # hosts and names come from the contract

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


_NO_CONTRACT = Contract("<url>", ())
