"""The dbt gate's plan, one per model (`dbt generate` writes it as a macro): each rule compiled
per dialect by packata-sql's own compiler, with the relation left as gaps.

The object is renamed to a token that the contract does not contain, the compiler and binder
run as for `check`, and every SQL text is cut at the quoted token. The runtime joins the pieces
with `this.render()`, so the only run-time substitution is the one the binder decided, in code
regions only; `{param:…}` markers stay markers for the driver.
"""

from __future__ import annotations

import dataclasses
import hashlib
import itertools
from collections.abc import Sequence
from fractions import Fraction
from typing import Any

import sqlglot.expressions as exp

from packata_sql import __version__
from packata_sql.authored.scanner import scan
from packata_sql.authored.side_effects import called
from packata_sql.authored.template import OBSERVATION_PARAMETER, inline
from packata_sql.catalog import MeasureContext, TypeMismatch
from packata_sql.catalog.expressif_rules import ExpressifRule
from packata_sql.contracts.constraints import CATALOG_KINDS
from packata_sql.contracts.expectations import describe
from packata_sql.contracts.model import (
    AUTHORED,
    Constraint,
    Contract,
    Expectation,
    Expressif,
    Finding,
    Latency,
    Level,
    Library,
    Rule,
)
from packata_sql.dialects import Dialect, Family, get_dialect
from packata_sql.plans.compiler import Plan, compile_contract
from packata_sql.plans.expressif import bound_markers
from packata_sql.plans.planner import ROWS_ALIAS

FORMAT = "packata-sql/dbt-plan@1"
#: Dialects a dbt plan is generated for by default: those with an adapter and library metrics.
DEFAULT_DIALECTS = ("duckdb", "postgres")
#: Families a column can be compiled for; a rule gets one fused-scan item per accepted mix.
_FAMILIES = (Family.TEXT, Family.NUMBER, Family.BOOLEAN, Family.TEMPORAL, Family.OTHER)
_MAX_FAMILY_COLUMNS = 3
#: Type names the runtime meets per dialect (dbt-duckdb's information_schema names,
#: PostgreSQL's pg_type.typname); each is classified by the dialect's own `family()`.
_TYPE_NAMES = {
    "duckdb": ("BIGINT", "BIT", "BLOB", "BOOLEAN", "DATE", "DECIMAL", "DOUBLE", "ENUM", "FLOAT",
               "HUGEINT", "INTEGER", "INTERVAL", "JSON", "LIST", "MAP", "NUMERIC", "REAL",
               "SMALLINT", "STRUCT", "TIME", "TIME WITH TIME ZONE", "TIMESTAMP",
               "TIMESTAMP WITH TIME ZONE", "TIMESTAMP_MS", "TIMESTAMP_NS", "TIMESTAMP_S",
               "TINYINT", "UBIGINT", "UHUGEINT", "UINTEGER", "UNION", "USMALLINT", "UTINYINT",
               "UUID", "VARCHAR", "VARINT", "BIGNUM"),
    "postgres": ("bool", "bpchar", "bytea", "char", "citext", "date", "enum", "float4", "float8",
                 "int2", "int4", "int8", "interval", "json", "jsonb", "money", "name", "numeric",
                 "oid", "text", "time", "timestamp", "timestamptz", "timetz", "uuid", "varchar",
                 "xml"),
}


def relation_token(contract_text: bytes) -> str:
    """A name that does not occur in the contract, so every occurrence in SQL is the binder's."""
    digest = hashlib.sha256(contract_text).hexdigest()
    for salt in itertools.count():
        token = f"packata_relation_{digest[salt:salt + 12]}"
        if token.encode() not in contract_text:
            return token
    raise AssertionError("unreachable")


def pieces(sql: str, quoted_token: str) -> list[str]:
    return sql.split(quoted_token)


def _operand(value: Fraction | bool) -> object:
    return value if isinstance(value, bool) else [value.numerator, value.denominator]


def expectation_document(item: Expectation) -> dict[str, Any]:
    """Operands as exact [numerator, denominator] pairs: no float ever reaches Jinja."""
    operand = item.operand
    if isinstance(operand, tuple):
        return {"op": item.operator.value, "low": _operand(operand[0]),
                "high": _operand(operand[1]), "inclusive": item.inclusive, "text": describe(item)}
    return {"op": item.operator.value, "operand": _operand(operand), "text": describe(item)}


def _kind(rule: Rule) -> str:
    if isinstance(rule.definition, Library | Constraint | Expressif):
        return "library"  # a row-reading constraint or Expressif rule fuses into the scan
    if isinstance(rule.definition, Latency):
        return "latency"  # one MAX in the scan, aged against the observation time
    # Authored SQL (a query or an expression's predicate) runs only where SQL rules may.
    return "sql" if isinstance(rule.definition, AUTHORED) else "other"


def _latency_document(latency: Latency) -> dict[str, Any] | None:
    """The limit as integers only (microseconds, or whole calendar months) and the zone a
    value without one is read in."""
    if latency.limit is None:
        return None
    return {"micros": latency.limit.micros, "months": latency.limit.months,
            "zone": latency.zone, "text": f"no older than {latency.limit.text()}"}


