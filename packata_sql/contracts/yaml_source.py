"""YAML with line numbers and exact numbers (YAML 1.2 core scalars, so `1e3` is a number).

PyYAML resolves plain scalars by YAML 1.1 rules (`1e3` is a string, `yes` is a boolean) and
builds floats; contracts need exact values and the line of every node for diagnostics, so we
read libyaml's event stream and build the values ourselves. Building from events, without
PyYAML's recursive node graph, also bounds what a hostile document can cost: no recursion, a
depth limit, aliases that expand to a bounded number of nodes and never into themselves,
bounded numbers and size. Every refusal is a SourceError naming the file and line.
"""

from __future__ import annotations

import copy
import re
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

import yaml

from packata_sql.errors import DeclarationError
from packata_sql.values import MAX_DIGITS, beyond_limits

MAX_BYTES = 32 * 2**20
MAX_DEPTH = 100  # an ODCS contract nests about ten levels
MAX_ALIAS_NODES = 10_000  # nodes copied through aliases (*name), for the whole document

_NULL = re.compile(r"^(?:~|null|Null|NULL|)$")
_TRUE = re.compile(r"^(?:true|True|TRUE)$")
_FALSE = re.compile(r"^(?:false|False|FALSE)$")
_INT = re.compile(r"^[-+]?[0-9]+$")
_OCT = re.compile(r"^0o[0-7]+$")
_HEX = re.compile(r"^0x[0-9a-fA-F]+$")
_FLOAT = re.compile(r"^[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?$")
_INF = re.compile(r"^[-+]?\.(?:inf|Inf|INF)$")
_NAN = re.compile(r"^\.(?:nan|NaN|NAN)$")
_SURROGATE = re.compile("[\ud800-\udfff]")

Path = tuple[str | int, ...]


class SourceError(DeclarationError):
    """The file cannot be read or parsed at all; carries the file and line for the user."""

    def __init__(self, path: str, message: str, line: int | None = None,
                 column: int | None = None, snippet: str = "") -> None:
        self.path = path
        self.line = line
        self.column = column
        where = f"{path}:{line}" if line else path
        where += f":{column}" if line and column else ""
        super().__init__(f"{where}: {message}" + (f"\n{snippet}" if snippet else ""))


@dataclass(frozen=True)
class Loaded:
    """A document's value plus the 1-based line of each node, keyed by its path of keys."""

    value: Any
    lines: dict[Path, int]

    def line(self, path: Path) -> int | None:
        return self.lines.get(path)


# libyaml's parser when PyYAML was built with it: ten times faster on large contracts.
_LOADER: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def load_yaml_file(path: str) -> Loaded:
    return load_yaml_text(read_source(path), path)


def read_source(path: str) -> str:
    """A declaration file's text, or a SourceError that says why it cannot be read."""
    try:
        with open(path, "rb") as stream:
            data = stream.read(MAX_BYTES + 1)  # bounded, and works on pipes (no size to stat)
    except FileNotFoundError:
        raise SourceError(path, "file not found") from None
    except IsADirectoryError:
        raise SourceError(path, "is a directory, not a file") from None
    except OSError as error:
        raise SourceError(path, f"cannot be read ({error.strerror})") from None
    if len(data) > MAX_BYTES:
        raise SourceError(path, f"larger than {MAX_BYTES // 2**20} MiB; split the contract")
    try:
        return data.decode("utf-8-sig")  # tolerate a byte-order mark
    except UnicodeDecodeError:
        raise SourceError(path, "not UTF-8 text") from None


def load_yaml_text(text: str, path: str) -> Loaded:
    if len(text) > MAX_BYTES:
        raise SourceError(path, f"larger than {MAX_BYTES // 2**20} MiB; split the contract")
    builder = _Builder(path)
    try:
        for event in yaml.parse(text, Loader=_LOADER):
            builder.feed(event)
    except yaml.YAMLError as error:
        raise _syntax_error(text, path, error) from None
    if builder.root is _NOTHING:
        raise SourceError(path, "the file is empty")
    return Loaded(builder.root, builder.lines)


