"""Regular expressions spelled per engine, so that one pattern matches the same texts on every
engine (docs/semantics.md 3.3); the guards that refuse patterns live in catalog/patterns.py."""

from __future__ import annotations

import re
from enum import Enum

#: The longest `pattern` a contract may declare (docs/semantics.md 3.3); an engine guard allows 8x for
#: the portable spelling, which is longer than its source.
MAX_PATTERN_LENGTH = 200
BRACES = re.compile(r"\{(\d*)(,?)(\d*)\}")


class Flavor(Enum):
    """How an engine reads a regular expression. A pattern means what it means in RE2 (DuckDB):
    `\\d \\w \\s \\b` and POSIX classes are ASCII, `.` is any character but `\\n`, `$` and `\\Z`
    match only at the very end, and `(?i)` folds ASCII letters only; every flavor, RE2
    included, is given that meaning explicitly."""

    RE2 = "re2"  # DuckDB, BigQuery, SQLite's registered function (RE2 bindings); the
    # generated-only dialects get this text unchanged too
    POSTGRES = "postgres"  # ARE, compared under COLLATE "C"
    ICU_PCRE = "icu-pcre"  # MySQL 8 (ICU) and MariaDB (PCRE2 with Unicode classes)


class NotPortable(ValueError):
    """A construct whose meaning differs between engines and has no portable spelling."""


_WORD = "0-9A-Za-z_"
_SPACE = "\t\n\f\r "  # RE2's \s: no vertical tab
_SHORTHANDS = {"d": "0-9", "w": _WORD, "s": _SPACE}
_POSIX = {
    "alnum": "0-9A-Za-z", "alpha": "A-Za-z", "ascii": "\x01-\x7f", "blank": " \t",
    "cntrl": "\x01-\x1f\x7f", "digit": "0-9", "graph": "!-~", "lower": "a-z", "print": " -~",
    "punct": "!-/:-@[-`{-~", "space": "\t\n\x0b\f\r ", "upper": "A-Z", "word": _WORD,
    "xdigit": "0-9A-Fa-f",
}
# Characters that are an operator somewhere: in or out of a class, or in ICU's sets (`&&`).
_OPERATORS = frozenset("\\^$.|?*+()[]{}-&")
_CONTROL_ESCAPES = {"\t": "\\t", "\n": "\\n", "\r": "\\r", "\f": "\\f"}
_SIMPLE_ESCAPES = {"t": "\t", "n": "\n", "r": "\r", "f": "\f", "v": "\x0b", "a": "\x07"}
_LEADING_FLAGS = re.compile(r"\(\?i\)")
_OCTAL = re.compile(r"\\[0-3][0-7]{2}")  # Python reads \123 as a character, \12 as group 12
_BACKREFERENCE = re.compile(r"\\[1-9][0-9]?")
_RE2_UNSUPPORTED = re.compile(r"\(\?[=!<>]|\\[1-9]|[*+?}]\+")
_NAMED_GROUP = re.compile(r"\(\?P<[A-Za-z_][A-Za-z0-9_]*>")
_WORD_CLASS = f"[{_WORD}]"
_BOUNDARY = f"(?:(?<={_WORD_CLASS})(?!{_WORD_CLASS})|(?<!{_WORD_CLASS})(?={_WORD_CLASS}))"
_NOT_BOUNDARY = f"(?:(?<={_WORD_CLASS})(?={_WORD_CLASS})|(?<!{_WORD_CLASS})(?!{_WORD_CLASS}))"
_ANCHORS: dict[Flavor, dict[str, str]] = {
    Flavor.RE2: {".": ".", "$": "$", "Z": "\\z", "b": "\\b", "B": "\\B"},
    Flavor.POSTGRES: {".": "[^\\n]", "$": "$", "Z": "\\Z", "b": "\\y", "B": "\\Y"},
    Flavor.ICU_PCRE: {".": "[^\\n]", "$": "\\z", "Z": "\\z", "b": _BOUNDARY, "B": _NOT_BOUNDARY},
}


def portable(pattern: str, flavor: Flavor) -> str:
    """The pattern spelled for `flavor` so that every engine matches the same texts.
    Raises NotPortable; call it only on a pattern that passed `pattern_problem`."""
    return _Speller(pattern, flavor).spell()


