"""dbt's macro calling, emulated with plain jinja2 (no dbt): each macro is its own template,
other macros are reached by name, and `return(x)` ends a macro with x, as in dbt."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import jinja2

_MACRO = re.compile(r"{% macro (\w+)\(.*?{% endmacro %}", re.S)


class _Return(Exception):
    def __init__(self, value: object) -> None:
        self.value = value


def _return(value: object) -> None:
    raise _Return(value)


def load_macros(source: str, names: set[str] | None = None) -> dict[str, Callable[..., Any]]:
    """The named macros of a dbt macro file as Python callables returning their return()."""
    env = jinja2.Environment(extensions=["jinja2.ext.do"], undefined=jinja2.StrictUndefined)
    env.globals.update({"return": _return, "modules": type("Modules", (), {"re": re})})
    macros: dict[str, Callable[..., Any]] = {}
    for match in _MACRO.finditer(source):
        name = match.group(1)
        if names is not None and name not in names:
            continue
        compiled = getattr(env.from_string(match.group(0)).module, name)

        def call(*args: object, _macro: Any = compiled, **kwargs: object) -> object:
            try:
                _macro(*args, **kwargs)
            except _Return as done:
                return done.value
            return None

        macros[name] = call
        env.globals[name] = call
    return macros
