"""Expressif rules as columns of the object's fused scan (docs/semantics.md 3.5): a value or
row program counts the items that violate it, a dataset program is one scalar aggregate.
The program itself is rendered by `catalog/expressif.py`; this module decides what the scan
counts and how a variable is read."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import sqlglot.expressions as exp

from packata_sql.authored.expressif import ExpressifError, Program
from packata_sql.catalog.base import EngineRefused, MeasureContext, TypeMismatch, rows_where
from packata_sql.catalog.expressif_operations import WHITESPACE, trimmed
from packata_sql.contracts.model import Expectation, Operator, Rule
from packata_sql.dialects import Dialect, Family, number_literal

#: What a variable (`@name`) reads in SQL: a driver marker the run binds, never a literal.
VariableReader = Callable[[str], exp.Expr]


@dataclass(frozen=True)
class ExpressifRule:
    """A compiled Expressif definition: the parsed program and what its columns are. The
    plan's columns are the subject (the rule's property, when `on_property`) followed by the
    `[field]` columns in `field_names` order, so a run resolves them as it resolves any
    column of a library rule."""

    program: Program
    field_names: tuple[str, ...] = ()
    on_property: bool = False
    #: An expression's expectations, applied to each item (value and row scope).
    item_expectations: tuple[Expectation, ...] = ()

    @property
    def kind(self) -> str:
        """The measure's name in plans and reports."""
        return f"expressif:{self.program.scope}"

    @property
    def per_item(self) -> bool:
        return self.program.scope in ("value", "row")

    @property
    def boolean(self) -> bool:
        """The measurement is true or false (a dataset `any` or `every`), not a number."""
        return boolean_result(self.program)


#: Accumulators whose result is a boolean.
BOOLEAN_ACCUMULATORS = frozenset({"any", "every"})


def boolean_result(program: Program) -> bool:
    accumulator = program.accumulator
    return program.scope == "dataset" and accumulator is not None \
        and accumulator.name in BOOLEAN_ACCUMULATORS


def _unbound(name: str) -> exp.Expr:
    raise ExpressifError("expressif-variable", f"no value is bound for '@{name}'", name)


class ExpressifHandler:
    """The scan column of one Expressif rule."""

    name = "expressif"
    threshold_hint = "'mustBe: 0'"

    def __init__(self, variable: VariableReader = _unbound) -> None:
        self.variable = variable

    def inputs(self, definition: ExpressifRule, context: MeasureContext,
               columns: tuple[str, ...]) -> dict[str, Any]:
        """The renderer's keyword arguments: the subject cell, the `[field]` columns and the
        families the columns are known to hold (each checked against what reads it)."""
        offset = 1 if definition.on_property else 0
        named = dict(zip(definition.field_names, columns[offset:], strict=True))
        return {
            "subject": context.column(columns[0]) if definition.on_property else None,
            "subject_family": context.family(columns[0]) if definition.on_property else None,
            "fields": {name: context.column(column) for name, column in named.items()},
            "field_families": {name: context.family(column) for name, column in named.items()},
            "variable": self.variable,
        }

    def item_check(self, definition: ExpressifRule, context: MeasureContext,
                   columns: tuple[str, ...]) -> exp.Expr:
        """True for an item that satisfies the rule, never NULL (Expressif is two-valued)."""
        from packata_sql.catalog.expressif import render

        try:
            rendered = render(definition.program, context.dialect,
                              **self.inputs(definition, context, columns))
        except ExpressifError as refused:
            raise _mismatch(refused) from refused
        if definition.program.kind == "predicate":
            return rendered
        checks = [_holds(rendered, e) for e in definition.item_expectations]
        combined = checks[0]
        for check in checks[1:]:
            combined = exp.And(this=combined, expression=check)
        return exp.Coalesce(this=exp.paren(combined), expressions=[exp.false()])

    def count(self, rule: Rule, definition: ExpressifRule, context: MeasureContext,
              columns: tuple[str, ...]) -> exp.Expr:
        """Value/row: the items that violate the rule; dataset: the accumulator's scalar (a
        predicate's as 1 or 0, which every engine returns alike)."""
        if definition.per_item:
            check = self.item_check(definition, context, columns)
            violations = exp.Count(this=exp.Case().when(check, exp.null()).else_(
                exp.Literal.number(1)))
            # NULL (the rule inconclusive, IN_BAND) when a text cell is one the language
            # reads as a keyword or a special value rather than as its text (any cell of a
            # dynamically typed column that holds text).
            tests = [_in_band_cell(context, c) for c in columns
                     if context.family(c) in (Family.TEXT, Family.DYNAMIC, None)
                     and (context.family(c) is not None or context.dialect.dynamic_typing)]
            if not tests:
                return violations
            met = exp.or_(*tests)
            seen = exp.GT(this=exp.Count(this=exp.Case().when(met, exp.Literal.number(1))),
                          expression=exp.Literal.number(0))
            return exp.Case().when(seen, exp.null()).else_(violations)
        from packata_sql.catalog.expressif import render_accumulator

        try:
            scalar = render_accumulator(definition.program, context.dialect,
                                        **self.inputs(definition, context, columns))
        except ExpressifError as refused:
            raise _mismatch(refused) from refused
        if definition.boolean:
            return exp.Case().when(scalar, exp.Literal.number(1)).else_(exp.Literal.number(0))
        return scalar

    def inspect(self, rule: Rule, definition: ExpressifRule, context: MeasureContext,
                columns: tuple[str, ...]) -> exp.Select | None:
        """The rows whose item violates a value or row rule; a dataset scalar blames none, and
        a program reading a variable has no query a user could run without its value."""
        if not definition.per_item or definition.program.variables:
            return None
        check = self.item_check(definition, context, columns)
        return rows_where(context, columns, exp.Not(this=exp.paren(check)))


