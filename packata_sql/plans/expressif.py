"""An Expressif rule compiled for one dialect (docs/semantics.md 3.5): its payload read and
parsed, its scope checked against where it is declared, its variables resolved to driver
parameters, and a trial rendering so an operation the engine cannot run is a finding now,
not an error at run time."""

from __future__ import annotations

import dataclasses
import hashlib
import re
from dataclasses import dataclass
from fractions import Fraction

import sqlglot.expressions as exp

from packata_sql.authored.expressif import ExpressifError, Program, parse, read_payload
from packata_sql.authored.template import OBSERVATION_PARAMETER, finish, parameter
from packata_sql.catalog import MeasureContext
from packata_sql.catalog.base import UNITS, logical_family
from packata_sql.catalog.expressif_rules import ExpressifHandler, ExpressifRule, boolean_result
from packata_sql.contracts.model import (
    Expectation,
    Expressif,
    Finding,
    Operator,
    Rule,
    SchemaObject,
    Site,
)
from packata_sql.dialects import Dialect, Family

#: The variable Expressif reserves for the run's observation instant, bound as the run's
#: `observation_time` parameter (docs/semantics.md 1.5).
OBSERVATION_VARIABLE = "observationTime"
#: Accumulators whose value depends on a row order a table does not have.
_ORDERED = frozenset({"first", "last"})


@dataclass(frozen=True)
class Compiled:
    """What the planner needs of one Expressif rule (`rule` carries the expectations the
    rule is judged by: a value or row predicate without one must have no violation)."""

    rule: Rule
    definition: ExpressifRule
    handler: ExpressifHandler
    columns: tuple[str, ...]
    #: Declaration arguments bound by this rule, marker name → value.
    bindings: tuple[tuple[str, object], ...] = ()
    #: Run parameters (`--param`) the program reads.
    parameters: tuple[str, ...] = ()


#: The parameter an observation rule's supplied value binds.
OBSERVED = "packata_observation"
_MARKERS = re.compile("\x00packata-param:([A-Za-z0-9_]*)\x00")


def bound_markers(sql: str, dialect: Dialect, *,
                  listed: bool = False) -> tuple[str, tuple[str, ...]]:
    """Generated SQL with the driver's markers for the parameters an Expressif variable
    reads, and their names in the order the driver takes them; SQL without one unchanged,
    unless `listed`: the caller always hands the driver a list of values (the dbt gate), so a
    `%`-style driver reads every `%` as a marker's start, and each is written `%%`."""
    names = tuple(_MARKERS.findall(sql))
    if not names and not listed:
        return sql, ()
    if dialect.named_parameters:
        names = tuple(dict.fromkeys(names))
    return finish(sql, dialect, True), names


def observation_statement(compiled: Compiled, dialect: Dialect) -> tuple[str, tuple[str, ...]]:
    """`SELECT <program>` over the supplied value: a predicate as 1 or 0, an expression's
    value as computed (judged by the rule's expectations)."""
    from packata_sql.catalog.expressif import render

    value = render(compiled.definition.program, dialect, subject=marker(OBSERVED), fields={},
                   variable=compiled.handler.variable)
    if compiled.definition.program.kind == "predicate":
        value = exp.Case().when(value, exp.Literal.number(1)).else_(exp.Literal.number(0))
    return bound_markers(dialect.render(exp.select(exp.alias_(value, "m1", quoted=True))),
                         dialect)


def marker(name: str) -> exp.Expr:
    """A parameter marker in a sqlglot tree: rendered as-is, replaced after rendering."""
    return parameter(name)


def finding_of(problem: ExpressifError, site: Site) -> Finding:
    named = f"'{problem.operation}': " if problem.operation else ""
    return site.finding(problem.code, f"{named}{problem.message}")


def read_program(definition: Expressif, site: Site) -> tuple[Program | None, list[Finding]]:
    try:
        return parse(read_payload(definition.payload())), []
    except ExpressifError as problem:
        return None, [finding_of(problem, site)]
    except RecursionError:  # `{{{…` or `|OR` thousands deep: the parser recurses per level
        return None, [site.finding("expressif-too-deep", "the program nests deeper than it "
                                   "can be read; split it into several rules")]


