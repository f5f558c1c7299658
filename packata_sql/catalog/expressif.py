"""Expressif programs as sqlglot trees, per dialect (docs/expressif.md).

The language is two-valued: every predicate renders `COALESCE(…, FALSE)`, so NULL never
leaks three-valued logic into a count. Values are typed along the pipe (text, number,
boolean, temporal): an operation reading another type is a finding, never a silent cast.
Where an engine cannot give an operation the language's exact meaning the rendering raises
`UnsupportedOnEngine` for that engine (the table in `expressif_operations.py`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

import sqlglot.expressions as exp

from packata_sql.authored.expressif import (
    Argument,
    Call,
    Combination,
    ExpressifError,
    Field,
    Interval,
    Literal,
    Negation,
    Pipeline,
    Predication,
    Program,
    Rooted,
    Single,
    Variable,
)
from packata_sql.authored.expressif.names import Resolved, resolve
from packata_sql.catalog.base import too_deep
from packata_sql.catalog.expressif_functions import ACCUMULATORS, FUNCTIONS
from packata_sql.catalog.expressif_operations import (
    Operation,
    Rendering,
    Typed,
    UnsupportedOnEngine,
    as_boolean,
)
from packata_sql.catalog.expressif_predicates import PREDICATES
from packata_sql.dialects import Dialect, Family, get_dialect

__all__ = ["UnsupportedOnEngine", "input_family", "render", "render_accumulator",
           "result_family", "supported"]

_FAMILY_NAMES = {Family.TEXT: "text", Family.NUMBER: "number", Family.BOOLEAN: "boolean",
                 Family.TEMPORAL: "temporal"}


@dataclass(frozen=True)
class _Context:
    dialect: Dialect
    subject: Typed | None
    fields: Mapping[str, exp.Expr]
    variable: Callable[[str], exp.Expr]
    field_families: Mapping[str, str]


def render(program: Program, dialect: Dialect, *, subject: exp.Expr | None,
           fields: Mapping[str, exp.Expr], variable: Callable[[str], exp.Expr],
           subject_family: Family | None = None,
           field_families: Mapping[str, Family | None] | None = None) -> exp.Expr:
    """A value/row program as one SQL expression over `subject` (the cell; None in row scope)
    and `fields` (physical columns by `[name]`): a predicate is a boolean that is never NULL,
    an expression a value. `variable(name)` makes the bound-parameter node for `@name`;
    `subject_family`, when known, is checked against what the first operation reads."""
    return _render(program, _context(dialect, subject, fields, variable, subject_family,
                                     field_families)).expression


def result_family(program: Program, dialect: Dialect, *, subject: exp.Expr | None,
                  fields: Mapping[str, exp.Expr], variable: Callable[[str], exp.Expr],
                  subject_family: Family | None = None,
                  field_families: Mapping[str, Family | None] | None = None) -> str:
    """What the program computes: text, number, boolean, temporal, or any (not known before
    the engine runs it); rendering findings as `render` and `render_accumulator` raise them."""
    context = _context(dialect, subject, fields, variable, subject_family, field_families)
    try:
        typed = _render_accumulator(program, context) if program.accumulator is not None \
            else _render(program, context)
    except RecursionError:  # a program nested past what Python's stack holds
        raise _too_big() from None
    _bounded(typed.expression)
    return typed.family


#: The deepest SQL a program may render to (each `without-whitespaces` is about 25 levels):
#: SQL generation recurses once per level and fails near 190 with the scan around it.
MAX_RENDERED_DEPTH = 100
#: The most SQL nodes a program may render to: an operation reading its value several times
#: (`pad-left` four) multiplies what the pipe before it rendered.
MAX_RENDERED_NODES = 20_000


def _bounded(rendered: exp.Expr) -> None:
    if too_deep(rendered, MAX_RENDERED_DEPTH, MAX_RENDERED_NODES):
        raise _too_big()


def _too_big() -> ExpressifError:
    return ExpressifError("expressif-too-deep",
                          f"the program renders SQL nested deeper than {MAX_RENDERED_DEPTH} "
                          f"levels or larger than {MAX_RENDERED_NODES} nodes, more than SQL "
                          "generation and engines can take; split it into several rules")


def _render(program: Program, context: _Context) -> Typed:
    if program.accumulator is not None:
        raise ExpressifError("expressif-scope",
                             f"'{program.accumulator.written}' accumulates rows; render the "
                             "program with render_accumulator (dataset scope)",
                             program.accumulator.name)
    body = program.body
    if isinstance(body, Pipeline):
        return _pipeline(context, body, context.subject)
    if isinstance(body, Rooted):
        return Typed(_predication(context, body.predication,
                                  _argument_value(context, body.root)), "boolean")
    return Typed(_predication(context, body, context.subject), "boolean")


def render_accumulator(program: Program, dialect: Dialect, *, subject: exp.Expr | None,
                       fields: Mapping[str, exp.Expr], variable: Callable[[str], exp.Expr],
                       subject_family: Family | None = None,
                       field_families: Mapping[str, Family | None] | None = None) -> exp.Expr:
    """A dataset program as one scalar aggregate over the object's rows: the per-row pipe
    before the accumulator is applied to `subject` (or its `[field]` root), then folded."""
    return _render_accumulator(program, _context(dialect, subject, fields, variable,
                                                 subject_family, field_families)).expression


def _render_accumulator(program: Program, context: _Context) -> Typed:
    accumulator = program.accumulator
    if accumulator is None or not isinstance(program.body, Pipeline):
        raise ExpressifError("expressif-scope",
                             "a dataset program must end in an accumulator (count, sum, min, "
                             "max, any, every)")
    per_row = program.body.members[:-1]
    start = (_argument_value(context, program.body.root) if program.body.root is not None
             else context.subject)
    if per_row and per_row[-1].kind == "predicate":
        item = _pipeline(context, Pipeline(None, per_row[:-1]), start)
        value = Typed(_predication(context, Single(per_row[-1]), item), "boolean")
    else:
        value = _pipeline(context, Pipeline(None, per_row), start)
    operation = ACCUMULATORS[accumulator.name]
    return _apply(context, operation, accumulator, value)


def supported(dialect_name: str) -> Mapping[str, str]:
    """Every operation the subset renders on this engine: canonical name (predicates
    prefixed `predicate:` where a function has the same name, accumulators `accumulator:`)
    → "portable" (one meaning everywhere) or "per-dialect" (spelled per engine)."""
    dialect = get_dialect(dialect_name)
    listed: dict[str, str] = {}
    for prefix, table in (("", FUNCTIONS), ("predicate:", PREDICATES),
                          ("accumulator:", ACCUMULATORS)):
        for name, operation in sorted(table.items()):
            if operation.refusal(dialect) is not None:
                continue
            key = name if (prefix == "" or (prefix == "predicate:" and name not in FUNCTIONS)) \
                else prefix + name
            listed[key] = "per-dialect" if operation.per_dialect else "portable"
    return dict(sorted(listed.items()))


def input_family(program: Program) -> str:
    """What the program's first operation reads: text, number, boolean, temporal or any."""
    body = program.body
    if isinstance(body, Pipeline):
        if body.root is not None or not body.members:
            return "any"
        first = body.members[0]
        table = ACCUMULATORS if first.kind == "accumulator" else (
            PREDICATES if first.kind == "predicate" else FUNCTIONS)
        reads = table[first.name].reads if first.name in table else "any"
        return "any" if reads == "nothing" else reads
    if isinstance(body, Rooted):
        return "any"
    return _predication_reads(body)


