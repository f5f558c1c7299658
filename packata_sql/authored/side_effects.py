"""Defence in depth for authored SQL: calls and statements the lexer finds in code (and in the
code MySQL runs from `/*! … */` comments and reads from `/*+ … */` hints) are checked against
the dialect's deny-list of side-effect functions. The read-only session remains the boundary;
this wall refuses, before anything runs, what would act on other sessions, locks, settings,
sequences, files, the network or time even where a session lets it through."""

from __future__ import annotations

import re
from dataclasses import dataclass

from packata_sql.authored.scanner import (
    CODE,
    DOLLAR,
    EXECUTABLE_COMMENT,
    HINT_COMMENT,
    IDENTIFIER,
    STRING,
    Region,
    executable_body,
    scan,
)
from packata_sql.dialects.lexical import DenyList, LexicalRules

WORD = "word"
QUOTED = "quoted"
LITERAL = "literal"
TEXT = "text"  # a string literal
PUNCT = "punct"
_TOKEN = re.compile(
    r"(?P<word>(?:[A-Za-z_]|[^\x00-\x7f])(?:[A-Za-z0-9_$]|[^\x00-\x7f])*)"
    r"|(?P<number>[0-9][A-Za-z0-9_$.]*)|(?P<space>\s+)|(?P<punct>.)",
    re.DOTALL,
)
_PLAIN_NAME = re.compile(r"[a-z_][a-z0-9_$]*")
# PostgreSQL `U&"…"` identifiers: `\XXXX` / `\+XXXXXX` escapes, or another escape character.
_UESCAPE = re.compile(r"\s*UESCAPE\s*'(.)'", re.IGNORECASE | re.DOTALL)


@dataclass(frozen=True)
class Token:
    kind: str
    text: str


@dataclass(frozen=True)
class Denied:
    """One denied call (`function`) or statement (`statement`), named by its deny-list entry."""

    kind: str
    name: str


def denied(text: str, regions: list[Region], rules: LexicalRules, deny: DenyList) -> list[Denied]:
    """Every denied call or statement in the text, in order, each once."""
    tokens = _tokens(text, regions, rules)
    found: list[Denied] = []
    words = [t.text.lower() if t.kind == WORD else "" for t in tokens]
    if words and words[0] in deny.statements:
        found.append(Denied("statement", words[0].upper()))
    for index, token in enumerate(tokens):
        after_dot = index > 0 and tokens[index - 1] == Token(PUNCT, ".")
        if token.kind in (WORD, QUOTED) and _called(tokens, index):
            entry = deny.denied_function(token.text)
            if entry is not None:
                shown = token.text.lower()
                found.append(Denied("function", shown if _PLAIN_NAME.fullmatch(shown) else entry))
        for phrase in deny.phrases:
            if not after_dot and tuple(words[index:index + len(phrase)]) == phrase:
                found.append(Denied("statement", " ".join(phrase).upper()))
    if deny.string_tables and _string_table(tokens):
        found.append(Denied("statement", "FROM '…'"))
    return list(dict.fromkeys(found))


def denied_anywhere(text: str, regions: list[Region], rules: LexicalRules, deny: DenyList,
                    words: frozenset[str] = frozenset()) -> list[Denied]:
    """`denied`, and a denied statement word (or one of `words`) anywhere in the code, not
    only where the text starts: a function body holds many statements."""
    found = denied(text, regions, rules, deny)
    tokens = _tokens(text, regions, rules)
    for index, token in enumerate(tokens):
        folded = token.text.lower()
        after_dot = index > 0 and tokens[index - 1] == Token(PUNCT, ".")
        if token.kind == WORD and not after_dot and (folded in deny.statements
                                                     or folded in words):
            found.append(Denied("statement", folded.upper()))
    return list(dict.fromkeys(found))


def called(text: str, regions: list[Region], rules: LexicalRules
           ) -> list[tuple[str | None, str]]:
    """Every name the code calls, as (schema or None, name): unquoted names folded to lower
    case, quoted ones as written. Words such as `IN (` or `EXISTS (` are no calls."""
    tokens = _tokens(text, regions, rules)
    found: list[tuple[str | None, str]] = []
    for index, token in enumerate(tokens):
        if token.kind not in (WORD, QUOTED) or not _called(tokens, index):
            continue
        if token.kind == WORD and token.text.lower() in _NOT_CALLS:
            continue
        schema = None
        if index >= 2 and tokens[index - 1] == Token(PUNCT, ".") \
                and tokens[index - 2].kind in (WORD, QUOTED):
            qualifier = tokens[index - 2]
            schema = qualifier.text.lower() if qualifier.kind == WORD else qualifier.text
        found.append((schema, token.text.lower() if token.kind == WORD else token.text))
    return found


