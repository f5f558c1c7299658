"""Expressif programs (ODCS `type: custom`, `engine: expressif`): the payload, the parser for
the subset packata-sql compiles and the frozen tree it yields; `catalog/expressif.py` renders
the tree as SQL (docs/expressif.md)."""

from __future__ import annotations

from packata_sql.authored.expressif.errors import ExpressifError
from packata_sql.authored.expressif.payload import Payload, read_payload
from packata_sql.authored.expressif.syntax import parse_expression, parse_predicate, walk
from packata_sql.authored.expressif.tree import (
    Argument,
    Body,
    Call,
    Combination,
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

__all__ = [
    "Argument",
    "Body",
    "Call",
    "Combination",
    "ExpressifError",
    "Field",
    "Interval",
    "Literal",
    "Negation",
    "Payload",
    "Pipeline",
    "Predication",
    "Program",
    "Rooted",
    "Single",
    "Variable",
    "parse",
    "read_payload",
]

#: The run's observation instant; a program may read it, never bind it.
OBSERVATION_TIME = "observationTime"


def parse(payload: Payload) -> Program:
    """The program's tree; ExpressifError for a syntax error, an unknown or forbidden
    operation, or a construct its scope cannot have."""
    if payload.kind == "predicate":
        if payload.scope == "dataset":
            raise ExpressifError("expressif-scope",
                                 "a dataset program is an expression ending in an accumulator "
                                 "(count, sum, min, max, any, every); write kind 'expression'")
        body: Body = parse_predicate(payload.program)
    else:
        body = parse_expression(payload.program, accumulators=payload.scope == "dataset")
    variables: list[str] = []
    fields: list[str] = []
    operations: list[str] = []
    for node in walk(body):
        if isinstance(node, Variable) and node.name not in variables:
            variables.append(node.name)
        elif isinstance(node, Field) and node.name not in fields:
            fields.append(node.name)
        elif isinstance(node, Call):
            if node.name not in operations:
                operations.append(node.name)
            named = node.arguments[0] if node.name == "field" and node.arguments else None
            if isinstance(named, Literal) and named.text not in fields:
                fields.append(named.text)
    if fields and payload.scope not in ("row", "dataset"):
        raise ExpressifError("expressif-scope",
                             f"[{fields[0]}] reads a field of the row; only a 'row' or 'dataset' "
                             f"program may, not a '{payload.scope}' one")
    program = Program(payload.version, payload.kind, payload.scope, payload.program, body,
                      tuple(variables), tuple(fields), tuple(operations))
    _check_accumulator(program)
    return program


def _check_accumulator(program: Program) -> None:
    members = program.body.members if isinstance(program.body, Pipeline) else ()
    for position, call in enumerate(members):
        last = position == len(members) - 1
        if call.kind == "accumulator" and not last:
            raise ExpressifError("expressif-scope",
                                 f"'{call.written}' accumulates the rows; it must end the program",
                                 call.name)
        if call.kind == "predicate" and not (
                position == len(members) - 2 and members[-1].name in ("any", "every")):
            raise ExpressifError("expressif-syntax",
                                 f"'{call.written}' is a predicate; in a dataset program it may "
                                 "only come right before 'any' or 'every'", call.name)
    if program.scope == "dataset" and program.accumulator is None:
        raise ExpressifError("expressif-scope",
                             "a dataset program must end in an accumulator (count, sum, min, "
                             "max, any, every)")
    accumulator = program.accumulator
    if accumulator is not None and accumulator.name in ("first", "last"):
        raise ExpressifError("expressif-unsupported",
                             f"'{accumulator.written}' needs a row order, which a table does "
                             "not have; use min or max of an ordering column", accumulator.name)
