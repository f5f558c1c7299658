"""The parser for the Expressif subset packata-sql compiles (docs/expressif.md).

Hand-written recursive descent over the grammar of Seddryck/Expressif `Expressif/Parsers`
(Sprache): names are letters joined by `-`, unquoted literals end at a space, `,`, `|` or a
closing bracket, `!` negates the whole predication after it, `|AND`/`|OR`/`|XOR` combine left
to right, `{…}` groups. What the language has and this subset does not (arrays, records,
tuples, `#index`, `map` shorthands) is a syntax finding naming the construct.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from packata_sql.authored.expressif.errors import ExpressifError
from packata_sql.authored.expressif.names import Resolved, resolve
from packata_sql.authored.expressif.tree import (
    Argument,
    Call,
    Combination,
    Field,
    Interval,
    Literal,
    Negation,
    Pipeline,
    Predication,
    Rooted,
    Single,
    Variable,
)

_NAME = re.compile(r"[A-Za-z]+(?:-[A-Za-z]+)*")
_VARIABLE = re.compile(r"@\s*([A-Za-z][A-Za-z0-9]*)")
_BOUND = r"\s*(-INF|\+INF|[0-9.\-: ]+?)\s*"
_INTERVAL = re.compile(r"([\[\]])" + _BOUND + ";" + _BOUND + r"([\[\]])", re.IGNORECASE)
_ZERO_SHORT = re.compile(r"\(\s*(0?)\s*([+-])\s*\)")
_ZERO_LONG = re.compile(r"\(\s*(absolutely-)?(positive|negative)\s*\)", re.IGNORECASE)
_RELATIVE = re.compile(r"\(\s*([<>])(=?)\s*([0-9.\-: ]+?)\s*\)")
#: The language's value keywords, written where a literal goes.
_KEYWORD = re.compile(r"\((?:null|empty|blank)\)", re.IGNORECASE)
_COMBINATOR = re.compile(r"\|\s*(AND|OR|XOR)\b", re.IGNORECASE)
_OPENERS = set('"`@,([{') | set("| \t\r\n")
_CLOSERS = set('"`@,)]}') | set("| \t\r\n")


class _Parser:
    def __init__(self, source: str) -> None:
        self.source = source
        self.at = 0

    # -- characters -------------------------------------------------------------------------
    def fail(self, what: str, operation: str | None = None) -> ExpressifError:
        return ExpressifError("expressif-syntax", f"{what} at column {self.at + 1} of the program",
                              operation)

    def skip(self) -> None:
        while self.at < len(self.source) and self.source[self.at].isspace():
            self.at += 1

    def peek(self) -> str:
        self.skip()
        return self.source[self.at] if self.at < len(self.source) else ""

    def take(self, char: str) -> None:
        if self.peek() != char:
            found = repr(self.peek()) if self.peek() else "the end"
            raise self.fail(f"expected '{char}', found {found}")
        self.at += 1

    def match(self, pattern: re.Pattern[str]) -> re.Match[str] | None:
        self.skip()
        found = pattern.match(self.source, self.at)
        if found:
            self.at = found.end()
        return found

    def at_end(self) -> bool:
        return self.peek() == ""

    # -- operations -------------------------------------------------------------------------
    def call(self, expected: Resolved) -> Call:
        self.skip()
        column = self.at + 1
        if self.peek() == ".":
            self.at += 1
            shorthand = self.match(re.compile(r"[A-Za-z_][A-Za-z0-9_+\-]*"))
            if shorthand is None:
                raise self.fail("expected a field name after '.'")
            return Call("field", ".", "function", (Literal(shorthand.group(0)),), column)
        if self.peek() in "$#":
            raise self.fail(f"'{self.peek()}' (tuples and indexes) is outside the supported subset")
        written = self.match(_NAME)
        if written is None:
            raise self.fail("expected an operation name")
        name, kind = resolve(written.group(0), expected)
        arguments: tuple[Argument, ...] = ()
        if self.peek() == "(":
            arguments = self.arguments()
        return Call(name, written.group(0), kind, arguments, column)

    def arguments(self) -> tuple[Argument, ...]:
        self.take("(")
        found = [self.argument()]
        while self.peek() == ",":
            self.at += 1
            found.append(self.argument())
        self.take(")")
        return tuple(found)

    def argument(self) -> Argument:
        char = self.peek()
        if not char:
            raise self.fail("expected an argument, found the end")
        interval = self.interval()
        if interval is not None:
            return interval
        keyword = self.match(_KEYWORD)
        if keyword is not None:
            return Literal(keyword.group(0).lower())
        if char == "@":
            return self.variable()
        if char == "[":
            return self.field()
        if char == "{":
            return self.braced()
        if char in "\"`":
            return self.quoted()
        if char == "!":
            return self.predication()
        return self.literal()

    def variable(self) -> Variable:
        found = self.match(_VARIABLE)
        if found is None:
            raise self.fail("expected a variable name after '@'")
        return Variable(found.group(1))

    def field(self) -> Field:
        self.take("[")
        name = self.quoted().text if self.peek() in "\"`" else self.literal().text
        self.take("]")
        return Field(name)

    def interval(self) -> Interval | None:
        found = self.match(_INTERVAL)
        if found:
            lower, upper = found.group(2).strip(), found.group(3).strip()
            low = None if lower.upper() == "-INF" else lower
            high = None if upper.upper() == "+INF" else upper
            return Interval(low, low is not None and found.group(1) == "[",
                            high, high is not None and found.group(4) == "]")
        found = self.match(_ZERO_SHORT)
        if found:
            strict = found.group(1) == ""
            if found.group(2) == "+":
                return Interval("0", not strict, None, False)
            return Interval(None, False, "0", not strict)
        found = self.match(_ZERO_LONG)
        if found:
            strict = found.group(1) is not None
            if found.group(2).lower() == "positive":
                return Interval("0", not strict, None, False)
            return Interval(None, False, "0", not strict)
        found = self.match(_RELATIVE)
        if found:
            closed = found.group(2) == "="
            if found.group(1) == ">":
                return Interval(found.group(3).strip(), closed, None, False)
            return Interval(None, False, found.group(3).strip(), closed)
        return None

    def quoted(self) -> Literal:
        self.skip()
        quote = self.source[self.at]
        if quote == "`":
            end = self.source.find("`", self.at + 1)
            if end < 0:
                raise self.fail("unterminated `…` literal")
            text = self.source[self.at + 1:end]
            self.at = end + 1
            return Literal(text, quoted=True)
        found = re.compile(r'"((?:\\.|[^"\\])*)"').match(self.source, self.at)
        if found is None:
            raise self.fail('unterminated "…" literal')
        self.at = found.end()
        return Literal(re.sub(r"\\(.)", r"\1", found.group(1)), quoted=True)

    def literal(self) -> Literal:
        self.skip()
        start = self.at
        if self.at >= len(self.source) or self.source[self.at] in _OPENERS:
            raise self.fail("expected an argument")
        self.at += 1
        while self.at < len(self.source) and self.source[self.at] not in _CLOSERS:
            self.at += 1
        return Literal(self.source[start:self.at])

    def braced(self) -> Argument:
        """`{root | f | g}` (a sub-expression) or `{p |AND q}` (a grouped predication)."""
        start = self.at
        self.take("{")
        if self.peek() in ("@", "[", '"', "`") or self._literal_before_pipe():
            root = self.argument()
            self.take("|")
            members = self.members(Resolved.FUNCTION)
            self.take("}")
            return Pipeline(root, members)
        self.at = start
        return self.predication()

    def _literal_before_pipe(self) -> bool:
        """`{2024-01-01 | year}`: a literal root is a token followed by a plain `|`."""
        found = re.compile(r"[^\s{}|,()]+\s*\|(?!\s*(?:AND|OR|XOR)\b)", re.IGNORECASE).match(
            self.source, self.at)
        return found is not None

    def members(self, expected: Resolved) -> tuple[Call, ...]:
        found = [self.call(expected)]
        while self.peek() == "|" and not _COMBINATOR.match(self.source, self.at):
            self.at += 1
            if self.peek() == ">":
                raise self.fail("'|>' (map) is outside the supported subset")
            if self.peek() == "?":
                raise self.fail("'|?' may only follow the root of a row program")
            found.append(self.call(expected))
        return tuple(found)

    # -- predications -----------------------------------------------------------------------
    def predication(self) -> Predication:
        left = self.operand()
        while True:
            found = self.match(_COMBINATOR)
            if found is None:
                return left
            operator = found.group(1).lower()
            assert operator in ("and", "or", "xor")
            left = Combination(operator, left, self.operand())  # type: ignore[arg-type]

    def operand(self) -> Predication:
        char = self.peek()
        if char == "!":
            self.at += 1
            return Negation(self.predication())
        if char == "{":
            self.at += 1
            inner = self.predication()
            self.take("}")
            return inner
        return Single(self.call(Resolved.PREDICATE))


def parse_expression(source: str, *, accumulators: bool) -> Pipeline:
    parser = _Parser(source)
    root: Argument | None = None
    if parser.peek() in ("@", "["):
        root = parser.argument()
        parser.take("|")
    expected = Resolved.FUNCTION_OR_ACCUMULATOR if accumulators else Resolved.FUNCTION
    members = parser.members(expected)
    _end(parser)
    return Pipeline(root, members)


def parse_predicate(source: str) -> Predication | Rooted:
    parser = _Parser(source)
    if parser.peek() in ("@", "["):
        root = parser.argument()
        parser.take("|")
        parser.take("?")
        tested = Rooted(root, parser.predication())
        _end(parser)
        return tested
    predication = parser.predication()
    _end(parser)
    return predication


def _end(parser: _Parser) -> None:
    if not parser.at_end():
        raise parser.fail(f"unexpected {parser.peek()!r}")


def walk(node: object) -> Iterator[object]:
    """Every node under `node`, depth first, in source order."""
    yield node
    children: tuple[object, ...] = ()
    if isinstance(node, Call):
        children = node.arguments
    elif isinstance(node, Pipeline):
        children = ((node.root,) if node.root is not None else ()) + node.members
    elif isinstance(node, Single):
        children = (node.call,)
    elif isinstance(node, Negation):
        children = (node.member,)
    elif isinstance(node, Combination):
        children = (node.left, node.right)
    elif isinstance(node, Rooted):
        children = (node.root, node.predication)
    for child in children:
        yield from walk(child)
