"""`packata-sql lint`: the contract checked without a database, against the official ODCS JSON
Schema of its apiVersion (bundled) and packata-sql's own loader and compiler findings, each
with file:line and, where a spelling is close, the right one. `check` runs it first."""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from packata_sql import api
from packata_sql.contracts.model import Contract, Finding, Level
from packata_sql.contracts.odcs_schema import SCHEMA_VERSIONS, official_schema
from packata_sql.contracts.yaml_source import Loaded, SourceError, load_yaml_file
from packata_sql.errors import UsageError

if TYPE_CHECKING:
    import jsonschema_rs

#: Misspellings: metric, argument, operator, unit.
SPELLING = frozenset({"unknown-metric", "unknown-argument", "unknown-operator", "unknown-unit"})
#: What `check` and `compile` print first, before connecting, as `lint` reports it
#: (misspellings, including any unknown key, an invalid drift override, an unsupported
#: apiVersion, a duplicate rule id). Each is a finding: its rules are skipped (or the run
#: cannot pass) and every other rule runs (docs/semantics.md 1.2).
PRINTED_FIRST = SPELLING | {"unknown-constraint-key", "unknown-option", "unknown-key",
                            "invalid-drift-override", "catalog-version-mismatch",
                            "duplicate-id"}


@dataclass(frozen=True)
class Problem:
    level: str  # "error" or "warning"
    code: str
    where: str  # the rule path or JSON path
    line: int | None
    message: str


def schema_version(api_version: object) -> str:
    """The bundled schema closest to the contract's apiVersion (v3.0.x → 3.0.2, …)."""
    text = str(api_version or "").lstrip("v")
    for version in SCHEMA_VERSIONS:
        if text.split(".")[:2] == version.split(".")[:2]:
            return version
    return SCHEMA_VERSIONS[-1]


def schema_problems(loaded: Loaded) -> list[Problem]:
    """Every place the document breaks the official schema of its version. jsonschema-rs (a
    compiled validator) imports and validates in milliseconds, where the pure-Python
    jsonschema cost `check` about 0.1 s of start-up; both find the same places."""
    import jsonschema_rs

    document: Any = loaded.value
    version = schema_version(document.get("apiVersion") if isinstance(document, dict) else None)
    validator = jsonschema_rs.validator_for(official_schema(version), validate_formats=False)
    problems = []
    for error in sorted(validator.iter_errors(document),
                        key=lambda e: list(map(str, e.instance_path))):
        path = tuple(error.instance_path)
        if _expressif_keys(error):
            continue
        line = _line(loaded, path)
        where = "$" + "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in path)
        problems.append(Problem("error", "odcs-schema", where, line,
                                f"ODCS {version} schema: {_short(_message(error))}"))
    return problems


#: Keys an Expressif rule takes beyond ODCS's `custom` shape: its expectations (which take
#: precedence over its default) and its typed arguments (docs/formats.md, Expressif rules).
_EXPRESSIF_KEYS = frozenset({"arguments", "mustBe", "mustNotBe", "mustBeGreaterThan",
                             "mustBeGreaterOrEqualTo", "mustBeLessThan", "mustBeLessOrEqualTo",
                             "mustBeBetween", "mustNotBeBetween"})


def _expressif_keys(error: jsonschema_rs.ValidationError) -> bool:
    """The schema's only objection is that an `engine: expressif` rule has expectations or
    arguments, which packata-sql defines for it."""
    import jsonschema_rs

    kind = error.kind
    instance = error.instance
    return (isinstance(kind, jsonschema_rs.ValidationErrorKind.UnevaluatedProperties)
            and isinstance(instance, dict) and instance.get("type") == "custom"
            and str(instance.get("engine", "")).lower() == "expressif"
            and bool(kind.unexpected) and set(kind.unexpected) <= _EXPRESSIF_KEYS)


def _message(error: jsonschema_rs.ValidationError) -> str:
    """The validator's message; a value outside an enum lists every permitted value and the
    closest one (jsonschema-rs names only the first two)."""
    import jsonschema_rs

    if not isinstance(error.kind, jsonschema_rs.ValidationErrorKind.Enum):
        return str(error.message)
    from packata_sql.spelling import closest

    permitted = [str(o) for o in error.kind.options]
    match = closest(str(error.instance), permitted) if isinstance(error.instance, str) else None
    hint = f"; did you mean '{match}'?" if match else ""
    return f"{error.instance!r} is not one of {', '.join(permitted)}{hint}"


def _line(loaded: Loaded, path: tuple[str | int, ...]) -> int | None:
    """The line of the node, or of its nearest ancestor that has one."""
    while True:
        line = loaded.line(path)
        if line is not None or not path:
            return line
        path = path[:-1]


def _short(message: str) -> str:
    return message if len(message) <= 200 else message[:197] + "…"


