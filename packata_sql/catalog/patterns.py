"""Guards on `invalidValues.pattern` before any SQL exists (docs/semantics.md 3.3).

`pattern_problem` applies on every engine (length, syntax, one meaning everywhere).
`backtracking_problem` applies only where the dialect's matcher backtracks (PCRE, ICU, Java,
Python `re`): there a loop whose iterations can split a text in more than one way makes the
matcher try exponentially many splits before it fails (MariaDB stops at PCRE's match limit and
answers "no match" with only a warning). RE2 and PostgreSQL's engine need no such guard.
"""

from __future__ import annotations

import functools
import re
import warnings
from dataclasses import dataclass

from packata_sql.dialects.regex import (
    BRACES,
    MAX_PATTERN_LENGTH,
    Flavor,
    NotPortable,
    class_end,
    escaped_char,
    portable,
)

_ESCAPE = re.compile(
    r"\\(?:x[0-9a-fA-F]{2}|u[0-9a-fA-F]{4}|U[0-9a-fA-F]{8}|N\{[^}]*\}|0[0-7]{0,2}"
    r"|[0-3][0-7]{2}|(?P<backref>[1-9][0-9]?)|.)",
    re.DOTALL,
)
_ZERO_WIDTH_ESCAPES = frozenset("bBAzZG")
_LOOKAROUND = ("(?=", "(?!", "(?<=", "(?<!")
_GROUP_OPENINGS = re.compile(r"\(\?(?::|>|P<\w+>|<\w+>|[aiLmsux]*(?:-[imsx]+)?:)|\(")
_FLAGS = re.compile(r"\(\?[aiLmsux]+\)")
_CODE_ESCAPE = re.compile(r"\\[xuUN0-7]")  # may stand for a non-ASCII character
_MAX_WIDTHS = 64
# Measured on MariaDB 10.11 (PCRE2): `^(a?){0,16}$` fails in ~10 ms, `^(a?){0,25}$` hits the
# match limit, and `(a?){0,16}$` unanchored takes ~40 s on 3,000 characters.
_EMPTY_ITERATIONS = 16  # beyond this many possible widths a node counts as unbounded


def pattern_problem(pattern: str) -> str | None:
    """Why a pattern is refused on every engine, or None. Never echoes the pattern."""
    if len(pattern) > MAX_PATTERN_LENGTH:
        return f"the pattern is longer than {MAX_PATTERN_LENGTH} characters"
    try:
        compile_quietly(pattern)
    except re.error:
        return "the pattern is not a valid regular expression"
    try:
        portable(pattern, Flavor.RE2)
    except NotPortable as construct:
        return f"engines read {construct} differently"
    return None


def backtracking_problem(pattern: str) -> str | None:
    """Why a backtracking matcher could take exponential or polynomial time on this (valid)
    pattern. Spark's Java matcher cannot be interrupted mid-match, so a pattern that passes
    here must fail any text in time linear in its length (per start position)."""
    if catastrophic(pattern):
        return ("a repeated group can match the same text in several ways "
                "(catastrophic backtracking on this engine's matcher)")
    if polynomial(pattern):
        return ("two unbounded repetitions can take turns at the same characters "
                "(polynomial backtracking on this engine's matcher; bound one, e.g. {1,64})")
    return None


