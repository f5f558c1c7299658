"""The lexer for authored SQL: splits text into code, strings, quoted identifiers, comments and
dollar quotes, following one dialect's `LexicalRules` (docs/semantics.md 4).

A hand-written scanner per dialect, not sqlglot's tokenizer: sqlglot swallows text after command
keywords, treats `{# … #}` and MySQL `/*! … */` as comments, and accepts SQLite `[a]]b]`. Work
is done on offsets, so callers can rebuild the original text around what they change.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from packata_sql.dialects.lexical import LexicalRules

CODE = "code"
STRING = "string"
IDENTIFIER = "identifier"
LINE_COMMENT = "line-comment"
BLOCK_COMMENT = "block-comment"
#: MySQL `/*! … */` and MariaDB `/*M! … */`: the server executes the text inside.
EXECUTABLE_COMMENT = "executable-comment"
#: MySQL `/*+ … */` optimizer hints: read by the server, though not as SQL.
HINT_COMMENT = "hint-comment"
DOLLAR = "dollar-quote"

# Non-ASCII is written `[^\x00-\x7f]`: the range `\u0080-\U0010ffff` compiles 50x slower, at every start.
_DOLLAR_TAG = re.compile(r"\$(?:(?:[A-Za-z_]|[^\x00-\x7f])(?:[A-Za-z0-9_]|[^\x00-\x7f])*)?\$")
_IDENT_CHAR = re.compile(r"[A-Za-z0-9_$]|[^\x00-\x7f]")
# What opens an executable comment and its optional server version (`/*!50000`, `/*M!100101`).
_EXECUTABLE_OPENER = re.compile(r"/\*[Mm]?!\d*")
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


def executable_body(text: str, region: Region) -> tuple[int, int]:
    """The offsets of what the server executes inside an executable or hint comment."""
    opener = _EXECUTABLE_OPENER.match(text, region.start)
    start = opener.end() if opener is not None else region.start + 3  # `/*+`
    return start, region.end - 2


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
        return _comment_at(text, index, rules)
    if char in rules.strings:
        return Region(STRING, index, _quoted_end(text, index, char, rules.strings[char]))
    if char in rules.identifiers:
        closer = rules.identifiers[char]
        doubled = char not in rules.undoubled_identifiers
        return Region(IDENTIFIER, index, _identifier_end(text, index, closer, doubled))
    if char in rules.raw_string_prefixes and following in rules.strings \
            and not _after_word(text, index):
        close = text.find(following, index + 2)
        if close < 0:
            raise LexicalError("unterminated-string", index + 1)
        return Region(STRING, index + 1, close + 1)
    if char in rules.escape_string_prefixes and following == "'" and not _after_word(text, index):
        end = _quoted_end(text, index + 1, "'", True)
        return Region(STRING, index + 1, end)
    if char == "$" and rules.dollar_quotes and not _after_word(text, index):
        tag = _DOLLAR_TAG.match(text, index)
        if tag is not None:
            close = text.find(tag.group(0), tag.end())
            if close < 0:
                raise LexicalError("unterminated-dollar-quote", index)
            return Region(DOLLAR, index, close + len(tag.group(0)))
    return None


def _comment_at(text: str, index: int, rules: LexicalRules) -> Region:
    if rules.executable_comments:
        opener = _EXECUTABLE_OPENER.match(text, index)
        if opener is not None:
            end = _executable_end(text, index, opener.end(), rules)
            return Region(EXECUTABLE_COMMENT, index, end)
        if text.startswith("+", index + 2):
            return Region(HINT_COMMENT, index, _block_end(text, index, rules))
    return Region(BLOCK_COMMENT, index, _block_end(text, index, rules))


def _executable_end(text: str, start: int, position: int, rules: LexicalRules) -> int:
    """MySQL reads an executable comment's text as code: a string or quoted identifier opened
    inside runs past a `*/` it holds, so the comment ends at the first `*/` in code."""
    while position < len(text):
        char = text[position]
        if text.startswith("*/", position):
            return position + 2
        if char in rules.strings:
            position = _quoted_end(text, position, char, rules.strings[char])
        elif char in rules.identifiers:
            closer = rules.identifiers[char]
            position = _identifier_end(text, position, closer, char not in rules.undoubled_identifiers)
        else:
            position += 1
    raise LexicalError("unterminated-comment", start)


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


def _quoted_end(text: str, index: int, quote: str, backslash: bool) -> int:
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
