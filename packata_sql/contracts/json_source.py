"""JSON documents (policies, schema baselines, dbt artifacts) read within a nesting bound.

`json.loads` recurses once per level: a document nested 100,000 deep ends in RecursionError,
and one nested a few hundred deep parses but breaks every recursive reader after it (the
policy's canonical hash, say). `loads` turns both into TooDeep, which names the line (or the
path) where the nesting goes too deep, so each caller can stop with a usage error.
"""

from __future__ import annotations

import json
import re
from typing import Any

from packata_sql.contracts.yaml_source import MAX_DEPTH

_TOKENS = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"|[\[\]{}]')
_SHOWN = 4  # path segments named before the rest is elided


class TooDeep(ValueError):
    """The document nests deeper than the bound; `line` or `where` says where."""

    def __init__(self, limit: int | None, line: int | None = None,
                 where: str | None = None) -> None:
        self.line = line
        self.where = where
        place = f" at {where}" if where else ""  # a line is named by the caller's error
        bound = f"deeper than {limit} levels" if limit else "deeper than a JSON reader follows"
        super().__init__(f"nested {bound}{place}")


def loads(text: str, *, max_depth: int | None = MAX_DEPTH, **options: Any) -> Any:
    """`json.loads`, raising TooDeep instead of RecursionError, and for a document nested
    deeper than `max_depth` (None: only where the parser itself gives up, for large
    artifacts whose every node would otherwise be walked once more)."""
    try:
        value = json.loads(text, **options)
    except RecursionError:  # the line where the nesting passes the bound leads to it
        raise TooDeep(max_depth, line=_deep_line(text, max_depth or MAX_DEPTH)) from None
    if max_depth is not None:
        where = _too_deep(value, max_depth)
        if where is not None:
            raise TooDeep(max_depth, where=where)
    return value


def _deep_line(text: str, limit: int) -> int | None:
    """The line where the nesting first passes `limit`, scanning only up to there."""
    depth = 0
    for token in _TOKENS.finditer(text):
        char = token.group()
        if char in "[{":
            depth += 1
            if depth > limit:
                return text.count("\n", 0, token.start()) + 1
        elif char in "]}":
            depth -= 1
    return None


def _too_deep(value: Any, limit: int) -> str | None:
    """The path of the first container nested deeper than `limit`, without recursion."""
    pending: list[tuple[Any, int, tuple[str | int, ...]]] = [(value, 1, ())]
    while pending:
        node, depth, path = pending.pop()
        if not isinstance(node, dict | list):
            continue
        if depth > limit:
            return _path_text(path)
        items = node.items() if isinstance(node, dict) else enumerate(node)
        pending.extend((child, depth + 1, (*path, key) if len(path) <= _SHOWN else path)
                       for key, child in items)
    return None


def _path_text(path: tuple[str | int, ...]) -> str:
    text = "$" + "".join(f"[{key}]" if isinstance(key, int) else f".{_printable(key)}"
                         for key in path[:_SHOWN])
    return text + ("…" if len(path) > _SHOWN else "")


def _printable(key: str) -> str:
    """A key as a message may show it: short, with no control characters."""
    return "".join(char if char.isprintable() else "?" for char in key[:40])
