"""Authored SQL binding: placeholders are replaced in code only, never inside strings,
quoted identifiers, comments or dollar quotes (SEMANTICS 4).

A hand-written scanner per dialect (rules in `dialects/`), not sqlglot's tokenizer: sqlglot
swallows text after command keywords, treats `{# … #}` and MySQL `/*! … */` as comments, and
accepts SQLite `[a]]b]`. Work is done on offsets; the output is the original text with only the
placeholder spans replaced.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from packata_sql.dialects import Dialect
from packata_sql.dialects.lexical import LexicalRules

CODE = "code"
STRING = "string"
IDENTIFIER = "identifier"
LINE_COMMENT = "line-comment"
BLOCK_COMMENT = "block-comment"
EXECUTABLE_COMMENT = "executable-comment"
DOLLAR = "dollar-quote"

OBJECT_NAMES = frozenset({"object", "table"})
PROPERTY_NAMES = frozenset({"property", "column"})
PLACEHOLDER = re.compile(r"\$?\{([A-Za-z_][A-Za-z0-9_]*)(?::([A-Za-z_][A-Za-z0-9_]*))?\}")
# Non-ASCII is written `[^\x00-\x7f]`: the range `\u0080-\U0010ffff` compiles 50x slower, at every start.
_DOLLAR_TAG = re.compile(r"\$(?:(?:[A-Za-z_]|[^\x00-\x7f])(?:[A-Za-z0-9_]|[^\x00-\x7f])*)?\$")
_IDENT_CHAR = re.compile(r"[A-Za-z0-9_$]|[^\x00-\x7f]")
_DASH_FOLLOWERS = " \t\n\r\f\v"


@dataclass(frozen=True)
class Region:
    kind: str
    start: int
    end: int


@dataclass(frozen=True)
class LexicalError(Exception):
    """A region that never ends: the text cannot be split safely."""

    code: str
    offset: int


@dataclass(frozen=True)
class Problem:
    """A binding finding before it is tied to a rule: a stable code and a safe message."""

    code: str
    message: str


@dataclass(frozen=True)
class Bound:
    sql: str
    parameters: tuple[str, ...]  # parameter names, in marker order


def scan(text: str, rules: LexicalRules) -> list[Region]:
    """Splits `text` into regions; raises LexicalError for an unterminated one."""
    regions: list[Region] = []
    code_start = 0
    index = 0
    length = len(text)
    while index < length:
        found = _region_at(text, index, rules)
        if found is None:
            index += 1
            continue
        if code_start < found.start:
            regions.append(Region(CODE, code_start, found.start))
        regions.append(found)
        index = code_start = found.end
    if code_start < length:
        regions.append(Region(CODE, code_start, length))
    return regions


def _region_at(text: str, index: int, rules: LexicalRules) -> Region | None:
    char = text[index]
    following = text[index + 1] if index + 1 < len(text) else ""
    if char == "-" and following == "-" and (
        not rules.dash_comment_needs_space or index + 2 >= len(text)
        or text[index + 2] in _DASH_FOLLOWERS
    ):
        return Region(LINE_COMMENT, index, _line_end(text, index, rules))
    if char == "#" and rules.hash_comments:
        return Region(LINE_COMMENT, index, _line_end(text, index, rules))
    if char == "/" and following == "*":
        kind = EXECUTABLE_COMMENT if rules.executable_comments and text.startswith("!", index + 2) \
            else BLOCK_COMMENT
        return Region(kind, index, _block_end(text, index, rules))
    if char in rules.strings:
        return Region(STRING, index, _quoted_end(text, index, char, rules.strings[char], STRING))
    if char in rules.identifiers:
        closer = rules.identifiers[char]
        doubled = char not in rules.undoubled_identifiers
        return Region(IDENTIFIER, index, _identifier_end(text, index, closer, doubled))
    if char in rules.escape_string_prefixes and following == "'" and not _after_word(text, index):
        end = _quoted_end(text, index + 1, "'", True, STRING)
        return Region(STRING, index + 1, end)
    if char == "$" and rules.dollar_quotes and not _after_word(text, index):
        tag = _DOLLAR_TAG.match(text, index)
        if tag is not None:
            close = text.find(tag.group(0), tag.end())
            if close < 0:
                raise LexicalError("unterminated-dollar-quote", index)
            return Region(DOLLAR, index, close + len(tag.group(0)))
    return None


def _after_word(text: str, index: int) -> bool:
    return index > 0 and _IDENT_CHAR.match(text[index - 1]) is not None


def _line_end(text: str, index: int, rules: LexicalRules) -> int:
    ends = [text.find("\n", index)]
    if rules.cr_ends_line_comment:
        ends.append(text.find("\r", index))
    found = [e for e in ends if e >= 0]
    return min(found) if found else len(text)


def _block_end(text: str, index: int, rules: LexicalRules) -> int:
    depth = 0
    position = index
    while position < len(text) - 1:
        pair = text[position:position + 2]
        if pair == "/*" and (depth == 0 or rules.nested_block_comments):
            depth += 1
            position += 2
        elif pair == "*/":
            depth -= 1
            position += 2
            if depth == 0:
                return position
        else:
            position += 1
    raise LexicalError("unterminated-comment", index)


def _quoted_end(text: str, index: int, quote: str, backslash: bool, kind: str) -> int:
    position = index + 1
    while position < len(text):
        char = text[position]
        if backslash and char == "\\":
            position += 2
            continue
        if char == quote:
            if text.startswith(quote, position + 1):
                position += 2
                continue
            return position + 1
        position += 1
    raise LexicalError("unterminated-string", index)


def _identifier_end(text: str, index: int, closer: str, doubled: bool) -> int:
    position = index + 1
    while position < len(text):
        if text[position] == closer:
            if doubled and text.startswith(closer, position + 1):
                position += 2
                continue
            return position + 1
        position += 1
    raise LexicalError("unterminated-identifier", index)


_LEXICAL_MESSAGES = {
    "unterminated-string": "a string literal is not terminated",
    "unterminated-identifier": "a quoted identifier is not terminated",
    "unterminated-comment": "a block comment is not terminated",
    "unterminated-dollar-quote": "a dollar-quoted string is not terminated",
}


def bind(
    text: str,
    dialect: Dialect,
    object_segments: Sequence[str] | None,
    property_name: str | None,
) -> tuple[Bound | None, list[Problem]]:
    """Replaces placeholders in code regions; returns the bound SQL or the problems found."""
    try:
        regions = scan(text, dialect.lexical)
    except LexicalError as error:
        return None, [Problem(error.code, _LEXICAL_MESSAGES[error.code])]
    problems: list[Problem] = []
    pieces: list[str] = []
    parameters: list[str] = []
    ended = False  # a `;` has been seen in code: anything but blanks and comments after it is extra
    for region in regions:
        chunk = text[region.start:region.end]
        if region.kind == EXECUTABLE_COMMENT and PLACEHOLDER.search(chunk):
            problems.append(Problem(
                "placeholder-in-executable-comment",
                "a placeholder inside /*! … */, which MySQL executes, is not replaced",
            ))
        if region.kind == CODE:
            _, semicolon, tail = chunk.partition(";")
            if (ended and chunk.strip(_BLANKS)) or (semicolon and tail.strip(_BLANKS)):
                problems.append(_several_statements())
            ended = ended or bool(semicolon)
            chunk = _bind_code(chunk, dialect, object_segments, property_name, parameters, problems)
        elif region.kind in (STRING, IDENTIFIER, DOLLAR) and ended:
            problems.append(_several_statements())
        pieces.append(chunk)
    if problems:
        return None, _unique(problems)
    return Bound(finish("".join(pieces), dialect, bool(parameters)), tuple(parameters)), []


_BLANKS = " \t\r\n\f\v;"


def _several_statements() -> Problem:
    return Problem("several-statements", "the query holds more than one statement")


def _bind_code(chunk: str, dialect: Dialect, object_segments: Sequence[str] | None,
               property_name: str | None, parameters: list[str], problems: list[Problem]) -> str:
    def replace(match: re.Match[str]) -> str:
        name, argument = match.group(1), match.group(2)
        if name == "param" and argument:
            parameters.append(argument)
            return _MARKER
        if argument is None and name in OBJECT_NAMES:
            if object_segments is None:
                problems.append(Problem("unresolved-object", "the rule's object has no name"))
                return match.group(0)
            return dialect.quote_path(object_segments)
        if argument is None and name in PROPERTY_NAMES:
            if property_name is None:
                problems.append(Problem(
                    "property-placeholder-without-property",
                    f"'{{{name}}}' is used in a rule that is not declared on a property",
                ))
                return match.group(0)
            return dialect.quote_identifier(property_name)
        problems.append(Problem("unknown-placeholder",
                                f"unknown placeholder '{{{name}}}' (use {{object}}, {{property}} "
                                "or {param:NAME})"))
        return match.group(0)

    return PLACEHOLDER.sub(replace, chunk)


# A marker that cannot occur in SQL text, swapped for the driver's marker after `%` escaping.
_MARKER = "\x00packata-param\x00"


def finish(sql: str, dialect: Dialect, has_parameters: bool) -> str:
    """Escapes `%` for `%`-style drivers when parameters are passed, then writes markers."""
    if dialect.percent_escapes and (has_parameters or dialect.always_parameters):
        sql = sql.replace("%", "%%")
    return sql.replace(_MARKER, dialect.parameter_marker)


def _unique(problems: list[Problem]) -> list[Problem]:
    seen: dict[str, Problem] = {}
    for problem in problems:
        seen.setdefault(problem.code + problem.message, problem)
    return list(seen.values())
