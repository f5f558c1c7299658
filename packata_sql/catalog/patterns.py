"""Guards on `invalidValues.pattern` before any SQL exists (SEMANTICS 3.3)."""

from __future__ import annotations

import re
import warnings

from packata_sql.dialects.regex import BRACES, Flavor, NotPortable, class_end, portable

MAX_PATTERN_LENGTH = 200


def pattern_problem(pattern: str) -> str | None:
    """Why a pattern is refused on every engine, or None. Never echoes the pattern."""
    if len(pattern) > MAX_PATTERN_LENGTH:
        return f"the pattern is longer than {MAX_PATTERN_LENGTH} characters"
    problem = engine_problem(pattern)
    if problem is not None:
        return problem
    try:
        portable(pattern, Flavor.RE2)
    except NotPortable as construct:
        return f"engines read {construct} differently"
    return None


def engine_problem(pattern: str) -> str | None:
    """The guard of an engine that runs patterns in Python (SQLite): a pattern spelled by
    `portable` (longer than its source) or written in an authored SQL rule."""
    if len(pattern) > 8 * MAX_PATTERN_LENGTH:
        return "the pattern is too long"
    try:
        compile_quietly(pattern)
    except re.error:
        return "the pattern is not a valid regular expression"
    if catastrophic(pattern):
        return ("a repeated group contains a variable quantifier or alternation "
                "(catastrophic backtracking)")
    return None


def compile_quietly(pattern: str) -> re.Pattern[str]:
    """`re.compile` without the FutureWarning that `[[` draws (it would reach stderr)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return re.compile(pattern)


def catastrophic(pattern: str) -> bool:
    """A group repeated without bound whose body can itself match in several ways."""
    risky = [False]  # per open group: does its body hold a variable quantifier or `|`?
    index = 0
    while index < len(pattern):
        char = pattern[index]
        if char == "\\":
            index = _after_atom(pattern, index + 2, risky)
            continue
        if char == "[":
            index = _after_atom(pattern, class_end(pattern, index), risky)
            continue
        if char == "(":
            risky.append(False)
            index += 1
            continue
        if char == ")" and len(risky) > 1:
            inner = risky.pop()
            repeats, variable, end = _quantifier(pattern, index + 1)
            if repeats and inner:
                return True
            risky[-1] = risky[-1] or inner or variable
            index = end
            continue
        if char == "|":
            risky[-1] = True
            index += 1
            continue
        index = _after_atom(pattern, index + 1, risky)
    return False


def _after_atom(pattern: str, index: int, risky: list[bool]) -> int:
    _, variable, end = _quantifier(pattern, index)
    if variable:
        risky[-1] = True
    return end


def _quantifier(pattern: str, index: int) -> tuple[bool, bool, int]:
    """(repeats more than once, count is variable, index after it and its lazy/possessive mark)."""
    if index >= len(pattern):
        return False, False, index
    char = pattern[index]
    if char in "*+":
        repeats, variable, end = True, True, index + 1
    elif char == "?":
        repeats, variable, end = False, True, index + 1
    else:
        braces = BRACES.match(pattern, index)
        if braces is None or not (braces.group(1) or braces.group(3)):
            return False, False, index
        low = int(braces.group(1) or 0)
        high = None if braces.group(2) and not braces.group(3) else int(braces.group(3) or low)
        repeats = high is None or high > 1
        variable = high is None or high != low
        end = braces.end()
    if end < len(pattern) and pattern[end] in "?+":
        end += 1
    return repeats, variable, end