def _predication_reads(node: Predication) -> str:
    if isinstance(node, Single):
        found = PREDICATES.get(node.call.name)
        return found.reads if found else "any"
    if isinstance(node, Negation):
        return _predication_reads(node.member)
    left, right = _predication_reads(node.left), _predication_reads(node.right)
    return left if right in ("any", left) else right if left == "any" else "any"


def _context(dialect: Dialect, subject: exp.Expr | None, fields: Mapping[str, exp.Expr],
             variable: Callable[[str], exp.Expr], subject_family: Family | None,
             field_families: Mapping[str, Family | None] | None) -> _Context:
    family = _FAMILY_NAMES.get(subject_family, "any") if subject_family else "any"
    families = {name: _FAMILY_NAMES.get(f, "any") if f else "any"
                for name, f in (field_families or {}).items()}
    return _Context(dialect, None if subject is None else Typed(subject, family), fields,
                    variable, families)


def _pipeline(context: _Context, pipeline: Pipeline, start: Typed | None) -> Typed:
    value = _argument_value(context, pipeline.root) if pipeline.root is not None else start
    for call in pipeline.members:
        if call.name == "field":
            value = _field(context, _literal_text(call, call.arguments))
            continue
        if call.name not in FUNCTIONS:
            raise _unsupported(call)
        value = _apply(context, FUNCTIONS[call.name], call, value)
        _bounded(value.expression)  # each step: a pipe can multiply the one before it
    if value is None:
        raise ExpressifError("expressif-scope",
                             "the program reads no value: in row scope start it with a "
                             "[field] (for example `[amount] | absolute`)")
    return value