def compile_quietly(pattern: str, flags: int = 0) -> re.Pattern[str]:
    """`re.compile` without the FutureWarning that `[[` draws (it would reach stderr)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return re.compile(pattern, flags)


@dataclass(frozen=True)
class _Node:
    """One atom of a parsed pattern with its quantifier. `atom` is the source of a
    one-character atom; a group has `branches`; `opaque` marks backreferences and the like,
    whose width is unknown."""

    atom: str | None = None
    branches: tuple[tuple[_Node, ...], ...] = ()
    low: int = 1
    high: int | None = 1
    zero_width: bool = False
    opaque: bool = False
    start: bool = False  # `^` or `\\A`

    @property
    def repeats(self) -> bool:
        return self.high is None or self.high > 1


def catastrophic(pattern: str) -> bool:
    """A group repeated more than once whose iterations can split some text in several ways
    (`(a+)+`, `(a|a)*`, `(a|aa)+`, `(.*a){12}`, `(\\w+\\s?)*`). Safe loops are those whose body
    is rigid (one width, one way: `([A-Z0-9]?){0,16}`, `(ab|cd)*`) or ends with a delimiter
    nothing before it can match (`([a-z0-9-]+\\.)+`)."""
    parser = _Parser(pattern)
    nodes = parser.sequence()
    while parser.index < len(pattern):  # a `)` without its `(` (authored SQL on SQLite)
        parser.index += 1
        nodes += parser.sequence()
    anchored = bool(nodes) and nodes[0].start and nodes[0].low == 1 and not parser.multiline
    return any(not _loop_safe(node, parser.fold, anchored) for node in _walk(nodes))


def _walk(nodes: tuple[_Node, ...]) -> list[_Node]:
    """Every group, at any depth (lookarounds included)."""
    found = []
    for node in nodes:
        if node.branches:
            found.append(node)
            for branch in node.branches:
                found += _walk(branch)
    return found


class _Parser:
    """A recursive-descent reading of the pattern (Python's syntax, already validated)."""

    def __init__(self, pattern: str) -> None:
        self.pattern = pattern
        self.index = 0
        self.fold = False
        self.multiline = False  # `^` then matches after every newline

    def sequence(self) -> tuple[_Node, ...]:
        """Branches up to the closing `)` or the end, as one node when there are several."""
        branches: list[tuple[_Node, ...]] = []
        current: list[_Node] = []
        pattern = self.pattern
        while self.index < len(pattern) and pattern[self.index] != ")":
            if pattern[self.index] == "|":
                branches.append(tuple(current))
                current = []
                self.index += 1
                continue
            node = self._atom()
            if node is not None:
                current.append(self._quantified(node))
        if not branches:
            return tuple(current)
        return (_Node(branches=(*branches, tuple(current))),)

    def _atom(self) -> _Node | None:
        pattern, index = self.pattern, self.index
        char = pattern[index]
        if char == "\\":
            escape = _ESCAPE.match(pattern, index)
            assert escape is not None
            self.index = escape.end()
            if escape.group("backref"):
                return _Node(opaque=True)
            if escape.group()[1] in _ZERO_WIDTH_ESCAPES:
                return _Node(zero_width=True, start=escape.group() == "\\A")
            return _Node(atom=escape.group())
        if char == "[":
            self.index = class_end(pattern, index)
            return _Node(atom=pattern[index:self.index])
        if char in "^$":
            self.index += 1
            return _Node(zero_width=True, start=char == "^")
        if char == "(":
            return self._group()
        self.index += 1
        return _Node(atom="." if char == "." else re.escape(char))

    def _group(self) -> _Node | None:
        pattern, index = self.pattern, self.index
        flags = _FLAGS.match(pattern, index)
        if flags:
            self.fold = self.fold or "i" in flags.group()
            self.multiline = self.multiline or "m" in flags.group()
            self.index = flags.end()
            return None
        if pattern.startswith("(?#", index):
            self.index = pattern.index(")", index) + 1
            return None
        if pattern.startswith("(?P=", index):
            self.index = pattern.index(")", index) + 1
            return _Node(opaque=True)
        if pattern.startswith("(?(", index):
            self.index = pattern.index(")", index) + 1
            body = self.sequence()
            self.index += 1
            return _Node(branches=(body,), opaque=True)
        if pattern.startswith(_LOOKAROUND, index):
            self.index = index + (4 if pattern.startswith(("(?<=", "(?<!"), index) else 3)
            body = self.sequence()
            self.index += 1
            return _Node(branches=(body,), zero_width=True)
        opening = _GROUP_OPENINGS.match(pattern, index)
        assert opening is not None
        self.index = opening.end()
        body = self.sequence()
        self.index += 1
        if len(body) == 1 and len(body[0].branches) > 1 and body[0].low == body[0].high == 1:
            return body[0]
        return _Node(branches=(body,))

    def _quantified(self, node: _Node) -> _Node:
        pattern, index = self.pattern, self.index
        if index >= len(pattern):
            return node
        char = pattern[index]
        if char in "*+?":
            low, high, end = (0 if char != "+" else 1), (1 if char == "?" else None), index + 1
        else:
            braces = BRACES.match(pattern, index)
            if braces is None or not (braces.group(1) or braces.group(3)):
                return node
            low = int(braces.group(1) or 0)
            high = None if braces.group(2) and not braces.group(3) else int(braces.group(3) or low)
            end = braces.end()
        if end < len(pattern) and pattern[end] in "?+":
            end += 1
        self.index = end
        return _Node(node.atom, node.branches, low, high, node.zero_width, node.opaque, node.start)


def _widths(node: _Node) -> frozenset[int] | None:
    """Every length of text the node can match, or None when unbounded or unknown."""
    if node.opaque:
        return None
    if node.zero_width:
        return frozenset({0})
    if node.atom is not None:
        base: frozenset[int] | None = frozenset({1})
    else:
        base = _union([_sequence_widths(branch) for branch in node.branches])
    if base is None or base == {0}:
        return base
    if node.high is None:
        return None
    total: frozenset[int] | None = frozenset({0})
    found: list[frozenset[int] | None] = [total] if node.low == 0 else []
    for count in range(1, node.high + 1):
        total = _sum(total, base)
        if total is None:
            return None
        if count >= node.low:
            found.append(total)
    return _union(found)


def _sum(left: frozenset[int] | None, right: frozenset[int] | None) -> frozenset[int] | None:
    if left is None or right is None:
        return None
    total = frozenset(a + b for a in left for b in right)
    return total if len(total) <= _MAX_WIDTHS else None


def _union(sets: list[frozenset[int] | None]) -> frozenset[int] | None:
    total: frozenset[int] = frozenset()
    for widths in sets:
        if widths is None:
            return None
        total |= widths
    return total if len(total) <= _MAX_WIDTHS else None


def _sequence_widths(nodes: tuple[_Node, ...]) -> frozenset[int] | None:
    total: frozenset[int] | None = frozenset({0})
    for node in nodes:
        total = _sum(total, _widths(node))
    return total


def _loop_safe(node: _Node, fold: bool, anchored: bool) -> bool:
    """A group that repeats at most once, or whose iterations split any text one way only:
    a rigid body (one width, one way to match it) or a body delimited by a character that
    nothing else in it can match, at its end or its start. A rigid body that can also match
    nothing lets the iterations take the text's characters in 2**count orders: that is
    accepted only for a few iterations tried from one position (`^([A-Z0-9]?){0,16}`)."""
    if not node.repeats or node.zero_width:
        return True
    if node.opaque:
        return False
    body = _Node(branches=node.branches)
    widths = _widths(body)
    if widths is not None and len(widths - {0}) <= 1 and _unique(body, fold):
        few = node.high is not None and node.high <= _EMPTY_ITERATIONS and anchored
        return 0 not in widths or few
    if len(node.branches) != 1 or not node.branches[0]:
        return False
    nodes = node.branches[0]
    return _delimits(nodes[-1], nodes[:-1], fold) or _delimits(nodes[0], nodes[1:], fold)


def _delimits(delimiter: _Node, rest: tuple[_Node, ...], fold: bool) -> bool:
    """Exactly one character that no other atom of the body can match, and the rest of the
    body matches each text between two delimiters one way only."""
    if delimiter.atom is None or delimiter.low != 1 or delimiter.high != 1:
        return False
    for node in _atoms(rest):
        if node.atom is None or not _disjoint(node.atom, delimiter.atom, fold):
            return False
    return _sequence_unique(rest, fold)


def _unique(node: _Node, fold: bool) -> bool:
    """The node matches any given text in at most one way."""
    if node.atom is not None or node.zero_width:
        return True
    if node.opaque or node.repeats:
        return False
    if len(node.branches) == 1:
        return _sequence_unique(node.branches[0], fold)
    return _exclusive(node.branches, fold)


def _sequence_unique(nodes: tuple[_Node, ...], fold: bool) -> bool:
    """Each node is unique and at most one has a variable width, so its width is fixed by
    the length of the text and every split is determined."""
    variable = 0
    for node in nodes:
        if not _unique(node, fold):
            return False
        widths = _widths(node)
        variable += widths is None or len(widths) > 1
    return variable <= 1


def _exclusive(branches: tuple[tuple[_Node, ...], ...], fold: bool) -> bool:
    """Alternatives of single characters, all of one width, no two able to match one text."""
    rows = []
    for branch in branches:
        if not all(n.atom is not None and n.low == n.high for n in branch):
            return False
        rows.append([n.atom for n in branch for _ in range(n.low) if n.atom is not None])
    if len({len(row) for row in rows}) != 1:
        return False
    return all(
        any(_disjoint(a, b, fold) for a, b in zip(first, second, strict=True))
        for position, first in enumerate(rows) for second in rows[position + 1:]
    )


def _atoms(nodes: tuple[_Node, ...]) -> list[_Node]:
    """Every node that consumes characters, at any depth (opaque ones included)."""
    found = []
    for node in nodes:
        if node.atom is not None or node.opaque:
            found.append(node)
        if not node.zero_width:
            for branch in node.branches:
                found += _atoms(branch)
    return found


def _disjoint(first: str, second: str, fold: bool) -> bool:
    """No character matches both atoms, on any engine (`portable` gives them one meaning)."""
    one, other = _literal(first), _literal(second)
    if one is not None:
        return _compiled(second, fold).fullmatch(one) is None
    if other is not None:
        return _compiled(first, fold).fullmatch(other) is None
    if _ascii_only(first) or _ascii_only(second):  # then any common member is ASCII
        return not _ascii_set(first, fold) & _ascii_set(second, fold)
    return False


def _literal(atom: str) -> str | None:
    """The one character a literal atom stands for (`a`, `\\.`), else None."""
    if len(atom) == 1 and atom != ".":
        return atom
    if len(atom) == 2 and atom[0] == "\\" and not atom[1].isalnum():
        return atom[1]
    return None


def _ascii_only(atom: str) -> bool:
    """A character or set whose members are all ASCII, whatever the engine."""
    return (atom.isascii() and atom != "." and not atom.startswith(("[^", "\\D", "\\W", "\\S"))
            and _CODE_ESCAPE.search(atom) is None)


def _ascii_set(atom: str, fold: bool) -> frozenset[int]:
    compiled = _compiled(atom, fold)
    return frozenset(code for code in range(128) if compiled.fullmatch(chr(code)))


def _compiled(atom: str, fold: bool) -> re.Pattern[str]:
    """One atom with the meaning `portable` gives it: ASCII classes, ASCII-only folding."""
    return compile_quietly(atom, re.ASCII | (re.IGNORECASE if fold else 0))


# Polynomial backtracking (`.*.*=`, `\w*\w*!`, `(\s*,\s*)+`): two unbounded repetitions that can
# both take a character c, with nothing between them that c cannot pass, split a run of c's in
# n ways; k of them in a row take about n**k steps before a failing text fails. For each
# character c the pattern's tree is folded into a `_Chain`: how many such repetitions a run of
# c's can pass through, whole, from the node's start, up to its end, and anywhere inside it.
_NESTED = 99  # an unbounded repetition of a body that itself repeats c without bound


@dataclass(frozen=True)
class _Chain:
    """For one character c: `full`, the unbounded c-repetitions a run of c's passes crossing
    the whole node (None: c's alone cannot cross it); `prefix` from its start and `suffix` to
    its end (a run that enters or leaves it); `inner`, the most anywhere inside; `consumes`,
    whether a non-empty run of c's can cross the whole node."""

    full: int | None
    prefix: int
    suffix: int
    inner: int
    consumes: bool


_PASS = _Chain(0, 0, 0, 0, False)


def polynomial(pattern: str) -> bool:
    """Two or more unbounded repetitions over one character in a row (in sequence, across
    optional parts and groups, or across iterations of a repeated group): a backtracking
    matcher then needs polynomial time to fail a long text. One such repetition is linear."""
    parser = _Parser(pattern)
    nodes = parser.sequence()
    while parser.index < len(pattern):
        parser.index += 1
        nodes += parser.sequence()
    return any(_sequence_chain(nodes, char, parser.fold).inner >= 2
               for char in _representatives(pattern))


def _representatives(pattern: str) -> list[str]:
    """One character for every class of characters that all atoms treat alike: every ASCII
    character, and each non-ASCII character the pattern names (literally or escaped) with
    the one after it, so that every range's ends start a class of their own."""
    found = {chr(code) for code in range(128)} | {"\x80"}
    named = [char for char in pattern if not char.isascii()]
    for escape in _ESCAPE.finditer(pattern):
        if escape.group()[1:2] in ("x", "u", "U", "N"):
            named.append(escaped_char(pattern, escape.start())[0])
    for char in named:
        found.add(char)
        if ord(char) < 0x10FFFF:
            found.add(chr(ord(char) + 1))
    return sorted(found)


def _sequence_chain(nodes: tuple[_Node, ...], char: str, fold: bool) -> _Chain:
    full: int | None = 0
    prefix = inner = 0
    run = 0  # the most repetitions a run of c's passes from somewhere before here to here
    consumes = False
    for node in nodes:
        chain = _chain(node, char, fold)
        inner = max(inner, chain.inner, run + chain.prefix)
        if full is not None:
            prefix = max(prefix, full + chain.prefix)
        run = max(chain.suffix, run + chain.full if chain.full is not None else 0)
        full = None if full is None or chain.full is None else full + chain.full
        consumes = consumes or chain.consumes
    return _Chain(full, prefix, run, max(inner, run), consumes and full is not None)


def _chain(node: _Node, char: str, fold: bool) -> _Chain:
    if node.zero_width or (node.opaque and not node.branches):
        if not node.branches:  # an anchor, or a backreference: it adds no way to split c's
            return _PASS
        inner = max(_sequence_chain(b, char, fold).inner for b in node.branches)
        return _Chain(0, 0, 0, inner, False)
    if node.high == 0:
        return _PASS
    if node.atom is not None:
        if not _matches(node.atom, char, fold):
            return _Chain(None if node.low else 0, 0, 0, 0, False)
        count = 1 if node.high is None else 0
        return _Chain(count, count, count, count, True)
    chains = [_sequence_chain(branch, char, fold) for branch in node.branches]
    crossing = [c.full for c in chains if c.full is not None]
    body = _Chain(max(crossing) if crossing else None, max(c.prefix for c in chains),
                  max(c.suffix for c in chains), max(c.inner for c in chains),
                  any(c.consumes for c in chains))
    skippable = 0 if node.low == 0 else None
    if node.high == 1:
        return body if node.low else _Chain(max(body.full or 0, 0), body.prefix, body.suffix,
                                             body.inner, body.consumes)
    if node.high is not None:  # a few iterations: a run may cross the middle ones whole
        if body.full is None:
            return _Chain(skippable, body.prefix, body.suffix,
                          max(body.inner, body.suffix + body.prefix), False)
        middle = (node.high - 2) * body.full
        return _Chain(node.high * body.full, body.prefix + (node.high - 1) * body.full,
                      body.suffix + (node.high - 1) * body.full,
                      max(body.inner, body.suffix + middle + body.prefix), body.consumes)
    if body.consumes and body.full:
        return _Chain(_NESTED, _NESTED, _NESTED, _NESTED, True)
    if body.consumes:  # the iterations themselves take c's: one more repetition
        return _Chain(1, 1 + body.prefix, body.suffix + 1,
                      max(body.inner, body.suffix + 1 + body.prefix), True)
    full = 0 if body.full is not None else skippable
    return _Chain(full, body.prefix, body.suffix, max(body.inner, body.suffix + body.prefix),
                  False)


@functools.lru_cache(maxsize=4096)
def _matches(atom: str, char: str, fold: bool) -> bool:
    """Whether the one-character atom matches `char`, with the meaning `portable` gives it."""
    return _compiled(atom, fold).fullmatch(char) is not None