# Words after which `(` opens a subquery or a list, not a function's arguments.
_NOT_CALLS = frozenset({"from", "join", "in", "exists", "as", "on", "where", "and", "or", "not",
                        "select", "lateral", "union", "all", "any", "some", "with",
                        "materialized", "by", "values", "using", "having", "when", "then",
                        "else", "intersect", "except", "return", "returning"})


def _string_table(tokens: list[Token]) -> bool:
    """A string where a table goes (`FROM 'f.csv'`, `JOIN 'f.csv'`): DuckDB reads that file.
    `FROM` inside a function's parentheses (`EXTRACT(YEAR FROM '…')`, `TRIM(… FROM '…')`)
    is an argument, not a table."""
    calls: list[bool] = []  # for each open parenthesis: whether it holds a call's arguments
    for index, token in enumerate(tokens):
        before = tokens[index - 1] if index else Token(PUNCT, "")
        if token == Token(PUNCT, "("):
            calls.append(before.kind == QUOTED or (
                before.kind == WORD and before.text.lower() not in _NOT_CALLS))
        elif token == Token(PUNCT, ")") and calls:
            calls.pop()
        elif token.kind == TEXT and before.kind == WORD \
                and before.text.lower() in ("from", "join") and not (calls and calls[-1]):
            return True
    return False


def _called(tokens: list[Token], index: int) -> bool:
    """Whether the name at `index` is followed by `(` (past a PostgreSQL `UESCAPE 'c'`)."""
    following = index + 1
    if following < len(tokens) and tokens[following].kind == WORD \
            and tokens[following].text.lower() == "uescape":
        following += 2
    return following < len(tokens) and tokens[following] == Token(PUNCT, "(")


def _tokens(text: str, regions: list[Region], rules: LexicalRules) -> list[Token]:
    """Words, quoted names, literals and punctuation as the server reads them; comments and
    blanks dropped, executed comment bodies read as code."""
    tokens: list[Token] = []
    for region in regions:
        if region.kind == CODE:
            for match in _TOKEN.finditer(text, region.start, region.end):
                kind = match.lastgroup
                if kind == "word":
                    tokens.append(Token(WORD, match.group()))
                elif kind == "punct":
                    tokens.append(Token(PUNCT, match.group()))
                elif kind == "number":
                    tokens.append(Token(LITERAL, ""))
        elif region.kind == IDENTIFIER:
            name = _unquote(text[region.start:region.end], rules)
            prefix = text[max(0, region.start - 2):region.start]
            if rules.unicode_escape_identifiers and prefix.lower() == "u&":
                escape = _UESCAPE.match(text, region.end)
                name = _unicode_unescape(name, escape.group(1) if escape else "\\")
            tokens.append(Token(QUOTED, name))
        elif region.kind in (STRING, DOLLAR):
            tokens.append(Token(TEXT, ""))
        elif region.kind in (EXECUTABLE_COMMENT, HINT_COMMENT):
            start, end = executable_body(text, region)
            body = text[start:end]
            tokens += _tokens(body, scan(body, rules), rules)
    return tokens


def _unicode_unescape(name: str, escape: str) -> str:
    """The name PostgreSQL reads from a `U&"…"` identifier (unchanged if malformed)."""
    out: list[str] = []
    index = 0
    try:
        while index < len(name):
            if name[index] != escape:
                out.append(name[index])
                index += 1
            elif name.startswith(escape, index + 1):
                out.append(escape)
                index += 2
            elif name.startswith("+", index + 1):
                out.append(chr(int(name[index + 2:index + 8], 16)))
                index += 8
            else:
                out.append(chr(int(name[index + 1:index + 5], 16)))
                index += 5
    except ValueError:
        return name
    return "".join(out)


def _unquote(quoted: str, rules: LexicalRules) -> str:
    opener, inner = quoted[0], quoted[1:-1]
    closer = rules.identifiers[opener]
    return inner if opener in rules.undoubled_identifiers else inner.replace(closer * 2, closer)
