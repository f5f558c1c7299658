"""`packata-sql lint`: the contract checked without a database (`api.lint`: the official ODCS
JSON Schema of its apiVersion and packata-sql's own loader and compiler findings), each problem
with file:line and, where a spelling is close, the right one. `check` runs it first."""

from __future__ import annotations

import argparse
import sys

from packata_sql import api
from packata_sql.errors import UsageError

#: Misspellings: metric, argument, operator, unit.
SPELLING = frozenset({"unknown-metric", "unknown-argument", "unknown-operator", "unknown-unit"})
#: What `check` and `compile` print first, before connecting, as `lint` reports it
#: (misspellings, including any unknown key, an invalid drift override, an unsupported
#: apiVersion, a duplicate rule id). Each is a finding: its rules are skipped (or the run
#: cannot pass) and every other rule runs (docs/semantics.md 1.2).
PRINTED_FIRST = SPELLING | {"unknown-constraint-key", "unknown-option", "unknown-key",
                            "invalid-drift-override", "catalog-version-mismatch",
                            "duplicate-id"}


def first_lines(path: str, contract: api.Contract, plans: api.Plans | None = None) -> list[str]:
    """For `check` and `compile`: misspellings and the other PRINTED_FIRST problems, each with
    file:line and the closest spelling, to print before connecting. The run goes on.
    `plans`: the contract's `api.own_plans`, when the caller compiled them."""
    problems = sorted((p for p in api.contract_problems(contract, plans)
                       if p.code in PRINTED_FIRST
                       and p.level == "error"), key=lambda p: p.line or 0)
    if not problems:
        return []
    return [*(_format(path, p) for p in problems),
            f"(these rules are skipped and the run cannot pass; the other rules run; "
            f"`packata-sql lint {path}` lists every problem)"]


def schema_notice(path: str, declared: api.Declared) -> str | None:
    """For `check`: one line saying the contract breaks the official schema, if it does (the
    run goes on: packata-sql reads many contracts the schema is stricter about). The document
    the contract was loaded from is not parsed again."""
    problems = api.schema_problems(declared)
    if not problems:
        return None
    first = problems[0]
    where = f"{path}:{first.line}" if first.line else path
    more = f" and {len(problems) - 1} more" if len(problems) > 1 else ""
    return (f"lint: {where}: {first.message}{more}; `packata-sql lint {path}` lists them "
            "(the check goes on)")


def _format(path: str, problem: api.Problem) -> str:
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
    linted = api.lint(args.contract, odcs_between=args.odcs_between)
    for problem in linted.problems:
        print(_format(args.contract, problem))
    errors = sum(1 for p in linted.problems if p.level == "error")
    warnings = sum(1 for p in linted.problems if p.level == "warning")
    print(f"{args.contract}: {errors} error(s), {warnings} warning(s), "
          f"{len(linted.contract.rules)} rule(s) of which {linted.executable} executable")
    if not linted.executable:
        print(f"{args.contract}: no executable rule: `check` would end incomplete (exit 2)",
              file=sys.stderr)
    return 3 if errors else 0