def _syntax_error(text: str, path: str, error: yaml.YAMLError) -> SourceError:
    """libyaml's problem and line, and the character it names (PyYAML's own parser would name
    it too, but is quadratic on deep flow nesting)."""
    if not isinstance(error, yaml.MarkedYAMLError) or error.problem_mark is None:
        return SourceError(path, "not valid YAML")
    mark = error.problem_mark
    problem = error.problem or "syntax error"
    lines = text.splitlines()
    found = lines[mark.line][mark.column:mark.column + 1] if mark.line < len(lines) else ""
    if found and "character" in problem:
        problem += f": {found!r}" + (", YAML indents with spaces" if found == "\t" else "")
    return SourceError(path, f"not valid YAML ({problem})", mark.line + 1, mark.column + 1,
                       snippet(lines, mark.line, mark.column))


#: Characters of a long line shown either side of the caret (a minified JSON line is long).
_SNIPPET_REACH = 60


def snippet(lines: list[str], line: int, column: int) -> str:
    """The line before, the line (0-based `line`) and the line after, numbered, with a caret
    under `column`: where the parser stopped, as compilers show it. Tabs show as one space,
    so the caret stays under its character."""
    start = max(column - _SNIPPET_REACH, 0)
    width = len(str(min(line + 2, len(lines))))
    shown = []
    for number in range(max(line - 1, 0), min(line + 2, len(lines))):
        text = lines[number].replace("\t", " ")
        cut = text[start:start + 2 * _SNIPPET_REACH]
        cut = ("…" if start else "") + cut + ("…" if len(text) > start + 2 * _SNIPPET_REACH else "")
        shown.append(f"  {number + 1:>{width}} | {cut}".rstrip())
        if number == line:
            shown.append(f"  {'':>{width}} | {' ' * (column - start + (1 if start else 0))}^")
    if line >= len(lines):  # the end of the file
        shown.append(f"  {'':>{width}} | ^")
    return "\n".join(shown)


_NOTHING: Any = object()
_NO_KEY: Any = object()


@dataclass
class _Open:
    """A mapping or sequence whose end event has not come yet."""

    value: dict[str, Any] | list[Any]
    path: Path
    line: int
    anchor: str | None
    recorded: bool  # False inside a mapping key: keys have no line entry
    size: int = 1
    key: Any = field(default=_NO_KEY)  # a mapping's key waiting for its value