def _predication(context: _Context, node: Predication, subject: Typed | None) -> exp.Expr:
    if isinstance(node, Single):
        call = node.call
        if call.name not in PREDICATES:
            raise _unsupported(call)
        tested = _apply(context, PREDICATES[call.name], call, subject)
        return as_boolean(tested.expression)
    if isinstance(node, Negation):
        return exp.Not(this=exp.paren(_predication(context, node.member, subject), copy=False))
    return _combine(node, _predication(context, node.left, subject),
                    _predication(context, node.right, subject))


def _combine(node: Combination, left: exp.Expr, right: exp.Expr) -> exp.Expr:
    left, right = exp.paren(left, copy=False), exp.paren(right, copy=False)
    if node.operator == "and":
        return exp.And(this=left, expression=right)
    if node.operator == "or":
        return exp.Or(this=left, expression=right)
    return exp.NEQ(this=left, expression=right)  # both sides are never NULL


def _apply(context: _Context, operation: Operation, call: Call, value: Typed | None) -> Typed:
    if value is None and operation.reads == "nothing":
        value = Typed(exp.Null(), "any")  # the operation reads only its arguments
    if value is None:
        raise ExpressifError("expressif-scope",
                             f"'{call.written}' has no value to read: in row scope start the "
                             "program with a [field] (`[amount] |? positive`)", call.name)
    refusal = operation.refusal(context.dialect)
    if refusal is not None:
        raise UnsupportedOnEngine(
            f"'{call.written}' cannot keep the language's meaning on {context.dialect.name}: "
            f"{refusal}", call.name)
    if operation.reads not in ("any", "nothing", value.family) and value.family != "any":
        raise ExpressifError("expressif-type",
                             f"'{call.written}' reads {operation.reads}, but it is given "
                             f"{value.family}; Expressif's implicit conversions are not compiled "
                             "to SQL (no silent casts): convert the column in the data", call.name)
    arguments = _arguments(context, operation, call, value)
    rendering = Rendering(context.dialect, call.written, arguments)
    expression = operation.render(rendering, value.expression)
    if operation.returns == "arguments":
        return Typed(expression, _one_family(call, arguments))
    family = value.family if operation.returns == "same" else operation.returns
    return Typed(expression, family)


def _one_family(call: Call, arguments: tuple[object, ...]) -> str:
    """What arguments of any family share (`coalesce`): one SQL type, never a silent cast."""
    families = {a.family for a in arguments if isinstance(a, Typed)} - {"any"}
    if len(families) > 1:
        raise ExpressifError("expressif-type",
                             f"the arguments of '{call.written}' are {' and '.join(sorted(families))}"
                             "; SQL needs them of one type (no silent casts)", call.name)
    return families.pop() if families else "any"


def _arguments(context: _Context, operation: Operation, call: Call,
               value: Typed) -> tuple[object, ...]:
    given = call.arguments
    parameters = operation.parameters
    required = [p for p in parameters if not p.endswith(("?", "*"))]
    variadic = bool(parameters) and parameters[-1].endswith("*")
    if variadic:
        parameters = parameters[:-1] + (parameters[-1],) * max(len(given) - len(parameters) + 1, 0)
    if not len(required) <= len(given) <= len(parameters):
        count = (f"{len(required)} or more" if variadic
                 else str(len(required)) if len(required) == len(parameters)
                 else f"{len(required)} to {len(parameters)}")
        raise ExpressifError("expressif-argument",
                             f"'{call.written}' takes {count} argument(s), not {len(given)}",
                             call.name)
    kinds = [kind.rstrip("?*") for kind in parameters]
    if "value" in kinds:
        kinds = _value_kinds(context, kinds, given)
    values: list[object] = []
    for kind, argument in zip(kinds, given, strict=False):
        values.append(_argument(context, call, kind, argument, value))
    return tuple(values)