class _Speller:
    """One left-to-right pass. A leading `(?i)` becomes explicit ASCII case pairs (`[aA]`):
    engines fold non-ASCII letters differently (RE2 folds É/é, PostgreSQL under "C" does not)."""

    def __init__(self, pattern: str, flavor: Flavor) -> None:
        self.pattern = pattern
        self.flavor = flavor
        self.fold = _LEADING_FLAGS.match(pattern) is not None

    def spell(self) -> str:
        pattern = self.pattern
        out: list[str] = []
        index = 4 if self.fold else 0
        while index < len(pattern):
            char = pattern[index]
            if char == "\\":
                text, index = self._escape(index)
            elif char == "[":
                text, index = self._char_class(index)
            elif char == "(":
                text, index = _group_open(pattern, index)
            elif char == "{":
                text, index = _braces(pattern, index)
            elif char in ".$":
                text, index = _ANCHORS[self.flavor][char], index + 1
            elif char in "|*+?)^":
                text, index = char, index + 1
            else:
                text, index = self._literal(char), index + 1
            out.append(text)
        return "".join(out)

    def _literal(self, char: str) -> str:
        if self.fold and char.isascii() and char.isalpha():
            return f"[{char.lower()}{char.upper()}]"
        return _char_text(char, self.flavor)

    def _escape(self, index: int) -> tuple[str, int]:
        pattern = self.pattern
        letter = pattern[index + 1]
        if letter in "dws":
            return self._class_text(_ranges(_SHORTHANDS[letter]), negated=False), index + 2
        if letter in "DWS":
            return self._class_text(_ranges(_SHORTHANDS[letter.lower()]), negated=True), index + 2
        if letter in "bBZ":
            return _ANCHORS[self.flavor][letter], index + 2
        if letter == "A":
            return "\\A", index + 2
        if letter.isdigit() and letter != "0" and not _OCTAL.match(pattern, index):
            if self.fold:
                raise NotPortable("a backreference under (?i)")
            digits = _BACKREFERENCE.match(pattern, index)
            assert digits is not None
            return digits.group(), digits.end()  # each engine says whether it has them
        char, end = escaped_char(pattern, index)
        return self._literal(char), end

    def _char_class(self, index: int) -> tuple[str, int]:
        pattern = self.pattern
        index += 1
        negated = index < len(pattern) and pattern[index] == "^"
        index += 1 if negated else 0
        ranges: list[tuple[str, str]] = []
        first = True
        while index < len(pattern) and (pattern[index] != "]" or first):
            first = False
            char = pattern[index]
            if pattern.startswith("[:", index):
                close = pattern.find(":]", index + 2)
                name = pattern[index + 2:close] if close > 0 else ""
                if name not in _POSIX:
                    raise NotPortable(f"the POSIX class [:{name}:]")
                ranges += _ranges(_POSIX[name])
                index = close + 2
                continue
            if char == "\\" and pattern[index + 1] in "DWS":
                raise NotPortable("a negated shorthand (\\D, \\W, \\S) inside a character class")
            if char == "\\" and pattern[index + 1] in "dws":
                ranges += _ranges(_SHORTHANDS[pattern[index + 1]])
                index += 2
                continue
            if char == "\\":
                char, index = escaped_char(pattern, index)
            else:
                index += 1
            if (pattern.startswith("-", index) and index + 1 < len(pattern)
                    and pattern[index + 1] != "]"):
                high, index = (escaped_char(pattern, index + 1) if pattern[index + 1] == "\\"
                               else (pattern[index + 1], index + 2))
                ranges.append((char, high))
            else:
                ranges.append((char, char))
        return self._class_text(ranges, negated), index + 1

    def _class_text(self, ranges: list[tuple[str, str]], negated: bool) -> str:
        if self.fold:
            ranges = ranges + [pair for low, high in ranges for pair in _other_case(low, high)]
        members = "".join(
            _char_text(low, self.flavor) if low == high
            else f"{_char_text(low, self.flavor)}-{_char_text(high, self.flavor)}"
            for low, high in ranges
        )
        return f"[{'^' if negated else ''}{members}]"


def class_end(pattern: str, index: int) -> int:
    """The index after the character class that opens at `index` (Python's reading)."""
    index += 1
    if index < len(pattern) and pattern[index] == "^":
        index += 1
    if index < len(pattern) and pattern[index] == "]":
        index += 1
    while index < len(pattern) and pattern[index] != "]":
        if pattern.startswith("[:", index) and ":]" in pattern[index + 2:]:
            index = pattern.index(":]", index + 2) + 2
        else:
            index += 2 if pattern[index] == "\\" else 1
    return index + 1


