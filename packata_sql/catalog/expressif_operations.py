"""What each Expressif operation means in SQL: its types, its arguments and its rendering,
with the engines that cannot give it the language's exact meaning.

The meanings are the language's own conformance cases (tests/expressif/conformance), run on
every live engine by integration/test_expressif_conformance.py.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from fractions import Fraction

import sqlglot.expressions as exp

from packata_sql.authored.expressif import Call, ExpressifError, Interval
from packata_sql.dialects import LINE_BREAKS, Dialect, data_type, number_literal


class UnsupportedOnEngine(ExpressifError):
    """An operation the engine cannot give the exact meaning of: a finding on that engine."""

    def __init__(self, message: str, operation: str | None = None) -> None:
        super().__init__("expressif-unsupported-on-engine", message, operation)


@dataclass(frozen=True)
class Typed:
    """A rendered value and what it holds (text, number, boolean, temporal, any)."""

    expression: exp.Expr
    family: str


@dataclass(frozen=True)
class Rendering:
    """What one operation's rendering is handed: the engine and its checked arguments."""

    dialect: Dialect
    written: str
    arguments: tuple[object, ...]

    def value(self, index: int) -> exp.Expr:
        argument = self.arguments[index]
        assert isinstance(argument, Typed)
        return argument.expression

    def optional(self, index: int, default: exp.Expr) -> exp.Expr:
        return self.value(index) if index < len(self.arguments) else default

    def digits(self, index: int, most: int) -> int:
        """A whole-number literal argument, as the compile-time integer it is, at most `most`
        (a bound the operation's meaning or the engine's memory sets: it is rendered into SQL
        as a literal)."""
        argument = self.arguments[index]
        literal = argument.expression if isinstance(argument, Typed) else None
        sign = 1
        if isinstance(literal, exp.Neg):  # sqlglot writes -1 as NEG(1)
            literal, sign = literal.this, -1
        if not isinstance(literal, exp.Literal) or literal.is_string:
            raise ExpressifError("expressif-argument",
                                 f"'{self.written}' takes its digits as a number written in the "
                                 "program, not a variable")
        if sign < 0:
            raise ExpressifError("expressif-argument",
                                 f"'{self.written}' takes a whole number of 0 or more, not "
                                 f"-{literal.this}")
        if not str(literal.this).isdigit() or len(str(literal.this)) > len(str(most)) \
                or int(literal.this) > most:
            raise ExpressifError("expressif-argument",
                                 f"'{self.written}' takes a whole number from 0 to {most}, not "
                                 f"{str(literal.this)[:20]}")
        return int(literal.this)

    def character(self, index: int) -> str:
        """A one-character literal argument (a .NET `char`: one UTF-16 code unit), as the
        compile-time character it is."""
        argument = self.arguments[index]
        literal = argument.expression if isinstance(argument, Typed) else None
        text = literal.this if isinstance(literal, exp.Literal) else None
        if not isinstance(text, str) or len(text) != 1 or ord(text) > 0xFFFF \
                or 0xD800 <= ord(text) <= 0xDFFF:
            raise ExpressifError("expressif-argument",
                                 f"'{self.written}' takes one character (up to U+FFFF) written "
                                 "in the program, not a variable or a longer text")
        return text

    def text(self, index: int) -> str:
        """A text literal argument, as the compile-time text it is."""
        argument = self.arguments[index]
        literal = argument.expression if isinstance(argument, Typed) else None
        if not isinstance(literal, exp.Literal) or not literal.is_string:
            raise ExpressifError("expressif-argument",
                                 f"'{self.written}' takes a text written in the program, not a "
                                 "variable")
        return str(literal.this)

    def interval(self, index: int) -> Interval:
        argument = self.arguments[index]
        assert isinstance(argument, Interval)
        return argument


Render = Callable[[Rendering, exp.Expr], exp.Expr]


@dataclass(frozen=True)
class Operation:
    #: The family read ("nothing": only the arguments are) and the one returned ("same":
    #: what was read; "arguments": what the arguments share).
    reads: str
    returns: str
    render: Render
    #: Parameter kinds in order: number, integer, text, boolean, interval, predication, value
    #: (any family); a trailing "?" marks an optional one, "*" any number more.
    parameters: tuple[str, ...] = ()
    #: Whether the rendering is chosen per engine (else one portable tree).
    per_dialect: bool = False
    #: Why this engine cannot give the exact meaning, asked of its dialect (case mapping).
    problem: Callable[[Dialect], str | None] | None = None

    def refusal(self, dialect: Dialect) -> str | None:
        """Why the operation cannot keep its meaning on this engine, or None."""
        return self.problem(dialect) if self.problem is not None else None


def as_boolean(predicate: exp.Expr) -> exp.Expr:
    """Two-valued: NULL is false (docs/semantics.md, Expressif)."""
    return exp.Coalesce(this=exp.paren(predicate, copy=False), expressions=[exp.false()])


_NUMBER = re.compile(r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)")