def _value_kinds(context: _Context, kinds: list[str], given: tuple[Argument, ...]) -> list[str]:
    """A `value` parameter takes any family; an unquoted literal there is read as the family
    of the other arguments (`coalesce([amount], 0)`: a number), else as text."""
    families = {_argument_value(context, a).family for k, a in zip(kinds, given, strict=False)
                if k == "value" and not isinstance(a, Literal)}
    known = families - {"any"}
    if len(known) == 1:
        literal = known.pop()
    elif "any" in families and any(isinstance(a, Literal) and not a.quoted and a.text != "(null)"
                                   for a in given):
        raise ExpressifError("expressif-type",
                             "an unquoted literal beside fields of unknown type could be read "
                             "as text or as a number: declare the fields' logicalType, or quote "
                             "a text (`\"n/a\"`)")
    else:
        literal = "text"
    return [("any" if not isinstance(a, Literal) else literal if not a.quoted else "text")
            if k == "value" else k for k, a in zip(kinds, given, strict=False)]


def _argument(context: _Context, call: Call, kind: str, argument: Argument,
              value: Typed) -> object:
    if kind == "interval":
        if not isinstance(argument, Interval):
            raise ExpressifError("expressif-argument",
                                 f"'{call.written}' takes an interval such as [0;20[", call.name)
        return argument
    if kind == "predication":
        if isinstance(argument, Literal) and not argument.quoted:
            if argument.text.lower() in ("true", "false"):
                return Typed(exp.Boolean(this=argument.text.lower() == "true"), "boolean")
            name, _kind = resolve(argument.text, Resolved.PREDICATE)
            argument = Single(Call(name, argument.text, "predicate"))
        if isinstance(argument, Single | Negation | Combination):
            return Typed(_predication(context, argument, value), "boolean")
        return _argument_value(context, argument)
    if isinstance(argument, Literal):
        return Typed(_literal(call, kind, argument), kind)
    typed = _argument_value(context, argument)
    if kind == "any" or (kind in ("integer", "number") and typed.family in ("number", "any")):
        return typed
    if typed.family not in ("any", kind):
        raise ExpressifError("expressif-type",
                             f"an argument of '{call.written}' is {typed.family}, not {kind}",
                             call.name)
    return typed


def _argument_value(context: _Context, argument: Argument) -> Typed:
    if isinstance(argument, Variable):
        return Typed(context.variable(argument.name), "any")
    if isinstance(argument, Field):
        return _field(context, argument.name)
    if isinstance(argument, Pipeline):
        return _pipeline(context, argument, None)
    if isinstance(argument, Literal):
        return Typed(exp.Literal.string(argument.text), "text")
    raise ExpressifError("expressif-syntax", "an interval or a predication cannot be a value here")


def _field(context: _Context, name: str) -> Typed:
    if name not in context.fields:
        raise ExpressifError("expressif-scope", f"[{name}] is not a column of the object",
                             "field")
    return Typed(context.fields[name], context.field_families.get(name, "any"))


def _literal(call: Call, kind: str, argument: Literal) -> exp.Expr:
    from packata_sql.catalog.expressif_operations import typed_literal

    return typed_literal(call, kind, argument.text)


def _literal_text(call: Call, arguments: tuple[Argument, ...]) -> str:
    if len(arguments) != 1 or not isinstance(arguments[0], Literal):
        raise ExpressifError("expressif-argument", f"'{call.written}' takes one field name",
                             call.name)
    return arguments[0].text


def _unsupported(call: Call) -> ExpressifError:
    return ExpressifError("expressif-unsupported",
                          f"'{call.written}' is an Expressif {call.kind} packata-sql does not "
                          "compile to SQL yet (docs/expressif.md lists the supported ones)",
                          call.name)