def own_problems(contract: Contract) -> list[Problem]:
    """The loader's findings plus the compiler's for the contract's own engine (DuckDB when
    it names none): unknown metrics and arguments are only known there."""
    compiled = _own_plans(contract).compiled
    findings = list(contract.findings)
    findings += [f for f in compiled.findings if f not in findings]
    return [Problem(_lint_level(f), f.code, f.source_path, f.line, f.message) for f in findings]


def _lint_level(finding: Finding) -> str:
    """A rule that is not executable by design (an ODCS `text` rule, a `custom` rule for another
    tool) is valid ODCS: `lint` warns about it. `check` still skips it and ends incomplete unless
    it is accepted (`--accept-unexecutable`)."""
    from packata_sql.plans.compiler import NOT_EXECUTABLE_BY_DESIGN

    if finding.code in NOT_EXECUTABLE_BY_DESIGN:
        return Level.WARNING.value
    return finding.level.value


def distinct(problems: list[Problem]) -> list[Problem]:
    """Each problem once: the JSON Schema validator reports one bad node once per schema branch
    that reaches it (ODCS's `allOf` of `if`/`then` per logicalType)."""
    return list(dict.fromkeys(problems))


def lint_problems(path: str, contract: Contract) -> list[Problem]:
    """The loader's and the compiler's problems, as `lint` prints them."""
    return own_problems(contract)


def first_lines(path: str, contract: Contract) -> list[str]:
    """For `check` and `compile`: misspellings and the other PRINTED_FIRST problems, each with
    file:line and the closest spelling, to print before connecting. The run goes on."""
    problems = sorted((p for p in lint_problems(path, contract) if p.code in PRINTED_FIRST
                       and p.level == Level.ERROR.value), key=lambda p: p.line or 0)
    if not problems:
        return []
    return [*(_format(path, p) for p in problems),
            f"(these rules are skipped and the run cannot pass; the other rules run; "
            f"`packata-sql lint {path}` lists every problem)"]


def schema_notice(path: str, loaded: Loaded | None) -> str | None:
    """For `check`: one line saying the contract breaks the official schema, if it does (the
    run goes on: packata-sql reads many contracts the schema is stricter about). `loaded` is
    the document the contract was loaded from: it is not parsed again."""
    if loaded is None:
        return None
    problems = distinct(schema_problems(loaded))
    if not problems:
        return None
    first = problems[0]
    where = f"{path}:{first.line}" if first.line else path
    more = f" and {len(problems) - 1} more" if len(problems) > 1 else ""
    return (f"lint: {where}: {first.message}{more}; `packata-sql lint {path}` lists them "
            "(the check goes on)")


def _format(path: str, problem: Problem) -> str:
    where = f"{path}:{problem.line}" if problem.line else path
    return f"{where}: {problem.level} {problem.code} at {problem.where}: {problem.message}"


def expressif_lines() -> list[str]:
    """One line per Expressif operation: the engines that run it, and how."""
    table = api.expressif_support()
    engines = sorted({engine for row in table.values() for engine in row})
    width = max(len(name) for name in table) if table else 0
    lines = [(f"{'operation':<{width}}  " + "  ".join(f"{e:<11}" for e in engines)).rstrip()]
    for operation, row in table.items():
        cells = "  ".join(f"{row.get(e, '-'):<11}" for e in engines)
        lines.append(f"{operation:<{width}}  {cells}".rstrip())
    lines.append(f"{len(table)} operation(s); portable: one meaning on every engine; "
                 "per-dialect: spelled per engine; '-': a finding on that engine")
    return lines


def lint_command(args: argparse.Namespace) -> int:
    if args.expressif:
        print("\n".join(expressif_lines()))
        return 0
    if args.contract is None:
        raise UsageError("lint needs a CONTRACT (or --expressif to list the Expressif "
                         "operations)")
    declared = api.load_source(args.contract, odcs_between=args.odcs_between)
    contract, loaded = declared.contract, declared.loaded
    if loaded is None:  # JSON that YAML cannot read: lint reads YAML, and says why not
        try:
            loaded = load_yaml_file(args.contract)
        except SourceError as error:
            raise UsageError(str(error)) from None
    problems = distinct(schema_problems(loaded) + lint_problems(args.contract, contract))
    problems.sort(key=lambda p: (p.line or 0, p.code))
    for problem in problems:
        print(_format(args.contract, problem))
    errors = sum(1 for p in problems if p.level == Level.ERROR.value)
    warnings = sum(1 for p in problems if p.level == Level.WARNING.value)
    executable = _executable(contract)
    print(f"{args.contract}: {errors} error(s), {warnings} warning(s), "
          f"{len(contract.rules)} rule(s) of which {executable} executable")
    if not executable:
        print(f"{args.contract}: no executable rule: `check` would end incomplete (exit 2)",
              file=sys.stderr)
    return 3 if errors else 0


def _executable(contract: Contract) -> int:
    return _own_plans(contract).compiled.executable


def _own_plans(contract: Contract) -> api.Plans:
    """The plans for the contract's own engine (DuckDB when it names none)."""
    return api.compile(contract, api.contract_dialect(contract, default="duckdb") or "duckdb")