def compile_expressif(
    rule: Rule, definition: Expressif, schema: SchemaObject | None, dialect: Dialect,
    site: Site, parameters: frozenset[str] | None,
) -> tuple[Compiled | None, list[Finding]]:
    """A scan column for a value, row or dataset program; for an observation, the program
    over a parameter the caller's value binds (it reads no object)."""
    program, problems = read_program(definition, site)
    if program is None:
        return None, problems
    if program.kind == "expression" and not rule.expectations and not boolean_result(program):
        return None, [site.finding(
            "expressif-no-expectation",
            f"an Expressif expression computes a value; say what it must be with an "
            f"expectation such as 'mustBeGreaterThan: 0' ({program.scope} scope)")]
    scope_problem = _scope_problem(rule, program)
    if scope_problem:
        return None, [site.finding("expressif-scope", scope_problem)]
    if rule.unit not in UNITS or (rule.unit == "percent" and not _per_item(program)):
        return None, [site.finding(
            "unit-not-supported", f"'unit' must be 'rows' or 'percent' ('percent' for value "
            f"and row scopes only), not '{rule.unit}'")]
    if not dialect.library_metrics:
        return None, [site.finding("dialect-not-supported",
                                   f"Expressif rules are not rendered for {dialect.name} yet")]
    bindings, wanted, unbound = _variables(rule, definition, program, parameters)
    if unbound:
        return None, [site.finding(
            "missing-parameter", f"no value for '@{unbound[0]}': give it in the rule's "
            f"'arguments' or pass --param {unbound[0]}=VALUE")]
    names = {name: marker_name for name, marker_name in _markers(rule, definition, program)}
    handler = ExpressifHandler(lambda variable: marker(names[variable]))
    compiled_rule, item_expectations = _judged_rule(rule, program)
    fields = tuple(_physical(schema, name) for name in program.fields)
    on_property = program.scope in ("value", "observation") or (
        program.scope == "dataset" and rule.target.physical_property is not None)
    columns = ((rule.target.physical_property or OBSERVED,) if on_property else ()) + fields
    expressif = ExpressifRule(program, program.fields, on_property, item_expectations)
    families = {column: None if dialect.dynamic_typing else
                logical_family(declared_logical_type(rule, schema, column)) for column in columns}
    trial = _trial(handler, expressif, dialect, columns, families, rule.expectations) \
        if program.scope != "observation" else \
        _observation_problem(program, dialect, handler, rule.expectations)
    if trial is not None:
        return None, [finding_of(trial, site)]
    return Compiled(compiled_rule, expressif, handler, columns, bindings, wanted), problems


def _per_item(program: Program) -> bool:
    return program.scope in ("value", "row")


def _scope_problem(rule: Rule, program: Program) -> str | None:
    target = rule.target
    if program.scope == "observation":
        return None
    if target.nested:
        return "Expressif rules on nested properties and array items are not executed yet"
    if not target.physical_object:
        return "the rule's object has no name"
    if program.scope == "value" and not target.physical_property:
        return ("a value-scope program applies to each cell of a property: declare the rule "
                "under the property, or use the row scope with [field]")
    if program.scope == "row" and not program.fields:
        return "a row-scope program reads the row's fields: name at least one as [field]"
    if program.scope == "dataset":
        accumulator = program.accumulator
        if accumulator is None:
            return ("a dataset-scope program ends with an accumulator (count, sum, min, max, "
                    "any, every)")
        if accumulator.name in _ORDERED:
            return (f"'{accumulator.written}' needs a row order, which a table does not have: "
                    "use min or max over an ordering column")
    return None


def _judged_rule(rule: Rule, program: Program) -> tuple[Rule, tuple[Expectation, ...]]:
    """Per item, an expression's expectations test each item and the rule counts the items
    that fail them; a predicate without expectations must have no violation."""
    if not _per_item(program):
        return rule, ()
    no_violation = (Expectation(Operator.EQ, Fraction(0)),)
    if program.kind == "expression":
        return dataclasses.replace(rule, expectations=no_violation), rule.expectations
    if not rule.expectations:
        return dataclasses.replace(rule, expectations=no_violation), ()
    return rule, ()