def typed_literal(call: Call, kind: str, text: str) -> exp.Expr:
    """An unquoted program literal typed by the parameter that takes it (program text, so a
    sqlglot literal, never a binding)."""
    if text == "(null)":
        return exp.Null()
    if text == "(empty)" and kind == "text":
        return exp.Literal.string("")
    if kind in ("number", "integer"):
        if not _NUMBER.fullmatch(text.strip()):
            raise ExpressifError("expressif-argument",
                                 f"'{call.written}' takes a number, not {text!r}", call.name)
        try:
            number = Fraction(Decimal(text.strip()))
        except InvalidOperation:  # pragma: no cover (the pattern admits only numbers)
            raise ExpressifError("expressif-argument", f"{text!r} is not a number",
                                 call.name) from None
        if kind == "integer" and number.denominator != 1:
            raise ExpressifError("expressif-argument",
                                 f"'{call.written}' takes a whole number, not {text!r}", call.name)
        return number_literal(number)
    if kind == "temporal":
        return temporal_literal(call, text)
    if kind == "boolean":
        folded = text.strip().lower()
        if folded not in ("true", "false"):
            raise ExpressifError("expressif-argument",
                                 f"'{call.written}' takes true or false, not {text!r}", call.name)
        return exp.Boolean(this=folded == "true")
    return exp.Literal.string(text)


def temporal_literal(call: Call, text: str) -> exp.Expr:
    """An ISO date (`2022-11-21`) or date and time (`2022-11-21T10:00:00`) as a typed literal."""
    from datetime import date, datetime

    written = text.strip()
    try:
        if len(written) == 10:
            return exp.cast(exp.Literal.string(date.fromisoformat(written).isoformat()),
                            data_type("DATE"))
        moment = datetime.fromisoformat(written)
    except ValueError:
        raise ExpressifError("expressif-argument",
                             f"'{call.written}' takes an ISO date or date and time "
                             f"(2022-11-21, 2022-11-21T10:00:00), not {text!r}",
                             call.name) from None
    if moment.tzinfo is not None:
        raise ExpressifError("expressif-argument",
                             f"'{call.written}' takes a date and time without a zone offset",
                             call.name)
    return exp.cast(exp.Literal.string(moment.isoformat(sep=" ")), data_type("TIMESTAMP"))


def paren(node: exp.Expr) -> exp.Expr:
    return exp.paren(node, copy=False)


def number(text: str) -> exp.Expr:
    return number_literal(Fraction(Decimal(text)))


def within(interval: Interval, value: exp.Expr) -> exp.Expr:
    tests: list[exp.Expr] = []
    if interval.lower is not None:
        op: type[exp.Binary] = exp.GTE if interval.lower_closed else exp.GT
        tests.append(op(this=value, expression=number(interval.lower)))
    if interval.upper is not None:
        op = exp.LTE if interval.upper_closed else exp.LT
        tests.append(op(this=value, expression=number(interval.upper)))
    if not tests:
        return exp.Not(this=exp.Is(this=value, expression=exp.Null()))
    return exp.and_(*tests) if len(tests) > 1 else tests[0]


def compare(op: type[exp.Binary]) -> Render:
    return lambda r, v: op(this=v, expression=r.value(0))


def constant(op: type[exp.Binary], number: int) -> Render:
    return lambda r, v: op(this=v, expression=exp.Literal.number(number))


def mod(value: exp.Expr, modulus: exp.Expr) -> exp.Expr:
    return exp.Mod(this=paren(value), expression=paren(modulus))


def is_null(value: exp.Expr) -> exp.Expr:
    return exp.Is(this=value, expression=exp.Null())


#: What .NET's `char.IsWhiteSpace` (and so `String.Trim`) treats as white space.
WHITESPACE = ("\t\n\u000b\u000c\r \u0085\u00a0\u1680" + "".join(chr(c) for c in range(0x2000, 0x200B))
              + "\u2028\u2029\u202f\u205f\u3000")


#: WHITESPACE as a set, the characters that break a line last (`Dialect.text_literal`
#: writes them one by one: fewer pieces).
WHITESPACE_SET = "".join(sorted(WHITESPACE, key=lambda c: c in LINE_BREAKS))


def trimmed(dialect: Dialect, value: exp.Expr) -> exp.Expr:
    """The text without .NET white space at either end (engines whose TRIM takes a set)."""
    return exp.Trim(this=value, expression=dialect.text_literal(
        dialect.holdable(WHITESPACE_SET)))


def remove_all(dialect: Dialect, value: exp.Expr, characters: str) -> exp.Expr:
    for character in dialect.holdable(characters):
        value = exp.func("REPLACE", value, dialect.text_literal(character),
                         exp.Literal.string(""))
    return value


def blank(r: Rendering, value: exp.Expr) -> exp.Expr:
    """Nothing but .NET white space (empty included): trimmed of that set where the engine's
    TRIM takes a set (one call deep, so that piped functions do not nest the test past a
    parser's depth, SQLite's), else with each character removed."""
    if r.dialect.trim_set_problem() is None:
        stripped = trimmed(r.dialect, value)
    else:
        stripped = remove_all(r.dialect, value, WHITESPACE)
    return exp.EQ(this=r.dialect.char_length(stripped), expression=exp.Literal.number(0))