#: The diagnostic of a value or row rule whose text cells hold one the language reads
#: otherwise than as its text (its count is NULL).
IN_BAND = "expressif-in-band-value"
_WHITE_SPACE_CLASS = "".join(f"\\x{{{ord(c):04X}}}" for c in WHITESPACE)


def in_band(dialect: Dialect, text: exp.Expr) -> exp.Expr:
    """Whether Expressif reads the cell as something else than its text: once trimmed of
    white space, it starts with `(` and ends with `)`. That takes in the keywords `(null)`,
    `(empty)` and `(blank)` (any case, white space around: read as NULL, empty and blank)
    and every other parenthesised text, which the text functions answer without reading
    (`lower` keeps it as it is, `length` is NULL)."""
    if dialect.trim_set_problem() is None:
        stripped = trimmed(dialect, dialect.binary_key(text))
        last = exp.Substring(this=stripped.copy(), start=dialect.char_length(stripped.copy()),
                             length=exp.Literal.number(1))
        return exp.and_(
            dialect.text_equals(exp.Substring(this=stripped, start=exp.Literal.number(1),
                                              length=exp.Literal.number(1)), "("),
            dialect.text_equals(last, ")"))
    # MariaDB's TRIM takes no set: PCRE on the text itself.
    return exp.and_(dialect.regex_search(text, f"^[{_WHITE_SPACE_CLASS}]*\\("),
                    dialect.regex_search(text.copy(), f"\\)[{_WHITE_SPACE_CLASS}]*$"))


def _in_band_cell(context: MeasureContext, column: str) -> exp.Expr:
    cell = context.column(column)
    found = in_band(context.dialect, cell)
    is_text = context.dialect.is_text(cell.copy())
    return found if is_text is None else exp.and_(is_text, found)


def _mismatch(refused: ExpressifError) -> TypeMismatch:
    """What rendering at run time raised: an operation this engine's server cannot give its
    meaning (the compile-time trial passed on the dialect alone) is that finding; anything
    else a column of another type than the contract declared."""
    if refused.code == "expressif-unsupported-on-engine":
        named = f"'{refused.operation}': " if refused.operation else ""
        return EngineRefused(refused.code, f"{named}{refused.message}")
    return TypeMismatch(refused.message)


_COMPARISONS: dict[Operator, type[exp.Binary]] = {
    Operator.EQ: exp.EQ, Operator.NE: exp.NEQ, Operator.GT: exp.GT, Operator.GE: exp.GTE,
    Operator.LT: exp.LT, Operator.LE: exp.LTE,
}


def _operand(value: Fraction | bool) -> exp.Expr:
    if isinstance(value, bool):
        return exp.true() if value else exp.false()
    return number_literal(value)


def _holds(value: exp.Expr, expectation: Expectation) -> exp.Expr:
    """One expectation on one item's value, as SQL (NULL never holds: the caller coalesces)."""
    operand = expectation.operand
    if isinstance(operand, tuple):
        low, high = operand
        above = (exp.GTE if expectation.inclusive else exp.GT)(
            this=value.copy(), expression=number_literal(low))
        below = (exp.LTE if expectation.inclusive else exp.LT)(
            this=value.copy(), expression=number_literal(high))
        inside = exp.paren(exp.And(this=above, expression=below))
        if expectation.operator is Operator.BETWEEN:
            return inside
        outside_low = (exp.LT if expectation.inclusive else exp.LTE)(
            this=value.copy(), expression=number_literal(low))
        outside_high = (exp.GT if expectation.inclusive else exp.GTE)(
            this=value.copy(), expression=number_literal(high))
        return exp.paren(exp.Or(this=outside_low, expression=outside_high))
    return _COMPARISONS[expectation.operator](this=exp.paren(value.copy()),
                                              expression=_operand(operand))