def _argument_marker(rule: Rule, name: str) -> str:
    digest = hashlib.sha256(rule.key.encode("utf-8")).hexdigest()[:10]
    return f"packata_arg_{digest}_{name}"


def _markers(rule: Rule, definition: Expressif,
             program: Program) -> list[tuple[str, str]]:
    """Each variable with the parameter it reads: the observation instant, the rule's own
    argument, else the run's `--param` of that name."""
    arguments = dict(definition.arguments)
    found = []
    for name in program.variables:
        if name == OBSERVATION_VARIABLE:
            found.append((name, OBSERVATION_PARAMETER))
        elif name in arguments:
            found.append((name, _argument_marker(rule, name)))
        else:
            found.append((name, name))
    return found


def _variables(rule: Rule, definition: Expressif, program: Program,
               parameters: frozenset[str] | None,
               ) -> tuple[tuple[tuple[str, object], ...], tuple[str, ...], list[str]]:
    """(argument bindings, run parameters read, variables with no value)."""
    arguments = dict(definition.arguments)
    bindings = tuple((_argument_marker(rule, n), arguments[n]) for n in program.variables
                     if n in arguments and n != OBSERVATION_VARIABLE)
    wanted = tuple(n for n in program.variables
                   if n not in arguments and n != OBSERVATION_VARIABLE)
    unbound = [n for n in wanted if parameters is not None and n not in parameters]
    return bindings, wanted, unbound


def declared_logical_type(rule: Rule, schema: SchemaObject | None, column: str) -> str | None:
    """The logical type the contract declares for a physical column the rule reads."""
    if column == rule.target.physical_property:
        return rule.target.logical_type
    found = next((p for p in schema.properties if p.physical == column), None) if schema else None
    return found.logical_type if found else None


def _physical(schema: SchemaObject | None, name: str) -> str:
    declared = schema.property(name) if schema is not None else None
    return declared.physical if declared is not None else name


def _trial(handler: ExpressifHandler, definition: ExpressifRule, dialect: Dialect,
           columns: tuple[str, ...], families: dict[str, Family | None],
           expectations: tuple[Expectation, ...]) -> ExpressifError | None:
    """Renders the rule once with the declared logical types: what the engine cannot run, an
    operation reading another type than the property declares, or an expression whose value
    is not of the type its expectations compare it with, is refused before anything runs."""
    from packata_sql.catalog.expressif import result_family

    context = MeasureContext(dialect, dialect.table(("t",)), families)
    try:
        family = result_family(definition.program, dialect,
                               **handler.inputs(definition, context, columns))
    except ExpressifError as problem:
        return problem
    return _expectation_problem(definition.program, family, expectations)


def _expectation_problem(program: Program, family: str,
                         expectations: tuple[Expectation, ...]) -> ExpressifError | None:
    """An expression (or dataset value) of another type than its expectations compare it
    with: text against `mustBeGreaterThan: 0` is a finding, never a cast."""
    if program.kind == "predicate" and _per_item(program):
        return None  # its expectations count the items that violate it
    for expectation in expectations:
        wanted = "boolean" if isinstance(expectation.operand, bool) else "number"
        if family not in ("any", wanted):
            return ExpressifError(
                "expressif-type",
                f"the {program.kind} computes {family}, but its expectation compares it with "
                f"a {wanted}; Expressif's implicit conversions are not compiled to SQL (no "
                f"silent casts between text and numbers): compute a {wanted} (for example "
                "with length)")
    return None


def _observation_problem(program: Program, dialect: Dialect, handler: ExpressifHandler,
                         expectations: tuple[Expectation, ...]) -> ExpressifError | None:
    """`_trial` for an observation: what the engine cannot run, and the type check (the
    caller's value is of no known type, so only what the operations return is checked)."""
    from packata_sql.catalog.expressif import result_family

    try:
        family = result_family(program, dialect, subject=marker(OBSERVED), fields={},
                               variable=handler.variable)
    except ExpressifError as problem:  # an operation the engine refuses: a finding now,
        return problem  # not a traceback when the statement is built
    return _expectation_problem(program, family, expectations)
