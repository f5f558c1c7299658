"""Everything that makes one engine different lives in its module here; nothing else asks
"which engine am I?". `get_dialect` is the only registry."""

from __future__ import annotations

from collections.abc import Sequence
from enum import Enum
from fractions import Fraction

import sqlglot.expressions as exp


class Family(Enum):
    """What kind of cell a column holds, as far as typed comparison is concerned."""

    TEXT = "text"
    NUMBER = "number"
    BOOLEAN = "boolean"
    TEMPORAL = "temporal"
    OTHER = "other"
    DYNAMIC = "dynamic"  # any cell may hold any type (SQLite): guard each comparison at run time


class Dialect:
    """Base rendering rules; one subclass per engine overrides what differs."""

    name: str = ""
    sqlglot_name: str = ""
    #: Whether the engine matches quoted identifiers case-insensitively (DuckDB, SQLite).
    case_insensitive_names: bool = False
    #: Whether any cell may hold any type, so typed comparisons are guarded per cell.
    dynamic_typing: bool = False

    def identifier(self, name: str) -> exp.Identifier:
        return exp.Identifier(this=name, quoted=True)

    def column(self, name: str) -> exp.Column:
        return exp.Column(this=self.identifier(name))

    def table(self, segments: Sequence[str]) -> exp.Table:
        parts = [self.identifier(segment) for segment in segments]
        if len(parts) == 1:
            return exp.Table(this=parts[0])
        if len(parts) == 2:
            return exp.Table(this=parts[1], db=parts[0])
        return exp.Table(this=parts[-1], db=parts[-2], catalog=parts[-3])

    def render(self, expression: exp.Expr) -> str:
        return expression.sql(dialect=self.sqlglot_name)

    def same_name(self, left: str, right: str) -> bool:
        if self.case_insensitive_names:
            return left.casefold() == right.casefold()
        return left == right

    # Typed comparisons (SEMANTICS 3.2): text is compared binary, never through a cast.
    def text_equals(self, column: exp.Expr, text: str) -> exp.Expr:
        raise NotImplementedError

    def number_equals(self, column: exp.Expr, number: Fraction) -> exp.Expr:
        return exp.EQ(this=column, expression=number_literal(number))

    def boolean_equals(self, column: exp.Expr, value: bool) -> exp.Expr:
        return exp.EQ(this=column, expression=exp.Boolean(this=value))

    def is_text(self, column: exp.Expr) -> exp.Expr | None:
        """A run-time guard that the cell holds text, for dynamically typed engines."""
        return None

    def binary_key(self, column: exp.Expr) -> exp.Expr:
        """The column as a key compared byte for byte (duplicates ignore the collation)."""
        return column

    def regex_search(self, column: exp.Expr, pattern: str) -> exp.Expr:
        raise NotImplementedError

    def pattern_problem(self, pattern: str) -> str | None:
        """Why the engine cannot run this (already guarded) pattern, or None."""
        return None

    def family(self, type_name: str) -> Family:
        return Family.OTHER


def number_literal(number: Fraction) -> exp.Expr:
    """An exact numeric literal: integers as integers, terminating decimals in plain notation."""
    from packata_sql.values import format_value

    return exp.Literal.number(format_value(number))


def get_dialect(name: str) -> Dialect:
    """Raises KeyError for an engine packata-sql cannot render."""
    from packata_sql.dialects.duckdb import DuckDB
    from packata_sql.dialects.sqlite import SQLite

    known: dict[str, type[Dialect]] = {"duckdb": DuckDB, "sqlite": SQLite}
    return known[name]()


DIALECT_NAMES = ("duckdb", "sqlite")