def re2_refuses(pattern: str) -> bool:
    """RE2 (DuckDB, BigQuery) has no lookaround, backreferences or possessive quantifiers."""
    return _RE2_UNSUPPORTED.search(skeleton(pattern)) is not None


def skeleton(pattern: str) -> str:
    """The pattern's operators only: every escape but a backreference becomes `e` and every
    character class `c`, so that `\\++` or `[?=]` do not look like `++` or `(?=`."""
    out = []
    index = 0
    while index < len(pattern):
        char = pattern[index]
        if char == "\\":
            following = pattern[index + 1:index + 2]
            out.append("\\" + following if following.isdigit() and following != "0" else "e")
            index += 2
        elif char == "[":
            out.append("c")
            index = class_end(pattern, index)
        else:
            out.append(char)
            index += 1
    return "".join(out)


def _ranges(members: str) -> list[tuple[str, str]]:
    """`"0-9A-Z_"` as [("0", "9"), ("A", "Z"), ("_", "_")]."""
    ranges = []
    index = 0
    while index < len(members):
        if index + 2 < len(members) and members[index + 1] == "-":
            ranges.append((members[index], members[index + 2]))
            index += 3
        else:
            ranges.append((members[index], members[index]))
            index += 1
    return ranges


def _other_case(low: str, high: str) -> list[tuple[str, str]]:
    """The ASCII letters of low..high in their other case, as ranges."""
    found = []
    for first, last, shift in (("a", "z", -32), ("A", "Z", 32)):
        start, stop = max(ord(low), ord(first)), min(ord(high), ord(last))
        if start <= stop:
            found.append((chr(start + shift), chr(stop + shift)))
    return found


def escaped_char(pattern: str, index: int) -> tuple[str, int]:
    """The one character an escape stands for (`\\n`, `\\x41`, `\\u00e9`, `\\N{…}`, `\\0`, `\\.`)."""
    letter = pattern[index + 1]
    if letter in _SIMPLE_ESCAPES:
        return _SIMPLE_ESCAPES[letter], index + 2
    if letter == "b":  # inside a class: backspace
        return "\x08", index + 2
    widths = {"x": 2, "u": 4, "U": 8}
    if letter in widths:
        end = index + 2 + widths[letter]
        return chr(int(pattern[index + 2:end], 16)), end
    if letter == "N":
        import unicodedata

        close = pattern.index("}", index)
        return unicodedata.lookup(pattern[index + 3:close]), close + 1
    if letter in "01234567":  # octal; outside a class only `\0…` and three digits get here
        end = index + 2
        while end < len(pattern) and end < index + 4 and pattern[end] in "01234567":
            end += 1
        return chr(int(pattern[index + 1:end], 8)), end
    return letter, index + 2


def _char_text(char: str, flavor: Flavor) -> str:
    """One literal character, in a spelling every flavor reads the same in and out of classes."""
    if char in _OPERATORS:
        return "\\" + char  # RE2 refuses `\_` and the like, so only operators are escaped
    if char in _CONTROL_ESCAPES:
        return _CONTROL_ESCAPES[char]
    if char.isprintable():
        return char
    code = ord(char)
    if flavor is Flavor.POSTGRES:
        return f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}"
    return f"\\x{{{code:x}}}"


def _group_open(pattern: str, index: int) -> tuple[str, int]:
    named = _NAMED_GROUP.match(pattern, index)
    if named:
        return "(", named.end()  # a plain capturing group: backreference numbers stay
    if pattern.startswith("(?#", index):
        return "", pattern.index(")", index) + 1
    for opening in ("(?:", "(?=", "(?!", "(?<=", "(?<!", "(?>"):
        if pattern.startswith(opening, index):
            return opening, index + len(opening)
    if pattern.startswith("(?P=", index):
        raise NotPortable("named backreferences")
    if pattern.startswith("(?(", index):
        raise NotPortable("conditional groups")
    if pattern.startswith("(?", index):
        raise NotPortable("inline flags other than a leading (?i)")
    return "(", index + 1


def _braces(pattern: str, index: int) -> tuple[str, int]:
    braces = BRACES.match(pattern, index)
    if braces is None or not (braces.group(1) or braces.group(2) or braces.group(3)):
        return "\\{", index + 1
    low = braces.group(1) or "0"
    if not braces.group(2):
        return f"{{{low}}}", braces.end()
    return f"{{{low},{braces.group(3)}}}", braces.end()
