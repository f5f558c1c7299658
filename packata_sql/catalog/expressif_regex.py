"""Expressif's `matches-regex` pattern (.NET `Regex` with `RegexOptions.IgnoreCase`, the only
form a program can write) as a pattern of packata-sql's own meaning (RE2's, docs/semantics.md
3.3), for the subset where the two provably match the same texts; anything else is a finding.

.NET differs from RE2 in ways no spelling removes: case-insensitive matching follows the host's
culture (`i`/`İ` in Turkish) and folds `K` with the Kelvin sign, `\\d \\w \\s \\b` are Unicode
classes, `.` and negated classes match one UTF-16 code unit (half a character beyond U+FFFF),
and `$` also matches before a final new line. So the subset admits no cased letter anywhere
(literal or inside a range), no `.`, no negated class, no escape but an escaped operator or
`\\t \\n \\r \\f`, no `(?…)` construct but `(?:`, no `$` but a final one (rewritten `\\n?$`), and
braces only as a quantifier. The result then goes through the guards every pattern goes
through (catalog/patterns.py: length, one meaning on every engine, catastrophic backtracking).
"""

from __future__ import annotations

import re

import sqlglot.expressions as exp

from packata_sql.authored.expressif import ExpressifError
from packata_sql.catalog.expressif_operations import Rendering, UnsupportedOnEngine, blank
from packata_sql.catalog.patterns import backtracking_problem, pattern_problem
from packata_sql.dialects.regex import portable

_QUANTIFIER = re.compile(r"\{\d+(?:,\d*)?\}")
_ESCAPED_OPERATORS = frozenset("\\^$.|?*+()[]{}-/ #&~,:=!<>'\"%@")
_CONTROL_ESCAPES = frozenset("tnrf")
_CONTROLS = {"t": "\t", "n": "\n", "r": "\r", "f": "\f"}


def _cased(char: str) -> bool:
    return char.lower() != char or char.upper() != char or char.casefold() != char


def _character_problem(char: str) -> str | None:
    if ord(char) > 0xFFFF:
        return "a character beyond U+FFFF is two UTF-16 code units to .NET"
    if _cased(char):
        return ("a letter: a program's matches-regex ignores case the way the host culture "
                "does (i/İ, K and the Kelvin sign), which no engine reproduces")
    return None


def _escape(pattern: str, index: int) -> tuple[str | None, str | None]:
    """(the escape as written, or None; a problem, or None) for the escape at `index`."""
    following = pattern[index + 1:index + 2]
    if following in _CONTROL_ESCAPES or following in _ESCAPED_OPERATORS:
        return "\\" + following, None
    return None, (f"the escape \\{following} means something else to .NET (Unicode classes, "
                  "code points)")


def _class(pattern: str, index: int) -> tuple[str, int, str | None]:
    """The character class opening at `index`: (its text, the index after it, a problem)."""
    start = index
    index += 1
    if pattern[index:index + 1] == "^":
        return "", index, "a negated class matches half a character beyond U+FFFF in .NET"
    tokens: list[tuple[str, bool]] = []  # (character, whether it is an unescaped '-')
    while index < len(pattern) and (pattern[index] != "]" or not tokens):
        char = pattern[index]
        if char == "[":
            return "", index, "'[' inside a class (.NET subtraction, POSIX names)"
        if char == "\\":
            written, problem = _escape(pattern, index)
            if problem:
                return "", index, problem
            assert written is not None
            tokens.append((_CONTROLS.get(written[1], written[1]), False))
            index += 2
            continue
        tokens.append((char, char == "-"))
        index += 1
    if index >= len(pattern):
        return "", index, "an unterminated character class"
    members = [char for char, _dash in tokens]
    for at in range(1, len(tokens) - 1):
        if tokens[at][1]:
            low, high = ord(tokens[at - 1][0]), ord(tokens[at + 1][0])
            members += [chr(c) for c in range(low, high + 1)]
    for member in members:
        if (problem := _character_problem(member)) is not None:
            return "", index, problem
    return pattern[start:index + 1], index + 1, None


def dotnet_pattern(pattern: str) -> tuple[str | None, str | None]:
    """(the pattern in packata-sql's meaning, None) or (None, why it has none)."""
    out: list[str] = []
    index = 0
    while index < len(pattern):
        char = pattern[index]
        if char == "\\":
            written, problem = _escape(pattern, index)
            if problem:
                return None, problem
            assert written is not None
            out.append(written)
            index += 2
        elif char == "[":
            text, index, problem = _class(pattern, index)
            if problem:
                return None, problem
            out.append(text)
        elif char == ".":
            return None, "'.' matches half a character beyond U+FFFF in .NET"
        elif char == "$":
            if index != len(pattern) - 1:
                return None, "'$' anywhere but at the very end"
            out.append("\\n?$")  # .NET's `$`: the end, or before a final new line
            index += 1
        elif char == "(" and pattern.startswith("(?", index) and \
                not pattern.startswith("(?:", index):
            return None, "a '(?…)' construct other than '(?:'"
        elif char == "{":
            found = _QUANTIFIER.match(pattern, index)
            if found is None or index == 0:
                return None, "'{' that is not a quantifier"
            out.append(found.group(0))
            index = found.end()
        else:
            if (problem := _character_problem(char)) is not None:
                return None, problem
            out.append(char)
            index += 1
    return "".join(out), None


def render_matches(r: Rendering, value: exp.Expr) -> exp.Expr:
    """`matches-regex(pattern)`: false for NULL and for a text of white space only (.NET's
    `(blank)`), else the engine's search for the pattern in packata-sql's meaning."""
    translated, problem = dotnet_pattern(r.text(0))
    if problem is None:
        assert translated is not None
        problem = pattern_problem(translated)
    if problem is not None:
        raise ExpressifError("expressif-argument",
                             f"'{r.written}': the pattern has no exact meaning outside .NET "
                             f"here: {problem}", "matches-regex")
    assert translated is not None
    dialect = r.dialect
    if dialect.regex_backtracks and (unsafe := backtracking_problem(translated)):
        raise UnsupportedOnEngine(f"'{r.written}': {unsafe} ({dialect.name})", "matches-regex")
    if (engine_problem := dialect.pattern_problem(translated)) is not None:
        raise UnsupportedOnEngine(f"'{r.written}': {engine_problem}", "matches-regex")
    search = dialect.regex_search(value, portable(translated, dialect.regex_flavor))
    white = exp.And(this=exp.GT(this=dialect.char_length(value.copy()),
                                expression=exp.Literal.number(0)),
                    expression=blank(r, value.copy()))
    return exp.And(this=exp.Not(this=exp.paren(white, copy=False)),
                   expression=exp.paren(search, copy=False))