class _Builder:
    """Values from parser events, without recursion and within the limits above."""

    def __init__(self, file: str) -> None:
        self.file = file
        self.root: Any = _NOTHING
        self.lines: dict[Path, int] = {}
        self.stack: list[_Open] = []
        self.anchors: dict[str, tuple[Any, int]] = {}
        self.copied = 0
        self.documents = 0

    def feed(self, event: yaml.Event) -> None:
        line = event.start_mark.line + 1 if event.start_mark is not None else 0
        if isinstance(event, yaml.ScalarEvent):
            self._start(line)
            self._add(self._scalar(event, line), 1, event.anchor, line)
        elif isinstance(event, yaml.CollectionStartEvent):
            if len(self.stack) >= MAX_DEPTH:
                raise self._error(f"nested deeper than {MAX_DEPTH} levels", line)
            path, recorded = self._start(line)
            value: dict[str, Any] | list[Any] = (
                {} if isinstance(event, yaml.MappingStartEvent) else []
            )
            self.stack.append(_Open(value, path, line, event.anchor, recorded))
        elif isinstance(event, yaml.CollectionEndEvent):
            done = self.stack.pop()
            self._add(done.value, done.size, done.anchor, done.line)
        elif isinstance(event, yaml.AliasEvent):
            self._alias(str(event.anchor), line)
        elif isinstance(event, yaml.DocumentStartEvent):
            self.documents += 1
            if self.documents > 1:
                raise self._error("a second YAML document (---); a contract is one document",
                                  line)

    def _error(self, message: str, line: int) -> SourceError:
        return SourceError(self.file, message, line)

    def _start(self, line: int) -> tuple[Path, bool]:
        """The path of the node starting at `line`, recorded with its line unless it is a key."""
        if not self.stack:
            path: Path = ()
            recorded = True
        else:
            parent = self.stack[-1]
            recorded = parent.recorded
            if isinstance(parent.value, list):
                path = (*parent.path, len(parent.value))
            elif parent.key is _NO_KEY:
                path, recorded = (*parent.path, "<key>"), False
            else:
                path = (*parent.path, parent.key)
        if recorded:
            self.lines[path] = line
        return path, recorded

    def _add(self, value: Any, size: int, anchor: str | None, line: int) -> None:
        if anchor is not None:
            self.anchors[anchor] = (value, size)
        if not self.stack:
            self.root = value
            return
        parent = self.stack[-1]
        parent.size += size
        if isinstance(parent.value, list):
            parent.value.append(value)
        elif parent.key is _NO_KEY:
            key = value if isinstance(value, str) else str(value)
            if key in parent.value:
                raise self._error(f"duplicate key '{key}'", line)
            parent.key = key
        else:
            parent.value[parent.key] = value
            parent.key = _NO_KEY

    def _alias(self, anchor: str, line: int) -> None:
        """A copy of the anchored node; a document whose aliases copy more than
        MAX_ALIAS_NODES nodes (a "billion laughs" bomb) or point into themselves is refused."""
        if any(frame.anchor == anchor for frame in self.stack):
            raise self._error("an alias (*name) refers to a node that contains it", line)
        found = self.anchors.get(anchor)
        if found is None:
            raise self._error("an alias (*name) refers to no anchor (&name) defined before it",
                              line)
        value, size = found
        self.copied += size
        if self.copied > MAX_ALIAS_NODES:
            raise self._error(f"aliases (*name) expand to more than {MAX_ALIAS_NODES} nodes",
                              line)
        path, recorded = self._start(line)
        value = copy.deepcopy(value)
        if recorded:  # every node of the copy is reported at the alias's line
            pending: list[tuple[Path, Any]] = [(path, value)]
            while pending:
                where, node = pending.pop()
                self.lines[where] = line
                children = node.items() if isinstance(node, dict) else (
                    enumerate(node) if isinstance(node, list) else ())
                pending += [((*where, key), child) for key, child in children]
        self._add(value, size, None, line)

    def _scalar(self, event: yaml.ScalarEvent, line: int) -> Any:
        text = str(event.value)
        if event.style:  # quoted, literal or folded: always text (libyaml says "" for plain)
            if event.style == '"' and _SURROGATE.search(text):
                raise self._error("a \\u escape names half of a surrogate pair, not a character",
                                  line)
            return text
        too_long = len(text) > 2 * MAX_DIGITS and any(
            number.match(text) for number in (_INT, _OCT, _HEX, _FLOAT)
        )
        value = None if too_long else _plain_scalar(text)
        if too_long or (isinstance(value, int | Decimal) and beyond_limits(value)):
            raise self._error(f"a number with more than {MAX_DIGITS} digits or an exponent "
                              f"beyond ±{MAX_DIGITS}", line)
        return value


def _plain_scalar(text: str) -> Any:
    if _NULL.match(text):
        return None
    if _TRUE.match(text):
        return True
    if _FALSE.match(text):
        return False
    if _INT.match(text):
        return int(text)
    if _OCT.match(text):
        return int(text[2:], 8)
    if _HEX.match(text):
        return int(text[2:], 16)
    if _FLOAT.match(text):
        return Decimal(text)
    if _INF.match(text):
        return Decimal("-Infinity") if text.startswith("-") else Decimal("Infinity")
    if _NAN.match(text):
        return Decimal("NaN")
    return text
