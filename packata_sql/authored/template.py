"""Authored SQL binding: placeholders are replaced in code only, never inside strings,
quoted identifiers, comments or dollar quotes (docs/semantics.md 4). The text is split by the dialect's
lexer (`scanner`); the output is the original text with only the placeholder spans replaced.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import sqlglot.expressions as exp

from packata_sql.authored.scanner import (
    CODE,
    DOLLAR,
    EXECUTABLE_COMMENT,
    IDENTIFIER,
    STRING,
    LexicalError,
    Region,
    executable_body,
    scan,
)
from packata_sql.authored.side_effects import denied
from packata_sql.dialects import Dialect

#: Each accepted spelling (`{x}` or `${x}`), with the spellings of datacontract-cli contracts.
OBJECT_NAMES = frozenset({"object", "table", "model"})
PROPERTY_NAMES = frozenset({"property", "column", "field"})
SCHEMA_NAMES = frozenset({"schema"})
#: `{observation_time}`: the run's observation instant, bound as a typed timestamp parameter
#: (docs/semantics.md 1.5), so authored SQL never needs `now()` and a run can be replayed.
OBSERVATION_PARAMETER = "observation_time"
#: datacontract-cli placeholders that name server settings packata-sql does not read.
FOREIGN_NAMES = frozenset({"dataset", "project", "catalog", "database"})
# `{schema}.` right before an object placeholder qualifies it (datacontract-cli's
# `{schema}.{model}`): the pair is one match, so it is not qualified twice.
PLACEHOLDER = re.compile(
    r"(?P<qualifier>\$?\{schema\}\.(?=\$?\{(?:object|table|model)\}))?"
    r"\$?\{(?P<name>[A-Za-z_][A-Za-z0-9_]*)(?::(?P<argument>[A-Za-z_][A-Za-z0-9_]*))?\}"
)
#: A `{param:…}` whose name PLACEHOLDER does not accept (`{param:1a}`, `{param:a-b}`): without
#: this it would stay in the SQL as text and fail on the engine.
_MALFORMED_PARAMETER = re.compile(r"\$?\{param:(?P<name>[^{}]*)\}")


@dataclass(frozen=True)
class Problem:
    """A binding finding before it is tied to a rule: a stable code and a safe message."""

    code: str
    message: str


@dataclass(frozen=True)
class Bound:
    sql: str
    #: Parameter names in marker order; with named markers (Spark `:name`) each name once, in
    #: order of first use.
    parameters: tuple[str, ...]


_LEXICAL_MESSAGES = {
    "unterminated-string": "a string literal is not terminated",
    "unterminated-identifier": "a quoted identifier is not terminated",
    "unterminated-comment": "a block comment is not terminated",
    "unterminated-dollar-quote": "a dollar-quoted string is not terminated",
}


@dataclass(frozen=True)
class Names:
    """What the placeholders stand for in one rule."""

    object_segments: Sequence[str] | None  # already led by the declared schema, if any
    property_name: str | None
    schema: Sequence[str] = ()  # the declared schema (server `schema` or URL `?schema=`)


def bind(
    text: str,
    dialect: Dialect,
    object_segments: Sequence[str] | None,
    property_name: str | None,
    schema: Sequence[str] = (),
) -> tuple[Bound | None, list[Problem]]:
    """Replaces placeholders in code regions; returns the bound SQL or the problems found."""
    try:
        regions = scan(text, dialect.lexical)
        problems = _refusals(text, regions, dialect)
    except LexicalError as error:
        return None, [Problem(error.code, _LEXICAL_MESSAGES[error.code])]
    names = Names(object_segments, property_name, schema)
    pieces: list[str] = []
    parameters: list[str] = []
    ended = False  # a `;` has been seen in code: anything but blanks and comments after it is extra
    for region in regions:
        chunk = text[region.start:region.end]
        if region.kind == CODE:
            _, semicolon, tail = chunk.partition(";")
            if (ended and chunk.strip(_BLANKS)) or (semicolon and tail.strip(_BLANKS)):
                problems.append(_several_statements())
            ended = ended or bool(semicolon)
            chunk = _bind_code(chunk, dialect, names, parameters, problems)
        elif region.kind in (STRING, IDENTIFIER, DOLLAR, EXECUTABLE_COMMENT) and ended:
            problems.append(_several_statements())
        pieces.append(chunk)
    if problems:
        return None, _unique(problems)
    if dialect.named_parameters:
        parameters = list(dict.fromkeys(parameters))
    return Bound(finish("".join(pieces), dialect, bool(parameters)), tuple(parameters)), []


_BLANKS = " \t\r\n\f\v;"


def _several_statements() -> Problem:
    return Problem("several-statements", "the query holds more than one statement")


def _refusals(text: str, regions: list[Region], dialect: Dialect) -> list[Problem]:
    """Executed comments that hold placeholders or `;`, and denied calls or statements."""
    problems: list[Problem] = []
    for region in regions:
        if region.kind != EXECUTABLE_COMMENT:
            continue
        if PLACEHOLDER.search(text, region.start, region.end):
            problems.append(Problem(
                "placeholder-in-executable-comment",
                "a placeholder inside /*! … */ or /*M! … */, which MySQL/MariaDB execute, "
                "is not replaced",
            ))
        start, end = executable_body(text, region)
        body = text[start:end]
        if any(r.kind == CODE and ";" in body[r.start:r.end] for r in scan(body, dialect.lexical)):
            problems.append(Problem(
                "semicolon-in-executable-comment",
                "a ';' inside /*! … */ or /*M! … */, which MySQL/MariaDB execute, "
                "starts another statement",
            ))
    for hit in denied(text, regions, dialect.lexical, dialect.deny):
        what = f"calls {hit.name}()" if hit.kind == "function" else f"runs {hit.name}"
        problems.append(Problem(
            f"denied-{hit.kind}",
            f"the query {what}, which acts beyond reading (other sessions, locks, settings, "
            f"sequences, files, network or time) and is refused in authored SQL for "
            f"{dialect.name}",
        ))
    return problems


def _bind_code(chunk: str, dialect: Dialect, names: Names, parameters: list[str],
               problems: list[Problem]) -> str:
    def replace(match: re.Match[str]) -> str:
        name, argument = match.group("name"), match.group("argument")
        if match.group("qualifier") and not names.schema:
            problems.append(_unresolved("schema", names) or _unknown("schema"))
            return match.group(0)
        if name == "param" and argument:
            parameters.append(argument)
            return _MARKER_OPEN + argument + _MARKER_CLOSE
        if name == OBSERVATION_PARAMETER and argument is None:
            parameters.append(name)
            return _MARKER_OPEN + name + _MARKER_CLOSE
        problem = _unresolved(name, names) if argument is None else None
        if problem is not None:
            problems.append(problem)
            return match.group(0)
        if argument is None and name in OBJECT_NAMES:
            return dialect.quote_path(names.object_segments or ())
        if argument is None and name in PROPERTY_NAMES:
            return dialect.quote_identifier(names.property_name or "")
        if argument is None and name in SCHEMA_NAMES:
            return dialect.quote_path(names.schema)
        problems.append(_unknown(name))
        return match.group(0)

    bound = PLACEHOLDER.sub(replace, chunk)
    for malformed in _MALFORMED_PARAMETER.finditer(bound):
        problems.append(_malformed(malformed.group("name"), dialect))
    return bound


def _malformed(name: str, dialect: Dialect) -> Problem:
    shown = name if len(name) <= 40 else name[:40] + "…"
    marker = f"; {dialect.name} binds it as the named parameter ':NAME'" \
        if dialect.named_parameters else ""
    return Problem("invalid-parameter-name",
                   f"'{{param:{shown}}}' is not a parameter name: use letters, digits and '_', "
                   f"not starting with a digit (as in --param NAME=VALUE){marker}")


def _unresolved(name: str, names: Names) -> Problem | None:
    """Why a known placeholder has nothing to stand for in this rule, or None."""
    if name in OBJECT_NAMES and names.object_segments is None:
        return Problem("unresolved-object", "the rule's object has no name")
    if name in PROPERTY_NAMES and names.property_name is None:
        return Problem("property-placeholder-without-property",
                       f"'{{{name}}}' is used in a rule that is not declared on a property")
    if name in SCHEMA_NAMES and not names.schema:
        return Problem("schema-placeholder-without-schema",
                       f"'{{{name}}}' is used but no schema is declared: set the server's "
                       "'schema' or add ?schema= to the URL")
    return None


def _unknown(name: str) -> Problem:
    if name in FOREIGN_NAMES:
        return Problem("unknown-placeholder",
                       f"'{{{name}}}' is a datacontract-cli placeholder packata-sql does not "
                       "resolve: write the name, or use {object} or {schema}")
    return Problem("unknown-placeholder",
                   f"unknown placeholder '{{{name}}}' (use {{object}}, {{property}}, {{schema}}, "
                   "{observation_time} or {param:NAME})")


# A marker that cannot occur in SQL text, swapped for the driver's marker after `%` escaping.
_MARKER_OPEN, _MARKER_CLOSE = "\x00packata-param:", "\x00"
_MARKERS = re.compile("\x00packata-param:([A-Za-z0-9_]*)\x00")
# A named marker touching a word would read as another name (`:a` + `1` is `:a1`).
_WORD = re.compile(r"[\w$:\x00]")


def parameter(name: str) -> exp.Expr:
    """A driver parameter in a generated sqlglot tree: rendered as the marker, which
    `finish` swaps for the driver's own after rendering. `name`: letters, digits, `_`."""
    return exp.Var(this=f"{_MARKER_OPEN}{name}{_MARKER_CLOSE}")