def rule_document(rule: Rule, compiled: Plan | None = None) -> dict[str, Any]:
    """`compiled`: the rule's plan, whose expectations an Expressif rule is judged by (a
    value or row predicate without one must have no violation) and which says whether an
    empty object leaves it inconclusive or its value is a boolean."""
    judged = compiled.rule if compiled is not None else rule
    document: dict[str, Any] = {
        "key": rule.key, "name": rule.name, "source_path": rule.source_path,
        "severity": rule.severity.value, "unit": rule.unit, "kind": _kind(rule),
        "metric": rule.definition.metric if isinstance(rule.definition, Library)
        else rule.definition.kind if isinstance(rule.definition, Constraint)
        else "expressif" if isinstance(rule.definition, Expressif) else None,
        "columns": [rule.target.physical_property] if rule.target.physical_property else [],
        "expectations": [expectation_document(e) for e in judged.expectations],
    }
    if compiled is not None and isinstance(compiled.library, ExpressifRule):
        document.update(population=compiled.library.per_item, boolean=compiled.library.boolean)
        if not compiled.library.per_item:
            document["unit"] = None
    if isinstance(judged.definition, Latency):  # the plan's: its zone resolved
        document["latency"] = _latency_document(judged.definition)
    return document


def type_families(dialect: Dialect) -> dict[str, str]:
    table = {}
    for name in _TYPE_NAMES.get(dialect.name, ()):
        family = dialect.family(name)
        if family is Family.OTHER:  # names the dialect reads with their arguments, e.g. ENUM(…)
            family = dialect.family(f"{name}('x')")
        table[name] = family.value
    return table


def _items(plan: Plan, dialect: Dialect, token: str,
           index: int) -> tuple[dict[str, list[str]], list[str]]:
    """The rule's SELECT-list item for every mix of live column families it accepts; beyond a
    few columns, one item ("*") that assumes no family, as `compile` does for unknown types.
    With the names of the parameters its driver markers read, in order (Expressif variables:
    the observation time, a rule argument, a run parameter)."""
    binds: tuple[tuple[str, ...]] | None = None
    table = dialect.table((token,))
    quoted = dialect.quote_identifier(token)
    mixes: list[tuple[Family | None, ...]] = (
        list(itertools.product(_FAMILIES, repeat=len(plan.columns)))
        if len(plan.columns) <= _MAX_FAMILY_COLUMNS else [(None,) * len(plan.columns)])
    items: dict[str, list[str]] = {}
    instants = next((n for n in _TYPE_NAMES.get(dialect.name, ()) if dialect.holds_instants(n)),
                    None)
    inlined = _inlined_bounds(plan)
    for mix in mixes:
        families = dict(zip(plan.columns, mix, strict=True))
        key = "*" if None in mix else ",".join(f.value for f in mix if f is not None)
        # A date or timestamp column is compiled twice where it matters: the runtime takes
        # the `@instants` variant for a column of instants (docs/dbt.md).
        natives: list[tuple[str, dict[str, str]]] = [(key, {})]
        if instants is not None and Family.TEMPORAL in mix:
            natives.append((f"{key}@instants", {c: instants for c, f in families.items()
                                                if f is Family.TEMPORAL}))
        for variant, native_types in natives:
            context = MeasureContext(dialect, table, families, native_types)
            try:
                count = plan.count(context)
            except TypeMismatch:
                continue
            if inlined:
                count = inline(count, inlined)
            # The runtime hands the driver the scan's values, an empty list or not (psycopg2
            # then reads every `%`): each item is escaped, whether it binds a variable or not.
            sql, names = bound_markers(dialect.render(
                exp.alias_(count, f"m{index}", quoted=True)), dialect, listed=True)
            if binds is not None and names != binds[0]:
                raise AssertionError("every variant of an item reads its variables in one order")
            binds = (names,)
            found = pieces(sql, quoted)
            if variant == key or items.get(key) != found:
                items[variant] = found
    return items, list(binds[0]) if binds else []


def _inlined_bounds(plan: Plan) -> dict[str, str]:
    """A constraint's own parameters (a date or timestamp bound's forms), written into the
    gate's SQL as sqlglot-quoted literals: the contract's value, which no dbt run changes."""
    if not isinstance(plan.library, Constraint):
        return {}
    values = dict(plan.bindings)
    return {name: value for name, value in values.items() if isinstance(value, str)} \
        if all(isinstance(v, str) for v in values.values()) else {}


