"""YAML with line numbers and exact numbers (YAML 1.2 core scalars, so `1e3` is a number).

PyYAML resolves plain scalars by YAML 1.1 rules (`1e3` is a string, `yes` is a boolean) and
builds floats; contracts need exact values and the line of every node for diagnostics, so we
compose the node graph and construct values ourselves.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path
from typing import Any

import yaml

_NULL = re.compile(r"^(?:~|null|Null|NULL|)$")
_TRUE = re.compile(r"^(?:true|True|TRUE)$")
_FALSE = re.compile(r"^(?:false|False|FALSE)$")
_INT = re.compile(r"^[-+]?[0-9]+$")
_OCT = re.compile(r"^0o[0-7]+$")
_HEX = re.compile(r"^0x[0-9a-fA-F]+$")
_FLOAT = re.compile(r"^[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?$")
_INF = re.compile(r"^[-+]?\.(?:inf|Inf|INF)$")
_NAN = re.compile(r"^\.(?:nan|NaN|NAN)$")


class SourceError(Exception):
    """The file cannot be read or parsed at all; carries the file and line for the user."""

    def __init__(self, path: str, message: str, line: int | None = None) -> None:
        self.path = path
        self.line = line
        where = f"{path}:{line}" if line else path
        super().__init__(f"{where}: {message}")


@dataclass(frozen=True)
class Loaded:
    """A document's value plus the 1-based line of each node, keyed by its path of keys."""

    value: Any
    lines: dict[tuple[str | int, ...], int]

    def line(self, path: tuple[str | int, ...]) -> int | None:
        return self.lines.get(path)


# libyaml's parser when PyYAML was built with it: ten times faster on large contracts.
_LOADER: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def load_yaml_file(path: str) -> Loaded:
    return load_yaml_text(read_source(path), path)


def read_source(path: str) -> str:
    """A declaration file's text, or a SourceError that says why it cannot be read."""
    try:
        return Path(path).read_text(encoding="utf-8-sig")  # tolerate a byte-order mark
    except FileNotFoundError:
        raise SourceError(path, "file not found") from None
    except IsADirectoryError:
        raise SourceError(path, "is a directory, not a file") from None
    except UnicodeDecodeError:
        raise SourceError(path, "not UTF-8 text") from None
    except OSError as error:
        raise SourceError(path, f"cannot be read ({error.strerror})") from None


def load_yaml_text(text: str, path: str) -> Loaded:
    try:
        node = yaml.compose(text, Loader=_LOADER)
    except yaml.YAMLError:
        node = _compose_for_message(text, path)
    if node is None:
        raise SourceError(path, "the file is empty")
    lines: dict[tuple[str | int, ...], int] = {}
    return Loaded(_construct(node, (), lines, path), lines)


def _compose_for_message(text: str, path: str) -> yaml.Node | None:
    """Parses again with PyYAML's own parser, whose messages name the offending character."""
    try:
        return yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.MarkedYAMLError as error:
        mark = error.problem_mark or error.context_mark
        line = mark.line + 1 if mark is not None else None
        raise SourceError(path, f"not valid YAML ({error.problem or 'syntax error'})", line) from None
    except yaml.YAMLError:
        raise SourceError(path, "not valid YAML") from None


def _construct(
    node: yaml.Node, path: tuple[str | int, ...], lines: dict[tuple[str | int, ...], int], file: str
) -> Any:
    lines[path] = node.start_mark.line + 1
    if isinstance(node, yaml.MappingNode):
        result: dict[str, Any] = {}
        for key_node, value_node in node.value:
            key = _construct(key_node, (*path, "<key>"), {}, file)
            if not isinstance(key, str):
                key = str(key)
            if key in result:
                raise SourceError(file, f"duplicate key '{key}'", key_node.start_mark.line + 1)
            result[key] = _construct(value_node, (*path, key), lines, file)
        return result
    if isinstance(node, yaml.SequenceNode):
        return [_construct(item, (*path, i), lines, file) for i, item in enumerate(node.value)]
    assert isinstance(node, yaml.ScalarNode)
    if node.style:  # quoted, literal or folded: always text (libyaml says "" for plain)
        return str(node.value)
    return _plain_scalar(str(node.value))


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