def inline(tree: exp.Expr, values: Mapping[str, str]) -> exp.Expr:
    """`tree` with the parameters named in `values` written as string literals, which sqlglot
    quotes. Only for a contract's own values where no driver binds them (a date or timestamp
    bound in the dbt gate's plan); never for data or a run's parameters."""
    markers = {f"{_MARKER_OPEN}{name}{_MARKER_CLOSE}": value for name, value in values.items()}

    def literal(node: exp.Expr) -> exp.Expr:
        if isinstance(node, exp.Var) and node.this in markers:
            return exp.Literal.string(markers[node.this])
        return node

    return tree.transform(literal)


def finish(sql: str, dialect: Dialect, has_parameters: bool) -> str:
    """Escapes `%` for `%`-style drivers when parameters are passed, then writes markers:
    the driver's positional marker, or `:name` where the dialect binds by name."""
    if dialect.percent_escapes and (has_parameters or dialect.always_parameters):
        sql = sql.replace("%", "%%")

    def marker(match: re.Match[str]) -> str:
        if not dialect.named_parameters:
            return dialect.parameter_marker
        start, end = match.span()
        before = " " if start and _WORD.match(sql[start - 1]) else ""
        after = " " if end < len(sql) and _WORD.match(sql[end]) else ""
        return f"{before}:{match.group(1)}{after}"

    return _MARKERS.sub(marker, sql)


def _unique(problems: list[Problem]) -> list[Problem]:
    seen: dict[str, Problem] = {}
    for problem in problems:
        seen.setdefault(problem.code + problem.message, problem)
    return list(seen.values())