def dialect_document(contract: Contract, rules: Sequence[Rule], dialect: Dialect,
                     token: str, findings: list[Finding]) -> dict[str, Any]:
    """The fused scan's frame and each rule's compiled form for one dialect."""
    keys = [r.key for r in rules]
    compiled = compile_contract(contract, dialect, select=keys)  # parameters come at run time
    findings.extend(f for f in compiled.findings if f not in findings)
    quoted = dialect.quote_identifier(token)
    head = "SELECT " + dialect.render(exp.alias_(exp.Count(this=exp.Star()), ROWS_ALIAS, quoted=True))
    frame = dialect.render(exp.select(exp.Star()).from_(dialect.table((token,))))
    entries: dict[str, Any] = {}
    for index, plan in enumerate(compiled.plans, start=1):
        arguments = {name: value for name, value in plan.bindings
                     if name not in _inlined_bounds(plan)}
        if any(not isinstance(v, str | int | float | bool) for v in arguments.values()) or (
                dialect.named_parameters and (plan.parameters or arguments
                                              or _reads_variables(plan))):
            entries[plan.rule.key] = {"status": "skipped", "code": "variable-not-bound-in-dbt"}
            continue
        variants, binds = _items(plan, dialect, token, index)
        entries[plan.rule.key] = {"columns": list(plan.columns), "variants": variants}
        if binds:  # the runtime binds each through the driver, never as SQL text
            entries[plan.rule.key].update(binds=binds, arguments=arguments,
                                          observation=OBSERVATION_PARAMETER)
    for observation in compiled.observation_plans:  # dbt supplies no observed value
        entries[observation.rule.key] = {"status": "inconclusive", "code": "no-observation"}
    for sql_plan in compiled.sql_plans:
        entries[sql_plan.rule.key] = {"sql": pieces(sql_plan.sql, quoted),
                                      "parameters": list(sql_plan.parameters)}
        if dialect.name == "postgres":  # the names the runtime follows into function bodies
            entries[sql_plan.rule.key]["calls"] = sorted(
                {name for _, name in called(sql_plan.sql, scan(sql_plan.sql, dialect.lexical),
                                            dialect.lexical)})
    for key, finding in compiled.blocked.items():
        entries[key] = {"status": "skipped", "code": finding.code}
    for key in keys:  # a library rule the compiler left out without a finding
        entries.setdefault(key, {"status": "skipped", "code": "not-compiled"})
    return {
        "scan": {"head": head, "from": pieces(" " + frame.split(" ", 2)[2], quoted)},
        "rules": entries,
        "exact_names": not dialect.case_insensitive_names,
        "types": type_families(dialect),
        "instants": sorted(n for n in _TYPE_NAMES.get(dialect.name, ()) if dialect.holds_instants(n)),
    }


def _reads_variables(plan: Plan) -> bool:
    return isinstance(plan.library, ExpressifRule) and bool(plan.library.program.variables)


def gate_rules(contract: Contract, object_name: str) -> list[Rule]:
    """The object's rules the gate runs. Catalog checks (logicalType, physicalType, present,
    drift) read the engine's catalog through a session; inside dbt only the row-reading rules
    run (`check --dbt-project` runs them all)."""
    return [r for r in contract.rules if r.target.object_name == object_name
            and not (isinstance(r.definition, Constraint) and r.definition.kind in CATALOG_KINDS)]


def plan_document(contract: Contract, contract_text: bytes, object_name: str, model: str,
                  dialects: Sequence[str], findings: list[Finding] | None = None) -> dict[str, Any]:
    """The plan of one contract object, mapped to one dbt model; the compiler's findings are
    added to `findings`."""
    found = findings if findings is not None else []
    token = relation_token(contract_text)
    rules = gate_rules(contract, object_name)
    renamed = tuple(
        dataclasses.replace(r, target=dataclasses.replace(r.target, physical_object=token))
        if r.target.object_name == object_name else r
        for r in contract.rules
    )
    tokenised = dataclasses.replace(contract, rules=renamed)
    keys = {r.key for r in rules}
    mine = [r for r in renamed if r.key in keys]
    documents = {name: dialect_document(tokenised, mine, get_dialect(name), token, found)
                 for name in dialects}
    judged = {plan.rule.key: plan for name in dialects[:1] for plan in compile_contract(
        tokenised, get_dialect(name), select=list(keys)).plans}
    return {
        "format": FORMAT,
        "packata_sql": __version__,
        "contract": contract.path,
        "contract_sha256": hashlib.sha256(contract_text).hexdigest(),
        "object": object_name,
        "model": model,
        "rules": [rule_document(r, judged.get(r.key)) for r in rules],
        "findings": blocking_findings(contract, object_name),
        "dialects": documents,
    }


def blocking_findings(contract: Contract, object_name: str) -> list[dict[str, str]]:
    """Error findings that skip no single rule yet keep the run from passing (an unknown key on
    the document or this object, an unsupported apiVersion, a duplicate rule id: SEMANTICS
    1.2), as the hook reports them: the model is undecided, as `check` would end incomplete."""
    obj = contract.object(object_name)
    mine = obj.source_path if obj is not None else None

    def applies(path: str) -> bool:
        if not path.startswith("schema["):
            return True  # the document's own keys
        return mine is not None and (path == mine or path.startswith((f"{mine}.", f"{mine}[")))

    return [{"code": f.code, "source_path": f.source_path} for f in contract.findings
            if f.level is Level.ERROR and f.rule_key is None and applies(f.source_path)]
