"""The ODCS `implementation` of an `engine: expressif` rule: a JSON object (or its text)
naming the language version, the kind, the scope and the program."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass

from packata_sql.authored.expressif.errors import ExpressifError
from packata_sql.authored.expressif.tree import Kind, Scope

VERSIONS = ("1",)
KINDS: tuple[Kind, ...] = ("predicate", "expression")
SCOPES: tuple[Scope, ...] = ("value", "row", "dataset", "observation")
_KEYS = ("version", "kind", "scope", "program")


@dataclass(frozen=True)
class Payload:
    version: str
    kind: Kind
    scope: Scope
    program: str


def read_payload(implementation: str | Mapping[str, object]) -> Payload:
    """The payload, checked key by key; ExpressifError names the first thing wrong."""
    if isinstance(implementation, str):
        try:
            decoded = json.loads(implementation)
        except json.JSONDecodeError as error:
            raise ExpressifError(
                "expressif-payload",
                f"the implementation is not a JSON object ({error.msg} at column {error.colno}); "
                'write it as {"version":"1","kind":"predicate","scope":"value","program":"…"}',
            ) from None
    else:
        decoded = implementation
    if not isinstance(decoded, Mapping):
        raise ExpressifError("expressif-payload",
                             "the implementation must be a JSON object with the keys "
                             + ", ".join(_KEYS))
    unknown = sorted(str(key) for key in decoded if key not in _KEYS)
    if unknown:
        raise ExpressifError("expressif-payload",
                             f"unknown key {unknown[0]!r} in the implementation; the keys are "
                             + ", ".join(_KEYS))
    missing = [key for key in _KEYS if key not in decoded]
    if missing:
        raise ExpressifError("expressif-payload",
                             f"the implementation has no '{missing[0]}' (the keys are "
                             + ", ".join(_KEYS) + ")")
    for key in _KEYS:
        if not isinstance(decoded[key], str):
            raise ExpressifError("expressif-payload",
                                 f"'{key}' must be a string, not {type(decoded[key]).__name__}")
    version, kind, scope, program = (str(decoded[key]) for key in _KEYS)
    if version not in VERSIONS:
        raise ExpressifError("expressif-version",
                             f"Expressif payload version {version!r} is not supported; "
                             "write \"version\": \"1\"")
    if kind not in KINDS:
        raise ExpressifError("expressif-payload",
                             f"unknown kind {kind!r}; write 'predicate' or 'expression'")
    if scope not in SCOPES:
        raise ExpressifError("expressif-payload",
                             f"unknown scope {scope!r}; write one of " + ", ".join(SCOPES))
    if not program.strip():
        raise ExpressifError("expressif-payload", "the program is empty")
    return Payload(version, kind, scope, program)
