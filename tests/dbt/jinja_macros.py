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


def load_macros(source: str, names: set[str] | None = None,
                context: dict[str, Any] | None = None) -> dict[str, Callable[..., Any]]:
    """The named macros of a dbt macro file as Python callables returning their return();
    `context`: what dbt would provide besides (`log`, `model`, `tojson`)."""
    env = jinja2.Environment(extensions=["jinja2.ext.do"], undefined=jinja2.StrictUndefined)
    env.globals.update({"return": _return, "modules": type("Modules", (), {"re": re})})
    env.globals.update(context or {})
    macros: dict[str, Callable[..., Any]] = {}
    chosen = [m for m in _MACRO.finditer(source) if names is None or m.group(1) in names]

    def by_name(name: str) -> Callable[..., Any]:
        return lambda *args, **kwargs: macros[name](*args, **kwargs)

    for match in chosen:  # reachable by name whatever order they are defined in
        env.globals[match.group(1)] = by_name(match.group(1))
    for match in chosen:
        name = match.group(1)
        compiled = getattr(env.from_string(match.group(0)).module, name)

        def call(*args: object, _macro: Any = compiled, **kwargs: object) -> object:
            try:
                _macro(*args, **kwargs)
            except _Return as done:
                return done.value
            return None

        macros[name] = call
    return macros
